#!/usr/bin/env python3
"""Measure the bundled static model in vmem's runtime env (no torch): import, load, encode, network.

Run with the runtime interpreter, e.g.::

    /work/venv/bin/python scripts/bench_model_load.py [--runs 5] [--sentences FILE]

Every timing is taken in a fresh ``python`` subprocess (cold start; the OS file
cache is warm after the first run) and reported as the median of ``--runs``,
as wall time and as process CPU time (CPU time is less sensitive to other jobs
on the machine). Two load paths are compared:

* ``model2vec``: ``from model2vec import StaticModel; StaticModel.from_pretrained(path)``
* ``minimal``: ``tokenizers.Tokenizer.from_file`` + ``safetensors.numpy.load_file``
  — the same files, read without model2vec / huggingface_hub; ``MinimalModel.encode``
  below reproduces ``StaticModel.encode`` (checked against it here).

Each subprocess installs an audit hook that records socket / urllib events, so
"touches the network" is observed, not assumed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = REPO_ROOT / "src" / "vmem" / "models" / "minilm-l6-distill-256"
DEFAULT_PAIRS = REPO_ROOT.parent / "shared" / "eval" / "merge_pairs_dev.jsonl"

# Code run in the child process. argv: mode model_dir [sentences_file]
CHILD = r'''
import sys, time, json
events = []
def _hook(ev, args):
    if ev.startswith("socket.") or ev.startswith("urllib") or ev == "http.client.connect":
        events.append(ev)
sys.addaudithook(_hook)
mode, path = sys.argv[1], sys.argv[2]
w0, c0 = time.perf_counter(), time.process_time()
if mode == "model2vec":
    from model2vec import StaticModel
elif mode == "minimal":
    import numpy as np
    from tokenizers import Tokenizer
    from safetensors.numpy import load_file
else:
    import importlib
    importlib.import_module(mode)
w1, c1 = time.perf_counter(), time.process_time()
model = None
if mode == "model2vec":
    model = StaticModel.from_pretrained(path)
    enc = model.encode
elif mode == "minimal":
    tok = Tokenizer.from_file(path + "/tokenizer.json")
    emb = load_file(path + "/model.safetensors")["embeddings"]
    unk = tok.token_to_id("[UNK]")
    def enc(sents):
        out = np.zeros((len(sents), emb.shape[1]), dtype=np.float32)
        for i, e in enumerate(tok.encode_batch_fast(list(sents), add_special_tokens=False)):
            ids = [t for t in e.ids if t != unk]
            if ids:
                out[i] = emb[ids].mean(axis=0)
        out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-32
        return out
w2, c2 = time.perf_counter(), time.process_time()
res = {"import_wall": w1 - w0, "import_cpu": c1 - c0, "load_wall": w2 - w1, "load_cpu": c2 - c1,
       "total_wall": w2 - w0, "total_cpu": c2 - c0}
if len(sys.argv) > 3 and mode in ("model2vec", "minimal"):
    sents = open(sys.argv[3], encoding="utf-8").read().split("\n")[:-1]
    t0 = time.perf_counter(); v = enc(sents); t1 = time.perf_counter(); enc(sents); t2 = time.perf_counter()
    res.update(n_sentences=len(sents), encode_first_wall=t1 - t0, encode_warm_wall=t2 - t1)
    import numpy as np
    np.save(sys.argv[3] + "." + mode + ".npy", np.asarray(v, dtype=np.float32))
res["net_events"] = sorted(set(events))
res["hf_modules_loaded"] = sorted(m for m in sys.modules if m.split(".")[0] == "huggingface_hub")[:3]
res["top_modules"] = len({m.split(".")[0] for m in sys.modules})
print(json.dumps(res))
'''


def run_child(mode: str, model: Path, sentences: Path | None, env: dict[str, str], prefix: list[str]) -> dict:
    cmd = [*prefix, sys.executable, "-c", CHILD, mode, str(model)] + ([str(sentences)] if sentences else [])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_runs(mode, model, sentences, env, runs, prefix=()) -> dict:
    rows = [run_child(mode, model, sentences, env, list(prefix)) for _ in range(runs)]
    agg = {k: statistics.median(r[k] for r in rows) for k, v in rows[0].items() if isinstance(v, float)}
    agg["runs"] = [{k: round(v, 4) for k, v in r.items() if isinstance(v, float)} for r in rows]
    agg["net_events"] = sorted({e for r in rows for e in r["net_events"]})
    agg["hf_modules_loaded"] = rows[0]["hf_modules_loaded"]
    if "n_sentences" in rows[0]:
        agg["n_sentences"] = rows[0]["n_sentences"]
    return agg


def make_sentences(pairs: Path, dest: Path, n: int = 1000) -> Path:
    rows = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    sents = [s for r in rows for s in (r["a"], r["b"])]
    i = 0
    while len(sents) < n:  # pad with concatenations of two eval sentences
        sents.append(rows[i % len(rows)]["a"] + " " + rows[(i * 7 + 3) % len(rows)]["b"])
        i += 1
    dest.write_text("\n".join(s.replace("\n", " ") for s in sents[:n]) + "\n", encoding="utf-8")
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sentences", type=Path, help="one sentence per line (default: 1000 built from --pairs)")
    ap.add_argument("--pairs", type=Path, default=DEFAULT_PAIRS)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/vmem-model-bench"))
    ap.add_argument("--no-netns", action="store_true", help="skip the run inside an empty network namespace")
    args = ap.parse_args(argv)

    import numpy as np

    args.workdir.mkdir(parents=True, exist_ok=True)
    sentences = args.sentences or make_sentences(args.pairs, args.workdir / "sentences.txt")
    model = args.model.resolve()
    offline = {**os.environ, "HF_HUB_OFFLINE": "1"}
    bare = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE", "TRANSFORMERS"))}

    report: dict = {
        "python": sys.executable,
        "model": str(model),
        "model_dir_bytes": sum(p.stat().st_size for p in model.iterdir() if p.is_file()),
        "files": {p.name: p.stat().st_size for p in sorted(model.iterdir()) if p.is_file()},
        "loadavg_start": os.getloadavg(),
    }
    run_child("model2vec", model, None, offline, [])  # warm the OS file cache once
    for mode in ("model2vec", "minimal"):
        report[mode] = median_runs(mode, model, sentences, offline, args.runs)
    report["model2vec_no_hf_env"] = median_runs("model2vec", model, None, bare, 1)
    if not args.no_netns:
        try:
            report["model2vec_empty_netns_no_hf_env"] = median_runs(
                "model2vec", model, None, bare, 1, prefix=("unshare", "--net")
            )
        except (OSError, subprocess.CalledProcessError) as exc:
            report["model2vec_empty_netns_no_hf_env"] = f"not run: {exc}"
    imports = {}
    for mod in ("numpy", "tokenizers", "safetensors.numpy", "huggingface_hub", "huggingface_hub.repocard",
                "joblib", "tqdm", "model2vec", "model2vec.persistence"):
        imports[mod] = median_runs(mod, model, None, offline, args.runs)["import_wall"]
    report["import_wall_median_each_alone"] = imports

    a = np.load(str(sentences) + ".model2vec.npy")
    b = np.load(str(sentences) + ".minimal.npy")
    report["minimal_vs_model2vec_max_abs_diff"] = float(np.abs(a - b).max())
    report["loadavg_end"] = os.getloadavg()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
