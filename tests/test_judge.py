"""The merge judge: decisive-difference detectors, the fail-closed external judge, and `vmem eval merge` numbers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.errors import UsageError
from vmem.knowledge.detectors import lcs_pairs, named_differences, one_block_move, role_difference
from vmem.knowledge.judge import Verdict, judge_command, judge_pair, judge_pair_with_rule, passes_blocker
from vmem.knowledge.parsing import parse
from vmem.ops.eval_merge import evaluate_merge

DEV_PAIRS = Path(__file__).parent / "data" / "merge_pairs_dev.jsonl"
CATS = ["segment:enterprise", "stage:onboarding"]


def judged(a: str, b: str, cosine: float = 1.0) -> Verdict:
    # cosine 1.0 is the worst case: a bag-of-words embedding gives it to reordered words
    return judge_pair(a, b, CATS, CATS, cosine)


# --------------------------------------------------------------------- decisive differences

@pytest.mark.parametrize(("a", "b", "reason"), [
    # numbers, with units and bounds
    ("Onboarding takes 2 weeks.", "Onboarding takes 2 months.", "different numbers 2 weeks vs 2 months"),
    ("Quotes above $50k need CFO approval.", "Quotes above $5k need CFO approval.", "different numbers $50k vs $5k"),
    ("Plan for 3 business days of legal review.", "Plan for 3 days of legal review.", "different numbers"),
    ("The export job runs every 6 hours.", "The export job runs every 6 minutes.", "different numbers"),
    ("Partners get 20% of first-year revenue.", "Partners get 20% of second-year revenue.", "different numbers"),
    ("Discounts above 20% need VP approval.", "Discounts below 20% need VP approval.",
     "different bounds more than 20% vs less than 20%"),
    ("At least 3 users must log in weekly.", "At most 3 users must log in weekly.", "different bounds"),
    # negation
    ("Customers can cancel within 30 days.", "Customers can't cancel within 30 days.", "negation differs"),
    ("A pilot is required before purchase.", "No pilot is required before purchase.", "negation differs"),
    ("Deals with a champion close twice as fast.", "Deals without a champion close twice as fast.", "negation differs"),
    # direction, time order, modality, cause
    ("Churn is higher for monthly plans.", "Churn is lower for monthly plans.", "direction differs (higher vs lower)"),
    ("Annual prepayment increases renewal rates.", "Annual prepayment decreases renewal rates.", "direction differs"),
    ("Send the DPA before the security review.", "Send the DPA after the security review.",
     "temporal order differs (before vs after)"),
    ("Managers can approve discounts up to 15%.", "Managers must approve discounts up to 15%.",
     "modality differs (can vs must)"),
    ("Deals stall because legal is slow.", "Deals stall, so legal is slow.", "cause and effect are linked differently"),
    # named artifacts, places, roles
    ("Enterprise buyers ask for a SOC 2 report.", "Enterprise buyers ask for an ISO 27001 report.",
     "different named artifacts SOC 2 vs ISO 27001"),
    ("Healthcare buyers require a BAA.", "Healthcare buyers require a DPA.", "different named artifacts BAA vs DPA"),
    ("Churn rose 10% QoQ.", "Churn rose 10% year over year.", "different named artifacts QOQ vs YOY"),
    ("Invoices are due net-30.", "Invoices are due net 45.", "different named artifacts NET 30 vs NET 45"),
    ("APAC partners expect a 30% margin.", "EMEA partners expect a 30% margin.", "different named artifacts"),
    ("The CFO signs renewals above $1M.", "The CIO signs renewals above $1M.", "different named artifacts CFO vs CIO"),
    # the same words in another order: preference, contrast, roles, cause and effect
    ("Admins prefer email alerts to chat alerts.", "Admins prefer chat alerts to email alerts.", "word order differs"),
    ("Admins prefer email alerts over chat alerts.", "Admins prefer chat alerts over email alerts.",
     "word order differs"),
    ("Join shipments on order_id, not order_ref.", "Join shipments on order_ref, not order_id.",
     "word order differs: 'order_id' comes before 'order_ref'"),
    ("Buyers care more about uptime than about price.", "Buyers care more about price than about uptime.",
     "word order differs"),
    ("Amounts are stored in cents and shown in dollars.", "Amounts are stored in dollars and shown in cents.",
     "word order differs"),
    ("Filter events by session before counting.", "Filter sessions by event before counting.", "word order differs"),
    ("Customers churn when the price rises.", "The price rises when customers churn.", "word order differs"),
    ("Send the DPA, then the SOC 2 report.", "Send the SOC 2 report, then the DPA.", "word order differs"),
    ("Usage drives expansion.", "Expansion drives usage.", "word order differs"),
    # a word with no counterpart: qualifiers that restrict, reverse or hedge differently
    ("Enterprise customers ask for SSO.", "Only enterprise customers ask for SSO.", "words not aligned: only b has only"),
    ("Reviewers accept a bridge letter.", "Reviewers stop accepting a bridge letter.", "words not aligned"),
    ("Enterprise customers usually ask for SSO.", "Enterprise customers rarely ask for SSO.", "words not aligned"),
    ("Renewals slip when the champion leaves.", "Renewals slip when the champion stays.", "words not aligned"),
])
def test_decisive_difference_blocks_the_merge(a, b, reason):
    verdict = judged(a, b)
    assert not verdict.same
    assert verdict.judge == "deterministic"
    assert verdict.reason.startswith(f"not merged: {reason}"), verdict.reason
    assert not judged(b, a).same  # symmetric


@pytest.mark.parametrize(("a", "b"), [
    ("Onboarding for enterprise customers takes 2 weeks.", "For enterprise customers, onboarding takes 14 days."),
    ("Enterprise buyers won't sign without a DPA.", "Enterprise buyers will not sign without a data processing agreement."),
    ("Quotes above $50k need CFO approval.", "Quotes over $50,000 require CFO approval."),
    ("Renewals above $1M need CFO sign-off.", "Renewals over 1 million dollars need sign-off from the CFO."),
    ("Send the DPA before the security review.", "Before the security review, send the DPA."),
    ("Admins prefer email alerts to chat alerts.", "Admins prefer email alerts over chat alerts."),
    ("Use order_id, not order_ref, to join shipments.", "To join shipments, use order_id rather than order_ref."),
    ("Deals stall because legal is slow.", "Because legal is slow, deals stall."),
    ("Legal review takes three to five weeks.", "Legal review takes 3-5 weeks."),
    ("Expect a 10% uplift on renewals in year two.", "Expect a 10 percent uplift on renewals in year 2."),
    ("Enterprise customers typically ask for SSO.", "Enterprise customers usually ask for single sign-on."),
])
def test_token_aligned_paraphrase_merges_with_its_evidence(a, b):
    verdict = judged(a, b, cosine=0.93)
    assert verdict == Verdict(True, verdict.reason, "deterministic")
    assert verdict.reason.startswith("merged: token-aligned paraphrase (cosine 0.93, ")


def test_numbers_compare_by_value_in_a_common_unit():
    keys = [[q.key for q in parse(text).quantities] for text in (
        "two weeks", "14 days", "$100k", "100,000 dollars", "ten thousand dollars", "a decade", "120 months")]
    assert keys[0] == keys[1] and keys[2] == keys[3] and keys[5] == keys[6]
    assert keys[2] != keys[4]
    assert parse("churn in months 10-12").quantities == parse("churn in months 10 to 12").quantities


def test_category_facets_may_add_but_not_conflict():
    a = "Healthcare customers need a signed BAA before onboarding can start."
    b = "Before onboarding can begin, healthcare customers require a signed business associate agreement."
    assert judge_pair(a, b, ["industry:healthcare"], ["industry:healthcare", "stage:onboarding"], 0.9).same
    refused = judge_pair(a, b, ["industry:healthcare"], ["industry:retail"], 0.9)
    assert refused.reason == "not merged: categories conflict on industry: healthcare vs retail"


def test_words_restating_a_shared_category_need_no_counterpart():
    a, b = "Prospects who bring IT to the first demo close at a higher rate.", \
        "Demo-stage prospects who bring IT to the first demo close at a higher rate."
    assert judge_pair(a, b, ["stage:demo"], ["stage:demo"], 0.95).same
    assert not judge_pair(a, b, ["metric:win_rate"], ["metric:win_rate"], 0.95).same


def test_low_cosine_refuses_even_an_aligned_pair():
    verdict = judged("Legal review takes three to five weeks.", "Legal review takes 3-5 weeks.", cosine=0.6)
    assert verdict == Verdict(False, "not merged: cosine 0.60 below 0.75", "deterministic")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80), st.floats(0, 1))
def test_judge_never_raises_and_is_symmetric(a, b, cosine):
    one, other = judge_pair(a, b, CATS, CATS, cosine), judge_pair(b, a, CATS, CATS, cosine)
    assert one.same == other.same and one.judge == "deterministic"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("churn is higher lower for smb enterprise 30 days two weeks not before after "
                                "prefer x to y rather than because so $5k 20% net-30 SOC 2 DPA".split()),
                max_size=12))
def test_a_statement_merges_with_itself_and_not_with_its_negation(words):
    text = " ".join(words)
    assert judge_pair(text, text, CATS, CATS, 1.0).same
    assert not judge_pair(text, f"{text} never", CATS, CATS, 1.0).same


def test_differences_lists_every_finding():
    found = [reason for _, reason in named_differences("Churn is higher for SMB after 30 days.",
                                                       "Churn is lower for enterprise before 60 days.", CATS, CATS)]
    assert [f.split(" ")[0] for f in found] == ["different", "different", "direction", "temporal", "words"]


def test_blocker_needs_cosine_and_a_shared_category():
    assert passes_blocker(0.5, ["a:x"], ["a:x", "b:y"])
    assert not passes_blocker(0.49, ["a:x"], ["a:x"])
    assert not passes_blocker(0.99, ["a:x"], ["a:y"])


# --------------------------------------------------------------------- external judge: fail closed

def fake_judge(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "judge.py"
    script.write_text("import json, sys, time\npair = json.load(sys.stdin)\n" + body)
    return [sys.executable, str(script)]


PAIR = ({"statement": "DPA before security review", "categories": ["stage:security_review"]},
        {"statement": "DPA ahead of the security review", "categories": ["stage:security_review"]})


def test_command_judge_merges_on_a_well_formed_yes(tmp_path):
    command = fake_judge(tmp_path, 'same = pair["a"]["categories"] == pair["b"]["categories"]\n'
                                   'print(json.dumps({"same": same, "reason": "same claim, reworded"}))\n')
    assert judge_command(command, *PAIR, timeout_s=10) == Verdict(True, "merged: same claim, reworded", "command")


def test_command_judge_no_is_no(tmp_path):
    command = fake_judge(tmp_path, 'print(json.dumps({"same": False, "reason": "different stage"}))\n')
    assert judge_command(command, *PAIR, timeout_s=10) == Verdict(False, "not merged: different stage", "command")


@pytest.mark.parametrize(("body", "timeout_s", "why"), [
    ('print("sure, they look the same to me")\n', 10, "malformed JSON"),
    ('print(json.dumps({"same": True, "reason": "ok"}))\nsys.exit(3)\n', 10, "exited with status 3"),
    ('time.sleep(5)\nprint(json.dumps({"same": True, "reason": "late"}))\n', 0.5, "timed out after 0.5s"),
    ('print(json.dumps({"same": "yes", "reason": "ok"}))\n', 10, "answered without"),
    ('print(json.dumps({"same": 1, "reason": "ok"}))\n', 10, "answered without"),
    ('print(json.dumps({"same": True, "reason": ["ok"]}))\n', 10, "answered without"),
    ('print(json.dumps({"same": True}))\n', 10, "answered without"),
    ('print(json.dumps([True, "ok"]))\n', 10, "answered without"),
    ('print("")\n', 10, "malformed JSON"),
    ('raise SystemExit("boom")\n', 10, "exited with status 1"),
])
def test_every_command_failure_is_a_no_merge(tmp_path, body, timeout_s, why):
    verdict = judge_command(fake_judge(tmp_path, body), *PAIR, timeout_s=timeout_s)
    assert verdict.same is False and verdict.judge == "command"
    assert why in verdict.reason


@pytest.mark.parametrize("command", [[], ["/nonexistent/judge-binary"], "echo '{\"same\": true}'", [sys.executable, 1]])
def test_unrunnable_command_is_a_no_merge(command):
    verdict = judge_command(command, *PAIR, timeout_s=5)
    assert verdict.same is False and verdict.reason.startswith("not merged: judge command ")


def test_command_gets_the_pair_on_stdin_without_a_shell(tmp_path):
    marker = tmp_path / "marker"
    command = fake_judge(tmp_path, 'print(json.dumps({"same": False, "reason": json.dumps(pair)}))\n')
    verdict = judge_command(command + ["; touch", str(marker)], *PAIR, timeout_s=10)
    assert json.loads(verdict.reason.removeprefix("not merged: ")) == {"a": PAIR[0], "b": PAIR[1]}
    assert not marker.exists()


# --------------------------------------------------------------------- vmem eval merge

def write_pairs(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def pair(pid, a, b, label, kind, cats=("stage:demo",)):
    return {"id": pid, "a": a, "b": b, "categories_a": list(cats), "categories_b": list(cats), "label": label,
            "kind": kind, "note": ""}


def test_eval_counts_the_confusion_matrix(tmp_path):
    path = write_pairs(tmp_path / "pairs.jsonl", [
        pair("p1", "Demos run long.", "Demos run long!", 1, "positive"),
        pair("p2", "Demos run 30 minutes.", "Demos take an hour.", 1, "positive"),
        pair("n1", "Demos run long.", "Demos run short.", 0, "hard_negative"),
        pair("n2", "Demos run long.", "Demos run long.", 0, "hard_negative", cats=()),  # blocked: no category
    ])
    seen = []
    report = evaluate_merge(path, None, progress=lambda done, total: seen.append((done, total)))
    # each finding's precision as a difference claim, by fixed half: p2's two durations are refused (a positive:
    # wrong), n1 is open (unaligned words are no finding)
    by_detector = report.pop("by_detector")
    by_split = report.pop("by_split")  # the same per fixed half (split_of)
    assert sum(half["pairs"] for half in by_split.values()) == 4
    assert sum(half["positives"] for half in by_split.values()) == 2
    assert {name: (row["refused"], row["right"], row["refuses"]) for name, row in by_detector.items()} == {
        "number:unit": (1, 0, True), "floor": (1, 0, True)}
    assert by_detector["floor"]["precision"] == 0.0 and \
        by_detector["floor"]["fit"]["refused"] + by_detector["floor"]["report"]["refused"] == 1
    assert report == {
        "pairs": 4, "tp": 1, "fp": 0, "fn": 1, "tn": 2, "precision": 1.0, "recall": 0.5, "false_merge_rate": 0.0,
        "differing": {"pairs": 3, "tp": 1, "fp": 0, "fn": 1, "tn": 1, "precision": 1.0, "recall": 0.5,
                      "false_merge_rate": 0.0},  # n2 compares a statement with itself
        "by_kind": {"hard_negative": {"pairs": 2, "merged": 0}, "positive": {"pairs": 2, "merged": 1}},
        "by_strength": {},
        "by_rule": {"blocker": {"pairs": 1, "positives": 0}, "canonical": {"pairs": 1, "positives": 1},
                    "number": {"pairs": 1, "positives": 1}, "unaligned": {"pairs": 1, "positives": 0}},
        "errors": [], "misses": ["p2"],
        "suggestions": None,  # no model: the suggestions' recall needs embeddings
        "judge_open": {"pairs": 1, "positives": 0, "ceiling": 0.5},  # what a judge reading meaning decides
    }
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_eval_reads_paws_tsv(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("id\tsentence1\tsentence2\tlabel\n"
                    "1\tTickets move from legal to security .\tTickets move from security to legal .\t0\n"
                    "2\tIn 2019 , the team moved billing .\tThe team moved billing in 2019 .\t1\n"
                    "3\tSame words .\tSame words .\t1\n", encoding="utf-8")
    report = evaluate_merge(path, None)
    assert (report["pairs"], report["tp"], report["fp"], report["fn"], report["tn"]) == (3, 2, 0, 0, 1)
    assert report["differing"]["pairs"] == 2 and report["by_kind"] == {
        "negative": {"pairs": 1, "merged": 0}, "positive": {"pairs": 2, "merged": 2}}
    assert report["by_rule"]["order"] == {"pairs": 1, "positives": 0}


@pytest.mark.parametrize(("line", "message"), [
    ("1\tA\tB", r":1: expected 4 tab-separated columns, found 3"),
    ("1\tA\tB\tyes", r":1: label must be 0 or 1, found 'yes'"),
    ("1\tA\tB\t1\n1\tA\tB\t0", r":2: duplicate id '1'"),
])
def test_eval_names_the_malformed_tsv_line(tmp_path, line, message):
    path = tmp_path / "pairs.tsv"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        evaluate_merge(path, None)


def test_eval_with_an_embedding_applies_the_blocker(tmp_path):
    import numpy as np

    path = write_pairs(tmp_path / "pairs.jsonl", [pair("p1", "Demos run long.", "Demos run long!", 1, "positive")])
    far = evaluate_merge(path, lambda texts: np.eye(len(texts), 4))  # orthogonal: cosine 0, blocked
    near = evaluate_merge(path, lambda texts: np.ones((len(texts), 4)) * 3)  # unnormalised on purpose
    assert (far["tp"], far["misses"], near["tp"]) == (0, ["p1"], 1)


def test_eval_refuses_a_missing_file(tmp_path):
    with pytest.raises(UsageError, match="no labeled pairs at"):
        evaluate_merge(tmp_path / "nope.jsonl", None)


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", r":2: not valid JSON"),
    (json.dumps({"id": "x", "a": "A"}), r":2: field 'b' is missing"),
    (json.dumps(pair("x", "A", "B", 2, "positive")), r":2: field 'label' must be 0 or 1"),
    (json.dumps({**pair("x", "A", "B", 1, "positive"), "categories_a": [1]}), r":2: field 'categories_a' must be"),
    (json.dumps(pair("ok", "A", "B", 1, "positive")), r":2: duplicate id 'ok'"),
])
def test_eval_names_the_malformed_line(tmp_path, line, message):
    path = write_pairs(tmp_path / "pairs.jsonl", [pair("ok", "A", "B", 1, "positive"), line])
    with pytest.raises(UsageError, match=message):
        evaluate_merge(path, None)


def test_dev_pairs_hold_precision_on_the_words_alone():
    # cosine 1.0 for every pair: the lexical judge alone must keep the false-merge rate down
    report = evaluate_merge(DEV_PAIRS, None)
    assert report["pairs"] == 220
    assert report["false_merge_rate"] <= 0.01 and report["precision"] >= 0.99, report["errors"]


def test_dev_pairs_meet_the_merge_contract_with_the_bundled_model():
    from vmem.embed import embedder

    embed = embedder()  # the bundled model, as consolidate uses it; never skipped

    report = evaluate_merge(DEV_PAIRS, embed)
    assert report["false_merge_rate"] <= 0.01 and report["precision"] >= 0.99, report["errors"]
    assert report["recall"] > 0.1064  # the cosine-only judge on MiniLM, at precision 1.0
    assert report["by_kind"]["easy_negative"]["merged"] == 0


def test_identical_statements_merge_unless_their_categories_conflict():
    text = "Renewals slip when the champion leaves."
    assert judge_pair(text, " renewals slip when the champion LEAVES ", ["stage:renewal"], ["stage:renewal"], 0.2) \
        == Verdict(True, "merged: identical after canonicalization", "deterministic")
    assert not judge_pair(text, text, ["region:emea"], ["region:apac", "stage:renewal"], 1.0).same


# --------------------------------------------------------------------- structural order: alignment and roles

def test_lcs_pairs_aligns_every_occurrence():
    a, b = "x y x z".split(), "y x z x".split()
    pairs = lcs_pairs(a, b)
    assert len(pairs) == 3 and all(a[i] == b[j] for i, j in pairs)
    assert [i for i, _ in pairs] == sorted(i for i, _ in pairs) and [j for _, j in pairs] == sorted(j for _, j in pairs)
    assert lcs_pairs([], ["x"]) == []


@pytest.mark.parametrize(("a", "b", "moved"), [
    ("a b c d", "a b c d", True),
    ("a b c d e", "a d e b c", True),     # the block "b c" moved behind "d e"
    ("x a b x c", "x c x a b", True),     # a repeated word compared at every occurrence
    ("a b c d", "b a d c", False),        # two swaps
    ("a b c", "c b a", False),
    ("a b", "a b c", False),              # not the same words
])
def test_one_block_move_without_seams(a, b, moved):
    assert one_block_move(a.split(), b.split()) is moved


def test_one_block_move_cuts_only_at_a_seam():
    a, b = "p x y s".split(), "p y x s".split()
    assert not one_block_move(a, b, set(), set())               # two words traded places inside a clause
    assert not one_block_move(a, b, {2}, set())                 # a seam in one statement, block in the middle
    assert one_block_move(a, b, {2}, {2})                       # a clause boundary at the cut in both
    assert one_block_move(a, b, set(), set(), hinges_a={2})    # "x of y" read as "y x"
    assert one_block_move("x y z".split(), "z x y".split(), {2}, set())  # a clause moved to the front


def test_role_difference_sees_swapped_arguments():
    def roles(a: str, b: str) -> str | None:
        return role_difference(parse(a), parse(b))

    assert "'legal' follows 'from' in a but 'to' in b" in roles(
        "Escalations go from legal to security.", "Escalations go to legal from security.")
    assert "'by' takes 'lee' in a but 'beinhorn' in b" in roles(
        "The tracks were produced by Lee with Beinhorn on drums.", "The tracks were produced by Beinhorn with Lee on drums.")
    assert roles("Escalations go from legal to security.", "From legal, escalations go to security.") is None
    assert roles("Finance approves renewals.", "Renewals are approved by finance.") is None  # one side has no role
    assert roles("Tickets move into triage.", "Tickets move to triage.") is None  # into is a direction like to
    assert roles("A play of Shaw opened.", "A play by Shaw opened.") is None  # of stands in for by and from
    assert "'of' takes 'legal' in a but 'security' in b" in roles("The head of legal trusts security.",
                                                                  "The head of security trusts legal.")


def test_parse_records_roles_breaks_and_hinges():
    parsed = parse("Deals move from legal to security, when speed of review matters.")
    assert ("from", "legal") in parsed.roles and ("to", "securiti") in parsed.roles and ("of", "review") in parsed.roles
    assert parsed.stream.index("~when") in parsed.breaks
    assert parsed.stream.index("review") in parsed.hinges


@pytest.mark.parametrize(("a", "b"), [
    ("The canal is one of the oldest canals in Europe and in Belgium.",
     "The canal is one of the oldest canals in Belgium and in Europe."),  # was a merge: two words traded places
    ("Tickets are triaged by support and escalated by engineering.",
     "Tickets are triaged by engineering and escalated by support."),
    ("Finance trusts sales more than sales trusts finance.", "Sales trusts finance more than finance trusts sales."),
])
def test_word_swaps_inside_a_clause_do_not_merge(a, b):
    assert not judged(a, b).same


@pytest.mark.parametrize(("a", "b"), [
    ("In 2019, the team moved billing to Stripe.", "The team moved billing to Stripe in 2019."),
    ("When the champion leaves, renewals slip.", "Renewals slip when the champion leaves."),
    ("Media buyers evaluate on speed of content ingestion.", "Media buyers evaluate on content ingestion speed."),
])
def test_a_moved_clause_still_merges(a, b):
    assert judged(a, b).same


_NOUNS = ["legal", "security", "finance", "support", "engineering", "billing", "marketing", "procurement",
          "sales", "operations", "Berlin", "Lisbon", "Denver", "staging", "production"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_NOUNS), min_size=2, max_size=2, unique=True),
       st.sampled_from(["Tickets move from {x} to {y} after triage.", "Escalations go from {x} to {y}, and {y} "
                        "owns the final call.", "The route from {x} to {y} is the slow one.",
                        "Contracts pass from {x} to {y} before signature."]))
def test_swapping_from_and_to_is_never_a_merge(pair_, template):
    x, y = pair_
    assert not judged(template.format(x=x, y=y), template.format(x=y, y=x)).same


def test_eval_merge_command_reads_tsv_and_shows_which_rule_decided(tmp_path, vmem):
    path = tmp_path / "pairs.tsv"
    path.write_text("1\tTickets move from legal to security .\tTickets move from security to legal .\t0\n"
                    "2\tIn 2019 , the team moved billing .\tThe team moved billing in 2019 .\t1\n", encoding="utf-8")
    data = vmem.json("eval", "merge", str(path))["data"]
    assert (data["tp"], data["fp"], data["by_rule"]["order"]) == (1, 0, {"pairs": 1, "positives": 0})
    human = vmem("eval", "merge", str(path)).stdout
    assert "decided by" in human and "order" in human


# WordNet synonyms (models/wordnet, first sense of each word only): words the hand tables never list align, and an
# aligned synonym is still held to the order, role and temporal checks.
@pytest.mark.parametrize(("a", "b", "merged", "rule"), [
    ("Churned accounts usually cite a competitor in the exit survey.",
     "Churned accounts usually cite a rival in the exit survey.", True, "aligned"),
    ("Renewals shift from a rival to our product.", "Renewals shift from our product to a competitor.", False, "order"),
    ("Buyers drop the vendor after a failed pilot.", "Buyers drop the supplier before a failed pilot.", False,
     "temporal"),
    # "slow" and "dull" share a sense only further down WordNet's list: not synonyms here
    ("The query is slow on large tables.", "The query is dull on large tables.", False, "unaligned"),
])
def test_wordnet_synonyms_align_but_keep_every_other_check(a, b, merged, rule):
    verdict, decided = judge_pair_with_rule(a, b, ["stage:demo"], ["stage:demo"], 0.9)
    assert (verdict.same, decided) == (merged, rule), verdict.reason


def test_the_cached_synonym_table_is_the_derived_one_and_a_changed_source_derives_it_again(tmp_path, monkeypatch):
    """The normalised table is kept in the user cache under a digest of the data, the parser and its tables (it
    took every propose that met a near twin ~185 ms): read back it equals a fresh derivation; a source that changes
    is a new key, derived again; a damaged cache file is derived again, never fatal."""
    from vmem.knowledge import wordnet

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    wordnet._synsets.cache_clear()
    derived = wordnet._synsets()
    files = list((tmp_path / "vmem" / "wordnet").iterdir())
    assert len(files) == 1 and derived == wordnet._derive()
    wordnet._synsets.cache_clear()
    assert wordnet._synsets() == derived and wordnet.synonyms("rival", "competitor")
    files[0].write_bytes(b"\x00 not marshal")
    wordnet._synsets.cache_clear()
    assert wordnet._synsets() == derived
    tables = tmp_path / "tables.py"
    tables.write_bytes(wordnet._SOURCES[2].read_bytes() + b"\n# changed\n")
    monkeypatch.setattr(wordnet, "_SOURCES", (*wordnet._SOURCES[:2], tables))
    wordnet._synsets.cache_clear()
    assert wordnet._synsets() == derived and len(list((tmp_path / "vmem" / "wordnet").iterdir())) == 2
    wordnet._synsets.cache_clear()


def test_wordnet_data_ships_with_its_licence_and_source():
    from importlib import resources

    folder = resources.files("vmem").joinpath("models/wordnet")
    assert "Princeton University" in folder.joinpath("LICENSE").read_text(encoding="utf-8")
    assert "senses per word and part of speech: 1" in folder.joinpath("SOURCE.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------- the floor under an external judge

@pytest.mark.parametrize(("a", "b", "rule", "open_"), [
    ("Buyers sign once the pilot concludes.", "Customers commit once the pilot ends.", "unaligned", True),
    ("Pilots last 14 days.", "Pilots last 30 days.", "number", False),  # decisive: the judge is never asked
    ("Clients begin pilots in May.", "Clients never begin pilots in May.", "negation", False),
    ("Pilots last 14 days.", "pilots last 14 days", "canonical", False),  # sure of a merge: decided here
    # a finding whose shape measured below 0.9 precision as a difference claim (vmem eval merge's by_detector)
    # leaves the pair open for a judge that reads meaning
    ("Security teams prefer SCCs over EU hosting.", "Security teams prefer EU hosting over SCCs.", "order", True),
    ("Pilots last 3 weeks.", "Pilots last 3 months.", "number", False),  # number:unit, 13 of 13 on dev
    ("Buyers will accept prepayment.", "Buyers will not accept prepayment.", "negation", False),  # negation:alone
    ("Buyers will accept prepayment, so push it.", "Buyers will not take prepayment; push it.", "negation", True),
])
def test_the_floor_leaves_open_only_what_no_detector_decides(a, b, rule, open_):
    from vmem.knowledge.judge import floor

    verdict, decided_by = floor(a, b, ["stage:trial"], ["stage:trial"], 0.9)
    assert decided_by == rule and (verdict is None) == open_
    if not open_:
        assert verdict.same == (rule == "canonical") and verdict.judge == "deterministic"


def test_a_category_conflict_always_refuses_whatever_a_judge_would_read():
    """Metadata, not a reading of words: a learning about retail is another generalization than the same words
    about health (SPEC 7.1), so the floor never opens such a pair to an external judge."""
    from vmem.knowledge.judge import floor

    verdict, rule = floor("Pilots last 3 weeks.", "Pilots last 3 weeks.", ["industry:retail"], ["industry:health"], 0.9)
    assert verdict is not None and not verdict.same and rule == "category" and "industry" in verdict.reason
    verdict, rule = floor("Pilots last 3 weeks.", "Pilots last 3 months.", ["industry:retail"], ["industry:health"],
                          0.9)
    assert verdict is not None and not verdict.same and rule == "number" and "3 weeks vs 3 months" in verdict.reason


def test_a_low_cosine_alone_leaves_a_pair_open():
    from vmem.knowledge.judge import floor

    assert floor("Demos run long.", "Demos run long!", ["a:x"], ["a:x"], 0.2)[0].same  # canonical first
    verdict, rule = floor("Buyers sign once the pilot concludes.", "Customers commit once the pilot ends.",
                          ["a:x"], ["a:x"], 0.3)
    assert verdict is None and rule in ("unaligned", "cosine")
