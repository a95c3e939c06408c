"""The knowledge lifecycle end to end: propose -> consolidate -> gates -> publish / reject / forget."""

from __future__ import annotations

import pytest
from conftest import REVIEWER, commit_count, git

REVIEW_AS = f"Rita <{REVIEWER[1]}>"
ANALYSTS = ["Alice <alice@example.com>", "Bob <bob@example.com>", "Chen <chen@example.com>"]
CATS = ["-c", "industry:healthcare", "-c", "stage:security_review"]


def _learn(vmem, store, text, entity, writer, *extra):
    return vmem.json("propose", text, "--from", entity, *CATS, *extra, who=writer, store=store)["data"]


def test_three_customers_two_writers_merge_gate_publish_and_forget(seeded, vmem, monkeypatch):
    monkeypatch.setenv("VMEM_KNOWLEDGE_AUTO_MERGE", "0")  # only exact canonical matches merge here
    first = _learn(vmem, seeded, "Healthcare buyers ask for audit-log exports before security review.",
                   "larkspur-health", ANALYSTS[0])
    assert first["action"] == "created" and first["item"]["status"] == "candidate"
    second = _learn(vmem, seeded, "healthcare buyers ask for audit-log exports, before security review",
                    "tidewell", ANALYSTS[1])
    third = _learn(vmem, seeded, "HEALTHCARE BUYERS ASK FOR AUDIT-LOG EXPORTS BEFORE SECURITY REVIEW!",
                   "corvane", ANALYSTS[0])
    assert second["action"] == third["action"] == "reinforced"
    item_id = first["item"]["id"]

    # a proposal that names a customer is quarantined at once, with the reason and the fix
    leak = vmem("propose", "Larkspur Health asks for audit-log exports before security review.",
                "--from", "larkspur-health", *CATS, "--json", store=seeded)
    import json
    leaked = json.loads(leak.stdout)["data"]
    assert leaked["action"] == "quarantined" and leaked["item"]["status"] == "quarantined"
    assert "customer alias 'larkspur'" in leaked["item"]["gate"]["reason"]
    assert "rephrase" in leak.stderr

    # consolidate: the gates pass for the merged item -> eligible, in one commit
    before = commit_count(seeded)
    result = vmem.json("consolidate", store=seeded)["data"]
    assert set(result) == {"merged", "eligible", "quarantined", "candidates", "released", "suggested", "commit"}
    assert result["eligible"] == [item_id]
    assert commit_count(seeded) == before + 1
    shown = vmem.json("show", item_id)["data"]
    assert shown["status"] == "eligible" and shown["gate"]["passed"] is True
    assert shown["computed"]["support_tier"] == "emerging"
    assert "Vmem-Action: consolidate" in git(seeded, "log", "-1", "--format=%B")
    # a second run changes nothing and commits nothing
    assert vmem.json("consolidate", store=seeded)["data"]["commit"] is None

    # publish: reviewers only; re-runs every gate; records who and when; support tier emerging
    assert "not a reviewer" in vmem("publish", item_id, code=1, store=seeded).stderr
    assert "does not pass" in vmem("publish", item_id, "--k-min", "4", who=REVIEW_AS, code=1,
                                   store=seeded).stderr
    published = vmem.json("publish", item_id, who=REVIEW_AS, store=seeded)["data"]["item"]
    assert published["status"] == "published" and published["published"]["by"] == REVIEWER[1]
    assert published["audience"] == "all"
    assert "Vmem-Support-Tier: emerging" in git(seeded, "log", "-1", "--format=%B")
    assert "retract it with: vmem forget" in vmem("reject", item_id, "--reason", "no",
                                                 who=REVIEW_AS, code=1, store=seeded).stderr

    # forget one supporter: support falls below k, the published item is invalidated
    forgotten = vmem.json("forget", "--entity", "corvane", "--reason", "customer withdrew consent",
                          store=seeded)["data"]
    assert forgotten == {"evidence_removed": 1, "invalidated": [item_id], "demoted": []}
    after = vmem.json("show", item_id)["data"]
    assert after["status"] == "invalidated" and {e["entity"] for e in after["evidence"]} == {"larkspur-health",
                                                                                             "tidewell"}


