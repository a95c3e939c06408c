"""Benchmark vmem's delivery to the team's remote (SPEC §10, §15; issue 27) against plain git, in one run.

    python bench/bench_team.py [--items 10000,100000] [--runs 9] [--seed 1] [--hook-items 10000]
                               [--alone-items 100000] [--probes 3] [--keep]

Every repository is a copy: the generated stores under bench/stores/ (gen_store.ensure_store makes them when they
are missing) are only read: `git clone --bare --local` of their generated commit, then `git clone --local` of that
bare copy, all under bench/out/team/. Each size has its own XDG_CACHE_HOME there (vmem's index and caches).

1. propose + delivery (each size in --items). Two bare remotes cloned from the store, one per side, so neither
   side's push is a non-fast-forward of the other's:
     A  (tracks remote-vmem.git)  `vmem --store A propose "<statement>" --domain finance`, a fresh process: the
        commit, then the delivery that follows every write (vmem.store.deliver: push)
     G  (tracks remote-git.git)   git baseline: write a claim file of the same shape (bench_propose's: codec.dump
        of a valid proposed claim, statement from the same vocabulary) at a new sharded path, then `git add F`,
        `git commit -q -m MSG`, `git push -q` (three processes; the timed span covers the write too)
   and, as information (no budget): the same vmem propose right after a teammate's commit landed on A's remote
   (made untimed, straight into the bare remote with pygit2), so delivery pays push (refused), fetch,
   `git rebase` and push again; and `python -c pass`, the floor under every Python process.
   Both clones get one untimed warm-up round first (the first vmem write on a big store splits git's index,
   core.splitIndex; the first propose builds vmem's statement caches). On a store of 30k items or more the
   contradiction check needs the search index, so `vmem index` is run once, untimed, in A; a timed propose that
   says it skipped the check stops the benchmark.

2. the session-start hook after a teammate's commit (--hook-items, default 10k). A bare remote and three clones:
   T (the teammate) proposes with `vmem propose`, which delivers it to the remote (untimed, before each round);
     B  `vmem --store B sync --pull --dir D`: deliver what waits, fetch, fast-forward, sync (a fresh process)
     C  baseline: `git pull -q --ff-only`, plus `vmem --store C sync --dir D` in a store where nothing changed
        since the last sync (C runs one untimed-for-the-budget sync right after the pull, its own row, then the
        timed unchanged one)
   and, as information: `vmem sync --pull` again in B with nothing new on the remote (the hook's common case).

3. `vmem propose` alone, no remote (--alone-items, default 100k): bench_propose.py's rounds (its Bench, its table)
   on clone A after part 1 with its remote removed, not on bench/stores/ (bench_propose.py in place would add
   commits to the shared store, and there is no search index for that path, so at 100k every propose would skip
   its contradiction check). Its git baseline runs in the same clone, whose index vmem split.

Every part runs its operations once per round in a shuffled order (random.Random(seed)), so machine noise hits
all of them alike; medians, p10/p90 and min/max over --runs rounds. Afterwards --probes N runs per vmem operation
under cProfile with GIT_TRACE2_EVENT (untimed for the tables) say where a process spends its time: deliver(),
_replay(), catch_up(), the attestation, and each git child by subcommand.

Python subprocesses run without PYTHONDONTWRITEBYTECODE and with PYTHONPYCACHEPREFIX under bench/out/ (as in
bench_propose.py). Results: markdown on stdout and in bench/out/team.md (one section per part and size, replaced
when that part and size run again). The clones are deleted at the end unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pstats
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pygit2

import bench_propose
from gen_store import BENCH_DIR, Generator, default_dir, ensure_store, git, read_marker
from vmem import model
from vmem.ops.contradictions import INDEX_FROM
from vmem.store import codec
from vmem.store.message import Message

OUT_DIR = BENCH_DIR / "out"
TEAM = OUT_DIR / "team"
REPORT = OUT_DIR / "team.md"
VMEM = str(Path(sys.executable).with_name("vmem"))
DOMAIN = "finance"
WARMUP_ROUNDS = 1
ME = ("bench", "bench@example.com")
TEAMMATE = ("teammate", "teammate@example.com")
REVIEWER_OF_STORE = ("Wen Kowalski", "wen.kowalski@northwind-analytics.example")  # a reviewer gen_store names
SKIPPED = "contradiction check skipped"
UNDELIVERED = ("not yet delivered", "main is protected", "parted", "failed", "took longer")

# part 1 rows
P_VMEM = "vmem propose + delivery (push)"
P_GIT = "git baseline: write file + git add + git commit + git push"
P_ADD, P_COMMIT, P_PUSH = "↳ git add", "↳ git commit", "↳ git push"
P_ADD_COMMIT = "↳ git baseline without the push (write + add + commit)"
P_REPLAY = "vmem propose + delivery after a teammate's push (push refused, fetch, rebase, push)"
P_PYTHON = "python -c pass"
PROPOSE_ROWS = [P_VMEM, P_GIT, P_ADD, P_COMMIT, P_PUSH, P_ADD_COMMIT, P_REPLAY, P_PYTHON]
# part 2 rows
H_HOOK = "hook: vmem sync --pull (deliver, fetch, fast-forward, sync)"
H_BASE = "baseline: git pull + vmem sync unchanged"
H_PULL = "↳ git pull -q --ff-only"
H_SYNC = "↳ vmem sync, nothing changed"
H_SYNC_NEW = "vmem sync right after the git pull (the new commit; not in the baseline)"
H_PULL_SYNC_NEW = "git pull + vmem sync of the new commit (what a git user pays without the hook)"
H_NOTHING = "vmem sync --pull, nothing new on the remote"
HOOK_ROWS = [H_HOOK, H_BASE, H_PULL, H_SYNC, H_SYNC_NEW, H_PULL_SYNC_NEW, H_NOTHING, P_PYTHON]

PROBE = r"""
import cProfile, sys
out, args = sys.argv[1], sys.argv[2:]
import vmem.cli.entry as entry
def end(code):
    raise SystemExit(code)
