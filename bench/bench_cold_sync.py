"""The cold path a teammate meets on a fresh clone: `vmem sync` with empty caches, before and after.

    python bench/bench_cold_sync.py [--sizes 10000] [--runs 5] [--base f2baa7a] [--out cold_sync.md]

Each run clones the generated store (bench/gen_store.py) afresh, with its own empty cache directory
(XDG_CACHE_HOME), and times one `python -m vmem --store CLONE sync --dir RULES` as a fresh process: the attestation
replayed from the first commit, every item parsed and validated, the bundle ranked and the rules written. BASE runs
from its own `git archive` of src/ (PYTHONPATH), this checkout from its src/; the two alternate in shuffled pairs so
a busy machine slows both alike. Also reported: `git clone` of the same store, and the process's start (`python -m
vmem --version`), for scale. Writes bench/results/cold_sync.md (or --out). Ratios within one run are what count.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_attest import export  # noqa: E402
from gen_store import BENCH_DIR, ensure_store  # noqa: E402

OUT = BENCH_DIR / "out" / "cold"
RESULTS = BENCH_DIR / "results"


def _env(src: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")}
    env.update(PYTHONPATH=str(src), XDG_CACHE_HOME=str(cache))
    return env


def cold_sync(source: Path, src: Path, tag: str) -> tuple[float, float]:
    """(seconds of `git clone`, seconds of the first `vmem sync` on that clone with empty caches)."""
    clone, cache, rules = OUT / f"clone-{tag}", OUT / f"cache-{tag}", OUT / f"rules-{tag}"
    for path in (clone, cache, rules):
        shutil.rmtree(path, ignore_errors=True)
    started = time.perf_counter()
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(source), str(clone)], check=True)
    cloned = time.perf_counter() - started
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "vmem", "--store", str(clone), "sync", "--dir", str(rules)],
                          env=_env(src, cache), capture_output=True, cwd=OUT)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{tag}: vmem sync failed:\n{done.stderr.decode()[-2000:]}")
    return cloned, elapsed


def start_up(src: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "vmem", "--version"], env=_env(src, OUT / "cache-version"),
                   capture_output=True, check=True)
    return time.perf_counter() - started


def bench(size: int, seed: int, runs: int, sides: dict[str, Path], log) -> dict:
    source = ensure_store(size, seed, log=log)
    samples: dict[str, list[float]] = {name: [] for name in sides} | {"clone": [], "start": []}
    for run in range(runs):
        order = list(sides)
        random.shuffle(order)
        for name in order:
            cloned, took = cold_sync(source, sides[name], name)
            samples[name].append(took)
            samples["clone"].append(cloned)
            log(f"{size}: run {run + 1}/{runs} {name} cold sync {took:.2f} s (clone {cloned:.2f} s)")
        samples["start"].append(start_up(sides["now"]))
    return {"size": size, "samples": samples}


def report(results: list[dict], base: str, runs: int) -> str:
    med = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    lines = [f"Cold `vmem sync` on a fresh clone, empty caches: base {base} vs this checkout, medians of {runs} "
             f"(load {os.getloadavg()[0]:.1f} at the end)", "",
             "| store | before | now | ratio | range now | git clone | vmem --version |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        s = r["samples"]
        lines.append(f"| {r['size']:,} | {med(s['base']):,.0f} ms | {med(s['now']):,.0f} ms | "
                     f"{med(s['now']) / med(s['base']):.2f}× | {min(s['now']) * 1000:,.0f}–{max(s['now']) * 1000:,.0f} ms"
                     f" | {med(s['clone']):,.0f} ms | {med(s['start']):,.0f} ms |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", default="f2baa7a", help="the revision to compare with")
    parser.add_argument("--out", default="cold_sync.md", help="the file under bench/results/ to write")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    sides = {"base": export(args.base, OUT / "base-src"), "now": HERE.parent / "src"}
    results = [bench(int(size), args.seed, args.runs, sides, log) for size in args.sizes.split(",")]
    text = report(results, args.base, args.runs)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