def test_rejected_statement_proposed_again_comes_back_rejected(seeded, vmem):
    item = _learn(vmem, seeded, "Healthcare buyers never read release notes.", "tidewell", ANALYSTS[0])["item"]
    assert "needs a reason" in vmem("reject", item["id"], who=REVIEW_AS, code=2).stderr
    vmem("reject", item["id"], "--reason", "anecdote, not a pattern", who=REVIEW_AS, store=seeded)
    before = commit_count(seeded)
    again = vmem("propose", "healthcare buyers never read release notes", "--from", "corvane", *CATS, "--json",
                 code=1, store=seeded)
    import json
    data = json.loads(again.stdout)["data"]
    assert data["action"] == "previously_rejected" and data["item"]["id"] == item["id"]
    assert "anecdote, not a pattern" in again.stderr
    assert commit_count(seeded) == before


def test_support_and_floor_failures(seeded, vmem, monkeypatch):
    monkeypatch.setenv("VMEM_KNOWLEDGE_AUTO_MERGE", "0")
    one_writer = _learn(vmem, seeded, "Security reviews stall on pen-test reports.", "larkspur-health",
                        ANALYSTS[0])["item"]
    for entity in ("tidewell", "corvane"):
        _learn(vmem, seeded, "Security reviews stall on pen-test reports.", entity, ANALYSTS[0])
    retail = vmem.json("propose", "Retail buyers want store-level dashboards.", "--from", "quintara",
                       "-c", "industry:retail", store=seeded)["data"]["item"]
    result = vmem.json("consolidate", store=seeded)["data"]
    assert one_writer["id"] not in result["eligible"]
    assert [q["id"] for q in result["quarantined"]] == [retail["id"]]
    assert "industry:retail (2)" in result["quarantined"][0]["reason"]
    gate = vmem.json("show", one_writer["id"])["data"]["gate"]
    assert gate["checks"] == {"deid": True, "k_support": True, "writers": False, "category_floor": True}
    assert vmem.json("show", one_writer["id"])["data"]["status"] == "candidate"


def test_forget_usage(seeded, vmem):
    assert "exactly one of" in vmem("forget", "--reason", "x", code=2).stderr
    assert "needs a reason" in vmem("forget", "--entity", "tidewell", code=2).stderr
    assert "invalid entity id" in vmem("forget", "--entity", "../x", "--reason", "r", code=2).stderr


@pytest.mark.parametrize("value", ["0", "false"])
def test_kill_switch_env(value, monkeypatch):
    from vmem.ops.consolidate import auto_merge_enabled
    from vmem.policy import DEFAULTS

    monkeypatch.setenv("VMEM_KNOWLEDGE_AUTO_MERGE", value)
    assert auto_merge_enabled(DEFAULTS) is False
    monkeypatch.delenv("VMEM_KNOWLEDGE_AUTO_MERGE")
    assert auto_merge_enabled(DEFAULTS) is True
    assert auto_merge_enabled({**DEFAULTS, "knowledge": {**DEFAULTS["knowledge"], "auto_merge": False}}) is False


PARAPHRASES = [
    ("larkspur-health", ANALYSTS[0], "Healthcare customers ask to see audit logs before they start security review; "
                                     "demoing the export up front saves about two weeks."),
    ("tidewell", ANALYSTS[1], "Healthcare customers ask to see audit logs before they start the security review; "
                              "demoing the export upfront saves roughly 2 weeks."),
    ("corvane", ANALYSTS[2], "Before they start security review, healthcare customers ask to see audit logs; "
                             "demoing the export up front saves about 14 days."),
]


def _paraphrases(vmem, seeded):
    return [_learn(vmem, seeded, text, entity, writer)["item"]["id"] for entity, writer, text in PARAPHRASES]


