"""Bad input gets one clear line, the right exit code, and loses nothing."""

from __future__ import annotations

import threading
import time

from conftest import commit_count, commit_file

from vmem import model
from vmem.store.lock import StoreLock


def test_malformed_yaml_names_file_and_line_and_the_rest_is_still_listed(store, vmem):
    good = vmem.json("propose", "a good fact", store=store)["data"]["item"]
    commit_file(store, "claims/ab/c-ab0000000000.yaml", b"id: c-ab0000000000\nkind: claim\nstatement: [unclosed\n")
    result = vmem("list", "--json", store=store)
    assert "claims/ab/c-ab0000000000.yaml:4: malformed YAML" in result.stderr
    import json
    assert [i["id"] for i in json.loads(result.stdout)["data"]] == [good["id"]]
    check = vmem.json("check", code=1)["data"]
    assert check["errors"][0]["path"] == "claims/ab/c-ab0000000000.yaml"
    assert "malformed YAML" in check["errors"][0]["message"]
    shown = vmem("show", "c-ab0000000000", code=1)
    assert "claims/ab/c-ab0000000000.yaml:4: malformed YAML" in shown.stderr


def test_schema_errors_name_file_field_line_and_fix(store, vmem):
    text = (b"id: c-cd0000000000\nkind: claim\nstatement: fine\nstatus: proposed\n"
            b"created_at: 2026-11-01T00:00:00Z\nconfidence: 7\n")
    commit_file(store, "claims/cd/c-cd0000000000.yaml", text)
    error = vmem.json("check", code=1)["data"]["errors"][0]
    assert error["path"] == "claims/cd/c-cd0000000000.yaml"
    assert error["message"].startswith("line 6: field 'confidence': expected a number between 0 and 1")
    commit_file(store, "claims/cd/c-cd0000000000.yaml", text.replace(b"confidence: 7", b"colour: red"))
    assert "unknown field 'colour'" in vmem.json("check", code=1)["data"]["errors"][0]["message"]


def test_non_utf8_file_is_named(store, vmem):
    commit_file(store, "claims/ee/c-ee0000000000.yaml", b"id: c-ee0000000000\nstatement: caf\xe9\n")
    result = vmem("list", store=store)
    assert "claims/ee/c-ee0000000000.yaml:2: not UTF-8 (byte 0xe9)" in result.stderr


def test_unknown_and_hostile_ids(store, vmem):
    assert "no item c-123456789abc" in vmem("show", "c-123456789abc", code=1).stderr
    for hostile in ("../../etc/passwd", "c-../../x", "c-123456789abC", "k-123\n456789abc", "c-123456789abc/.."):
        result = vmem("show", hostile, code=2)
        assert "invalid item id" in result.stderr
    payload = vmem.json("show", "../x", code=2)
    assert set(payload) == {"schema_version", "error", "hint"} and "invalid item id" in payload["error"]


def test_missing_store(tmp_path, vmem):
    result = vmem("list", "--store", str(tmp_path / "nowhere"), code=1)
    assert result.stderr.startswith("error: no vmem store at") and "vmem init" in result.stderr
    assert "no vmem store here" in vmem("list", code=1).stderr  # cwd has none either


def test_locked_store_waits_then_fails_clearly(store, vmem):
    before = commit_count(store)
    with StoreLock(store.git_dir / "vmem.lock"):
        started = time.monotonic()
        result = vmem("propose", "a fact", code=1, env={"VMEM_LOCK_TIMEOUT": "0.4"})
        waited = time.monotonic() - started
    assert waited >= 0.4
    assert "store is locked by another vmem process" in result.stderr and "VMEM_LOCK_TIMEOUT" in result.stderr
    assert commit_count(store) == before


def test_lock_released_by_the_holder_lets_a_waiting_writer_through(store, vmem):
    lock = StoreLock(store.git_dir / "vmem.lock")
    lock.__enter__()
    threading.Timer(0.3, lock.__exit__, args=(None, None, None)).start()
    vmem("propose", "a fact", env={"VMEM_LOCK_TIMEOUT": "5"}, store=store)


def test_uncommitted_hand_edit_is_never_overwritten(store, vmem):
    item = vmem.json("propose", "a fact", store=store)["data"]["item"]
    path = store.root / model.item_path(item["id"])
    path.write_text(path.read_text().replace("a fact", "a hand-edited fact"))
    before = commit_count(store)
    result = vmem("supersede", item["id"], "newer fact", code=1)
    assert "has uncommitted changes" in result.stderr and "git -C" in result.stderr
    assert "a hand-edited fact" in path.read_text() and commit_count(store) == before
    assert any("not committed" in w["message"] for w in vmem.json("check")["data"]["warnings"])


def test_init_refuses_existing_store_and_non_empty_directory(store, tmp_path, vmem):
    assert "already a vmem store" in vmem("init", str(store.root), code=1).stderr
    other = tmp_path / "full"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert "is not empty" in vmem("init", str(other), code=1).stderr
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]

# -- input edges (SPEC 11): one clear line naming file, line and fix; exit 2 for usage; nothing written --------

def test_duplicate_key_in_an_item_names_both_lines_and_the_rest_is_served(store, vmem, tmp_path):
    import json

    good = vmem.json("propose", "a good fact", store=store)["data"]["item"]
    vmem("approve", good["id"], store=store)
    text = (store.root / model.item_path(good["id"])).read_text()  # the stable layout, one status line repeated
    forged = text.replace(good["id"], "c-dd0000000000").replace("a good fact", "a forged fact")
    lines = forged.splitlines(keepends=True)
    status = next(i for i, line in enumerate(lines) if line.startswith("status:"))
    lines.insert(status + 3, "status: mandatory\n")
    commit_file(store, "claims/dd/c-dd0000000000.yaml", "".join(lines).encode())
    expected = f"claims/dd/c-dd0000000000.yaml:{status + 4}: duplicate key 'status' (first at line {status + 1})"

    listed = vmem("list", "--json", store=store)
    assert expected in listed.stderr
    assert [i["id"] for i in json.loads(listed.stdout)["data"]] == [good["id"]]
    error = vmem.json("check", code=1)["data"]["errors"][0]
    assert error["path"] == "claims/dd/c-dd0000000000.yaml"
    assert error["message"].startswith(f"line {status + 4}: duplicate key 'status' (first at line {status + 1})")
    assert expected in vmem("show", "c-dd0000000000", code=1).stderr
    target = tmp_path / "rules"
    vmem("sync", "--dir", str(target))
    synced = "\n".join(p.read_text() for p in target.glob("*.md"))
    assert "a good fact" in synced and "a forged fact" not in synced


def test_duplicate_key_in_the_policy_fails_check_and_every_command_that_reads_it(store, vmem):
    policy = (store.root / "vmem.yaml").read_text()
    commit_file(store, "vmem.yaml", (policy + "reviewers: [mallory@example.com]\n").encode())
    first = next(i for i, line in enumerate(policy.splitlines(), 1) if line.startswith("reviewers:"))
    last = len(policy.splitlines()) + 1
    before = commit_count(store)
    error = vmem.json("check", code=1)["data"]["errors"][0]
    assert error == {"path": "vmem.yaml", "message": f"line {last}: duplicate key 'reviewers' (first at line {first})"}
    assert f"vmem.yaml:{last}: duplicate key 'reviewers'" in vmem("propose", "a fact", code=1).stderr
    assert commit_count(store) == before

