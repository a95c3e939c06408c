"""Recall's coverage label comes from a fitted table over measured features (ops/coverage.py,
ops/coverage_table.py, refitted by scripts/fit_coverage.py); what is missing is still said in words. Through the
console script, for one covered, one partial and one uncovered question."""

from __future__ import annotations

import math

import pytest
from test_recall_partial import RITA, recall  # the console script's recall, as the partial tests ask it

from vmem.ops import coverage


def test_the_weights_table_loads_one_row_per_feature():
    from vmem.ops.coverage_table import BIAS, LABELS, TABLE

    assert LABELS == ("covered", "partial", "uncovered") and len(BIAS) == 3
    assert tuple(TABLE) == coverage.NAMES  # the order the features are computed in
    for name, row in TABLE.items():
        assert len(row) == 5 and all(math.isfinite(v) for v in row) and row[1] > 0, name
    mean = [TABLE[name][0] for name in coverage.NAMES]
    assert coverage.label(mean) in LABELS
    # the table reads the way the features mean: a close hit holding every topic word, nothing open, is an answer;
    # a distant one naming none is not
    values = dict(zip(coverage.NAMES, mean))
    close = {**values, "cos1": 0.9, "gap12": 0.3, "terms1": 1.0}
    far = {**values, "cos1": 0.2, "gap12": 0.0, "terms1": 0.0}
    assert coverage.label([close[n] for n in coverage.NAMES]) == "covered"
    assert coverage.label([far[n] for n in coverage.NAMES]) == "uncovered"


@pytest.fixture
def known(seeded, vmem):
    ids = {}
    for key, text in (
            ("refund_ts", "Refunds are timestamped with refunds.created_at, the moment support approves them."),
            ("settle", "Card payments typically settle two business days after the order is placed."),
            ("fiscal", "The fiscal year starts on February 1 and has four 13-week quarters.")):
        ids[key] = vmem.json("propose", text, store=seeded)["data"]["item"]["id"]
        vmem("approve", ids[key], who=RITA, store=seeded)
    return ids


def test_covered_partial_and_uncovered_through_the_console_script(seeded, known):
    covered = recall(seeded, "when does our fiscal year start?")
    assert covered["coverage"] == "covered" and covered["results"][0]["id"] == known["fiscal"], covered
    assert covered["missing"] == [] and covered["coverage_reason"] is None
    # one part answered (the timestamp), one not (the export's schedule): partial, the open part named
    partial = recall(seeded, "Which timestamp do refunds use, and when does the refund export to finance run?")
    assert partial["coverage"] == "partial" and partial["results"][0]["id"] == known["refund_ts"], partial
    assert any("refund export" in m for m in partial["missing"]), partial["missing"]
    uncovered = recall(seeded, "which vendor hosts our office wifi network?")
    assert uncovered["coverage"] == "uncovered", uncovered
    assert uncovered["awaiting_review"] == 0  # asked when nothing reviewed answers
