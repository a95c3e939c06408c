"""A one-shot `vmem recall` and an up-to-date `vmem index`, as fresh processes, before and after the fast path.

    python bench/bench_cold_recall.py [--size 10000] [--runs 15] [--base 6538a45] [--after-commit]

The synthetic store of bench/gen_store.py (seed 1) is cloned twice into bench/out/cold-recall/, one clone per
vmem version, each with its own cache dir; BASE's src/ is exported from git and run with PYTHONPATH pointing at
it, the current version is this checkout's src. Both indexes are built first (untimed). Then, in shuffled order
per round: `python -m vmem recall QUERY` for both versions (output captured, as bench_all does), `git grep -i -F
-l -e W1 -e W2 …` (bench_all's baseline for recall) and `python -m vmem index` for both versions. Prints medians
and ratios; on a busy machine only ratios from the same run mean anything.

--after-commit: the recall SPEC §10 calls "right after a commit". Right before each side's timed recall, that
side's own vmem proposes one new claim (untimed), so every recall first catches its index up by one commit; the
`vmem index` rows are left out (they would catch the index up first).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_all import QUERIES, grep_words  # noqa: E402
from bench_attest import Side, export  # noqa: E402
from gen_store import BENCH_DIR, ensure_store  # noqa: E402

OUT = BENCH_DIR / "out" / "cold-recall"


def timed(argv: list[str], env: dict | None, cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):  # git grep exits 1 when nothing matches
        raise SystemExit(f"{argv[:4]} failed:\n{done.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--base", default="6538a45")
    parser.add_argument("--after-commit", action="store_true", help="each recall right after a new commit")
    args = parser.parse_args()
    source = ensure_store(args.size, 1, log=print)
    import bench_attest

    bench_attest.OUT = OUT  # Side clones under OUT
    base_src = export(args.base, OUT / "base-src")
    sides = [Side("base", source, base_src, args.size), Side("now", source, HERE.parent / "src", args.size)]
    for side in sides:
        subprocess.run([sys.executable, "-m", "vmem", "--store", str(side.root), "index"], env=side.env, check=True,
                       capture_output=True)
    samples: dict[str, list[float]] = {}
    queries = iter(QUERIES * 1000)
    rng = random.Random(1)
    for _ in range(args.runs):
        query = next(queries)
        jobs = [(f"recall {s.name}", [sys.executable, "-m", "vmem", "--store", str(s.root), "recall", query], s.env,
                 s.root) for s in sides]
        if not args.after_commit:
            jobs += [(f"index {s.name}", [sys.executable, "-m", "vmem", "--store", str(s.root), "index"], s.env,
                      s.root) for s in sides]
        grep = ["git", "grep", "-i", "-F", "-l"] + [x for w in grep_words(query) for x in ("-e", w)]
        jobs.append(("git grep", grep, None, sides[1].root))
        rng.shuffle(jobs)
        for name, argv, env, cwd in jobs:
            if args.after_commit and name.startswith("recall"):
                statement = f"Bench claim {len(samples.get(name, []))} on {query} is noted for round checks."
                subprocess.run([sys.executable, "-m", "vmem", "--store", str(cwd), "propose", statement], env=env,
                               cwd=cwd, check=True, capture_output=True)
            samples.setdefault(name, []).append(timed(argv, env, cwd))
    med = {name: statistics.median(values) for name, values in samples.items()}
    print(f"{args.size:,} items, {args.runs} interleaved rounds, medians (base = {args.base}):")
    for name in sorted(med):
        print(f"  {name:<12} {med[name] * 1000:7.0f} ms")
    print(f"  recall now / base     {med['recall now'] / med['recall base']:.2f}x")
    print(f"  recall now / git grep {med['recall now'] / med['git grep']:.2f}x "
          f"(base: {med['recall base'] / med['git grep']:.2f}x)")
    if "index now" in med:
        print(f"  index now / base      {med['index now'] / med['index base']:.2f}x")


if __name__ == "__main__":
    main()
