"""What trust derived from history costs (SPEC §12): the hook path before and after, and the attestation's own
catch-up, on the synthetic stores of bench/gen_store.py.

    python bench/bench_attest.py [--sizes 1000,10000] [--runs 15] [--base a165ec4]

For each size the cached store is cloned twice into bench/out/attest/, one clone per vmem version, each with its
own cache dir (XDG_CACHE_HOME), so neither version reads the other's caches. BASE (the main before attestation)
is exported from git into bench/out/attest/base-src and run with PYTHONPATH pointing at it; the current version is
this checkout's src. Both run as `python -m vmem`, fresh processes, interleaved in shuffled order:

  sync-cold     `vmem sync` on the fresh clone, caches empty (once per side: what a teammate meets first)
  sync-warm     `vmem sync`, nothing changed (the pre-session hook on an unchanged store)
  sync-commit   `vmem sync` right after one new commit (a reviewer's approval)

and, in-process for the current version only:

  attest-cold        the attestation replayed from the first commit (cache deleted)
  attest-1, -100     the attestation brought forward over 1 and over 100 new commits (cache kept)

Writes bench/results/attest.md. Ratios within one run are what count; absolute times move between machines.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_store import BENCH_DIR, IDENTITY, ensure_store, git  # noqa: E402

OUT = BENCH_DIR / "out" / "attest"
RESULTS = BENCH_DIR / "results"
REPO = HERE.parent


def export(rev: str, into: Path) -> Path:
    """REV's src/ as files (git archive), so the old version runs unchanged next to the new one."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    data = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as archive:
        archive.extractall(into, filter="data")
    return into / "src"


class Side:
    """One vmem version on its own clone of the store, with its own caches."""

    def __init__(self, name: str, source: Path, src: Path, size: int) -> None:
        self.name = name
        self.root = OUT / f"{name}-{size}"
        self.rules = OUT / f"rules-{name}-{size}"
        cache = OUT / f"cache-{name}-{size}"
        for path in (self.root, self.rules, cache):
            shutil.rmtree(path, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", str(source), str(self.root)], check=True)
        git(self.root, "config", "user.name", IDENTITY[0])
        git(self.root, "config", "user.email", IDENTITY[1])
        # no PYTHONPYCACHEPREFIX: it adds ~200 ms to every start-up here, which would hide the difference
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")}
        self.env.update(PYTHONPATH=str(src), XDG_CACHE_HOME=str(cache))

    def sync(self) -> float:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "vmem", "--store", str(self.root), "sync", "--dir",
                               str(self.rules)], env=self.env, capture_output=True, cwd=OUT)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{self.name}: vmem sync failed:\n{done.stderr.decode()[-2000:]}")
        return elapsed


def approve_one(root: Path, reviewer: str) -> None:
    """One proposal and a reviewer's approval of it (two commits), in-process with the current version."""
    from vmem.ops.govern import set_status
    from vmem.ops.propose import propose_claim
    from vmem.store.repo import Store

    store = Store.open(root)
    with store.acting_as(reviewer):
        item = propose_claim(store, f"bench fact {random.random():.12f}: orders.placed_at is UTC").item
        set_status(store, item["id"], "approved")


def propose_one(root: Path) -> None:
    """One commit that the attestation has not seen (a proposal never reads the attestation)."""
    from vmem.ops.propose import propose_claim
    from vmem.store.repo import Store

    propose_claim(Store.open(root), f"bench fact {random.random():.12f}: refunds settle daily")


def in_process(root: Path, cache: Path, reviewer: str, runs: int) -> dict[str, list[float]]:
    os.environ["XDG_CACHE_HOME"] = str(cache)
    from vmem.store.attest import attestation, cache_path
    from vmem.store.repo import Store

    samples: dict[str, list[float]] = {"attest-cold": [], "attest-1": [], "attest-100": []}

    def timed(key: str) -> None:
        store = Store.open(root)  # a fresh Repository, as a new process has
        started = time.perf_counter()
        attestation(store.repo, root)
        samples[key].append(time.perf_counter() - started)

    for _ in range(max(1, runs // 5)):
        cache_path(root).unlink(missing_ok=True)
        timed("attest-cold")
    for _ in range(runs):
        propose_one(root)
        timed("attest-1")
    for _ in range(max(1, runs // 5)):
        for _ in range(100):
            propose_one(root)
        timed("attest-100")
    return samples


def bench(size: int, seed: int, runs: int, base_src: Path, log) -> dict:
    source = ensure_store(size, seed, log=log)
    from vmem.store import codec

    reviewers = codec.load((source / "vmem.yaml").read_text(), "vmem.yaml")["reviewers"]
    reviewer = f"Reviewer <{reviewers[0]}>"
    sides = [Side("base", source, base_src, size), Side("now", source, REPO / "src", size)]
    samples: dict[str, dict[str, list[float]]] = {s.name: {"sync-warm": [], "sync-commit": []} for s in sides}
    for side in sides:
        samples[side.name]["sync-cold"] = [side.sync()]  # a fresh clone's first sync: fills this side's caches
        log(f"{size}: {side.name} cold sync {samples[side.name]['sync-cold'][0]:.2f} s")
    rng = random.Random(seed)
    for _ in range(runs):
        order = list(sides)
        rng.shuffle(order)
        for side in order:
            samples[side.name]["sync-warm"].append(side.sync())
    for _ in range(runs):
        for side in sides:
            approve_one(side.root, reviewer)
        order = list(sides)
        rng.shuffle(order)
        for side in order:
            samples[side.name]["sync-commit"].append(side.sync())
    now = sides[1]
    extra = in_process(now.root, OUT / f"cache-now-{size}", reviewer, runs)
    return {"size": size, "base": samples["base"], "now": {**samples["now"], **extra}}


def ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def report(results: list[dict], base: str, runs: int) -> str:
    lines = [f"Attestation cost: current checkout vs `{base}` (the base revision), medians of "
             f"{runs} fresh `python -m vmem` processes, interleaved; attestation rows in-process.", "",
             "| store | sync cold, before | now | ratio | sync warm, before | sync warm, now | ratio "
             "| sync after a commit, before | now | ratio | attestation: cold | +1 commit | +100 commits |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        b, n = r["base"], r["now"]
        lines.append(
            f"| {r['size']:,} | {ms(b['sync-cold']):,.0f} ms | {ms(n['sync-cold']):,.0f} ms | "
            f"{ms(n['sync-cold']) / ms(b['sync-cold']):.2f}× | "
            f"{ms(b['sync-warm']):.0f} ms | {ms(n['sync-warm']):.0f} ms | "
            f"{ms(n['sync-warm']) / ms(b['sync-warm']):.2f}× | {ms(b['sync-commit']):.0f} ms | "
            f"{ms(n['sync-commit']):.0f} ms | {ms(n['sync-commit']) / ms(b['sync-commit']):.2f}× | "
            f"{ms(n['attest-cold']):,.0f} ms | {ms(n['attest-1']):.1f} ms | {ms(n['attest-100']):.0f} ms |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", default="a165ec4", help="the revision to compare with")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    base_src = export(args.base, OUT / "base-src")
    results = [bench(int(size), args.seed, args.runs, base_src, log) for size in args.sizes.split(",")]
    text = report(results, args.base, args.runs)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "attest.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
