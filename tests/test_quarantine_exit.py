"""Issue 40, item 3: a quarantined learning has a way out. `vmem supersede K "new wording"` on a quarantined or
candidate learning writes the new words with the old one's evidence and re-runs every gate at once (SPEC 6); the
evidence it carries over counts (history vouches for it); `vmem review --status quarantined` lists what waits to be
reworded without quoting the customer it names."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REVIEWER, commit_count, git

from vmem import model

ALICE = "Alice Analyst <alice@example.com>"
BOB = "Bob Builder <bob@example.com>"
CHEN = "Chen Wu <chen@example.com>"
RITA = f"Rita Reviewer <{REVIEWER[1]}>"
CATS = ["-c", "industry:healthcare", "-c", "stage:security_review"]
NAMING = "Tidewell asks for audit-log exports before security review."
CLEAN = "Healthcare buyers ask for audit-log exports before security review."


def console(store, *args, who=ALICE, code=0):
    """The real console entry point (`python -m vmem`, the typer-free fast path included), as WHO."""
    name, email = who[:-1].split(" <")
    env = {**os.environ, "VMEM_STORE": str(store.root), "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    done = subprocess.run([sys.executable, "-m", "vmem", *args], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert git(store, "status", "--porcelain", "--untracked-files=all") == ""
    return done


def data(done) -> dict:
    payload = json.loads(done.stdout)
    assert payload["schema_version"] == 1
    return payload["data"]


def governance_errors(vmem) -> list:
    return vmem.json("check", "--governance")["data"]["errors"]


def test_a_quarantined_learning_is_reworded_with_its_evidence_and_joins_the_support_it_lacked(seeded, vmem):
    proposed = console(seeded, "propose", NAMING, "--from", "corvane", *CATS, "--json")
    old = data(proposed)["item"]
    assert data(proposed)["action"] == "quarantined" and old["status"] == "quarantined"
    # the way out is named where the analyst is told to rephrase
    assert f'vmem supersede {old["id"]} "' in proposed.stderr

    before = commit_count(seeded)
    done = console(seeded, "supersede", old["id"], CLEAN, "--json")
    assert commit_count(seeded) == before + 1  # one commit: the new words and the old item retired together
    result = data(done)
    new, previous = result["item"], result["previous"]
    assert result["action"] == "superseded"
    assert new["kind"] == "knowledge" and new["statement"] == CLEAN and new["supersedes"] == old["id"]
    assert new["canonical"] == "healthcare buyers ask for audit-log exports before security review"
    assert new["categories"] == old["categories"] and new["evidence"] == old["evidence"]
    # every gate ran at once: de-id passes now, one customer is not support enough, so it waits as a candidate
    assert new["status"] == "candidate"
    assert new["gate"]["checks"] == {"deid": True, "k_support": False, "writers": False, "category_floor": True}
    assert "support from 1 distinct customer; needs 3" in new["gate"]["reason"]
    assert previous["status"] == "superseded" and previous["superseded_by"] == new["id"]
    assert previous["valid_to"] == new["valid_from"]
    changed = git(seeded, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == sorted([model.item_path(old["id"]), model.item_path(new["id"])])
    body = git(seeded, "log", "-1", "--format=%B")
    assert "Vmem-Action: supersede" in body and f"Vmem-Supersedes: {old['id']}" in body
    assert governance_errors(vmem) == []

    # two more analysts saw the same thing at two more customers: the rewording now has the support it lacked
    console(seeded, "propose", CLEAN, "--from", "tidewell", *CATS, who=BOB)
    console(seeded, "propose", CLEAN, "--from", "larkspur-health", *CATS, who=CHEN)
    consolidated = data(console(seeded, "consolidate", "--json"))
    assert consolidated["eligible"] == [new["id"]]
    shown = vmem.json("show", new["id"])["data"]
    assert shown["status"] == "eligible" and shown["computed"]["attested_status"] == "eligible"
    card = shown["card"]
    assert (card["distinct_entities"], card["writers"]) == (3, 3)  # Alice's evidence, carried over, counts
    assert governance_errors(vmem) == []
    assert vmem.json("show", old["id"])["data"]["status"] == "superseded"
    # the reviewer's card links the revision without quoting the words that named the customer
    listed = vmem("review", "--list", "--json", who=RITA)
    assert "Tidewell asks" not in listed.stdout
    revision = next(c for c in json.loads(listed.stdout)["data"] if c["id"] == new["id"])["supersedes"]
    assert revision["id"] == old["id"] and revision["statement"] is None


def test_every_evidence_entry_moves_with_the_new_words_and_counts_toward_the_gates(seeded, vmem):
    # a learning three analysts supported at three customers is quarantined later: a reviewer adds the customer
    # its words name while it waits. Rewording it keeps all three entries, and they count: no other proposal needed.
    text = "Clinics moving off Harrowgate ask for audit-log exports before security review."
    for entity, who in (("corvane", ALICE), ("tidewell", BOB)):
        vmem("propose", text, "--from", entity, *CATS, who=who, store=seeded)
    vmem("entity", "add", "harrowgate", "--name", "Harrowgate Systems", "--alias", "Harrowgate", who=RITA, store=seeded)
    item = vmem.json("propose", text, "--from", "larkspur-health", *CATS, who=CHEN, store=seeded)["data"]["item"]
    assert vmem.json("consolidate", store=seeded)["data"]["quarantined"][0]["id"] == item["id"]
    old = vmem.json("show", item["id"])["data"]
    assert old["status"] == "quarantined" and len(old["evidence"]) == 3

    result = vmem.json("supersede", item["id"], "Clinics moving off a legacy records system ask for audit-log "
                       "exports before security review.", who=BOB, store=seeded)["data"]
    new = result["item"]
    assert [(e["entity"], e["writer"], e["episode"], e["at"], e["tier"]) for e in new["evidence"]] == [
        (e["entity"], e["writer"], e["episode"], e["at"], e["tier"]) for e in old["evidence"]]
    # every gate passes at once: eligible in the supersede's own commit, and history attests it
    assert new["gate"]["passed"] is True and new["gate"]["reason"] is None and new["status"] == "eligible"
    shown = vmem.json("show", new["id"])["data"]
    assert shown["computed"]["attested_status"] == "eligible"
    card = shown["card"]
    assert (card["distinct_entities"], card["writers"]) == (3, 3)  # history vouches for what the supersede moved
    assert governance_errors(vmem) == []
    assert vmem.json("consolidate", store=seeded)["data"]["eligible"] == [new["id"]]
    vmem("publish", new["id"], "--audience", "all", who=RITA, store=seeded)  # publish's own gates agree
    assert governance_errors(vmem) == []


def test_new_words_another_learning_holds_join_it_and_rejected_ones_are_refused(seeded, vmem):
    # Bob and Chen said it cleanly at two customers; Alice's quarantined learning at a third, reworded into the same
    # words, waits as a candidate for consolidate's canonical merge, which joins the support of all three
    clean = vmem.json("propose", CLEAN, "--from", "tidewell", *CATS, who=BOB, store=seeded)["data"]["item"]
    vmem("propose", CLEAN, "--from", "larkspur-health", *CATS, who=CHEN, store=seeded)
    old = vmem.json("propose", NAMING, "--from", "corvane", *CATS, store=seeded)["data"]["item"]
    done = vmem("supersede", old["id"], CLEAN.lower(), "--json", store=seeded)
    new = json.loads(done.stdout)["data"]["item"]
    assert new["status"] == "candidate" and f"{clean['id']} (candidate) says the same" in done.stderr
    consolidated = vmem.json("consolidate", store=seeded)["data"]
    assert {(m["from"], m["into"]) for m in consolidated["merged"]} & {(new["id"], clean["id"]),
                                                                        (clean["id"], new["id"])}
    survivor = consolidated["eligible"][0]
    card = vmem.json("show", survivor)["data"]["card"]
    assert (card["distinct_entities"], card["writers"]) == (3, 3)
    assert governance_errors(vmem) == []
    # words a reviewer rejected are not written again, as propose refuses them
    vmem("reject", survivor, "--reason", "too vague", who=RITA, store=seeded)
    again = vmem.json("propose", NAMING.replace("asks", "wants"), "--from", "corvane", *CATS, store=seeded)
    before = commit_count(seeded)
    refused = vmem("supersede", again["data"]["item"]["id"], CLEAN, code=1, store=seeded)
    assert f"{survivor} says this and was rejected: too vague" in refused.stderr
    assert commit_count(seeded) == before


def test_a_rewording_that_still_names_the_customer_comes_back_quarantined(seeded, vmem):
    old = data(console(seeded, "propose", NAMING, "--from", "corvane", *CATS, "--json"))["item"]
    done = console(seeded, "supersede", old["id"], "Tidewell Clinics ask for audit-log exports early.", "--json")
    result = data(done)
    new = result["item"]
    assert result["action"] == "quarantined"  # as propose says of a quarantined learning; exit 0
    assert new["status"] == "quarantined" and new["supersedes"] == old["id"]
    assert new["gate"]["checks"]["deid"] is False and new["gate"]["reason"].startswith("names a customer")
    assert result["previous"]["status"] == "superseded"
    # the human face says why and names the way out again, as propose does
    human = console(seeded, "supersede", new["id"], "Tidewell wants audit-log exports.")
    assert "quarantined (it identifies a customer)" in human.stdout
    assert "names a customer" in human.stderr and "vmem supersede k-" in human.stderr
    assert governance_errors(vmem) == []


def test_a_published_learning_is_still_not_reworded_by_an_analyst(seeded, vmem, monkeypatch):
    monkeypatch.setenv("VMEM_KNOWLEDGE_AUTO_MERGE", "0")
    for entity, who in (("corvane", ALICE), ("tidewell", BOB), ("larkspur-health", CHEN)):
        item = vmem.json("propose", CLEAN, "--from", entity, *CATS, who=who, store=seeded)["data"]["item"]
    vmem("consolidate", store=seeded)
    # an eligible learning waits for a reviewer's decision: it is not reworded under the reviewer's feet
    refused = vmem("supersede", item["id"], "Healthcare buyers want audit logs.", who=BOB, code=1, store=seeded)
    assert f"{item['id']} is eligible" in refused.stderr
    vmem("publish", item["id"], "--audience", "all", who=RITA, store=seeded)
    before = commit_count(seeded)
    refused = vmem("supersede", item["id"], "Healthcare buyers want audit logs.", who=BOB, code=1, store=seeded)
    assert "published" in refused.stderr and "vmem propose" in refused.stderr
    assert commit_count(seeded) == before
    assert vmem.json("show", item["id"])["data"]["status"] == "published"


def test_review_lists_quarantined_learnings_without_the_customer_they_name(seeded, vmem):
    old = vmem.json("propose", NAMING, "--from", "corvane", *CATS, store=seeded)["data"]["item"]
    vmem("propose", CLEAN, "--from", "larkspur-health", *CATS, who=BOB, store=seeded)
    for who in (ALICE, RITA):
        listed = vmem("review", "--list", "--status", "quarantined", "--json", who=who)
        assert "tidewell" not in listed.stdout.lower() and "corvane" not in listed.stdout.lower()
        cards = json.loads(listed.stdout)["data"]
        assert [c["id"] for c in cards] == [old["id"]]  # the clean candidate is not quarantined
        card = cards[0]
        assert card["status"] == "quarantined" and card["statement"] != NAMING
        assert card["gate"]["passed"] is False and card["gate"]["reason"] == "names a customer"
        assert card["evidence"] == [] and card["evidence_hidden"] is True
        assert card["categories"] == ["industry:healthcare", "stage:security_review"]
        assert f'vmem supersede {old["id"]} "' in card["hint"]
        human = vmem("review", "--list", "--status", "quarantined", who=who)
        assert "tidewell" not in (human.stdout + human.stderr).lower()
        assert "names a customer" in human.stdout and f"vmem supersede {old['id']}" in human.stdout
    # the default queue still holds what a reviewer decides on, not what waits to be reworded
    assert old["id"] not in [c["id"] for c in vmem.json("review", "--list")["data"]]
    vmem("supersede", old["id"], CLEAN.replace("buyers", "customers"), store=seeded)
    assert vmem.json("review", "--list", "--status", "quarantined")["data"] == []
