"""Benchmark `vmem sync` on a synthetic store against its SPEC 10 budget: 2x `python -c 'import vmem'` plus
writing the files.

    python bench/bench_sync.py [--items 10000] [--runs 9] [--seed 1]

Each round runs, in shuffled order: `python -c 'import vmem'`; a plain Python process that writes the same
bundle files (the "file writes" part of the budget); `vmem sync` on an unchanged store (warm: the commit-keyed
cache hits, no file changes); `vmem sync` right after a new commit (every file carries the commit, so all are
rewritten; only changed blobs are parsed); and `vmem sync` with its caches deleted (cold: parse every item).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_store import ensure_store  # noqa: E402

from vmem.ops.propose import propose_claim  # noqa: E402
from vmem.ops.sync import cache_file  # noqa: E402
from vmem.store.repo import Store  # noqa: E402

OUT_DIR = Path(__file__).parent / "out"
VMEM = str(Path(sys.executable).parent / "vmem")
ROWS = ["python -c 'import vmem'", "write the bundle files (plain python)", "vmem sync, unchanged store (warm)",
        "vmem sync after one new commit", "vmem sync, cache deleted (cold)"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    root = ensure_store(args.items, args.seed)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(OUT_DIR / "pycache")
    work = Path(tempfile.mkdtemp(prefix="vmem-bench-sync-"))
    target = work / "rules"

    def run(argv: list[str]) -> float:
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv[:4])} failed:\n{done.stderr}")
        return elapsed

    sync = [VMEM, "sync", "--store", str(root), "--dir", str(target)]
    run(sync)  # warm the cache and the files
    files = sorted(target.iterdir())
    size = sum(p.stat().st_size for p in files)
    copy_code = ("import os, sys\nsrc, dst = sys.argv[1], sys.argv[2]\nos.makedirs(dst, exist_ok=True)\n"
                 "for name in os.listdir(src):\n    data = open(os.path.join(src, name), 'rb').read()\n"
                 "    tmp = os.path.join(dst, '.' + name + '.tmp')\n    open(tmp, 'wb').write(data)\n"
                 "    os.replace(tmp, os.path.join(dst, name))\n")
    store = Store.open(root)
    counter = iter(range(10**6))

    def after_commit() -> float:
        propose_claim(store, f"bench sync marker fact {next(counter)} about orders", domain="finance")
        return run(sync)

    def cold() -> float:
        cache_file(root).unlink(missing_ok=True)
        cache_file(root).with_suffix(".bundles").unlink(missing_ok=True)
        return run(sync)

    operations = {
        ROWS[0]: lambda: run([sys.executable, "-c", "import vmem"]),
        ROWS[1]: lambda: run([sys.executable, "-c", copy_code, str(target), str(work / "copy")]),
        ROWS[2]: lambda: run(sync),
        ROWS[3]: after_commit,
        ROWS[4]: cold,
    }
    samples: dict[str, list[float]] = defaultdict(list)
    rng = random.Random(args.seed)
    for _ in range(args.runs):
        order = list(operations)
        rng.shuffle(order)
        for name in order:
            samples[name].append(operations[name]())
    import_vmem = statistics.median(samples[ROWS[0]])
    writes = statistics.median(samples[ROWS[1]]) - import_vmem  # the copy process minus its own start-up
    budget = 2 * import_vmem + max(writes, 0.0)
    lines = [f"## vmem sync, {args.items:,} items", "",
             f"{args.runs} interleaved rounds · store `{root.name}` · bundle: {len(files)} files, {size:,} bytes · "
             f"budget = 2 × import vmem + writes = {budget * 1000:.1f} ms", "",
             "| operation | median ms | min ms | max ms | vs budget |", "| --- | ---: | ---: | ---: | ---: |"]
    for name in ROWS:
        values = samples[name]
        median = statistics.median(values)
        lines.append(f"| {name} | {median * 1000:.1f} | {min(values) * 1000:.1f} | {max(values) * 1000:.1f} | "
                     f"{median / budget:.2f}× |")
    text = "\n".join(lines) + "\n"
    print(text)
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / f"sync-{args.items}.md").write_text(text)
    shutil.rmtree(work)
    subprocess.run(["git", "-C", str(root), "status", "--porcelain"], check=True)


if __name__ == "__main__":
    main()
