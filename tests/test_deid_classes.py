"""The class probes' fitted part (tests/data/deid_classes/fit.jsonl: near-spellings, sound-alikes, partial names,
initialisms, encodings, numbers as values, dates, uniqueness in words, other scripts) holds the floor measured
after the mechanisms were built on it: 7/100 caught before, 96/100 after, no clean statement quarantined.

The held-out part (report.jsonl) is measured once, by hand, never by a test: a test would be tuned on.
"""

from __future__ import annotations

from pathlib import Path

from vmem.ops.eval_deid import evaluate_deid, lexicon_from_dir, read_cases

DATA = Path(__file__).parent / "data" / "deid_classes"
LEAST_CAUGHT, MOST_FALSE = 96, 0


def test_the_fitted_class_probes_hold_their_floor():
    report = evaluate_deid(read_cases(DATA / "fit.jsonl"), lexicon_from_dir(DATA))
    print(f"\nclasses, fitted: {report['caught']}/{report['leaks']} caught, {report['false_quarantines']}/"
          f"{report['clean']} false; missed {report['missed']}, false {report['false']}")
    assert report["caught"] >= LEAST_CAUGHT and report["false_quarantines"] <= MOST_FALSE
