"""Bad input gets one clear line, the right exit code, and loses nothing."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import commit_count, commit_file
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vmem import model
from vmem.errors import VmemError
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


@pytest.mark.parametrize("args, message", [
    (["propose", "x", "--about", "tidewell\n"], "invalid entity id"),
    (["propose", "x", "--from", "tidewell\n", "-c", "a:b"], "invalid entity id"),
    (["propose", "x", "--from", "tidewell", "-c", "a:b", "--episode", "ep-1\n"], "invalid episode id"),
    (["propose", "x", "--audience", "group:finance\n"], "invalid audience"),
    (["propose", "x", "--domain", "finance\n"], "invalid domain"),
    (["propose", "x", "-c", "industry:healthcare\n"], "invalid category"),
    (["propose", "x", "--from", "tidewell", "-c", "industry:healthcare\n"], "invalid category"),
    (["propose", "x", "-c", "industry:health\x1bcare"], "invalid category"),
    (["propose", "x", "--supersedes", "c-0123456789ab\n"], "invalid item id"),
    (["show", "c-0123456789ab\n"], "invalid item id"),
    (["recall", "x", "--scope", "entity:tidewell\n"], "invalid entity id"),
    (["recall", "x", "--audience", "group:finance\n"], "invalid audience"),
])
def test_trailing_newlines_and_control_characters_in_arguments_are_usage_errors(seeded, vmem, args, message):
    """Regression: `^…$` with re.match let 'tidewell\\n' through, and vmem wrote a file it could not read back."""
    before = commit_count(seeded)
    result = vmem(*args, code=2)
    assert message in result.stderr and "Traceback" not in result.stderr
    assert commit_count(seeded) == before


@pytest.mark.parametrize("field, value, message", [
    ("id", '"c-ab0000000000\\n"', "field 'id'"),
    ("scope", '"entity:acme\\n"', "field 'scope'"),
    ("audience", '"group:finance\\n"', "field 'audience'"),
    ("domain", '"finance\\n"', "field 'domain'"),
    ("categories", '["industry:healthcare\\n"]', "field 'categories'"),
    ("categories", "[healthcare]", "field 'categories': 'healthcare' is not facet:value"),
    ("categories", "[':healthcare']", "field 'categories'"),
    ("categories", "['Industry:healthcare']", "field 'categories'"),
    ("categories", "['industry:']", "field 'categories'"),
    ("categories", "['industry:health care']", "field 'categories'"),
    ("categories", "['path:a/../b']", "field 'categories'"),
    ("supersedes", '"c-ab0000000001\\n"', "field 'supersedes'"),
])
def test_hand_committed_values_are_full_matches(store, vmem, field, value, message):
    good = vmem.json("propose", "a good fact", store=store)["data"]["item"]["id"]
    fields = {"id": "c-ab0000000000", "kind": "claim", "statement": "hand written", "status": "proposed",
              "created_at": "2026-11-01T00:00:00Z", field: value}
    text = "".join(f"{k}: {v}\n" for k, v in fields.items())
    commit_file(store, "claims/ab/c-ab0000000000.yaml", text.encode())
    line = list(fields).index(field) + 1
    error = vmem.json("check", code=1)["data"]["errors"][0]
    assert error["path"] == "claims/ab/c-ab0000000000.yaml"
    assert error["message"].startswith(f"line {line}: {message}"), error
    import json
    assert [i["id"] for i in json.loads(vmem("list", "--json").stdout)["data"]] == [good]


def test_entity_categories_follow_the_rule_too(seeded, vmem):
    path = seeded.root / "entities" / "tidewell.yaml"
    text = path.read_text()
    assert "categories:" in text
    commit_file(seeded, "entities/tidewell.yaml", text.replace("categories:", "categories:\n- healthcare", 1).encode())
    errors = vmem.json("check", code=1)["data"]["errors"]
    assert any(e["path"] == "entities/tidewell.yaml" and "field 'categories'" in e["message"] for e in errors)


def test_a_category_without_a_facet_is_a_usage_error_with_the_fix(seeded, vmem):
    before = commit_count(seeded)
    for args in (["propose", "x"], ["propose", "x", "--from", "tidewell"]):
        result = vmem(*args, "-c", "healthcare", code=2)
        assert "invalid category 'healthcare'" in result.stderr
        assert "use -c facet:value, e.g. -c industry:healthcare" in result.stderr
    payload = vmem.json("propose", "x", "-c", "healthcare", code=2)
    assert payload["error"].startswith("invalid category") and "facet:value" in payload["hint"]
    assert commit_count(seeded) == before
    item = vmem.json("propose", "x", "-c", "industry:Health-Care_2", "-c", "ticket:JIRA-12:a", store=seeded)
    assert item["data"]["item"]["categories"] == ["industry:Health-Care_2", "ticket:JIRA-12:a"]


def test_recall_in_an_unknown_entity_scope_is_an_error(seeded, vmem):
    result = vmem("recall", "renewals", "--scope", "entity:nope", code=1)
    assert "no entity 'nope' in this store" in result.stderr and "--scope" in result.stderr
    payload = vmem.json("recall", "renewals", "--scope", "entity:nope", "--as-of", model.now(), code=1)
    assert payload["error"] == "no entity 'nope' in this store" and payload["hint"]
    assert "invalid entity id 'NOPE'" in vmem("recall", "renewals", "--scope", "entity:NOPE", code=2).stderr
    vmem("recall", "renewals", "--scope", "entity:tidewell")


POLICY_ATTACKS = [
    ("knowledge:\n  k_min: 0\n", 2, "knowledge.k_min must be at least 1, found 0"),
    ("knowledge:\n  writers_min: 0\n", 2, "knowledge.writers_min must be at least 1, found 0"),
    ("knowledge:\n  category_floor: -1\n", 2, "knowledge.category_floor must be at least 0, found -1"),
    ("knowledge:\n  blocker:\n    threshold: 1.5\n", 3, "knowledge.blocker.threshold must be between 0 and 1"),
    ("knowledge:\n  blocker:\n    threshold: -0.1\n", 3, "knowledge.blocker.threshold must be between 0 and 1"),
    ("knowledge:\n  blocker:\n    top_k: 0\n", 3, "knowledge.blocker.top_k must be at least 1, found 0"),
    ("knowledge:\n  judge:\n    timeout_s: 0\n", 3, "knowledge.judge.timeout_s must be more than 0"),
    ("knowledge:\n  judge:\n    timeout_s: -1\n", 3, "knowledge.judge.timeout_s must be more than 0"),
    ("knowledge:\n  judge:\n    timeout_s: 86400\n", 3, "knowledge.judge.timeout_s must be at most 3600"),
    ("knowledge:\n  judge:\n    timeout_s: .nan\n", 3, "knowledge.judge.timeout_s must be"),
    ("knowledge:\n  tiers:\n    emerging: 5\n    established: 5\n", 4, "knowledge.tiers must increase"),
    ("knowledge:\n  tiers:\n    emerging: 0\n", 3, "knowledge.tiers.emerging must be at least 1, found 0"),
    ("knowledge:\n  default_audience: 'group:'\n", 2, "knowledge.default_audience"),
    ("knowledge:\n  default_audience: \"group:sales\\n\"\n", 2, "knowledge.default_audience"),
    ("claims:\n  ttl_days:\n    factual: 0\n", 3, "claims.ttl_days.factual must be at least 1, found 0"),
    ("claims:\n  default_class: gossip\n", 2, "claims.default_class must be one of: factual, procedural"),
    ("sync:\n  budget: -1\n", 2, "sync.budget must be at least 0, found -1"),
    ("sync:\n  scope: acme\n", 2, "sync.scope must be org or entity:<id>"),
    ("sync:\n  scope: \"entity:acme\\n\"\n", 2, "sync.scope must be org or entity:<id>"),
    ("sync:\n  audience: everyone\n", 2, "sync.audience must be all or group:<name>"),
    ("sync:\n  dir: /etc/cron.d\n", 2, "sync.dir must be a relative path"),
    ("sync:\n  dir: \"rules\\0x\"\n", 2, "sync.dir must be a relative path"),
    ("sync:\n  dir: ''\n", 2, "sync.dir must be a relative path"),
    ("reviewers: [\"rita@example.com\\n\"]\n", 1, "reviewers: 'rita@example.com\\n' is not an e-mail address"),
    ("reviewers: [rita]\n", 1, "reviewers: 'rita' is not an e-mail address"),
    ("reviewers: ['rita @example.com']\n", 1, "reviewers: 'rita @example.com' is not an e-mail address"),
    ("reviewers: ['a@b@example.com']\n", 1, "reviewers: 'a@b@example.com' is not an e-mail address"),
    ("reviewers: ['Rita <rita@example.com>']\n", 1, "reviewers: 'Rita <rita@example.com>' is not an e-mail"),
]


@pytest.mark.parametrize("text, line, message", POLICY_ATTACKS)
def test_out_of_range_policy_values_fail_check(store, vmem, text, line, message):
    commit_file(store, "vmem.yaml", text.encode())
    before = commit_count(store)
    error = vmem.json("check", code=1)["data"]["errors"][0]
    assert error["path"] == "vmem.yaml" and error["message"].startswith(f"line {line}: {message}"), error
    payload = vmem.json("propose", "a fact", code=1)  # any command that reads the policy
    assert payload["error"].startswith(f"vmem.yaml:{line}: {message}") and "vmem.yaml" in payload["hint"]
    assert commit_count(store) == before


def test_edge_values_of_the_policy_are_accepted(store, vmem):
    commit_file(store, "vmem.yaml", b"reviewers: [rita@example.com, o'brien+vmem@sub.example.co.uk]\n"
                                    b"knowledge:\n  k_min: 1\n  category_floor: 0\n  blocker: {threshold: 1, top_k: 1}\n"
                                    b"  judge: {timeout_s: 3600}\n  default_audience: group:sales\n"
                                    b"sync:\n  budget: 0\n  scope: entity:acme\n  dir: docs/rules\n")
    assert vmem.json("check")["data"]["errors"] == []


# -- the rule, property-tested: nothing a validator accepts can become a path outside its directory -------------

_HOSTILE = st.sampled_from(["", "\n", "\r", "\x00", "\x1b", "\x7f", "\x85", "\u2028", "\u202e", "/", "..", "/..",
                            "../", " ", "\t", ":", "A", "\ufeff"])
_VALID = st.sampled_from(["acme", "entity:acme", "group:finance", "industry:healthcare", "c-0123456789ab",
                          "k-fedcba987654", "org", "all", "a", "ep-1"])
_CANDIDATES = st.one_of(
    st.text(max_size=20),
    st.builds(lambda a, b, c: a + b + c, _HOSTILE, _VALID, _HOSTILE),
    st.builds(lambda a, b: a + b, _VALID, _HOSTILE),  # a valid name, then one more character or two
    st.builds(lambda p, t: p + t, st.sampled_from(["entity:", "group:", "industry:", "c-", "k-", "x:"]),
              st.text(st.characters(blacklist_categories=("Cs",)), max_size=16)),
)


def _accepted(check, value) -> bool:
    try:
        check(value)
    except (ValueError, VmemError):
        return False
    return True


@settings(max_examples=500, deadline=None)
@given(_CANDIDATES)
@example("entity:acme\n")
@example("industry:healthcare\n")
@example("c-0123456789ab\n")
def test_accepted_names_hold_no_control_character_slash_or_dot_dot(value):
    import posixpath
    import unicodedata

    from vmem import names

    for check in (model.check_name_id, names.scope, names.audience, names.category, model.check_item_id,
                  lambda v: model.check_name_id(v, "domain")):
        if not _accepted(check, value):
            continue
        assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value), (check, value)
        assert "/" not in value and ".." not in value.split("/") and value.strip() == value, (check, value)
    if _accepted(model.check_item_id, value):
        path = model.item_path(value)
        assert path == posixpath.normpath(path) and path.split("/")[0] in ("claims", "knowledge")
        assert path == f"{path.split('/')[0]}/{value[2:4]}/{value}.yaml"
    if _accepted(model.check_name_id, value):
        assert posixpath.normpath(model.entity_path(value)) == f"entities/{value}.yaml"