def test_judged_paraphrases_merge_into_the_oldest_and_become_eligible(seeded, vmem):
    ids = _paraphrases(vmem, seeded)
    near_miss = _learn(vmem, seeded, "Healthcare customers ask to see audit logs after they start security "
                                     "review; demoing the export up front saves about two weeks.",
                       "tidewell", ANALYSTS[2])["item"]["id"]
    before = commit_count(seeded)
    preview = vmem.json("consolidate", "--dry-run", store=seeded)["data"]
    assert preview["commit"] is None and commit_count(seeded) == before
    result = vmem.json("consolidate", store=seeded)["data"]
    assert result == {**preview, "commit": result["commit"]}  # the dry run predicted exactly this
    # the oldest proposal survives (ties within one second: the one with most evidence, then the id)
    survivor_id = result["merged"][0]["into"]
    absorbed_ids = sorted(set(ids) - {survivor_id})
    assert sorted((m["from"], m["into"], m["judge"]) for m in result["merged"]) == [
        (absorbed_ids[0], survivor_id, "deterministic"), (absorbed_ids[1], survivor_id, "deterministic")]
    assert all(m["reason"].startswith("merged: token-aligned paraphrase") for m in result["merged"])
    assert result["eligible"] == [survivor_id]
    survivor = vmem.json("show", survivor_id)["data"]
    assert {e["entity"] for e in survivor["evidence"]} == {"larkspur-health", "tidewell", "corvane"}
    assert sorted(m["from"] for m in survivor["merges"]) == absorbed_ids
    absorbed = vmem.json("show", absorbed_ids[0])["data"]
    assert absorbed["status"] == "merged" and absorbed["merged_into"] == survivor_id
    assert vmem.json("show", near_miss)["data"]["status"] == "candidate"  # before vs after: never merged
    body = git(seeded, "log", "-1", "--format=%B")
    assert f"merge {absorbed_ids[0]} -> {survivor_id} [deterministic]: merged: token-aligned paraphrase" in body


def test_an_eligible_item_that_absorbs_a_failing_category_is_quarantined_not_a_crash(seeded, vmem):
    """Merging can widen an eligible item's categories; a gate that now fails takes it out, lawfully."""
    _paraphrases(vmem, seeded)
    survivor = vmem.json("consolidate", store=seeded)["data"]["eligible"][0]
    late = _learn(vmem, seeded, "Healthcare customers ask to see audit logs before they begin security review; "
                                "demoing the export up front saves about two weeks.", "meridale", ANALYSTS[0],
                  "-c", "segment:smb")["item"]["id"]
    result = vmem.json("consolidate", store=seeded)["data"]
    assert [(m["from"], m["into"]) for m in result["merged"]] == [(late, survivor)]
    assert [q["id"] for q in result["quarantined"]] == [survivor]
    assert "segment:smb (0)" in result["quarantined"][0]["reason"]
    shown = vmem.json("show", survivor)["data"]
    assert shown["status"] == "quarantined" and shown["gate"]["checks"]["category_floor"] is False


def test_kill_switch_leaves_paraphrases_apart(seeded, vmem, monkeypatch):
    monkeypatch.setenv("VMEM_KNOWLEDGE_AUTO_MERGE", "0")
    _paraphrases(vmem, seeded)
    result = vmem.json("consolidate", store=seeded)["data"]
    assert result["merged"] == [] and result["eligible"] == [] and result["candidates"] == 3


def _set_judge(store, command):
    from vmem.store import codec

    # a policy change takes effect through a reviewer's commit (SPEC 12)
    with store.acting_as(REVIEW_AS), store.transaction("policy", summary="external judge") as tx:
        raw = codec.load((store.root / "vmem.yaml").read_text(), "vmem.yaml")
        raw["knowledge"]["judge"] = {"command": command, "timeout_s": 2}
        tx.write_file("vmem.yaml", raw)
    store._policy = None


OPEN_PARAPHRASES = [  # pairs the deterministic floor leaves open ("unaligned"): an external judge decides them
    ("larkspur-health", ANALYSTS[0], "Healthcare customers always ask to see audit logs during security review."),
    ("tidewell", ANALYSTS[1], "Clinics routinely request access to audit logs in the security review stage."),
    ("corvane", ANALYSTS[2], "Healthcare buyers want to look at audit logs while security review is underway."),
]


