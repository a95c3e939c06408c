"""Fit recall's coverage decision (covered / partial / uncovered) and measure it leave-one-file-out.

    python scripts/fit_coverage.py STORE                   # leave-one-file-out report
    python scripts/fit_coverage.py STORE --write   # fit on all the files, rewrite src/vmem/ops/coverage_table.py
    (--cache FILE keeps the extracted features between runs)

STORE is a FRESH demo store (`vmem demo DIR` puts it at DIR/store; the files' labels follow a fresh demo). For each
question of the labeled files (FILES) it records ops/coverage.features through recall's own code (recall.search
at -k 10, the features it hands the table) and fits a multinomial logistic regression (numpy, L2 on the weights,
features standardised on the training questions, each label of each file weighted to the same total, so that
the big file's answered questions, written in the items' own words, do not alone define `covered`).
Leave-one-file-out: trained on the others, measured on the one left out. The L2 strength is chosen inside the training files (train on one,
measure on another, every way: mean per-label accuracy), never on the file measured; --write chooses it the same way over
all the files, fits on all of them and writes the table (commented, one row a feature).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from vmem.embed import embedder
from vmem.index.local import LocalIndex
from vmem.ops import coverage as C
from vmem.ops import recall as R
from vmem.ops.eval_recall import read_queries
from vmem.store.repo import Store

FILES = ("examples/eval/recall.yaml", "examples/eval/recall_coverage.yaml", "examples/eval/recall_coverage2.yaml",
         "examples/eval/recall_coverage3.yaml", "examples/eval/recall_coverage4.yaml",
         "examples/eval/recall_coverage5.yaml", "examples/eval/recall_coverage6.yaml",
         "examples/eval/recall_coverage7.yaml")
LABELS = ("covered", "partial", "uncovered")
LAMBDAS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3)  # L2 strength against the weighted mean log-loss


def extract(store_root: Path) -> list[dict]:
    """Every question's features, as recall computes them (ops/coverage.label is wrapped to record its input)."""
    store = Store.open(store_root)
    embed = embedder(store.policy, store.root)
    index = LocalIndex.open(store, embed, model_id=str(embed.path))
    seen: list[list[float]] = []
    real = C.label
    C.label = lambda x: seen.append(list(x)) or "uncovered"  # the table being refitted does not decide here
    rows = []
    try:
        for name in FILES:
            for q in read_queries(Path(name)):
                seen.clear()
                R.search(index, q["query"], R.Scope.parse(q.get("scope"), q.get("audience")), False, 10, embed)
                rows.append({"file": Path(name).name, "query": q["query"], "split": q.get("split", "tune"),
                             "expect": q["expect"], "x": seen[0] if seen else None})
    finally:
        C.label = real
    return rows


def fit(X: np.ndarray, y: np.ndarray, lam: float, iters: int = 4000, files: np.ndarray | None = None) -> dict:
    """Multinomial logistic regression, L2 (not on the bias), each label weighted to the same total (with FILES, the
    file of each question: each label of each file): gradient descent on standardised features (convex; 4000
    full-batch steps converge on a few hundred questions)."""
    mean, std = X.mean(0), X.std(0)
    std[std == 0] = 1.0
    Z = (X - mean) / std
    n, d = Z.shape
    k = len(LABELS)
    cells = {}  # (file, label): each weighs alike, so a big file's easy questions do not define a label
    keys = list(zip(files if files is not None else [None] * n, y))
    for cell in keys:
        cells[cell] = cells.get(cell, 0) + 1
    w_sample = np.array([1.0 / cells[cell] for cell in keys])
    w_sample /= w_sample.sum()
    Y = np.eye(k)[y]
    W, b = np.zeros((d, k)), np.zeros(k)
    step = 0.5
    for _ in range(iters):
        logits = Z @ W + b
        logits -= logits.max(1, keepdims=True)
        P = np.exp(logits)
        P /= P.sum(1, keepdims=True)
        G = (P - Y) * w_sample[:, None]
        W -= step * (Z.T @ G + lam * W)
        b -= step * G.sum(0)
    return {"mean": mean, "std": std, "W": W, "b": b}


def predict(model: dict, X: np.ndarray) -> np.ndarray:
    return np.argmax(((X - model["mean"]) / model["std"]) @ model["W"] + model["b"], axis=1)