entry.end = end  # the entry point ends with os._exit, which would lose the profile
sys.argv = ["vmem", *args]
profiler = cProfile.Profile()
profiler.enable()
try:
    entry.main()
except SystemExit:
    pass
profiler.disable()
profiler.dump_stats(out)
"""
# (label, file suffix, function): cumulative times read from the probes' profiles
FUNCTIONS = [
    ("propose_claim() (the commit, contradiction check included)", "vmem/ops/propose.py", "propose_claim"),
    ("deliver() (vmem.store.deliver)", "vmem/store/deliver.py", "deliver"),
    ("↳ tracking(): which remote (git rev-parse, 2× git config)", "vmem/store/deliver.py", "tracking"),
    ("↳ waiting(): what the remote lacks (git rev-parse, rev-list)", "vmem/store/deliver.py", "waiting"),
    ("↳ _replay(): fetch + rebase", "vmem/store/deliver.py", "_replay"),
    ("catch_up() (deliver, fetch, fast-forward)", "vmem/store/deliver.py", "catch_up"),
    ("stage.flush()", "vmem/store/stage.py", "flush"),
    ("Store.attestation() (vmem.store.repo)", "vmem/store/repo.py", "attestation"),
    ("↳ attestation() (vmem.store.attest)", "vmem/store/attest.py", "attestation"),
    ("ops.sync.sync() (catch_up included)", "vmem/ops/sync.py", "sync"),
    ("↳ load_candidates(): read the store for the bundle", "vmem/store/served.py", "load_candidates"),
    ("run_bounded() (each git child: spawn, wait, reap)", "vmem/process.py", "run_bounded"),
]


PROCESS = "whole process (under cProfile)"
GIT_TOTAL = "all top-level git processes (trace2; the long-lived cat-file --batch left out)"


def log(text: str) -> None:
    print(text, flush=True)


class Runner:
    """Fresh processes with the benchmark's environment; each returns its wall time."""

    def __init__(self, cache: Path) -> None:
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPYCACHEPREFIX"] = str(OUT_DIR / "pycache")
        self.env["XDG_CACHE_HOME"] = str(cache)
        os.environ["XDG_CACHE_HOME"] = str(cache)  # the in-process parts (bench_propose) use the same caches

    def run(self, argv: list[str], cwd: Path, env: dict | None = None) -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env or self.env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv[:5])} ... failed ({done.returncode}) in {cwd}:\n{done.stderr}{done.stdout}")
        return elapsed, done.stderr

    def vmem(self, root: Path, *args: str, cwd: Path | None = None) -> tuple[float, str]:
        elapsed, err = self.run([VMEM, "--store", str(root), *args], cwd or root)
        if SKIPPED in err:
            raise SystemExit(f"a timed vmem {args[0]} skipped its contradiction check:\n{err}")
        if any(word in err for word in UNDELIVERED):
            raise SystemExit(f"vmem {args[0]} in {root} did not deliver or catch up:\n{err}")
        return elapsed, err

    def probe(self, root: Path, args: list[str], cwd: Path, stem: Path) -> dict[str, float]:
        """One run of `vmem --store ROOT ARGS` under cProfile with git's trace2: {component: seconds}."""
        prof, trace = stem.with_suffix(".prof"), stem.with_suffix(".trace2.json")
        trace.unlink(missing_ok=True)
        env = dict(self.env, GIT_TRACE2_EVENT=str(trace))
        elapsed, _ = self.run([sys.executable, "-c", PROBE, str(prof), "--store", str(root), *args], cwd, env)
        parts = {PROCESS: elapsed}
        stats = pstats.Stats(str(prof)).stats  # {(file, line, name): (cc, nc, tt, ct, callers)}
        for label, suffix, name in FUNCTIONS:
            found = [v[3] for (file, _, func), v in stats.items() if file.endswith(suffix) and func == name]
            if found:
                parts[label] = max(found)
        parts.update(git_children(trace))
        return parts


