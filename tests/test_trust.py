"""Trust derived from history (SPEC 6, 11, 12): each attack a hostile teammate with a clone could try, refused
or reported. Every test reproduces the attack first, then checks what sync, recall, show and check make of it."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REVIEWER, commit_count, commit_file, git
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vmem import model

RITA = f"Rita <{REVIEWER[1]}>"  # the store's one reviewer
DARA = "Dara Reviewer <dara@example.com>"
CATS = ("-c", "industry:healthcare")


def _hand_commit(store, path: str, text: str, who: str = "Alice Analyst <alice@example.com>",
                 message: str = "hand edit") -> str:
    """A plain `git commit` of a hand-edited file, as WHO (committer and author)."""
    name, email = who[:-1].split(" <")
    (store.root / path).parent.mkdir(parents=True, exist_ok=True)
    (store.root / path).write_text(text)
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": email}
    subprocess.run(["git", "-C", str(store.root), "add", path], check=True, env=env)
    subprocess.run(["git", "-C", str(store.root), "commit", "-q", "-m", message], check=True, env=env)
    return git(store, "rev-parse", "HEAD").strip()


def _set_status(store, item_id: str, status: str, **kwargs) -> str:
    path = model.item_path(item_id)
    text = re.sub(r"(?m)^status: \S+$", f"status: {status}", (store.root / path).read_text())
    return _hand_commit(store, path, text, **kwargs)


def _policy(store, **changes) -> str:
    """vmem.yaml with top-level keys replaced (mappings merged one level deep)."""
    from vmem.store import codec

    raw = codec.load((store.root / "vmem.yaml").read_text(), "vmem.yaml")
    for key, value in changes.items():
        raw[key] = {**(raw.get(key) or {}), **value} if isinstance(value, dict) else value
    return codec.dump(raw, (store.root / "vmem.yaml").read_text())


def _synced(vmem, tmp_path) -> str:
    target = tmp_path / "project" / "rules"
    vmem("sync", "--dir", str(target))
    return "\n".join(p.read_text() for p in sorted(target.glob("*.md")))


def _recalled(vmem, query: str) -> list[str]:
    return [row["id"] for row in vmem.json("recall", query, "-k", "20")["data"]["results"]]


# -- 1. reviewer impersonation --------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["approve", "{claim}"], ["mandate", "{claim}"], ["revoke", "{claim}"], ["reject", "{claim}", "--reason", "no"],
    ["publish", "k-000000000000"], ["supersede", "{claim}", "new text"], ["verify", "{claim}"],
    ["forget", "--entity", "tidewell", "--reason", "r"], ["review", "--yes", "--action", "approve"],
])
def test_as_is_refused_on_every_governance_command(seeded, vmem, args):
    claim = vmem.json("propose", "orders lag placement by 3 days", store=seeded)["data"]["item"]["id"]
    before = commit_count(seeded)
    result = vmem(*[a.format(claim=claim) for a in args], "--as", RITA, code=2, store=seeded)
    assert "does not take --as" in result.stderr and "committer" in result.stderr
    assert commit_count(seeded) == before
    assert vmem.json("show", claim)["data"]["status"] == "proposed"


def test_the_reviewer_is_the_committer_not_the_author(seeded, vmem):
    """A non-reviewer who sets GIT_AUTHOR_* to a reviewer is still refused; the committer decides."""
    claim = vmem.json("propose", "refunds settle daily", store=seeded)["data"]["item"]["id"]
    env = {"GIT_AUTHOR_NAME": "Rita", "GIT_AUTHOR_EMAIL": REVIEWER[1]}
    assert "not a reviewer" in vmem("approve", claim, env=env, code=1, store=seeded).stderr
    vmem("approve", claim, who=RITA, store=seeded)
    assert git(seeded, "log", "-1", "--format=%ce").strip() == REVIEWER[1]
    assert vmem.json("check", "--governance")["data"]["errors"] == []


def test_one_person_cannot_pose_as_two_writers(seeded, vmem):
    for entity, alias in (("tidewell", "Fake One <fake1@example.com>"), ("corvane", "Fake Two <fake2@example.com>"),
                          ("larkspur-health", "Fake Three <fake3@example.com>")):
        data = vmem.json("propose", "Healthcare buyers ask for audit logs before security review.",
                         "--from", entity, *CATS, "--as", alias, store=seeded)["data"]
        commit = git(seeded, "log", "-1", "--format=%an <%ae>|%ce|%B")
        assert commit.startswith(alias) and "|alice@example.com|" in commit
        assert f"Vmem-On-Behalf-Of: {alias}" in commit
    item = data["item"]
    assert {e["writer"] for e in item["evidence"]} == {"alice@example.com"}
    vmem("consolidate", store=seeded)
    shown = vmem.json("show", item["id"])["data"]
    assert shown["status"] == "candidate" and "1 distinct writer" in shown["gate"]["reason"]


# -- 2. hand-edited statuses ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["approved", "mandatory"])
def test_hand_set_claim_status_is_not_served_and_is_reported(seeded, vmem, tmp_path, status):
    claim = vmem.json("propose", "invoices are issued in UTC", store=seeded)["data"]["item"]["id"]
    forged = _set_status(seeded, claim, status)  # sed + plain git commit by a non-reviewer
    assert "invoices are issued in UTC" not in _synced(vmem, tmp_path)
    assert claim not in _recalled(vmem, "invoices are issued in UTC")
    computed = vmem.json("show", claim)["data"]["computed"]
    assert computed["live"] is False and computed["attested_status"] == "proposed"
    assert computed["unattested"] == {"status": status, "commit": forged}
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert [e["path"] for e in errors] == [model.item_path(claim)]
    assert forged[:10] in errors[0]["message"] and f"status {status} is not attested" in errors[0]["message"]
    # vmem will not act on it either, and says how to restore it
    refused = vmem("revoke", claim, who=RITA, code=1, store=seeded)
    assert "history attests proposed" in refused.stderr and f"git revert {forged[:10]}" in refused.stderr
    assert claim not in [e["id"] for e in vmem.json("review", "--list")["data"]]


def test_a_forged_trailer_by_a_non_reviewer_grants_nothing(seeded, vmem, tmp_path):
    claim = vmem.json("propose", "the warehouse bills per scanned byte", store=seeded)["data"]["item"]["id"]
    _set_status(seeded, claim, "approved", message=f"vmem: approve {claim}: x\n\nVmem-Action: approve\n"
                                                   f"Vmem-Item: {claim}\n")
    assert "scanned byte" not in _synced(vmem, tmp_path)
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert any(e["path"].startswith("commit ") and "approve committed by alice@example.com" in e["message"]
               for e in errors)


def test_hand_published_knowledge_that_names_a_customer_is_never_served(seeded, vmem, tmp_path):
    data = vmem.json("propose", "Tidewell Logistics asks for audit logs before security review.",
                     "--from", "tidewell", *CATS, store=seeded)["data"]
    assert data["action"] == "quarantined"
    item_id = data["item"]["id"]
    path = model.item_path(item_id)
    text = (seeded.root / path).read_text().replace("status: quarantined", "status: published")
    _hand_commit(seeded, path, text + "audience: all\n" if "\naudience:" not in text else text)
    assert "Tidewell" not in _synced(vmem, tmp_path)
    assert item_id not in _recalled(vmem, "audit logs before security review")
    assert vmem.json("show", item_id)["data"]["computed"]["live"] is False
    assert model.item_path(item_id) in [e["path"] for e in vmem.json("check", "--governance", code=1)["data"]
                                        ["errors"]]


def test_a_reviewers_approval_survives_a_hand_revocation_and_a_hand_restore(seeded, vmem, tmp_path):
    """Serve the attested status both ways: a non-reviewer can neither grant nor withdraw."""
    claim = vmem.json("propose", "churn is counted at contract end", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    _set_status(seeded, claim, "revoked")
    assert "churn is counted at contract end" in _synced(vmem, tmp_path)
    _set_status(seeded, claim, "approved")  # back as it was: attested again, nothing to report
    assert vmem.json("check", "--governance")["data"]["errors"] == []


def test_a_reviewer_added_by_a_non_reviewer_is_not_a_reviewer(seeded, vmem, tmp_path):
    grown = _policy(seeded, reviewers=[REVIEWER[1], "alice@example.com"])
    _hand_commit(seeded, "vmem.yaml", grown)
    claim = vmem.json("propose", "seats are counted monthly", store=seeded)["data"]["item"]["id"]
    assert "not a reviewer" in vmem("approve", claim, code=1, store=seeded).stderr  # alice, self-added
    # she bypasses vmem's courtesy check with her own vmem commit: history still says no
    with seeded.transaction("approve", items=[claim]) as tx:
        item = tx.snapshot.item(claim)
        item["status"] = "approved"
        tx.write(item)
    assert "seats are counted monthly" not in _synced(vmem, tmp_path)
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert {"vmem.yaml", model.item_path(claim)} <= {e["path"] for e in errors}
    # the same change committed by a reviewer counts
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, reviewers=[REVIEWER[1], "dara@example.com"]), who=RITA)
    other = vmem.json("propose", "refund lag is one day", store=seeded)["data"]["item"]["id"]
    vmem("approve", other, who=DARA, store=seeded)
    assert "refund lag is one day" in _synced(vmem, tmp_path)


# -- 3. the lexicon fails closed -------------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["unknown field", "non-UTF-8", "symlink", "renamed .yml"])
def test_a_broken_entity_file_quarantines_instead_of_dropping_the_customer(seeded, vmem, damage):
    path = "entities/tidewell.yaml"
    original = (seeded.root / path).read_bytes()
    if damage == "unknown field":
        commit_file(seeded, path, original + b"notes: our biggest logo\n")
    elif damage == "non-UTF-8":
        commit_file(seeded, path, original + b"# \xff\n")
    elif damage == "symlink":
        (seeded.root / path).unlink()
        os.symlink("corvane.yaml", seeded.root / path)
        git(seeded, "add", path)
        git(seeded, "commit", "-q", "-m", "link")
    else:
        git(seeded, "mv", path, "entities/tidewell.yml")
        git(seeded, "commit", "-q", "-m", "rename")
    name = path if damage != "renamed .yml" else "entities/tidewell.yml"
    data = vmem.json("propose", "Healthcare buyers ask for audit logs before security review.",
                     "--from", "corvane", *CATS, store=seeded)["data"]
    assert data["action"] == "quarantined"
    assert f"lexicon incomplete: {name}" in data["item"]["gate"]["reason"]
    errors = vmem.json("check", code=1)["data"]["errors"]
    assert name in [e["path"] for e in errors]


def test_knowledge_published_after_the_lexicon_broke_is_held_back_until_it_is_fixed(seeded, vmem, tmp_path):
    ids = {}
    for key, statement in (("before", "Healthcare buyers ask for audit logs before security review."),
                           ("after", "Healthcare buyers want SSO before the pilot starts.")):
        for entity, writer in (("tidewell", "Bob <bob@example.com>"), ("corvane", "Chen <chen@example.com>"),
                               ("larkspur-health", "Bob <bob@example.com>")):
            ids[key] = vmem.json("propose", statement, "--from", entity, *CATS, who=writer,
                                 store=seeded)["data"]["item"]["id"]
    assert set(vmem.json("consolidate", store=seeded)["data"]["eligible"]) == set(ids.values())
    vmem("publish", ids["before"], who=RITA, store=seeded)
    assert "audit logs" in _synced(vmem, tmp_path)
    original = (seeded.root / "entities/tidewell.yaml").read_bytes()
    commit_file(seeded, "entities/tidewell.yaml", original + b"notes: our biggest logo\n")  # the lexicon breaks
    refused = vmem("publish", ids["after"], who=RITA, code=1, store=seeded)
    assert "lexicon incomplete: entities/tidewell.yaml" in refused.stderr
    # published anyway by a reviewer's commit that skipped the gate (another clone, an older vmem)
    with seeded.acting_as(RITA), seeded.transaction("publish", items=[ids["after"]]) as tx:
        forged = tx.snapshot.item(ids["after"])
        forged.update(status="published", audience="all", published={"by": REVIEWER[1], "at": model.now()})
        tx.write(forged)
    text = _synced(vmem, tmp_path)
    assert "audit logs" in text and "SSO before the pilot" not in text  # published before the break: served
    assert ids["after"] not in _recalled(vmem, "SSO before the pilot starts")
    assert ids["before"] in _recalled(vmem, "audit logs before security review")
    assert vmem.json("show", ids["after"])["data"]["computed"]["live"] is False
    commit_file(seeded, "entities/tidewell.yaml", original)  # fixed
    assert "SSO before the pilot" in _synced(vmem, tmp_path)
    assert ids["after"] in _recalled(vmem, "SSO before the pilot starts")


# -- 4. the store and the project are confined -----------------------------------------------------------------


def test_a_committed_shard_symlink_is_never_written_through(store, vmem, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for n in range(256):
        os.symlink(outside, store.root / "claims" / f"{n:02x}")
    git(store, "add", "claims")
    git(store, "commit", "-q", "-m", "shard links")
    before = commit_count(store)
    result = vmem("propose", "a fact", code=1)
    assert "is a symlink" in result.stderr and "never writes through" in result.stderr
    assert list(outside.iterdir()) == [] and commit_count(store) == before


def test_a_symlinked_policy_file_is_refused(store, vmem, tmp_path):
    secret = tmp_path / "elsewhere.yaml"
    secret.write_text((store.root / "vmem.yaml").read_text())
    (store.root / "vmem.yaml").unlink()
    os.symlink(secret, store.root / "vmem.yaml")
    git(store, "add", "vmem.yaml")
    git(store, "commit", "-q", "-m", "link the policy")
    result = vmem("list", code=1)
    assert "vmem.yaml" in result.stderr and "symlink" in result.stderr


def test_sync_dir_in_the_shared_policy_cannot_leave_the_project(seeded, vmem, tmp_path, monkeypatch):
    # even a reviewer's own commit (an unattested one is ignored whole: see test_trust_clones)
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, sync={"dir": "../../escaped"}), who=RITA)
    project = tmp_path / "a" / "b" / "project"
    project.mkdir(parents=True)
    monkeypatch.chdir(project)
    result = vmem("sync", code=2)
    assert "points outside this project" in result.stderr
    assert not (tmp_path / "a" / "escaped").exists()


@pytest.mark.parametrize("obstacle", ["fifo", "directory", "symlink"])
def test_sync_never_writes_through_and_never_hangs_on_what_is_in_its_way(seeded, vmem, tmp_path, obstacle):
    claim = vmem.json("propose", "orders lag by a day", store=seeded)["data"]["item"]["id"]
    vmem("mandate", claim, who=RITA, store=seeded)
    target = tmp_path / "rules"
    first = vmem.json("sync", "--dir", str(target))["data"]
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    other = vmem.json("propose", "refunds settle daily", store=seeded)["data"]["item"]["id"]
    vmem("approve", other, who=RITA, store=seeded)
    victim = target / "km_approved.md"
    assert not victim.exists() and len(first["written"]) == 1
    decoy = tmp_path / "decoy.txt"
    decoy.write_text("keep me")
    if obstacle == "fifo":
        os.mkfifo(victim)
    elif obstacle == "directory":
        victim.mkdir()
    else:
        os.symlink(decoy, victim)
    result = vmem("sync", "--dir", str(target), code=2)
    assert str(victim) in result.stderr and "never writes through" in result.stderr
    assert decoy.read_text() == "keep me"
    assert {p.name: p.read_bytes() for p in target.iterdir() if p.name != victim.name} == before


def test_sync_json_into_a_closed_pipe_exits_quietly(seeded, tmp_path):
    import sys

    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "VMEM_STORE": str(seeded.root)}
    done = subprocess.run([sys.executable, "-m", "vmem", "sync", "--json", "--dir", str(tmp_path / "r")],
                          stdout=write, stderr=subprocess.PIPE, env=env, timeout=60)
    os.close(write)
    assert done.returncode == 0 and b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr


def test_sync_scope_must_name_an_entity(seeded, vmem, tmp_path):
    result = vmem("sync", "--dir", str(tmp_path / "r"), "--scope", "entity:nope", code=1)
    assert "no entity 'nope'" in result.stderr


# -- 5. property: random hand edits never make an item servable that history does not attest ----------------


SERVABLE = ("approved", "mandatory", "published")


@st.composite
def histories(draw):
    n = draw(st.integers(2, 6))
    kinds = [draw(st.sampled_from(["claim", "knowledge"])) for _ in range(n)]
    initial = [draw(st.sampled_from(model.CLAIM_STATUSES if k == "claim" else model.KNOWLEDGE_STATUSES))
               for k in kinds]
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        item = draw(st.integers(0, n - 1))
        kind = kinds[item]
        how = draw(st.sampled_from(["plain", "forged", "reviewer-plain", "govern", "edit", "delete",
                                    "reviewer-delete", "rename"]))
        status = draw(st.sampled_from(model.CLAIM_STATUSES if kind == "claim" else model.KNOWLEDGE_STATUSES))
        steps.append((item, how, status))
    return kinds, initial, steps


# VMEM_PROP_EXAMPLES=80 for a deeper search than CI's
@pytest.mark.slow
@settings(max_examples=int(os.environ.get("VMEM_PROP_EXAMPLES", 12)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
@example(history=(["claim", "claim"], ["proposed", "proposed"], [(0, "forged", "superseded")]))  # found here
@example(history=(["claim", "knowledge", "claim"], ["proposed", "eligible", "proposed"],
                  [(1, "plain", "candidate"), (1, "edit", "candidate")]))  # found in CI, 2026-12-04
@example(history=(["knowledge", "claim"], ["candidate", "proposed"], [(0, "forged", "quarantined")]))
@example(history=(["knowledge", "claim"], ["eligible", "approved"], [(0, "edit", "published"), (1, "delete", "x"),
                                                                     (0, "forged", "published")]))
@example(history=(["claim", "knowledge"], ["approved", "published"], [(0, "rename", "x"), (1, "edit", "x"),
                                                                      (0, "reviewer-delete", "x")]))
def test_hand_edits_in_random_commits_never_make_anything_servable(tmp_path_factory, history):
    """The oracle tracks the status each item holds by a legitimate path only (a reviewer's import, vmem's own
    governance commands run by the reviewer) and the words it was reviewed with; sync, recall and show must serve
    exactly that, whatever hand edits of status or statement, forged trailers, deletions and renames by a teammate,
    or a reviewer's plain commits did to the files in between (SPEC 12: served = attested)."""
    import pygit2

    from conftest import Vmem
    from vmem.errors import VmemError
    from vmem.ops.govern import set_status
    from vmem.ops.init import init_store
    from vmem.ops.sync import sync

    kinds, initial, steps = history
    root = tmp_path_factory.mktemp("attest")
    path = root / "store"
    config = pygit2.init_repository(str(path), initial_head="main").config
    config["user.name"], config["user.email"] = "Alice Analyst", "alice@example.com"
    store = init_store(path, solo=True)  # the import below names the reviewers
    with store.acting_as(RITA), store.transaction("import", summary="reviewers") as tx:
        from vmem.store import codec

        raw = codec.load((path / "vmem.yaml").read_text(), "vmem.yaml")
        raw["reviewers"] = [REVIEWER[1]]
        tx.write_file("vmem.yaml", raw)
    now = model.now()
    items = []
    for n, (kind, status) in enumerate(zip(kinds, initial)):
        text = f"fact number {n} about orders"
        if kind == "claim":
            items.append(model.normalize_item({"id": model.new_id("claim"), "kind": "claim", "statement": text,
                                               "status": status, "created_at": now,
                                               "expires_at": "2099-01-01T00:00:00Z"}))
        else:
            items.append(model.normalize_item({
                "id": model.new_id("knowledge"), "kind": "knowledge", "statement": text, "canonical": text,
                "status": status, "first_seen": now, "last_reinforced": now, "audience": "all",
                "evidence": [{"entity": e, "writer": "w@e.com", "at": now} for e in ("a", "b", "c")]}))
    store._policy = None
    with store.acting_as(RITA), store.transaction("import", summary="a reviewer's import") as tx:
        for item in items:
            tx.write(item)
    legit = list(initial)
    words = [item["statement"] for item in items]  # what each item says as it was last reviewed
    for index, how, status in steps:
        item_id = items[index]["id"]
        file = path / model.item_path(item_id)
        if not file.exists():
            continue  # deleted or moved away: later steps on it change nothing
        if how in ("delete", "reviewer-delete", "rename"):
            who = RITA if how == "reviewer-delete" else "Alice Analyst <alice@example.com>"
            name, email = who[:-1].split(" <")
            env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
                   "GIT_COMMITTER_EMAIL": email}
            if how == "rename":  # out of the item folders: git sees a deletion there
                subprocess.run(["git", "-C", str(path), "mv", model.item_path(item_id), f"episodes/{item_id}.yaml"],
                               check=True, env=env)
            else:
                subprocess.run(["git", "-C", str(path), "rm", "-q", model.item_path(item_id)], check=True, env=env)
            subprocess.run(["git", "-C", str(path), "commit", "-q", "-m", "tidy"], check=True, env=env)
            if how == "reviewer-delete":
                legit[index] = None  # a reviewer's own removal is the reviewer's act
            continue
        if how == "edit":
            text = file.read_text().replace(f"fact number {index} about orders", f"edited fact {index} on refunds")
            if text != file.read_text():
                _hand_commit(store, model.item_path(item_id), text)
                if legit[index] == "eligible":
                    legit[index] = "candidate"  # counted for other words: a candidate again
            continue
        if how == "govern" and kinds[index] == "claim" and status in ("approved", "mandatory", "revoked"):
            try:
                with store.acting_as(RITA):
                    set_status(store, item_id, status)
                legit[index] = status
                words[index] = re.search(r"(?m)^statement: (.*)$", file.read_text()).group(1)
            except VmemError:
                pass  # illegal transition or an unattested file: refused, nothing written
            continue
        text = re.sub(r"(?m)^status: \S+$", f"status: {status}", file.read_text())
        if text == file.read_text():
            continue
        who = RITA if how == "reviewer-plain" else "Alice Analyst <alice@example.com>"
        message = (f"vmem: approve {item_id}\n\nVmem-Action: approve\nVmem-Item: {item_id}\n" if how == "forged"
                   else "hand edit")
        _hand_commit(store, model.item_path(item_id), text, who=who, message=message)
    expected = {items[n]["id"] for n, s in enumerate(legit) if s in SERVABLE}
    result, _ = sync(path, target=root / "rules")
    assert set(result.items) == expected
    rules = "\n".join(p.read_text() for p in (root / "rules").rglob("*.md"))
    for n, item in enumerate(items):
        if item["id"] in expected:
            assert words[n] in rules, (words[n], rules)
        for said in {f"fact number {n} about orders", f"edited fact {n} on refunds"} - {words[n]}:
            assert said not in rules
    vmem = Vmem()
    os.environ["VMEM_STORE"] = str(path)
    try:
        served = {row["id"] for row in vmem.json("recall", "fact number about orders", "-k", "50")["data"]
                  ["results"]}
        assert served == expected
        for n, item in enumerate(items):
            if (path / model.item_path(item["id"])).exists():
                computed = vmem.json("show", item["id"])["data"]["computed"]
                assert computed["attested_status"] == legit[n]
    finally:
        del os.environ["VMEM_STORE"]