def scores(y: np.ndarray, got: np.ndarray) -> dict:
    confusion = np.zeros((3, 3), dtype=int)
    for e, g in zip(y, got):
        confusion[e, g] += 1
    per = [confusion[i, i] / confusion[i].sum() if confusion[i].sum() else None for i in range(3)]
    return {"accuracy": float(np.trace(confusion) / confusion.sum()), "per_label": per,
            "balanced": float(np.mean([p for p in per if p is not None])), "confusion": confusion.tolist()}


def choose_lambda(parts: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The L2 strength with the best mean per-label accuracy training on one of PARTS, measuring the other."""
    best = None
    for lam in LAMBDAS:
        value = np.mean([scores(parts[j][1], predict(fit(*parts[i], lam), parts[j][0]))["balanced"]
                         for i in range(len(parts)) for j in range(len(parts)) if i != j])
        if best is None or value > best[0] + 1e-9:
            best = (value, lam)
    return best[1]


def arrays(rows):
    rows = [r for r in rows if r["x"] is not None]  # (no live hit: recall answers uncovered without the table)
    return np.array([r["x"] for r in rows]), np.array([LABELS.index(r["expect"]) for r in rows])


def files_of(rows) -> np.ndarray:
    return np.array([r["file"] for r in rows if r["x"] is not None])  # (the rows arrays() keeps)


def report(rows: list[dict]) -> dict:
    files = [Path(f).name for f in FILES]
    out = {}
    for held in files:
        train = [f for f in files if f != held]
        lam = choose_lambda([arrays([r for r in rows if r["file"] == f]) for f in train])
        part = [r for r in rows if r["file"] in train]
        model = fit(*arrays(part), lam, files=files_of(part))
        X, y = arrays([r for r in rows if r["file"] == held])
        out[held] = {"lambda": lam, "learned": scores(y, predict(model, X))}
    return out


TABLE = Path(__file__).resolve().parents[1] / "src" / "vmem" / "ops" / "coverage_table.py"


def write_table(rows: list[dict], path: Path = TABLE) -> None:
    files = [Path(f).name for f in FILES]
    lam = choose_lambda([arrays([r for r in rows if r["file"] == f]) for f in files])
    X, y = arrays(rows)
    model = fit(X, y, lam, files=files_of(rows))
    fitted = {f: scores(*(lambda a: (a[1], predict(model, a[0])))(arrays([r for r in rows if r["file"] == f])))
              for f in files}
    lines = [f'"""Recall\'s coverage decision: a multinomial logistic regression over ops/coverage.features, fitted by',
             f"scripts/fit_coverage.py on all {len(y)} questions of {', '.join(files)}",
             f"against a fresh demo store (L2 {lam}, chosen across those files; each label of each file weighted alike).",
             "Generated: refit with `python scripts/fit_coverage.py STORE --write`, never edited by hand.",
             "",
             "Measured leave-one-file-out (trained on the others, asked the one left out) before it was adopted: see",
             "docs/recall.md. Accuracy on the questions it was fitted on (in-sample, says nothing about new ones):",
             "; ".join(f"{f} {s['accuracy']:.3f}" for f, s in fitted.items()) + ".",
             '"""', "", f"LABELS = {LABELS!r}",
             "BIAS = (" + ", ".join(f"{b:.4f}" for b in model["b"]) + ")",
             "# feature: (mean, standard deviation over the fitted questions, then the weight of the",
             "#           standardised feature for covered, partial, uncovered);",
             "# a label's score: BIAS + the sum of weight * (x - mean) / sd",
             "TABLE = {"]
    for n, name in enumerate(C.NAMES):
        values = [model["mean"][n], model["std"][n], *model["W"][n]]
        lines.append(f'    "{name}": (' + ", ".join(f"{v:.4f}" for v in values) + f"),  # {C.MEANINGS[name]}")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {path} (L2 {lam}); in-sample: " + "; ".join(f"{f} {s['accuracy']:.3f}" for f, s in fitted.items()))


def main(argv: list[str]) -> None:
    store = Path(argv[0])
    cache = Path(argv[argv.index("--cache") + 1]) if "--cache" in argv else None
    if cache and cache.is_file():
        rows = json.loads(cache.read_text())
    else:
        rows = extract(store)
        if cache:
            cache.write_text(json.dumps(rows))
    if "--write" in argv:
        write_table(rows)
        return
    for held, part in report(rows).items():
        s = part["learned"]
        per = " ".join(f"{label} {p:.2f}" if p is not None else f"{label} -"
                       for label, p in zip(LABELS, s["per_label"]))
        print(f"{held:<24} acc {s['accuracy']:.3f}  {per}  confusion {s['confusion']}  (L2 {part['lambda']})")


if __name__ == "__main__":
    main(sys.argv[1:])