def git_children(trace: Path) -> dict[str, float]:
    """Top-level git processes in a trace2 event file, summed by subcommand: {"git SUB (n×)": seconds}."""
    argv: dict[str, list[str]] = {}
    took: dict[str, float] = {}
    try:
        lines = trace.read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        sid = event.get("sid", "")
        if "/" in sid:
            continue  # a child of a git process (receive-pack, pack-objects, the rebase's own gits)
        if event.get("event") == "start":
            argv[sid] = event.get("argv", [])
        elif event.get("event") in ("exit", "atexit") and "t_abs" in event:
            took[sid] = max(took.get(sid, 0.0), event["t_abs"])
    by: dict[str, list[float]] = defaultdict(list)
    for sid, seconds in took.items():
        by[subcommand(argv.get(sid, []))].append(seconds)
    out = {GIT_TOTAL: sum(sum(v) for k, v in by.items() if "--batch" not in k)}
    for name, values in by.items():
        out[f"git {name}"] = sum(values)
        out[f"#git {name}"] = len(values)  # how many processes (shown beside the time, not as a row)
    return out


def subcommand(argv: list[str]) -> str:
    words, skip = [], False
    for word in argv[1:]:
        if skip:
            skip = False
            continue
        if word in ("-C", "-c"):
            skip = True
            continue
        if word.startswith("-") and not words:
            continue
        words.append(word)
    if not words:
        return "?"
    if words[0] == "cat-file" and "--batch" in " ".join(words):
        return "cat-file --batch"
    return words[0]


# -- repositories --------------------------------------------------------------------------------------------------

def source_store(items: int, seed: int) -> tuple[Path, dict]:
    """The generated store and its marker, only read: its generated commit is what the copies start from (a store
    another benchmark left commits on is not reset here; the copies take the generated commit anyway)."""
    root = default_dir(items, seed)
    marker = read_marker(root)
    if not (marker and marker.get("items") == items and marker.get("seed") == seed):
        root = ensure_store(items, seed)  # missing: generate it
        marker = read_marker(root)
    return root, marker


