"""Fit recall's ranking and coverage constants on the `split: tune` questions only.

    python scripts/tune_recall.py STORE [examples/eval/recall.yaml]
    python scripts/tune_recall.py STORE --coverage

STORE is a demo store (`vmem demo DIR` puts it at DIR/store). Grid-searches COSINE_WEIGHT and CONFIDENCE_WEIGHT
by MRR@10 then hit@1, never looking at `split: heldout`; prints the best settings and their tune-split scores.
--coverage fits the thresholds that pick the hits the asks are read in, through the whole answer (the fitted
table, the asks and near-miss tests included), on the tune halves of examples/eval/recall_coverage.yaml and
recall.yaml. (The label itself is the table scripts/fit_coverage.py fits.)
Copy them into src/vmem/ops/recall.py by hand, then measure the held-out part with `vmem eval recall --split
heldout`.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from vmem.embed import embedder
from vmem.index.local import LocalIndex
from vmem.ops import recall as R
from vmem.ops.eval_recall import read_queries
from vmem.store.repo import Store


def run(index, embed, queries, k=10):
    out = []
    for q in queries:
        result = R.search(index, q["query"], R.Scope.parse(q.get("scope"), q.get("audience")), False, k, embed)
        rank = None
        if q.get("relevant"):
            rank = next((n for n, row in enumerate(result["results"], 1)
                         if any(s in row["statement"] for s in q["relevant"])), 0)
        out.append((q, result, rank))
    return out


def ranking_score(runs):
    ranks = [rank for _, _, rank in runs if rank is not None]
    return sum(1 / r for r in ranks if r) / len(ranks), sum(r == 1 for r in ranks) / len(ranks)


COVERAGE_FILES = ("examples/eval/recall_coverage.yaml", "examples/eval/recall.yaml")


def fit_coverage(index, embed) -> None:
    """The coverage thresholds fitted through the whole answer (the hits the asks read, the near-miss tests, "we used
    to know"), on the tune halves of both labeled files: the sum of per-label accuracy (covered, partial,
    uncovered in each file), ties to the setting nearest the previous one."""
    sets = {name: [q for q in read_queries(Path(name)) if q.get("split", "tune") == "tune"] for name in COVERAGE_FILES}
    before = (R.COVERED_COSINE, R.PARTIAL_COSINE, R.COVERED_TERMS)
    scored = []
    for setting in itertools.product([0.50, 0.53, 0.55, 0.58, 0.60], [0.40, 0.45, 0.50, 0.55], [0.4, 0.5, 0.6, 0.7]):
        if setting[1] > setting[0]:
            continue
        R.COVERED_COSINE, R.PARTIAL_COSINE, R.COVERED_TERMS = setting
        by_label = {}
        for name, queries in sets.items():
            for q, result, _ in run(index, embed, queries):
                by_label.setdefault((name, q["expect"]), []).append(result["coverage"] == q["expect"])
        total = sum(sum(v) / len(v) for v in by_label.values())
        scored.append((round(total, 6), -sum(abs(a - b) for a, b in zip(setting, before)), setting, by_label))
    total, _, setting, by_label = max(scored, key=lambda s: s[:2])
    print(f"best coverage (COVERED_COSINE, PARTIAL_COSINE, COVERED_TERMS) = {setting}: sum of "
          f"per-label accuracy {total:.3f} on the tune halves")
    for (name, label), right in sorted(by_label.items()):
        print(f"  {Path(name).name} {label}: {sum(right)}/{len(right)}")


def main() -> None:
    store = Store.open(sys.argv[1])
    if "--coverage" in sys.argv:
        embed = embedder(store.policy, store.root)
        fit_coverage(LocalIndex.open(store, embed, model_id=str(embed.path)), embed)
        return
    path = Path(sys.argv[2] if len(sys.argv) > 2 else "examples/eval/recall.yaml")
    tune = [q for q in read_queries(path) if q.get("split", "tune") == "tune"]
    embed = embedder(store.policy, store.root)
    index = LocalIndex.open(store, embed, model_id=str(embed.path))
    best = None
    # the confidence weight is capped at 0.1 by design: between a reviewed (0.7) and a verified (0.95) item the
    # prior is then worth at most 0.025 of relevance, a tie-break, not a re-ranking (the tune split alone would
    # take 0.2, by one question)
    for w, c in itertools.product([0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], [0.0, 0.01, 0.02, 0.05, 0.1]):
        R.COSINE_WEIGHT, R.CONFIDENCE_WEIGHT = w, c
        mrr, hit1 = ranking_score(run(index, embed, tune))
        print(f"cosine weight {w:.2f} confidence weight {c:.2f}: MRR@10 {mrr:.3f} hit@1 {hit1:.3f}")
        # ties go to the larger confidence weight (the prior is wanted, as long as it costs no relevance), then
        # to the cosine weight nearest an even split
        if best is None or (mrr, hit1, c, -abs(w - 0.5)) > best[0]:
            best = ((mrr, hit1, c, -abs(w - 0.5)), w, c)
    (_, w, c) = best
    print(f"best: COSINE_WEIGHT = {w}, CONFIDENCE_WEIGHT = {c}: MRR@10 {best[0][0]:.3f} hit@1 {best[0][1]:.3f}")


if __name__ == "__main__":
    main()
