"""Contradiction detection measured on labeled pairs (tests/data/contradictions*.jsonl): precision and recall,
per split (`tune` fits the rules and constants, `heldout` measures them) and per label.

Run `python -m vmem.ops.eval_contradictions FILE... [--split tune|heldout] [-v] [--grid]`; --split limits the
output (and -v's misses) to one split, so the held-out pairs' misses are never read while fitting; --grid prints
the tune split for each setting of SIMILARITY and RESIDUAL."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from vmem.errors import UsageError


def load(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rows.append({"a": str(row["a"]), "b": str(row["b"]), "contradicts": bool(row["contradicts"]),
                         "label": row.get("label", ""), "split": row.get("split", "")})
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"{path}:{n}: not a labeled pair ({exc})",
                             'each line: {"a": ..., "b": ..., "contradicts": true|false, "split": "tune"|"heldout"}')
    return rows


def evaluate(rows: list[dict], **settings) -> dict:
    from vmem.ops.contradictions import judge

    tp = fp = fn = tn = 0
    by_label: dict[str, dict] = {}
    misses = []
    for row in rows:
        said = judge(row["a"], row["b"], **settings).contradicts
        tp += said and row["contradicts"]
        fp += said and not row["contradicts"]
        fn += (not said) and row["contradicts"]
        tn += (not said) and not row["contradicts"]
        label = by_label.setdefault(row["label"], {"pairs": 0, "flagged": 0})
        label["pairs"] += 1
        label["flagged"] += said
        if said != row["contradicts"]:
            misses.append(row)
    return {"pairs": len(rows), "tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
            "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0, "by_label": by_label, "misses": misses}


def main(argv: list[str]) -> None:
    only = argv[argv.index("--split") + 1] if "--split" in argv else None
    files = [a for n, a in enumerate(argv) if not a.startswith("-") and (n == 0 or argv[n - 1] != "--split")]
    rows = [row for path in files for row in load(Path(path))]
    if "--grid" in argv:
        tune = [r for r in rows if r["split"] == "tune"]
        for similarity in (0.4, 0.5, 0.6, 0.7, 0.8):
            for residual in (0, 1, 2, 3):
                got = evaluate(tune, similarity=similarity, residual=residual)
                print(f"similarity {similarity} residual {residual}: precision {got['precision']} "
                      f"recall {got['recall']} (fp {got['fp']}, fn {got['fn']})")
        return
    for split in ("tune", "heldout", None) if only is None else (only,):
        subset = [r for r in rows if split is None or r["split"] == split]
        got = evaluate(subset)
        print(f"{split or 'all'}: {got['pairs']} pairs, precision {got['precision']} ({got['tp']}/{got['tp'] + got['fp']}), "
              f"recall {got['recall']} ({got['tp']}/{got['tp'] + got['fn']}), by label {got['by_label']}")
        if "-v" in argv:
            for miss in got["misses"]:
                print("   miss:", miss["label"], "|", miss["a"], "|", miss["b"])


if __name__ == "__main__":
    main(sys.argv[1:])
