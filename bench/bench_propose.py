"""Benchmark `vmem propose` against `git add && git commit` of the same file, on the same store, in one run.

    python bench/bench_propose.py [--items 100000] [--runs 15] [--seed 1] [--profile 20]

The store comes from gen_store.ensure_store (generated once, then reused and reset
to its generated commit). Each round runs these operations once, in a shuffled
order, so machine noise hits all of them alike:

  vmem propose (CLI)   `vmem --store DIR propose "<statement>" --domain finance`: a fresh process,
                       start-up included (what a user or an agent pays per call)
  git baseline         write a claim file (codec.dump of a valid proposed claim of the same shape:
                       same fields, a statement from the same vocabulary) at a new sharded path,
                       then `git add FILE` and `git commit -q -m MSG` as two processes; the timed
                       span covers the file write and both commands (vmem's time covers both too)
  python -c ...        interpreter start-up alone, `import vmem`, `import vmem.cli.app`
  propose in-process   vmem.ops.propose.propose_claim(Store.open(DIR), ...) in this process:
                       the work of one propose, without start-up and imports

Python subprocesses run without PYTHONDONTWRITEBYTECODE and with PYTHONPYCACHEPREFIX
under bench/out/, so they load cached bytecode as an installed vmem would (the
warm-up rounds fill that cache) without writing outside bench/.

Results: a markdown table on stdout, also kept in bench/out/propose.md (one
section per store size). Afterwards the script checks that `git status
--porcelain` is empty and that the commit count grew by exactly one per
propose and per git commit. --profile N runs N more in-process proposes under
cProfile and writes bench/out/propose-profile-<items>.txt.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import random
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pygit2

from gen_store import BENCH_DIR, IDENTITY, Generator, ensure_store, git, read_marker
from vmem import model
from vmem.ops.common import expires_at
from vmem.ops.propose import propose_claim
from vmem.store import codec
from vmem.store.message import Message
from vmem.store.repo import Store

OUT_DIR = BENCH_DIR / "out"
REPORT = OUT_DIR / "propose.md"
VMEM = str(Path(sys.executable).with_name("vmem"))
WARMUP_ROUNDS = 2
DOMAIN = "finance"

CLI = "vmem propose (CLI process)"
GIT = "git baseline: write file + git add + git commit"
GIT_ADD = "↳ git add"
GIT_COMMIT = "↳ git commit"
PYTHON = "python -c pass"
IMPORT_VMEM = "python -c 'import vmem'"
IMPORT_CLI = "python -c 'import vmem.cli.app'"
IN_PROCESS = "propose_claim() in-process (no start-up)"
METHOD = """Written by bench/bench_propose.py; see its docstring. Per round, in shuffled order: one `vmem propose`
CLI process; one git baseline (write a claim file of the same shape, then `git add` and `git commit -q` as two
processes; the timed span includes the file write); `python -c` start-up probes; one in-process propose_claim().
All on the same generated store; vmem's and git's commits pile up on the same branch. Python processes use a
bytecode cache (PYTHONPYCACHEPREFIX under bench/out/), as an installed vmem would.
"""
ROWS = [CLI, GIT, GIT_ADD, GIT_COMMIT, PYTHON, IMPORT_VMEM, IMPORT_CLI, IN_PROCESS]


class Bench:
    """The timed operations on one store; each returns {row: seconds}."""

    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.gen = Generator(seed + 1_000_003, Store.open(root).policy)  # other ids and text than the store's
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPYCACHEPREFIX"] = str(OUT_DIR / "pycache")
        self.commits = 0

    def statement(self) -> str:
        return self.gen.claim_text()[0]

    def _run(self, argv: list[str]) -> float:
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=self.root, env=self.env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv[:4])} ... failed ({done.returncode}):\n{done.stderr}{done.stdout}")
        return elapsed

    def vmem_cli(self) -> dict[str, float]:
        elapsed = self._run([VMEM, "--store", str(self.root), "propose", self.statement(), "--domain", DOMAIN])
        self.commits += 1
        return {CLI: elapsed}

    def git_baseline(self) -> dict[str, float]:
        item = self._claim(self.statement())
        path = model.item_path(item["id"])
        full = self.root / path
        if full.exists():
            raise SystemExit(f"{path} exists already; id collision in the benchmark")
        data = codec.dump(item).encode("utf-8")
        message = Message("propose", items=[item["id"]], summary=item["statement"]).render()
        started = time.perf_counter()
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(data)
        add = self._run(["git", "add", path])
        commit = self._run(["git", "commit", "-q", "-m", message])
        elapsed = time.perf_counter() - started
        self.commits += 1
        return {GIT: elapsed, GIT_ADD: add, GIT_COMMIT: commit}

    def _claim(self, statement: str) -> dict:
        """A claim exactly as `vmem propose TEXT --domain finance` would write it (see ops/propose.py)."""
        now = model.now()
        return model.validate("claim", {
            "id": self.gen.new_id("claim"), "kind": "claim", "statement": statement, "scope": "org",
            "class": "factual", "domain": DOMAIN, "status": "proposed", "audience": "all", "personal": False,
            "source": {"type": "analyst", "user": IDENTITY[1], "episode": None}, "confidence": 0.5,
            "created_at": now, "valid_from": now, "expires_at": expires_at(self.gen.policy, "factual", now),
        }, "benchmark claim")

    def python(self, row: str, code: str) -> dict[str, float]:
        return {row: self._run([sys.executable, "-c", code])}

    def in_process(self) -> dict[str, float]:
        statement = self.statement()
        started = time.perf_counter()
        propose_claim(Store.open(self.root), statement, domain=DOMAIN)
        elapsed = time.perf_counter() - started
        self.commits += 1
        return {IN_PROCESS: elapsed}

    def operations(self):
        return [self.vmem_cli, self.git_baseline, self.in_process,
                lambda: self.python(PYTHON, "pass"),
                lambda: self.python(IMPORT_VMEM, "import vmem"),
                lambda: self.python(IMPORT_CLI, "import vmem.cli.app")]


def vmem_revision() -> str:
    """The commit of the vmem checkout being measured, flagged when src/ has uncommitted changes."""
    project = BENCH_DIR.parent
    head = git(project, "rev-parse", "--short", "HEAD").strip()
    return head + (" + uncommitted changes in src/" if git(project, "status", "--porcelain", "--", "src") else "")


def commit_count(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


def run_rounds(bench: Bench, rounds: int, order_rng: random.Random) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(rounds):
        operations = bench.operations()
        order_rng.shuffle(operations)
        for operation in operations:
            for row, seconds in operation().items():
                samples[row].append(seconds)
    return samples


def profile(bench: Bench, count: int, items: int) -> Path:
    """cProfile COUNT in-process proposes; write the top functions by cumulative and by own time."""
    statements = [bench.statement() for _ in range(count)]
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    for statement in statements:
        propose_claim(Store.open(bench.root), statement, domain=DOMAIN)
    profiler.disable()
    elapsed = time.perf_counter() - started
    bench.commits += count
    text = io.StringIO()
    text.write(f"{count} in-process proposes on a {items:,}-item store: {elapsed / count * 1000:.1f} ms each "
               f"under cProfile\n\n")
    for key in ("cumulative", "tottime"):
        pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(key).print_stats(30)
    path = OUT_DIR / f"propose-profile-{items}.txt"
    path.write_text(text.getvalue())
    return path


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def table(samples: dict[str, list[float]]) -> str:
    baseline = statistics.median(samples[GIT])
    lines = ["| operation | median ms | p10 ms | p90 ms | min ms | max ms | median / git |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in ROWS:
        values = samples[row]
        deciles = statistics.quantiles(values, n=10, method="inclusive")
        median = statistics.median(values)
        lines.append(f"| {row} | {_ms(median)} | {_ms(deciles[0])} | {_ms(deciles[-1])} | "
                     f"{_ms(min(values))} | {_ms(max(values))} | {median / baseline:.2f}× |")
    return "\n".join(lines)


def section(items: int, runs: int, root: Path, samples: dict[str, list[float]], gen_seconds: float) -> str:
    cli, baseline = samples[CLI], samples[GIT]
    paired = statistics.median(c / g for c, g in zip(cli, baseline))
    ratio = statistics.median(cli) / statistics.median(baseline)
    budget = ""
    if items >= 100_000:
        budget = f" — {'within' if ratio <= 1 else 'OVER'} the SPEC §10 budget for 100k stores (≤ 1×)"
    return (
        f"## {items:,} items\n\n"
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC · {runs} interleaved rounds after {WARMUP_ROUNDS} warm-up "
        f"rounds · store `{root.relative_to(BENCH_DIR.parent)}` "
        f"(generated in {gen_seconds:.1f} s) · {os.cpu_count()} CPUs · Python {platform.python_version()} · "
        f"{git(root, 'version').strip()} · pygit2 {pygit2.__version__} (libgit2 {pygit2.LIBGIT2_VERSION}) · "
        f"vmem at {vmem_revision()}\n\n"
        f"{table(samples)}\n\n"
        f"vmem propose / git baseline: **{ratio:.2f}×** (ratio of medians), {paired:.2f}× (median of per-round "
        f"ratios){budget}.\n"
    )


def save(items: int, text: str) -> None:
    """Keep one section per store size in bench/out/propose.md, replacing this size's previous run."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    old = REPORT.read_text() if REPORT.exists() else ""
    sections = {int(m.group(1).replace(",", "")): m.group(0)
                for m in re.finditer(r"^## ([\d,]+) items\n.*?(?=^## |\Z)", old, re.S | re.M)}
    sections[items] = text
    body = "\n".join(sections[n].rstrip("\n") + "\n" for n in sorted(sections))
    REPORT.write_text("# vmem propose vs git add + git commit\n\n" + METHOD + "\n" + body)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000, help="store size (default: 100000)")
    parser.add_argument("--runs", type=int, default=15, help="timed rounds (default: 15)")
    parser.add_argument("--seed", type=int, default=1, help="store seed (default: 1)")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also profile N in-process proposes (written to bench/out/)")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2")

    root = ensure_store(args.items, args.seed)
    gen_seconds = read_marker(root)["seconds"]
    bench = Bench(root, args.seed)
    before = commit_count(root)
    order = random.Random(args.seed)
    print(f"warming up ({WARMUP_ROUNDS} rounds) ...")
    run_rounds(bench, WARMUP_ROUNDS, order)
    print(f"timing {args.runs} interleaved rounds on {args.items:,} items ...")
    samples = run_rounds(bench, args.runs, order)
    text = section(args.items, args.runs, root, samples, gen_seconds)
    save(args.items, text)
    print("\n" + text)
    print(f"written to {REPORT}")
    if args.profile:
        print(f"profile: {profile(bench, args.profile, args.items)}")

    dirty = git(root, "status", "--porcelain")
    assert not dirty, f"the store has uncommitted changes after the benchmark:\n{dirty}"
    grown = commit_count(root) - before
    assert grown == bench.commits, f"expected {bench.commits} new commits, found {grown}"
    print(f"checked: git status is clean; {grown} new commits, one per propose and per git commit")


if __name__ == "__main__":
    main()
