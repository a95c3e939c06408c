"""Consolidate before and after a change, side by side: SPEC §10's "consolidate 1k proposals into 10k" budget.

    python bench/bench_consolidate_ab.py [--base REV] [--size 10000] [--runs 2]

BASE's src/ is exported from git (git archive) and run with PYTHONPATH pointing at it, the current checkout's
src/ likewise; each version gets its own clone of the synthetic store (bench/gen_store.py) with the same 1,000
new learnings committed (the same generator seed, so the same text), its own cache dir, and runs
`python -m vmem consolidate` as a fresh process. The runs alternate (base, current, current, base, ...) and each
run starts from the commit with the learnings (git reset), so both versions see the same load. Prints the
medians and the merge counts; nothing is written to the README.
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

from bench_attest import export  # noqa: E402 - the same git-archive export of a base revision
from gen_store import BENCH_DIR, IDENTITY, Generator, ensure_store, git  # noqa: E402

OUT = BENCH_DIR / "out" / "consolidate-ab"
REPO = HERE.parent
PROPOSALS = 1_000


def add_learnings(root: Path, seed: int) -> str:
    """PROPOSALS candidate learnings in one commit, written in-process by whichever vmem this process imports (run
    per side with that side's PYTHONPATH: `bench_consolidate_ab.py --add ROOT`, so each version writes items in
    its own schema; a field the other version does not know would make it skip every learning as unreadable)."""
    from vmem import model
    from vmem.store.repo import Store
    from vmem.text import canonicalize

    store = Store.open(root)
    gen = Generator(seed, store.policy)
    rng = random.Random(seed)
    entities = sorted(store.head().entities())
    writers = [f"analyst{n}@example.com" for n in range(12)]
    with store.transaction("propose", summary=f"{PROPOSALS} bench learnings") as tx:
        for _ in range(PROPOSALS):
            text, categories = gen.learning_text()
            now = model.now()
            item = model.validate("knowledge", {
                "id": gen.new_id("knowledge"), "kind": "knowledge", "statement": text,
                "canonical": canonicalize(text), "categories": categories, "status": "candidate",
                "evidence": [{"entity": rng.choice(entities), "writer": rng.choice(writers), "episode": None,
                              "at": now, "tier": 2}],
                "first_seen": now, "last_reinforced": now, "valid_from": now}, "bench learning")
            tx.message.items.append(item["id"])
            tx.write(item)
    return git(root, "rev-parse", "HEAD").strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="1271502")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--add", type=Path, help=argparse.SUPPRESS)  # the per-side step above
    args = parser.parse_args()
    if args.add:
        add_learnings(args.add, 4_242)
        return
    source = ensure_store(args.size)
    versions = {"base": export(args.base, OUT / "base-src"), "current": REPO / "src"}
    setups = {}
    for name, src in versions.items():
        root, cache = OUT / f"{name}-{args.size}", OUT / f"cache-{name}"
        for path in (root, cache):
            shutil.rmtree(path, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", str(source), str(root)], check=True)
        git(root, "config", "user.name", IDENTITY[0])
        git(root, "config", "user.email", IDENTITY[1])
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")}
        env.update(PYTHONPATH=str(src), XDG_CACHE_HOME=str(cache))
        subprocess.run([sys.executable, __file__, "--add", str(root)], env=env, check=True)
        start = git(root, "rev-parse", "HEAD").strip()
        setups[name] = (root, start, env)
    times: dict[str, list[float]] = {name: [] for name in versions}
    merges: dict[str, str] = {}
    order = ["base", "current"]
    for run in range(args.runs):
        for name in order if run % 2 == 0 else order[::-1]:
            root, start, env = setups[name]
            git(root, "reset", "-q", "--hard", start)
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "vmem", "--store", str(root), "consolidate"], env=env,
                                  capture_output=True, text=True, cwd=OUT)
            times[name].append(time.perf_counter() - started)
            if done.returncode != 0:
                raise SystemExit(f"{name}: consolidate failed:\n{done.stderr[-2000:]}")
            merges[name] = git(root, "show", "--format=%s", "-s", "HEAD").strip()
            print(f"{name:8} run {run + 1}: {times[name][-1]:.1f} s  ({merges[name]})", flush=True)
    for name, values in times.items():
        print(f"{name:8} median {statistics.median(values):.1f} s over {len(values)} runs ({args.base if name == 'base' else 'this checkout'})")


if __name__ == "__main__":
    main()
