"""The assisted merge path (issue 30, SPEC 7.1 step 5) and the release of quarantined learnings, through the real
`vmem` console script on real git stores: consolidation records merge suggestions, the review card and the report
show them, a reviewer's merge is one attested commit that recounts support and can be undone, a non-reviewer's is
refused, "not the same" is remembered, the decisions are labels for `vmem eval merge --from-history`, and a
learning quarantined for the category floor is released (one item, history kept) once the floor holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ALICE as ALICE_ID
from conftest import REVIEWER, Made, commit_count, git

from vmem.ops.demo import seed_store
from vmem.store.repo import Store

VMEM = Path(sys.executable).with_name("vmem")
RITA = f"{REVIEWER[0]} <{REVIEWER[1]}>"
ALICE = "Alice <alice@example.com>"
BOB = "Bob <bob@example.com>"
CATS = ["-c", "industry:healthcare", "-c", "stage:security_review"]
# one pattern, three ways: the deterministic judge refuses to merge them (their words do not align)
A = "Healthcare buyers ask for audit-log exports before the security review starts."
B = "Hospitals want exported audit logs before their security review begins."
C = "Before security review, healthcare customers request an export of audit logs."
OTHER = "Healthcare buyers insist on single sign-on with their own identity provider."


def run(store, *args: str, who: str = ALICE, code: int = 0) -> dict:
    name, email = who[:-1].split(" <")
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": email, "VMEM_STORE": str(store.root)}
    done = subprocess.run([str(VMEM), "--json", *args], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
    return json.loads(done.stdout)


def learn(store, text: str, entity: str, who: str = ALICE, cats: list[str] = CATS) -> str:
    return run(store, "propose", text, "--from", entity, *cats, who=who)["data"]["item"]["id"]


def item(store, item_id: str) -> dict:
    return run(store, "show", item_id)["data"]


def governance_clean(store) -> None:
    report = run(store, "check", "--governance")["data"]
    assert not [e for e in report["errors"] if "unattested" in e["message"] or "forged" in e["message"]], report


def build_three(store) -> list[str]:
    """Three reworded learnings from three customers and two writers, consolidated: each suggests the others."""
    ids = []
    for text, entity, who in ((A, "larkspur-health", ALICE), (B, "tidewell", BOB), (C, "corvane", ALICE)):
        ids.append(learn(store, text, entity, who))
        time.sleep(1.05)  # first seen a second apart: the oldest survives a merge (a tie would go by random id)
    result = run(store, "consolidate")["data"]
    assert result["merged"] == []  # the judge left them open ...
    suggested = {row["id"]: [s["id"] for s in row["suggestions"]] for row in result["suggested"]}
    assert set(suggested[ids[0]]) & set(ids[1:])  # ... and suggested them to a reviewer
    return ids


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Made:
    return Made(tmp_path_factory.mktemp("three"))


@pytest.fixture
def three(made, monkeypatch):
    """build_three's store: made once per module (four CLI calls, three seconds asleep) and restored for each test,
    at the same path with its caches as warm (conftest.Made)."""
    monkeypatch.setenv("VMEM_KNOWLEDGE_AUTO_MERGE", "1")
    live = made.base / "seeded"

    def make() -> list[str]:
        live.mkdir()
        return build_three(seed_store(live, ALICE_ID, [REVIEWER[1]], anchored=False))

    ids = made.restore(make, monkeypatch, live)
    monkeypatch.setenv("VMEM_STORE", str(live))
    return Store.open(live), list(ids)


@pytest.mark.slow
def test_consolidation_suggests_reworded_learnings_and_the_card_and_report_show_them(three, tmp_path):
    store, (a, b, c) = three
    stored = item(store, a)["suggestions"]
    assert {s["id"] for s in stored} <= {b, c} and stored and all(0 < s["score"] <= 1 for s in stored)
    cards = {card["id"]: card for card in run(store, "review", "--list", who=RITA)["data"]}
    assert a in cards, "a candidate with suggestions is in the reviewer's queue"
    shown = {s["id"]: s for s in cards[a]["suggestions"]}
    assert set(shown) == {b, c} and shown[b]["statement"] == B
    assert cards[a]["suggestion_actions"] == ["merge", "distinct"]
    run(store, "report", "--out", str(tmp_path / "site"))
    page = "".join(p.read_text() for p in (tmp_path / "site").rglob("*.html"))
    assert "may be the same as" in page and b in page


@pytest.mark.slow
def test_a_reviewers_merge_is_attested_recounts_support_and_unmerge_undoes_it(three):
    store, (a, b, c) = three
    before = commit_count(store)
    first = run(store, "merge", b, a, "--reason", "same pattern", who=RITA)["data"]
    assert first["survivor"] == a and commit_count(store) == before + 1
    assert item(store, b)["status"] == "merged" and item(store, b)["merged_into"] == a
    second = run(store, "merge", c, a, who=RITA)["data"]
    survivor = item(store, a)
    # three customers, two writers: support recounted, the survivor passes the gates at once
    assert survivor["status"] == "eligible", survivor["gate"]
    assert {e["entity"] for e in survivor["evidence"]} == {"larkspur-health", "tidewell", "corvane"}
    assert [m["judge"] for m in survivor["merges"]] == ["reviewer", "reviewer"]
    assert survivor["computed"]["attested_status"] == "eligible"
    assert "Vmem-Action: merge" in git(store, "log", "-1", "--format=%B") and second["commit"]
    governance_clean(store)
    # undo the second merge: c is open again with its own evidence, a gives corvane back and falls below k
    undone = run(store, "unmerge", c, "--reason", "c is about hospitals only", who=RITA)["data"]
    assert undone["action"] == "unmerged"
    restored, survivor = item(store, c), item(store, a)
    assert restored["status"] == "candidate" and restored["merged_into"] is None
    assert {e["entity"] for e in survivor["evidence"]} == {"larkspur-health", "tidewell"}
    assert survivor["status"] == "candidate" and [m["from"] for m in survivor["merges"]] == [b]
    assert {d["id"] for d in restored["distinct"]} == {a} and {d["id"] for d in survivor["distinct"]} == {c}
    governance_clean(store)
    # the next consolidation screens c again and does not suggest a to it
    run(store, "consolidate")
    assert a not in {s["id"] for s in item(store, c)["suggestions"] or []}


def test_a_non_reviewers_merge_and_not_the_same_are_refused_and_write_nothing(three):
    store, (a, b, _) = three
    before = commit_count(store)
    refused = run(store, "merge", b, a, who=BOB, code=1)
    assert "not a reviewer" in refused["error"]
    run(store, "distinct", a, b, who=BOB, code=1)
    assert commit_count(store) == before and item(store, b)["status"] == "candidate"


def test_not_the_same_is_remembered_and_never_suggested_again(three):
    store, (a, b, c) = three
    run(store, "distinct", a, b, "--reason", "hospitals are not all buyers", who=RITA)
    assert b not in {s["id"] for s in item(store, a)["suggestions"]}
    # an edit changes a's words: consolidation screens it again, and b stays out
    from vmem.ops.review import edit_statement

    edit_statement(store, a, editor="sed -i s/starts/begins/")
    assert item(store, a)["suggestions"] is None
    result = run(store, "consolidate")["data"]
    assert a in {row["id"] for row in result["suggested"]}
    assert b not in {s["id"] for s in item(store, a)["suggestions"]}
    card = next(c_ for c_ in run(store, "review", "--list", who=RITA)["data"] if c_["id"] == a)
    assert b not in {s["id"] for s in card["suggestions"]}
    governance_clean(store)


def test_reviewers_decisions_are_labels_for_eval_merge_from_history(three):
    store, (a, b, c) = three
    run(store, "merge", b, a, who=RITA)
    run(store, "distinct", a, c, who=RITA)
    report = run(store, "eval", "merge", "--from-history", "--store", str(store.root))["data"]
    assert report["pairs"] == 2 and report["tp"] + report["fn"] == 1 and report["fp"] + report["tn"] == 1
    assert set(report["by_kind"]) == {"reviewer_merge", "reviewer_not_same"}


def test_eval_merge_from_history_on_a_store_without_decisions_says_so(seeded):
    run(seeded, "eval", "merge", "--from-history", code=1)


def test_a_learning_quarantined_for_the_category_floor_is_released_once_the_floor_holds(seeded):
    cats = ["-c", "industry:retail"]
    text = "Retail buyers ask for a store-level rollout plan before they sign."
    first = learn(seeded, text, "pellucid-home", cats=cats)
    for entity, who in (("meridale", BOB), ("quintara", ALICE)):
        learn(seeded, text, entity, who=who, cats=cats)
    result = run(seeded, "consolidate")["data"]
    assert [q["id"] for q in result["quarantined"]] == [first] and "category" in result["quarantined"][0]["reason"]
    # proposed again while it waits: joins that item, no second one
    learn(seeded, text, "ashgrove-credit", who=BOB, cats=cats)
    result = run(seeded, "consolidate")["data"]
    assert [m["into"] for m in result["merged"]] == [first] and item(seeded, first)["status"] == "quarantined"
    for n in range(3):
        run(seeded, "entity", "add", f"shop-{n}", "--name", f"Shopco Number {n}", "-c", "industry:retail", who=RITA)
    result = run(seeded, "consolidate")["data"]
    assert result["released"] == [first] and result["eligible"] == [first]
    released = item(seeded, first)
    assert released["status"] == "eligible" and released["computed"]["attested_status"] == "eligible"
    assert len({e["entity"] for e in released["evidence"]}) == 4
    statuses = [e.get("status") for e in run(seeded, "blame", first)["data"]["events"]]
    assert len(run(seeded, "blame", first)["data"]["events"]) >= 3, statuses  # proposal, quarantine, release
    governance_clean(seeded)


def test_review_decides_a_suggestion_on_the_card_with_one_key(three):
    store, (a, b, c) = three
    name, email = RITA[:-1].split(" <")
    env = {**os.environ, "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email, "GIT_AUTHOR_NAME": name,
           "GIT_AUTHOR_EMAIL": email, "VMEM_STORE": str(store.root), "VMEM_ASSUME_TTY": "1"}
    first = run(store, "review", "--list", who=RITA)["data"][0]
    assert first["id"] == a and first["suggestions"]
    keys = "n\n" + ("1\n" if len(first["suggestions"]) > 1 else "") + "m\n" + (
        "1\n" if len(first["suggestions"]) > 2 else "") + "q\n"
    done = subprocess.run([str(VMEM), "review"], input=keys, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "may be the same as" in done.stdout and "not the same; never suggested again" in done.stdout
    apart = first["suggestions"][0]["id"]
    assert {d["id"] for d in item(store, a)["distinct"]} == {apart}
    merged = ({b, c} - {apart}).pop()
    assert f"merged {merged} into {a}" in done.stdout and item(store, merged)["merged_into"] == a
    governance_clean(store)


# -- suggestions never pair opposites (issue 40) -----------------------------------------------------------------------

OPPOSITES = [  # (a, b): one difference any reader sees, in otherwise aligned or reworded statements
    ("Offering EU hosting avoids a procurement delay of about three weeks at hospitals.",
     "At hospitals, offering EU hosting avoids a procurement delay of about three months."),
    ("Hospital buyers will not accept annual prepayment during a security review.",
     "Hospital buyers will accept annual prepayment during a security review."),
    ("Hospital security teams prefer SCCs over EU hosting during review.",
     "Hospital security teams prefer EU hosting over SCCs during review."),
]


@pytest.mark.parametrize("a, b", OPPOSITES, ids=["weeks-months", "will-will-not", "a-over-b"])
def test_a_pair_a_detector_calls_different_is_never_suggested_but_a_paraphrase_is(seeded, a, b, monkeypatch):
    """Through consolidate and the review queue: opposites share almost every word and their embeddings are near
    (cosine > 0.9), yet a suggestion would invite a merge; a paraphrase of A from a third customer still is one,
    with its cosine and the words that differ on the card."""
    from vmem.knowledge.suggest import refusal

    assert refusal(a, b, ["industry:healthcare"], ["industry:healthcare"])  # the difference is named
    first, second = learn(seeded, a, "larkspur-health"), learn(seeded, b, "tidewell", who=BOB)
    time.sleep(1.05)
    paraphrase = a.replace("Hospital", "Hospitals'").replace("hospitals", "hospital groups").replace(
        "during", "in the course of") if "prefer" not in a else a.replace("prefer", "favour")
    third = learn(seeded, paraphrase, "corvane", who=BOB)
    run(seeded, "consolidate")
    for one, other in ((first, second), (second, first)):
        assert other not in {s["id"] for s in item(seeded, one)["suggestions"] or []}, (one, other)
    suggested = {s["id"]: s for s in item(seeded, third)["suggestions"] or []}
    assert first in suggested and 0.5 <= suggested[first]["cosine"] <= 1  # the paraphrase: still suggested
    cards = {card["id"]: card for card in run(seeded, "review", "--list", who=RITA)["data"]}
    shown = {s["id"]: s for s in cards[third]["suggestions"]}
    assert shown[first]["cosine"] == suggested[first]["cosine"] and shown[first]["diff"]
    assert second not in {s["id"] for s in cards.get(first, {}).get("suggestions", [])}


def test_a_neighbour_a_detector_calls_different_is_shown_as_related_never_as_a_merge(seeded):
    """weeks vs months: consolidation finds the neighbour, a detector calls it different, so it is no suggestion;
    the card (review --list, show, JSON and human) names it as related with the detector's words, never with the
    merge key."""
    a, b = OPPOSITES[0]
    first, second = learn(seeded, a, "larkspur-health"), learn(seeded, b, "tidewell", who=BOB)
    run(seeded, "consolidate")
    for one, other, differs in ((first, second, "3 weeks vs 3 months"), (second, first, "3 months vs 3 weeks")):
        stored = item(seeded, one)
        assert not stored["suggestions"]
        assert [(r["id"], r["differs"]) for r in stored["related"]] == [(other, f"different numbers {differs}")]
    cards = {card["id"]: card for card in run(seeded, "review", "--list", "--status", "candidate", who=RITA)["data"]}
    card = cards[first]
    assert card["suggestions"] == [] and card["suggestion_actions"] == []
    assert card["related"] == [{"id": second, "differs": "different numbers 3 weeks vs 3 months",
                                "status": "candidate", "statement": b}]
    assert run(seeded, "show", first, who=RITA)["data"]["card"]["related"] == card["related"]
    env = {**os.environ, "VMEM_STORE": str(seeded.root), "COLUMNS": "300"}
    shown = subprocess.run([str(VMEM), "show", first], capture_output=True, text=True, env=env, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert f"related, differs in: different numbers 3 weeks vs 3 months ({second}" in shown.stdout
    assert "may be the same" not in shown.stdout and "[m]erge" not in shown.stdout
