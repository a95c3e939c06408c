"""How well `vmem import` tells a near-duplicate of a store claim (issue 31): precision and recall of
vmem.ops.import_rules.nearness on labeled pairs, per tier ("restates" alone, and "restates" or "close").

Fitted on: tests/data/contradictions.jsonl `split: tune` (paraphrase = near; topic and contradiction = not) and
the even ids of tests/data/merge_pairs_dev.jsonl (label 1 = near). Reported on the other halves (held out) and on
tests/data/import/near_pairs.jsonl (rules-file pairs written for this before any threshold was chosen).

    python bench/import_near.py
"""

from __future__ import annotations

import json
from pathlib import Path

from vmem.ops.import_rules import nearness

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def sets() -> dict[str, list[tuple[str, str, int]]]:
    out: dict[str, list[tuple[str, str, int]]] = {"fit": [], "held-out contradictions": [], "held-out merge": [],
                                                 "rules pairs": []}
    for line in (DATA / "contradictions.jsonl").read_text().splitlines():
        row = json.loads(line)
        name = "fit" if row["split"] == "tune" else "held-out contradictions"
        out[name].append((row["a"], row["b"], int(row["label"] == "paraphrase")))
    for line in (DATA / "merge_pairs_dev.jsonl").read_text().splitlines():
        row = json.loads(line)
        name = "fit" if int(row["id"][1:]) % 2 == 0 else "held-out merge"
        out[name].append((row["a"], row["b"], row["label"]))
    for line in (DATA / "import" / "near_pairs.jsonl").read_text().splitlines():
        row = json.loads(line)
        out["rules pairs"].append((row["a"], row["b"], row["near"]))
    return out


def score(rows: list[tuple[str, str, int]], tiers: tuple[str, ...]) -> str:
    tp = fp = fn = 0
    for a, b, label in rows:
        said = nearness(a, b) in tiers
        tp, fp, fn = tp + (said and label), fp + (said and not label), fn + (not said and label)
    precision = tp / (tp + fp) if tp + fp else 1.0
    return f"P {precision:.2f} R {tp / (tp + fn):.2f} ({tp} found, {fp} wrong, {fn} missed of {len(rows)})"


if __name__ == "__main__":
    for name, rows in sets().items():
        print(f"{name:<24} restates: {score(rows, ('restates',))}")
        print(f"{'':<24} + close:  {score(rows, ('restates', 'close'))}")
