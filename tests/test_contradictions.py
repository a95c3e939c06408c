"""Contradictions that stay found: numbers written as words and a qualifying clause on one side read like digits
and a bare statement; re-checked after review's edit and every approval; `vmem contradictions` lists two
approved claims that contradict; the detector measured on held-out labeled pairs. User paths run through the
installed `vmem` console script on a real git store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REVIEWER

from vmem.ops import contradictions
from vmem.ops.contradictions import judge, numerals
from vmem.ops.eval_contradictions import evaluate, load

VMEM = Path(sys.executable).with_name("vmem")
DATA = Path(__file__).parent / "data"
REVIEW_AS = f"Rita <{REVIEWER[1]}>"
THREE = "Refunds settle three days after payment."
ONE = "Refunds settle one day after payment."


def cli(*args: str, who: str | None = None, input: str | None = None, env: dict | None = None,
        code: int = 0) -> subprocess.CompletedProcess:
    """The installed console script, as a user runs it (the store from $VMEM_STORE, set by the fixture)."""
    full = {**os.environ, **(env or {})}
    if who is not None:
        name, email = who[:-1].split(" <")
        full.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    done = subprocess.run([str(VMEM), *args], input=input, env=full, capture_output=True, text=True, timeout=300)
    assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done


def data(*args: str, who: str | None = None) -> dict | list:
    return json.loads(cli(*args, "--json", who=who).stdout)["data"]


# -- the detector ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("Refunds settle one day after payment.", "Refunds settle 1 day after payment."),
    ("Invoices are due forty-five days after issue.", "Invoices are due 45 days after issue."),
    ("Each pod has a dozen accounts.", "Each pod has 12 accounts."),
    ("A workspace holds two hundred seats.", "A workspace holds 200 seats."),
    ("one thousand two hundred and five rows", "1205 rows"),
    ("The dashboard refreshes once an hour.", "The dashboard refreshes once 1 hour."),
    ("Half of new signups", "50% of new signups"),
    ("It takes half a day.", "It takes 0.5 day."),
    ("The ETL runs twice a day.", "The ETL runs 2 times 1 day."),
    ("Trials convert at eight percent.", "Trials convert at 8%."),
    ("The one-off fee is waived.", "The one-off fee is waived."),  # a compound word, not a number
    ("Ask an analyst.", "Ask an analyst."),
    ("two three", "2 3"),  # two numbers stay two
])
def test_numbers_written_as_words_are_read_as_digits(text, expected):
    assert numerals(text) == expected


def test_a_number_word_contradicts_like_digits_and_equals_its_digits():
    assert judge(THREE, ONE).contradicts
    assert judge(THREE, ONE).reason == "different numbers 3 days vs 1 day"
    assert judge(THREE, "Refunds settle five days after payment.").contradicts
    assert not judge("Trials last fourteen days.", "Trials last 14 days.").contradicts
    assert not judge("Each sales pod has a dozen accounts.", "Each sales pod has twelve accounts.").contradicts


@pytest.mark.parametrize("other", [
    "Refunds settle one day after payment since the v2 ETL.",
    "Since the v2 ETL, refunds settle one day after payment.",
    "Refunds settle one day after payment, as of this quarter.",
    "Refunds settle one day after payment for enterprise customers.",
])
def test_a_qualifying_clause_on_one_side_does_not_hide_the_difference(other):
    verdict = judge(THREE, other)
    assert verdict.contradicts and verdict.rules == ["number"], verdict


def test_a_clause_that_changes_nothing_is_no_contradiction():
    # the year in the clause is not a second number of the statement
    assert not judge("Data retention for logs is ninety days.",
                     "Data retention for logs is ninety days as of the 2024 audit.").contradicts
    assert not judge(THREE, "Refunds settle three days after payment because the bank batches them.").contradicts


def test_each_side_under_its_own_condition_is_no_contradiction():
    assert not judge("Onboarding takes two weeks for enterprise accounts.",
                     "Onboarding takes three weeks for SMB accounts.").contradicts
    assert not judge("Refunds settle three days after payment for card payments.",
                     "Refunds settle one day after payment since the v2 ETL.").contradicts


def test_one_clause_said_two_ways_is_compared_whole():
    assert judge("Send the questionnaire before the pricing call.",
                 "Send the questionnaire after the pricing call.").contradicts
    assert judge("Renewal quotes go out ninety days before the term ends.",
                 "Renewal quotes go out ninety days after the term ends.").contradicts


def test_held_out_precision_and_recall_stay_at_what_the_readme_reports():
    """The rules were fitted on the `tune` pairs only; these floors sit just under what the held-out pairs
    measured (README), so a change that costs precision or recall there fails here."""
    qualified = evaluate([r for r in load(DATA / "contradictions_qualified.jsonl") if r["split"] == "heldout"])
    assert qualified["precision"] >= 0.95 and qualified["recall"] >= 0.75, qualified
    first = evaluate([r for r in load(DATA / "contradictions.jsonl") if r["split"] == "heldout"])
    assert first["precision"] >= 0.9 and first["recall"] >= 0.95, first


def test_the_store_scan_finds_every_pair_the_judge_flags():
    """The scan's prefilter (shared rare words, residual) must not drop a pair whose clause is set aside."""
    rows = load(DATA / "contradictions.jsonl") + load(DATA / "contradictions_qualified.jsonl")
    for n, row in enumerate(rows):
        items = [{"id": f"c-{n:08x}{side}000", "kind": "claim", "status": "approved", "scope": "org",
                  "statement": text} for side, text in (("a", row["a"]), ("b", row["b"]))]
        assert bool(contradictions.scan(items)) == judge(row["a"], row["b"]).contradicts, row


