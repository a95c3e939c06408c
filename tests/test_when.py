"""--as-of in every form (commit id, ISO date, relative phrase), recall's note about answers awaiting review, and
verify --kind correction lowering confidence (SPEC 8, 9; issue 13)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from conftest import REVIEWER, git

from vmem.ops.when import moment

REVIEW_AS = f"Rita <{REVIEWER[1]}>"


def test_moment_reads_dates_and_relative_phrases():
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    assert moment("2026-11-01", now) == datetime(2026, 11, 1, tzinfo=timezone.utc)
    assert moment("2026-11-01T09:30:00Z", now) == datetime(2026, 11, 1, 9, 30, tzinfo=timezone.utc)
    assert moment("yesterday", now) == datetime(2026, 11, 29, 23, 59, 59, tzinfo=timezone.utc)
    assert moment("2 weeks ago", now) == now - timedelta(days=14)
    assert moment("an hour ago", now) == now - timedelta(hours=1)
    assert moment("3 days ago", now) == now - timedelta(days=3)
    assert moment("last month", now) == now - timedelta(days=30)
    assert moment("yesterday-ish", now) is None and moment("5cfa247", now) is None


def test_as_of_a_commit_id_and_a_relative_phrase(seeded, vmem):
    old = vmem.json("propose", "ARR excludes trials and one-off services", store=seeded)["data"]["item"]["id"]
    vmem("approve", old, who=REVIEW_AS, store=seeded)
    then = git(seeded, "rev-parse", "--short", "HEAD").strip()
    vmem("supersede", old, "ARR excludes trials, pilots and one-off services", who=REVIEW_AS, store=seeded)
    past = vmem.json("recall", "ARR trials", "--as-of", then)["data"]
    assert past["results"][0]["id"] == old and past["commit"].startswith(then)
    assert vmem.json("recall", "ARR trials", "--as-of", "now")["data"]["commit"] is not None
    assert "no commit of this store" in vmem("recall", "x", "--as-of", "deadbeef", code=2).stderr
    assert "not a date, a relative time or a commit id" in vmem("recall", "x", "--as-of", "soonish", code=2).stderr
    assert "in the future" in vmem("recall", "x", "--as-of", "2999-01-01", code=2).stderr
    # before the store's first commit: an answer (nothing was known then), not a failure; show still refuses
    before = vmem("recall", "x", "--as-of", "2 years ago").stdout
    assert before.startswith("uncovered — the store began at ") and "nothing was known then" in before
    data = vmem.json("recall", "x", "--as-of", "2 years ago")["data"]
    assert data["coverage"] == "uncovered" and data["results"] == [] and data["commit"] is None


def test_uncovered_says_when_answers_await_review(seeded, vmem):
    vmem("propose", "Refunds are issued by the payments team within five business days", store=seeded)
    data = vmem.json("recall", "who issues refunds and how fast")["data"]
    assert data["coverage"] == "uncovered" and data["awaiting_review"] == 1
    assert "uncovered — 1 matching item awaits review" in vmem("recall", "who issues refunds and how fast").stdout
    assert vmem.json("recall", "what colour is the office carpet")["data"].get("awaiting_review", 0) == 0


def test_a_correction_lowers_confidence_and_can_propose_the_corrected_fact(seeded, vmem):
    fact = vmem.json("propose", "refunds settle in 3 days", store=seeded)["data"]["item"]["id"]
    vmem("approve", fact, who=REVIEW_AS, store=seeded)
    assert vmem.json("show", fact)["data"]["computed"]["effective_confidence"] == 0.7
    vmem("verify", fact, "--kind", "confirmation", store=seeded)
    assert vmem.json("show", fact)["data"]["computed"]["effective_confidence"] == 0.9
    done = vmem.json("verify", fact, "--kind", "correction", "--corrected", "refunds settle in 1 day",
                     store=seeded, who="Bob <bob@example.com>")["data"]
    # confirmation then correction was 0.95 (a boost); the old statement now has half its reviewed confidence
    assert vmem.json("show", fact)["data"]["computed"]["effective_confidence"] == 0.35
    revision = vmem.json("show", done["corrected"]["id"])["data"]
    assert revision["status"] == "proposed" and revision["supersedes"] == fact
    assert revision["source"]["type"] == "user_verification" and revision["confidence"] == 0.9
    assert "--corrected goes with --kind correction" in vmem("verify", fact, "--corrected", "x", code=2).stderr