def test_a_hanging_git_pull_is_ended_with_its_children_and_sync_goes_on(seeded, tmp_path):
    """sync --pull behind a remote that never answers: a warning after the timeout, nothing left running."""
    import shutil
    import sys

    real = shutil.which("git")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pids = tmp_path / "pids"
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = pull ] && {{ sleep 120 & echo $! >> {pids}; "
                    f"echo $$ >> {pids}; sleep 120; }}; done\nexec {real} \"$@\"\n")
    fake.chmod(0o755)
    env = {**os.environ, "VMEM_STORE": str(seeded.root), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    started = __import__("time").monotonic()
    done = subprocess.run([sys.executable, "-m", "vmem", "sync", "--pull", "--dir", str(tmp_path / "r")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "took longer than 5s" in done.stderr and "synced into" in done.stdout
    assert __import__("time").monotonic() - started < 30
    for pid in map(int, pids.read_text().split()):
        try:
            os.kill(pid, 0)
            alive = not Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
        except ProcessLookupError:
            alive = False
        assert not alive, f"pid {pid} still running"


def test_with_require_signed_vmem_signs_and_only_verified_reviewer_commits_count(seeded, vmem, tmp_path, gnupg):
    key = gnupg(RITA)
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [key]}),
                 who=RITA)  # the key that signs for Rita (SPEC 12; tests/test_signing.py: any other key does not)
    claim = vmem.json("propose", "signed facts only", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    assert "Good signature" in subprocess.run(["git", "-C", str(seeded.root), "verify-commit", "HEAD"],
                                              capture_output=True, text=True).stderr
    assert "signed facts only" in _synced(vmem, tmp_path)
    # the same reviewer's approval without a signature (made by hand) grants nothing
    other = vmem.json("propose", "unsigned facts", store=seeded)["data"]["item"]["id"]
    _set_status(seeded, other, "approved", who=RITA,
                message=f"vmem: approve {other}\n\nVmem-Action: approve\nVmem-Item: {other}\n")
    assert "unsigned facts" not in _synced(vmem, tmp_path)
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert any("signature does not verify" in e["message"] for e in errors)


def test_a_hand_edit_of_a_reviewed_statement_is_not_served_the_reviewed_text_is(seeded, vmem, tmp_path):
    claim = vmem.json("propose", "ARR excludes trials", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    vmem("verify", claim, "--kind", "confirmation", store=seeded)  # a later change that keeps the text: fine
    assert vmem.json("check", "--governance")["data"]["errors"] == []
    path = model.item_path(claim)
    edit = _hand_commit(seeded, path, (seeded.root / path).read_text().replace(
        "ARR excludes trials", "ARR includes trials and one-off services"))
    text = _synced(vmem, tmp_path)
    assert "ARR excludes trials" in text and "one-off services" not in text
    assert "one-off services" not in json.dumps(vmem.json("recall", "ARR trials", "-k", "5")["data"])
    computed = vmem.json("show", claim)["data"]["computed"]
    assert computed["live"] is True and computed["unattested_edit"]["commit"] == edit
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert [e["path"] for e in errors] == [path] and edit[:10] in errors[0]["message"]
    assert "edited by hand" in vmem("mandate", claim, who=RITA, code=1, store=seeded).stderr
    # a reviewer's own revision is the way to change it
    git(seeded, "revert", "--no-edit", edit)
    vmem("supersede", claim, "ARR includes trials", who=RITA, store=seeded)
    assert "ARR includes trials" in _synced(vmem, tmp_path)


def test_caches_notice_an_attestation_that_moved_while_the_file_came_back_to_the_same_bytes(seeded, vmem,
                                                                                          tmp_path):
    """Cached at C0 (approved); a reviewer revokes; a hand commit restores the file's exact C0 bytes. The tree
    diff C0..HEAD is empty for that file, yet it must not be served: sync and the index learn it from the
    attestation's journal."""
    claim = vmem.json("propose", "trial accounts are excluded from ARR", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    assert "trial accounts" in _synced(vmem, tmp_path)
    assert claim in _recalled(vmem, "trial accounts are excluded from ARR")  # both caches at C0
    path = model.item_path(claim)
    approved_bytes = (seeded.root / path).read_text()
    vmem("revoke", claim, who=RITA, store=seeded)
    _hand_commit(seeded, path, approved_bytes)  # the very bytes of C0
    assert git(seeded, "diff", "HEAD~2", "HEAD", "--", path) == ""
    assert "trial accounts" not in _synced(vmem, tmp_path)
    assert claim not in _recalled(vmem, "trial accounts are excluded from ARR")
    assert vmem.json("show", claim)["data"]["computed"]["attested_status"] == "revoked"


def test_a_damaged_attestation_cache_is_rebuilt_not_fatal(seeded, vmem, tmp_path):
    from vmem.store.attest import cache_path

    claim = vmem.json("propose", "refunds settle daily", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    assert "refunds settle daily" in _synced(vmem, tmp_path)
    for suffix in ("", "-wal", "-shm"):
        Path(str(cache_path(seeded.root)) + suffix).unlink(missing_ok=True)
    cache_path(seeded.root).write_bytes(b"not a database at all" * 100)
    other = vmem.json("propose", "invoices are UTC", store=seeded)["data"]["item"]["id"]
    vmem("approve", other, who=RITA, store=seeded)
    text = _synced(vmem, tmp_path)
    assert "refunds settle daily" in text and "invoices are UTC" in text


def test_commits_that_change_no_item_keep_catch_up_incremental(seeded, vmem, tmp_path):
    """After a full replay, commits that touch no item leave the journal empty; consumers must still catch up
    from it (not rescan the store), and still see later changes."""
    from vmem.store.attest import attestation

    claim = vmem.json("propose", "refunds settle daily", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    state = attestation(seeded.repo, seeded.root)
    token = state.token()
    commit_file(seeded, "entities/newco.yaml", b"id: newco\nname: Newco Labs\n")
    later = attestation(seeded.repo, seeded.root)
    assert later.moved_since(token) == set()
    vmem("revoke", claim, who=RITA, store=seeded)
    assert attestation(seeded.repo, seeded.root).moved_since(token) == {model.item_path(claim)}


def test_evidence_added_by_hand_counts_toward_no_gate(seeded, vmem, tmp_path):
    """One analyst, one customer; the rest of the support typed into the file by hand (other customers, other
    writers). Consolidate and publish count only evidence that history vouches for; check names the commit."""
    statement = "Healthcare buyers ask for audit logs before security review."
    item = vmem.json("propose", statement, "--from", "tidewell", *CATS, store=seeded)["data"]["item"]
    path = model.item_path(item["id"])
    text = (seeded.root / path).read_text()
    extra = "".join(f"- entity: {e}\n  writer: {w}\n  episode: null\n  at: '2026-11-01T00:00:00Z'\n  tier: 2\n"
                    for e, w in (("corvane", "mal@example.com"), ("larkspur-health", "lory@example.com")))
    forged = _hand_commit(seeded, path, text.replace("evidence:\n", "evidence:\n" + extra, 1))
    assert len(vmem.json("show", item["id"])["data"]["evidence"]) == 3
    vmem("consolidate", store=seeded)
    shown = vmem.json("show", item["id"])["data"]
    assert shown["status"] == "candidate" and "support from 1 distinct customer" in shown["gate"]["reason"]
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert any(e["path"] == path and forged[:10] in e["message"] and "evidence" in e["message"] for e in errors)
    # the same support proposed by the analysts themselves counts
    for entity, writer in (("corvane", "Bob <bob@example.com>"), ("larkspur-health", "Chen <chen@example.com>")):
        vmem("propose", statement, "--from", entity, *CATS, who=writer, store=seeded)
    assert item["id"] in vmem.json("consolidate", store=seeded)["data"]["eligible"]
    assert vmem.json("publish", item["id"], who=RITA, store=seeded)["data"]["item"]["status"] == "published"


def test_merges_keep_what_each_side_attested_and_nothing_a_side_forged(seeded, tmp_path):
    """Two clones, a bare remote, real `git pull` merges through the merge driver: a reviewer's approval made in
    one clone is served after the merge; a status hand-set in the other clone is not."""
    import sys

    from test_team import run, vmem_cli

    bare = tmp_path / "remote.git"
    run("git", "clone", "-q", "--bare", str(seeded.root), str(bare))
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        vmem_cli(tmp_path, "clone", str(bare), str(clone))
    ids = {}
    for key, text in (("x", "refunds settle daily"), ("y", "invoices are issued in UTC")):
        ids[key] = json.loads(vmem_cli(a, "propose", text, "--json").stdout)["data"]["item"]["id"]
    run("git", "push", "-q", "origin", "main", cwd=a)
    run("git", "pull", "-q", "--no-rebase", "origin", "main", cwd=b)
    vmem_cli(a, "approve", ids["x"], who=RITA)  # a reviewer, in clone a
    path = b / model.item_path(ids["y"])  # a hand edit, in clone b
    path.write_text(re.sub(r"(?m)^status: \S+$", "status: approved", path.read_text()))
    run("git", "commit", "-qam", "approve y", cwd=b)
    run("git", "push", "-q", "origin", "main", cwd=a)
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    pulled = run("git", "pull", "--no-rebase", "--no-edit", "origin", "main", cwd=b, env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert len(run("git", "log", "-1", "--format=%P", cwd=b).stdout.split()) == 2  # a real merge commit
    synced = json.loads(vmem_cli(b, "sync", "--dir", str(tmp_path / "rules"), "--json").stdout)["data"]
    assert ids["x"] in synced["items"] and ids["y"] not in synced["items"]
    errors = json.loads(vmem_cli(b, "check", "--governance", "--json", check=False).stdout)["data"]["errors"]
    assert [e["path"] for e in errors] == [model.item_path(ids["y"])]


def test_the_action_table_gives_the_attestation_and_the_card_what_they_had():
    """One table (model.ACTIONS) for who may take which action: the attestation's governed and routine tables and
    the review card's actions are read off it; pinned here as they were written by hand before."""
    from vmem.ops.card import legal_actions
    from vmem.store import attest

    assert {k: set(v) for k, v in attest.GOVERNED.items()} == {
        "approved": {"approve", "mandate", "supersede", "import"}, "mandatory": {"mandate", "supersede", "import"},
        "revoked": {"revoke"}, "rejected": {"reject"}, "published": {"publish", "import"}}
    routine = {k: set(v) - {"import"} for k, v in attest.ROUTINE.items()}  # import: a reviewer's, checked first
    assert routine == {
        "superseded": {"supersede", "approve", "mandate"}, "expired": {"expire", "consolidate"},
        "quarantined": {"propose", "consolidate", "merge"},
        "eligible": {"consolidate", "merge", "reinforce", "supersede"},  # supersede: a learning reworded, gates passed
        "candidate": {"consolidate", "edit", "forget", "unmerge", "reinforce"}, "merged": {"consolidate", "merge"},
        "invalidated": {"forget", "unmerge"}, "proposed": {"propose", "supersede"}}
    assert set(attest.GOVERNED_ACTIONS) == {"approve", "mandate", "publish", "revoke", "reject", "merge", "unmerge",
                                            "distinct"}
    assert set(attest.CONTENT_ACTIONS) == {"approve", "mandate", "publish", "import"}
    cases = {("claim", "proposed", True): ["approve", "mandate", "reject", "edit"],
             ("claim", "approved", True): ["mandate"], ("claim", "mandatory", True): ["approve"],
             ("claim", "proposed", False): ["edit"], ("claim", "approved", False): [],
             ("knowledge", "eligible", True): ["publish", "reject", "edit"],
             ("knowledge", "candidate", True): ["reject", "edit"], ("knowledge", "quarantined", True): ["edit"],
             ("knowledge", "published", True): []}
    for (kind, status, reviewer), actions in cases.items():
        assert legal_actions({"kind": kind, "status": status}, reviewer) == actions + ["skip", "quit"]