# -- the user path: the scenario through the console script ----------------------------------------


@pytest.fixture
def editor(tmp_path) -> str:
    """$EDITOR: appends ' since the v2 ETL' to the statement line (what the reviewer typed in the issue)."""
    script = tmp_path / "append-editor"
    script.write_text("#!/bin/sh\nsed -i '1s/\\.$/ since the v2 ETL./' \"$1\"\n")
    script.chmod(0o755)
    return str(script)


def test_an_edit_in_review_keeps_the_contradiction_and_the_approved_pair_is_listed(seeded, editor):
    old = data("propose", THREE)["item"]["id"]
    cli("approve", old, who=REVIEW_AS)
    proposed = cli("propose", ONE)
    assert f"warning: contradicts {old}" in proposed.stderr
    new = next(i["id"] for i in data("list") if i["statement"] == ONE)
    assert [r["id"] for r in data("review", "--list", who=REVIEW_AS)] == [new]
    # [e]dit appends the clause, [a]pprove, then [k]eep both: the warning survives the edit and the approval
    out = cli("review", who=REVIEW_AS, input="e\na\nk\nq\n",
              env={"VMEM_ASSUME_TTY": "1", "EDITOR": editor, "VISUAL": editor}).stdout
    assert "Refunds settle one day after payment since the v2 ETL." in out
    assert f"still contradicts {old} (approved)" in out
    assert f"{new} contradicts {old} (approved; different numbers 1 day vs 3 days)" in out
    assert "kept both; the contradiction stays open" in out
    assert data("show", new)["status"] == "approved"
    pairs = data("contradictions")
    assert [({p["a"], p["b"]}, p["a_status"], p["b_status"]) for p in pairs] == [({old, new}, "approved", "approved")]
    listed = cli("contradictions").stdout
    assert "1 open contradiction, 1 between two live items" in listed and "contradictions," not in listed
    assert "since the v2 ETL" in listed
    # the card of either side shows the other
    card = data("show", old)["card"]
    assert [(c["id"], c["status"]) for c in card["contradictions"]] == [(new, "approved")]
    assert f"contradicts {new} (approved; different numbers 3 days vs 1 day)" in cli("show", old).stdout


def test_approve_checks_again_and_warns_with_every_live_item_it_contradicts(seeded):
    first = data("propose", THREE)["item"]["id"]
    cli("approve", first, who=REVIEW_AS)
    late = data("propose", "Refunds settle five days after payment since the v3 ETL.")["item"]["id"]
    done = cli("approve", late, "--json", who=REVIEW_AS)
    found = json.loads(done.stdout)["data"]["contradictions"]
    assert [(c["id"], c["status"], c["rules"]) for c in found] == [(first, "approved", ["number"])]
    assert f"warning: contradicts {first} (approved; different numbers 5 days vs 3 days)" in done.stderr
    plain = cli("mandate", first, who=REVIEW_AS)
    assert f"warning: contradicts {late} (approved;" in plain.stderr
    assert data("approve", data("propose", "Invoices go out on the first of the month.")["item"]["id"],
                who=REVIEW_AS)["contradictions"] == []