@pytest.mark.parametrize("answer, merges", [
    ('{"same": true, "reason": "same pattern per LLM"}', 2),
    ('{"same": "yes"}', 0),
    ("not json at all", 0),
])
def test_external_judge_decides_and_any_failure_is_no_merge(seeded, vmem, tmp_path, answer, merges):
    import sys

    asked = tmp_path / "asked"
    script = tmp_path / "judge.py"
    script.write_text(f"import json, sys\npair = json.load(sys.stdin)\nassert 'evidence' not in pair['a']\n"
                      f"open({str(asked)!r}, 'a').write('x')\nprint({answer!r})\n")
    _set_judge(seeded, [sys.executable, str(script)])
    for entity, writer, text in OPEN_PARAPHRASES:
        _learn(vmem, seeded, text, entity, writer)
    result = vmem.json("consolidate", store=seeded)["data"]
    assert len(result["merged"]) == merges and asked.exists()
    assert all(m["judge"] == "command" for m in result["merged"])


def test_the_floor_merges_what_it_is_sure_of_without_asking_the_judge(seeded, vmem, tmp_path):
    """Token-aligned paraphrases (numbers equal, no negation or order difference) are the deterministic floor's
    to merge; a configured judge is asked only about what the floor leaves open (here: nothing)."""
    import sys

    asked = tmp_path / "asked"
    script = tmp_path / "judge.py"
    script.write_text(f"open({str(asked)!r}, 'a').write('x')\nprint('not json at all')\n")
    _set_judge(seeded, [sys.executable, str(script)])
    _paraphrases(vmem, seeded)
    result = vmem.json("consolidate", store=seeded)["data"]
    assert len(result["merged"]) == 2 and {m["judge"] for m in result["merged"]} == {"deterministic"}
    assert not asked.exists()


@pytest.mark.parametrize("audience, expect", [(None, "held"), ("group:sales", "published")])
def test_auto_publish_never_guesses_an_audience(seeded, vmem, audience, expect):
    from vmem.store import codec

    # a policy change takes effect through a reviewer's commit (SPEC 12)
    with seeded.acting_as(REVIEW_AS), seeded.transaction("policy", summary="auto publish") as tx:
        raw = codec.load((seeded.root / "vmem.yaml").read_text(), "vmem.yaml")
        raw["knowledge"].update({"auto_publish": True, "default_audience": audience})
        tx.write_file("vmem.yaml", raw)
    seeded._policy = None
    ids = _paraphrases(vmem, seeded)
    vmem.json("consolidate", store=seeded)
    statuses = {vmem.json("show", i)["data"]["status"] for i in ids}
    if expect == "held":
        assert "eligible" in statuses and "published" not in statuses
    else:
        assert "published" in statuses
        published = next(vmem.json("show", i)["data"] for i in ids if vmem.json("show", i)["data"]["status"]
                         == "published")
        assert published["audience"] == "group:sales" and published["gate"]["passed"] is True


def test_check_flags_published_knowledge_that_a_new_lexicon_identifies(seeded, vmem):
    ids = _paraphrases(vmem, seeded)
    vmem.json("consolidate", store=seeded)
    survivor = next(i for i in ids if vmem.json("show", i)["data"]["status"] == "eligible")
    vmem("publish", survivor, who=REVIEW_AS, store=seeded)
    assert vmem.json("check")["data"]["errors"] == []
    # a new customer whose alias is a word the published statement uses
    from vmem import model

    with seeded.transaction("import", summary="new customer") as tx:
        tx.write_file("entities/exportco.yaml", model.validate("entity", {
            "id": "exportco", "name": "Export Co", "aliases": ["Demoing"], "categories": []}, "x"))
    errors = vmem.json("check", code=1)["data"]["errors"]
    assert [e["path"].split("/")[-1] for e in errors] == [f"{survivor}.yaml"]
    assert "under today's lexicon" in errors[0]["message"]