def bare_copy(source: Path, commit: str, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--bare", "--local", str(source), str(dest)], check=True)
    git(dest, "update-ref", "refs/heads/main", commit)
    git(dest, "symbolic-ref", "HEAD", "refs/heads/main")
    return dest


def work_clone(remote: Path, dest: Path, who: tuple[str, str]) -> Path:
    started = time.perf_counter()
    subprocess.run(["git", "clone", "-q", "--local", str(remote), str(dest)], check=True)
    for key, value in (("user.name", who[0]), ("user.email", who[1]),
                       ("merge.vmem.name", "vmem field-wise item merge"),
                       ("merge.vmem.driver", "vmem merge-driver %O %A %B %P")):
        git(dest, "config", key, value)
    log(f"  cloned {dest.name} in {time.perf_counter() - started:.1f} s")
    return dest


def fair_index(*roots: Path) -> None:
    """A fresh checkout leaves every index entry racily clean (git would re-hash them in every add and commit):
    wait past the second and refresh once, untimed, as bench_all.py does."""
    time.sleep(1.1)
    for root in roots:
        git(root, "update-index", "-q", "--refresh")


def head(root: Path, ref: str = "HEAD") -> str:
    return git(root, "rev-parse", ref).strip()


def settle(*dirs: Path, limit_s: float = 120.0) -> None:
    """Wait (untimed) while a git gc or a git index lock from an earlier command is still around."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        busy = [d for d in dirs for name in ("gc.pid", "index.lock") if (git_dir(d) / name).exists()]
        if not busy:
            return
        time.sleep(0.05)


def git_dir(root: Path) -> Path:
    return root / ".git" if (root / ".git").is_dir() else root


class Claims:
    """Claims of the shape `vmem propose TEXT --domain finance` writes (bench_propose's), with ids and text of
    their own."""

    def __init__(self, root: Path, seed: int) -> None:
        self.maker = bench_propose.Bench(root, seed)
        self.maker.gen = Generator(seed + 2_000_029, self.maker.gen.policy)  # not bench_propose's ids or text

    def statement(self) -> str:
        return self.maker.statement()

    def claim(self) -> dict:
        return self.maker._claim(self.statement())

    @staticmethod
    def message(item: dict) -> str:
        return Message("propose", items=[item["id"]], summary=item["statement"]).render()


def commit_into_bare(bare: Path, path: str, data: bytes, message: str, who: tuple[str, str]) -> str:
    """A teammate's commit adding PATH, made straight in the bare remote (main moves; no clone needed)."""
    repo = pygit2.Repository(str(bare))
    parent = repo.references["refs/heads/main"].peel(pygit2.Commit)

    def put(tree, parts: list[str]):
        builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
        if len(parts) == 1:
            builder.insert(parts[0], repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB)
        else:
            sub = tree[parts[0]] if tree is not None and parts[0] in tree else None
            builder.insert(parts[0], put(sub, parts[1:]), pygit2.GIT_FILEMODE_TREE)
        return builder.write()

    tree = put(parent.tree, path.split("/"))
    signature = pygit2.Signature(*who)
    return str(repo.create_commit("refs/heads/main", signature, signature, message, tree, [parent.id]))


# -- statistics and markdown ---------------------------------------------------------------------------------------

def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def stats_table(samples: dict[str, list[float]], rows: list[str], baseline: str) -> str:
    base = statistics.median(samples[baseline])
    lines = ["| operation | median ms | p10 ms | p90 ms | min ms | max ms | median / baseline |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        values = samples.get(row)
        if not values:
            continue
        deciles = statistics.quantiles(values, n=10, method="inclusive")
        median = statistics.median(values)
        lines.append(f"| {row} | {_ms(median)} | {_ms(deciles[0])} | {_ms(deciles[-1])} | {_ms(min(values))} | "
                     f"{_ms(max(values))} | {median / base:.2f}× |")
    return "\n".join(lines)


def verdict(samples: dict[str, list[float]], mine: str, theirs: str, budget: float) -> str:
    ratio = statistics.median(samples[mine]) / statistics.median(samples[theirs])
    paired = [m / t for m, t in zip(samples[mine], samples[theirs])]
    return (f"**{ratio:.2f}×** (ratio of medians; median of per-round ratios {statistics.median(paired):.2f}×, "
            f"per-round ratios {min(paired):.2f}–{max(paired):.2f}×) against the SPEC §10 budget of ≤ {budget:g}×: "
            f"**{'within' if ratio <= budget else 'OVER'}**")


def floorless(samples: dict[str, list[float]], mine: str, theirs: str, floor: str) -> float:
    return (statistics.median(samples[mine]) - statistics.median(samples[floor])) / statistics.median(samples[theirs])


def probe_table(probes: dict[str, list[dict[str, float]]]) -> str:
    """One column per probed operation: the median over its probes of each component (ms); git rows also say how
    many processes of that subcommand ran (median)."""
    names = list(probes)
    seen = {k for runs in probes.values() for run in runs for k in run}
    git_keys = sorted((k for k in seen if k.startswith("git ")),
                      key=lambda k: -max(statistics.median([r.get(k, 0.0) for r in probes[n]]) for n in names))
    keys = [PROCESS] + [label for label, _, _ in FUNCTIONS if label in seen] + [GIT_TOTAL] + git_keys
    lines = ["| component (median ms over the probes) | " + " | ".join(names) + " |",
             "| --- | " + " | ".join("---:" for _ in names) + " |"]
    for key in keys:
        cells = []
        for name in names:
            values = [run[key] for run in probes[name] if key in run]
            counts = [run["#" + key] for run in probes[name] if "#" + key in run]
            cell = _ms(statistics.median(values)) if values else "–"
            cells.append(f"{cell} ({statistics.median(counts):g}×)" if values and counts else cell)
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def context(root: Path) -> str:
    return (f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC · {os.cpu_count()} CPUs · load average "
            f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end · Python {platform.python_version()} · "
            f"{git(root, 'version').strip()} · vmem at {bench_propose.vmem_revision()}")


def save(sections: dict[str, str]) -> None:
    """Keep one section per part and size in bench/out/team.md, replacing those that ran again."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    old = REPORT.read_text() if REPORT.exists() else ""
    kept = {m.group(1): m.group(0) for m in re.finditer(r"^## (.+?)\n.*?(?=^## |\Z)", old, re.S | re.M)}
    kept.update(sections)
    body = "\n".join(text.rstrip("\n") + "\n" for _, text in sorted(kept.items()))
    REPORT.write_text("# vmem delivery to the team's remote against plain git (bench/bench_team.py)\n\n"
                      "Written by bench/bench_team.py; its docstring says how each row is measured.\n\n" + body)


# -- part 1: propose + delivery ------------------------------------------------------------------------------------

def rounds(operations: list, count: int, order: random.Random, before=None) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(count):
        if before is not None:
            before()
        ops = list(operations)
        order.shuffle(ops)
        for op in ops:
            for row, seconds in op().items():
                samples[row].append(seconds)
    return samples


def propose_part(items: int, args, order: random.Random) -> tuple[str, str, Path | None]:
    source, marker = source_store(items, args.seed)
    work = TEAM / f"items-{items}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    runner = Runner(work / "cache")
    log(f"[{items:,}] copies of {source.relative_to(BENCH_DIR.parent)} at {marker['commit'][:10]} into {work} ...")
    remote_v = bare_copy(source, marker["commit"], work / "remote-vmem.git")
    remote_g = bare_copy(source, marker["commit"], work / "remote-git.git")
    a = work_clone(remote_v, work / "vmem", ME)
    g = work_clone(remote_g, work / "git", ME)
    fair_index(a, g)
    facts = []
    if items >= INDEX_FROM:
        seconds, _ = runner.run([VMEM, "--store", str(a), "index"], a)
        facts.append(f"`vmem index` built A's search index first (untimed, {seconds:.0f} s: the contradiction "
                     f"check needs it from {INDEX_FROM:,} items)")
        log(f"  search index for A in {seconds:.1f} s")
    claims = Claims(g, args.seed)
    commits = {"A": 0, "G": 0, "injected": 0}

    def op_vmem() -> dict[str, float]:
        settle(a, remote_v)
        seconds, _ = runner.vmem(a, "propose", claims.statement(), "--domain", DOMAIN)
        commits["A"] += 1
        assert head(a) == head(remote_v, "main"), "vmem's commit did not reach its remote"
        return {P_VMEM: seconds}

    def op_replay() -> dict[str, float]:
        item = claims.claim()
        injected = commit_into_bare(remote_v, model.item_path(item["id"]), codec.dump(item).encode(),
                                    claims.message(item), TEAMMATE)
        commits["injected"] += 1
        settle(a, remote_v)
        seconds, _ = runner.vmem(a, "propose", claims.statement(), "--domain", DOMAIN)
        commits["A"] += 1
        assert head(a) == head(remote_v, "main"), "the replayed commit did not reach the remote"
        assert head(a, "HEAD~1") == injected, "vmem's commit was not replayed on the teammate's"
        return {P_REPLAY: seconds}

    def op_git() -> dict[str, float]:
        item = claims.claim()
        path = model.item_path(item["id"])
        full = g / path
        if full.exists():
            raise SystemExit(f"{path} exists already; id collision in the benchmark")
        data, message = codec.dump(item).encode("utf-8"), claims.message(item)
        settle(g, remote_g)
        started = time.perf_counter()
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(data)
        add, _ = runner.run(["git", "add", path], g)
        commit, _ = runner.run(["git", "commit", "-q", "-m", message], g)
        committed = time.perf_counter()
        push, _ = runner.run(["git", "push", "-q"], g)
        total = time.perf_counter() - started
        commits["G"] += 1
        assert head(g) == head(remote_g, "main")
        return {P_GIT: total, P_ADD: add, P_COMMIT: commit, P_PUSH: push, P_ADD_COMMIT: committed - started}

    def op_python() -> dict[str, float]:
        return {P_PYTHON: runner.run([sys.executable, "-c", "pass"], a)[0]}

    operations = [op_vmem, op_git, op_python] + ([op_replay] if args.replay else [])
    log(f"  warming up ({WARMUP_ROUNDS} round) ...")
    started = time.perf_counter()
    rounds(operations, WARMUP_ROUNDS, order)
    facts.append(f"warm-up round (untimed) {time.perf_counter() - started:.1f} s; A's core.splitIndex after it: "
                 f"{'split' if list(git_dir(a).glob('sharedindex.*')) else 'not split'}")
    log(f"  timing {args.runs} interleaved rounds ...")
    samples = rounds(operations, args.runs, order)

    probes: dict[str, list[dict[str, float]]] = defaultdict(list)
    for n in range(args.probes):
        settle(a, remote_v)
        probes["propose + delivery"].append(runner.probe(
            a, ["propose", claims.statement(), "--domain", DOMAIN], a, work / f"probe-propose-{n}"))
        commits["A"] += 1
        if args.replay:
            item = claims.claim()
            commit_into_bare(remote_v, model.item_path(item["id"]), codec.dump(item).encode(), claims.message(item),
                             TEAMMATE)
            commits["injected"] += 1
            settle(a, remote_v)
            probes["propose + delivery after a teammate's push"].append(runner.probe(
                a, ["propose", claims.statement(), "--domain", DOMAIN], a, work / f"probe-replay-{n}"))
            commits["A"] += 1
    assert head(a) == head(remote_v, "main"), "a probe's commit did not reach the remote"

    for root in (a, g):
        dirty = git(root, "status", "--porcelain")
        assert not dirty, f"{root} has uncommitted changes after the benchmark:\n{dirty}"
    grown_a = int(git(a, "rev-list", "--count", f"{marker['commit']}..HEAD"))
    grown_g = int(git(g, "rev-list", "--count", f"{marker['commit']}..HEAD"))
    assert grown_a == commits["A"] + commits["injected"], (grown_a, commits)
    assert grown_g == commits["G"], (grown_g, commits)
    facts.append(f"checked: both clones clean; A holds {commits['A']} vmem commits + {commits['injected']} "
                 f"teammate commits and its remote's main is A's HEAD; G holds {commits['G']} git commits, pushed")

    text = (f"## 1. propose + delivery, {items:,} items\n\n"
            f"{context(a)} · {args.runs} interleaved rounds (shuffled) after {WARMUP_ROUNDS} warm-up round · "
            f"copies of `{source.relative_to(BENCH_DIR.parent)}` in `{work.relative_to(BENCH_DIR.parent)}`\n\n"
            f"Two bare remotes cloned from the store, one per side (vmem's clone A pushes to one, git's clone G "
            f"to the other), so neither side's push is a non-fast-forward of the other's. Every vmem row is a "
            f"fresh `vmem --store A propose TEXT --domain finance` process; the replay row's teammate commit is "
            f"made untimed, straight in A's bare remote, just before it.\n\n"
            f"{stats_table(samples, PROPOSE_ROWS, P_GIT)}\n\n"
            f"vmem propose + delivery / git add + commit + push: {verdict(samples, P_VMEM, P_GIT, 1.0)}.\n\n"
            + (f"Information (no budget): after a teammate's push, vmem propose + delivery / the git baseline "
               f"{statistics.median(samples[P_REPLAY]) / statistics.median(samples[P_GIT]):.2f}×; the replay "
               f"median minus the plain delivery's median: "
               f"{_ms(statistics.median(samples[P_REPLAY]) - statistics.median(samples[P_VMEM]))} ms.\n\n"
               if args.replay else "")
            + f"Information: with the interpreter's start-up taken out (vmem's median minus `python -c pass`'s), "
              f"vmem / git = {floorless(samples, P_VMEM, P_GIT, P_PYTHON):.2f}×.\n\n"
            + f"Where a vmem process spends it ({args.probes} probes each after the timed rounds, under cProfile, "
              f"which inflates the Python parts; a function's time is cumulative over all its calls; git children "
              f"from GIT_TRACE2_EVENT, summed by subcommand):\n\n"
            f"{probe_table(probes)}\n\n"
            + "".join(f"- {fact}\n" for fact in facts))
    return f"1-propose-{items:09d}", text, a


# -- part 2: the hook after a teammate's commit --------------------------------------------------------------------

def hook_part(items: int, args, order: random.Random) -> tuple[str, str]:
    source, marker = source_store(items, args.seed)
    work = TEAM / f"hook-{items}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    runner = Runner(work / "cache")
    log(f"[hook {items:,}] copies of {source.relative_to(BENCH_DIR.parent)} into {work} ...")
    remote = bare_copy(source, marker["commit"], work / "remote.git")
    t = work_clone(remote, work / "teammate", TEAMMATE)
    b = work_clone(remote, work / "vmem", ME)
    c = work_clone(remote, work / "git", ME)
    fair_index(t, b, c)
    project_b, project_c = work / "project-vmem", work / "project-git"
    rules_b, rules_c = project_b / ".claude" / "rules", project_c / ".claude" / "rules"
    for project in (project_b, project_c):
        project.mkdir()
    facts = []
    cold_b, _ = runner.vmem(b, "sync", "--dir", str(rules_b), cwd=project_b)
    cold_c, _ = runner.vmem(c, "sync", "--dir", str(rules_c), cwd=project_c)
    facts.append(f"first `vmem sync` of each clone (untimed, caches cold): B {cold_b:.2f} s, C {cold_c:.2f} s; "
                 f"bundle: {len(list(rules_b.iterdir()))} files")
    claims = Claims(c, args.seed)
    pushed = {"count": 0}
    if args.hook_change == "approve":  # the teammate is a reviewer and approves a waiting claim: served changes
        reviewer = REVIEWER_OF_STORE
        git(t, "config", "user.name", reviewer[0])
        git(t, "config", "user.email", reviewer[1])
        listed = subprocess.run([VMEM, "--store", str(t), "list", "--kind", "claim", "--status", "proposed",
                                 "--json"], capture_output=True, text=True, check=True, env=runner.env)
        waiting = [item["id"] for item in json.loads(listed.stdout)["data"]]
        order.shuffle(waiting)

    def teammate() -> None:
        settle(t, remote)
        if args.hook_change == "approve":
            runner.vmem(t, "approve", waiting.pop())
        else:
            runner.vmem(t, "propose", claims.statement(), "--domain", DOMAIN)
        pushed["count"] += 1
        assert head(t) == head(remote, "main"), "the teammate's commit did not reach the remote"

    def op_hook() -> dict[str, float]:
        settle(b)
        seconds, _ = runner.vmem(b, "sync", "--pull", "--dir", str(rules_b), cwd=project_b)
        assert head(b) == head(remote, "main"), "vmem sync --pull did not bring B to the remote's main"
        again, _ = runner.vmem(b, "sync", "--pull", "--dir", str(rules_b), cwd=project_b)
        return {H_HOOK: seconds, H_NOTHING: again}

    def op_baseline() -> dict[str, float]:
        settle(c)
        pull, _ = runner.run(["git", "pull", "-q", "--ff-only"], c)
        assert head(c) == head(remote, "main"), "git pull did not bring C to the remote's main"
        new, _ = runner.vmem(c, "sync", "--dir", str(rules_c), cwd=project_c)
        unchanged, _ = runner.vmem(c, "sync", "--dir", str(rules_c), cwd=project_c)
        return {H_BASE: pull + unchanged, H_PULL: pull, H_SYNC: unchanged, H_SYNC_NEW: new,
                H_PULL_SYNC_NEW: pull + new}

    def op_python() -> dict[str, float]:
        return {P_PYTHON: runner.run([sys.executable, "-c", "pass"], b)[0]}

    operations = [op_hook, op_baseline, op_python]
    log(f"  warming up ({WARMUP_ROUNDS} round) ...")
    rounds(operations, WARMUP_ROUNDS, order, before=teammate)
    log(f"  timing {args.runs} interleaved rounds ...")
    samples = rounds(operations, args.runs, order, before=teammate)

    probes: dict[str, list[dict[str, float]]] = defaultdict(list)
    for n in range(args.probes):
        teammate()
        settle(b)
        probes["vmem sync --pull after a teammate's commit"].append(runner.probe(
            b, ["sync", "--pull", "--dir", str(rules_b)], project_b, work / f"probe-hook-{n}"))
        probes["vmem sync --pull, nothing new"].append(runner.probe(
            b, ["sync", "--pull", "--dir", str(rules_b)], project_b, work / f"probe-nothing-{n}"))
        subprocess.run(["git", "pull", "-q", "--ff-only"], cwd=c, check=True)
        runner.vmem(c, "sync", "--dir", str(rules_c), cwd=project_c)
        probes["vmem sync, nothing changed (baseline's)"].append(runner.probe(
            c, ["sync", "--dir", str(rules_c)], project_c, work / f"probe-sync-{n}"))
    for root in (t, b, c):
        dirty = git(root, "status", "--porcelain")
        assert not dirty, f"{root} has uncommitted changes after the benchmark:\n{dirty}"
    assert head(b) == head(c) == head(remote, "main")
    facts.append(f"checked: the teammate pushed {pushed['count']} commits; B and C both end at the remote's "
                 f"main, all three clones clean")

    text = (f"## 2. hook after a teammate's commit, {items:,} items\n\n"
            f"{context(b)} · {args.runs} rounds after {WARMUP_ROUNDS} warm-up round; each round the teammate's "
            f"clone T first runs `vmem {'approve ID' if args.hook_change == 'approve' else 'propose'}` (untimed; "
            f"an approval changes what is served), which delivers one commit to the bare remote, then B "
            f"and C run in a shuffled order · copies of `{source.relative_to(BENCH_DIR.parent)}` in "
            f"`{work.relative_to(BENCH_DIR.parent)}`\n\n"
            f"B: `vmem --store B sync --pull --dir D` (fresh process), then once more with nothing new. C: "
            f"`git pull -q --ff-only`, then `vmem --store C sync --dir D` (the new commit; its own row), then "
            f"`vmem sync` again, nothing changed: the baseline is the pull plus that last sync, per round.\n\n"
            f"{stats_table(samples, HOOK_ROWS, H_BASE)}\n\n"
            f"hook / (git pull + vmem sync unchanged): {verdict(samples, H_HOOK, H_BASE, 1.5)}.\n\n"
            f"Information: hook / (git pull + vmem sync of the new commit): "
            f"{statistics.median(samples[H_HOOK]) / statistics.median(samples[H_PULL_SYNC_NEW]):.2f}×.\n\n"
            f"Where a vmem process spends it ({args.probes} probes each after the timed rounds, under cProfile, "
            f"which inflates the Python parts; a function's time is cumulative over all its calls; git children "
            f"from GIT_TRACE2_EVENT, summed by subcommand):\n\n"
            f"{probe_table(probes)}\n\n"
            + "".join(f"- {fact}\n" for fact in facts))
    return f"2-hook-{items:09d}" + ("-approve" if args.hook_change == "approve" else ""), text


# -- part 3: propose alone (bench_propose's rounds on a clone) -----------------------------------------------------

def alone_part(items: int, a: Path, args) -> tuple[str, str]:
    source, marker = source_store(items, args.seed)
    git(a, "remote", "remove", "origin")
    upstream = subprocess.run(["git", "-C", str(a), "rev-parse", "--abbrev-ref", "@{upstream}"], capture_output=True)
    assert upstream.returncode != 0, "A still tracks a remote"
    runner = Runner(a.parent / "cache")
    _, err = runner.vmem(a, "propose", Claims(a, args.seed + 7).statement(), "--domain", DOMAIN)  # no skip note
    log(f"[alone {items:,}] bench_propose's rounds on {a} (no remote) ...")
    bench = bench_propose.Bench(a, args.seed)
    bench.commits = 1
    before = int(git(a, "rev-list", "--count", "HEAD")) - 1
    order = random.Random(args.seed)
    bench_propose.run_rounds(bench, bench_propose.WARMUP_ROUNDS, order)
    samples = bench_propose.run_rounds(bench, args.runs, order)
    table = bench_propose.section(items, args.runs, a, samples, marker["seconds"]).split("\n", 2)[2]
    dirty = git(a, "status", "--porcelain")
    assert not dirty, f"{a} has uncommitted changes after bench_propose's rounds:\n{dirty}"
    grown = int(git(a, "rev-list", "--count", "HEAD")) - before
    assert grown == bench.commits, (grown, bench.commits)
    text = (f"## 3. vmem propose alone (no remote), {items:,} items\n\n"
            f"bench_propose.py's Bench and table (its {bench_propose.WARMUP_ROUNDS} warm-up rounds, then "
            f"{args.runs} shuffled rounds), run on clone A of part 1 after `git remote remove origin` (a local "
            f"store: nothing to deliver), not on `{source.relative_to(BENCH_DIR.parent)}` itself: that store has "
            f"no search index, so at 100k its proposes would skip the contradiction check. A's git index was split "
            f"by vmem's first write (core.splitIndex), and bench_propose's git baseline runs in the same clone, "
            f"so git's add + commit also rewrite only the split index's small part. Checked: clean, "
            f"{grown} new commits.\n\n{table}")
    return f"3-alone-{items:09d}", text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default="10000,100000", help="store sizes for part 1 (default: 10000,100000)")
    parser.add_argument("--runs", type=int, default=9, help="timed rounds (default: 9)")
    parser.add_argument("--seed", type=int, default=1, help="store seed (default: 1)")
    parser.add_argument("--hook-items", type=int, default=10_000, help="store size for part 2; 0: skip")
    parser.add_argument("--alone-items", type=int, default=100_000,
                        help="store size for part 3 (one of --items); 0: skip")
    parser.add_argument("--probes", type=int, default=3, help="profiled runs per vmem operation (default: 3)")
    parser.add_argument("--no-replay", dest="replay", action="store_false",
                        help="skip the propose-after-a-teammate's-push row")
    parser.add_argument("--keep", action="store_true", help="keep the clones under bench/out/team/")
    parser.add_argument("--hook-change", choices=("propose", "approve"), default="propose",
                        help="part 2: the teammate's commit each round: a proposal (default) or a reviewer's "
                             "approval of a waiting claim (what is served changes)")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2")
    sizes = [int(s) for s in args.items.split(",") if s.strip() and int(s)]
    if args.alone_items and args.alone_items not in sizes:
        parser.error("--alone-items must be one of --items (part 3 reuses part 1's clone)")

    order = random.Random(args.seed)
    started = time.perf_counter()
    sections: dict[str, str] = {}
    for items in sizes:
        key, text, a = propose_part(items, args, order)
        sections[key] = text
        save(sections)
        print("\n" + text, flush=True)
        if items == args.alone_items:
            key, text = alone_part(items, a, args)
            sections[key] = text
            save(sections)
            print("\n" + text, flush=True)
        if not args.keep:
            shutil.rmtree(TEAM / f"items-{items}", ignore_errors=True)
    if args.hook_items:
        key, text = hook_part(args.hook_items, args, order)
        sections[key] = text
        save(sections)
        print("\n" + text, flush=True)
        if not args.keep:
            shutil.rmtree(TEAM / f"hook-{args.hook_items}", ignore_errors=True)
    log(f"written to {REPORT} ({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