def test_review_yes_approve_reports_what_each_approval_contradicts(seeded):
    first = data("propose", THREE)["item"]["id"]
    cli("approve", first, who=REVIEW_AS)
    late = data("propose", "Since the v2 ETL, refunds settle one day after payment.")["item"]["id"]
    done = cli("review", "--yes", "--action", "approve", "--json", who=REVIEW_AS)
    rows = json.loads(done.stdout)["data"]
    assert [(r["id"], [c["id"] for c in r["contradictions"]]) for r in rows] == [(late, [first])]
    assert f"{late}: warning: contradicts {first}" in done.stderr


def test_the_report_lists_the_approved_pair(seeded, tmp_path):
    first = data("propose", THREE)["item"]["id"]
    cli("approve", first, who=REVIEW_AS)
    late = data("propose", "Refunds settle one day after payment since the v2 ETL.")["item"]["id"]
    cli("approve", late, who=REVIEW_AS)
    written = data("report", "--out", str(tmp_path / "site"))
    assert written["counts"]["contradictions"] == 1
    page = (tmp_path / "site" / "contradictions.html").read_text()
    assert "Open contradictions: 1" in page and first in page and late in page


# -- the smaller items ---------------------------------------------------------------------------------------


def test_review_confirmation_is_cut_on_a_word_with_an_ellipsis(seeded):
    text = ("Refund requests that arrive after the monthly close are booked in the following period and "
            "reported separately to finance")
    item = data("propose", text)["item"]["id"]
    out = cli("review", who=REVIEW_AS, input="a\nq\n", env={"VMEM_ASSUME_TTY": "1"}).stdout
    line = next(x for x in out.splitlines() if x.startswith(f"approved {item}"))
    shown = line.split(": ", 1)[1]
    assert shown.endswith("…") and text.startswith(shown[:-1]) and text[len(shown) - 1] == " "
    assert len(shown) <= 80


def test_shorten_counts_terminal_cells_and_keeps_marks_with_their_letter():
    from rich.cells import cell_len

    from vmem.cli.render import shorten

    assert shorten("short enough", 80) == "short enough"
    assert shorten("日本語のテキストはとても長い", 10) == "日本語の…" and cell_len(shorten("日本語のテキストはとても長い", 10)) <= 10
    assert shorten("e\u0301" * 10, 4) == "e\u0301" * 3 + "…"  # never a letter without its accent
    assert shorten("one two three four five six", 12) == "one two…"


def test_a_knowledge_card_shows_its_categories_where_it_said_no_scope(seeded):
    item = data("propose", "Clinics ask for audit logs before a pilot.", "--from", "larkspur-health",
                "-c", "industry:healthcare", "-c", "segment:smb")["item"]["id"]
    listed = cli("list", "--kind", "knowledge").stdout
    assert "industry:healthcare +1" in listed
    shown = cli("show", item).stdout
    assert "categories industry:healthcare, segment:smb" in shown and "no scope" not in shown


def test_the_gates_page_counts_as_the_gate_reason_does(seeded, tmp_path):
    text = "Enterprise buyers ask for audit trails before the security review."
    item = data("propose", text, "--from", "corvane", "-c", "segment:enterprise")["item"]["id"]
    cli("consolidate")
    from vmem.ops.report import build
    from vmem.store.repo import Store

    row = next(g for g in build(Store.open(Path(os.environ["VMEM_STORE"])))["gates"] if g["id"] == item)
    assert (row["distinct_entities"], row["writers"]) == (1, 1) and "support from 1 distinct customer" in row["reason"]
    assert not row["stale"]
    # the customer's evidence is withdrawn: the recorded reason still says 1, the counts say 0; the page says why
    cli("forget", "--entity", "corvane", "--reason", "asked to be removed", who=REVIEW_AS)
    data("report", "--out", str(tmp_path / "two"))
    page = (tmp_path / "two" / "gates.html").read_text()
    row = next(g for g in build(Store.open(Path(os.environ["VMEM_STORE"])))["gates"] if g["id"] == item)
    assert (row["distinct_entities"], row["writers"]) == (0, 0) and row["stale"]
    assert "support from 0 distinct customers; needs 3" in row["support_now"]
    assert "the evidence changed since this gate ran" in page and "support from 0 distinct customers" in page
