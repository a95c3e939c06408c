"""Issue 29 ("one house"): before/after rows, a base revision's src against HEAD's, fresh processes, interleaved.

    python bench/bench_one_house.py [--base 5be6554] [--head HEAD] [--runs 9] [--steps lines,read,writes]

Both revisions are exported from git (`git archive REV src`) into bench/out/onehouse/{base,head}-src and run as
`python -m vmem` with PYTHONPATH pointing at the export (bench/bench_attest.py's mechanism), so the working tree
can move during the run without changing what is measured. Each side gets its own `git clone --local` of the
generated store (remote removed: no delivery, no push) and its own cache dir (XDG_CACHE_HOME). The stores under
bench/stores/ are only read.

  lines    non-blank lines of *.py under src/vmem per layer (cli, mcp, ops, knowledge, index, gates, targets,
           store, the top-level modules), base and head
  read     10k store: `vmem sync --dir D`, nothing changed (one untimed run first to fill the caches), and one-shot
           `vmem recall QUERY --json` with an up-to-date index (built untimed per side with `vmem index`), against
           `git grep -i -F -l -e W1 -e W2 ...` for the query's words (bench_all.grep_words) on a third clone
  writes   100k store: `vmem propose TEXT --domain finance` (a claim), `vmem propose TEXT --from ENTITY -c
           industry:X` (a learning) and `vmem supersede ID TEXT` of an approved claim (as a reviewer: GIT_AUTHOR_* and
           GIT_COMMITTER_* set to the store's first reviewer), against bench_propose's git baseline (write the claim
           file, `git add FILE`, `git commit -q -m MSG`) and, for supersede, bench_all's two-file variant. Three
           clones: base, head, git. Before the rounds: each vmem side's search index is brought up to date (the
           contradiction check reads it; `vmem index`, untimed, per side), and one untimed warm-up of each write
           per side (the first head write splits git's index, the first base write installs its pre-commit guard,
           the first learning builds the canonical shards, the first supersede the attestation cache).

Every timed command is preceded (untimed) by waiting until no deferred index update (vmem.store.stage, base's
flusher) is pending and no `git gc --auto` runs in any clone. For base writes the bench records whether the
flusher was still pending when the command returned, and how long it took after that. Git's clone gets the
bench_all treatment: wait past the second, `git update-index --refresh`, and a diff-files/diff-index guard before
every timed git baseline.

Each round runs every operation of the step once, in a shuffled order. Results: bench/out/onehouse/report.md
(medians, quartiles, min/max, ratios) and results.json (every sample, load averages).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from collections import defaultdict
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_all import grep_words  # noqa: E402
from gen_store import BENCH_DIR, IDENTITY, Generator, git, read_marker  # noqa: E402

from vmem import model  # noqa: E402
from vmem.ops.common import expires_at  # noqa: E402
from vmem.store import codec, housekeep  # noqa: E402
from vmem.store.message import Message  # noqa: E402
from vmem.store.repo import Store  # noqa: E402

REPO = HERE.parent
OUT = BENCH_DIR / "out" / "onehouse"
STORES = BENCH_DIR / "stores"
QUERY = "how is revenue recognised"
LAYERS = ["cli", "mcp", "ops", "knowledge", "index", "gates", "targets", "store", "(top-level modules)"]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load1() -> float:
    return os.getloadavg()[0]


def export(rev: str, into: Path) -> Path:
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    data = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as archive:
        archive.extractall(into, filter="data")
    return into / "src"


def load_stage(src: Path):
    """That revision's vmem.store.stage (standard library only), to ask whether its flusher is done."""
    spec = importlib.util.spec_from_file_location(f"stage_{abs(hash(src))}", src / "vmem" / "store" / "stage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lines_per_layer(src: Path) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    lines: dict[str, int] = defaultdict(int)
    files: dict[str, int] = defaultdict(int)
    top: dict[str, int] = {}
    for path in sorted((src / "vmem").rglob("*.py")):
        rel = path.relative_to(src / "vmem")
        count = sum(1 for line in path.read_text("utf-8").splitlines() if line.strip())
        layer = "(top-level modules)" if len(rel.parts) == 1 else rel.parts[0]
        lines[layer] += count
        files[layer] += 1
        if len(rel.parts) == 1:
            top[rel.name] = count
    return dict(lines), dict(files), top


def clone(source: Path, into: Path) -> Path:
    shutil.rmtree(into, ignore_errors=True)
    started = time.perf_counter()
    subprocess.run(["git", "clone", "-q", "--local", str(source), str(into)], check=True)
    git(into, "remote", "remove", "origin")  # no remote: nothing is delivered (and nothing reaches bench/stores)
    git(into, "config", "user.name", IDENTITY[0])
    git(into, "config", "user.email", IDENTITY[1])
    time.sleep(1.1)  # past the checkout's second, so no index entry is racily clean (see bench_all)
    git(into, "update-index", "-q", "--refresh")
    log(f"cloned {source.name} into {into} in {time.perf_counter() - started:.1f} s")
    return into


class Side:
    """One vmem version (or plain git) on its own clone, with its own caches."""

    def __init__(self, name: str, src: Path | None, root: Path, cache: Path) -> None:
        self.name, self.src, self.root, self.cache = name, src, root, cache
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        # no PYTHONPYCACHEPREFIX: bytecode is written beside the exported sources, as an installed vmem has it
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        self.env["XDG_CACHE_HOME"] = str(cache)
        if src is not None:
            self.env["PYTHONPATH"] = str(src)
            self.stage = load_stage(src)

    def vmem_argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "vmem", "--store", str(self.root), *args]


class Runner:
    def __init__(self, sides: list[Side], seed: int) -> None:
        self.sides = sides
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.facts: dict[str, object] = defaultdict(list)
        self.loads: list[float] = []
        self.rng = random.Random(seed)

    def settle(self) -> None:
        """Untimed: no deferred index update pending and no git gc running, in any clone."""
        started = time.perf_counter()
        for side in self.sides:
            git_dir = side.root / ".git"
            if side.src is not None:
                while not side.stage.settled(git_dir):
                    if time.perf_counter() - started > 300:
                        raise SystemExit(f"{side.root}: deferred index update not done in 300 s")
                    time.sleep(0.002)
            if housekeep.running(git_dir):
                gc_started = time.perf_counter()
                while housekeep.running(git_dir):
                    if time.perf_counter() - gc_started > 900:
                        raise SystemExit(f"{side.root}: git gc still running after 900 s")
                    time.sleep(0.01)
                self.facts["gc-wait"].append((side.name, round(time.perf_counter() - gc_started, 3)))

    def run(self, side: Side, argv: list[str], *, env: dict | None = None, ok=(0,), check_skip=True) -> tuple:
        self.settle()
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=side.root, env=env or side.env, capture_output=True)
        elapsed = time.perf_counter() - started
        if done.returncode not in ok:
            raise SystemExit(f"{side.name}: {' '.join(argv[:6])} ... failed ({done.returncode}):\n"
                             f"{done.stderr.decode()[-3000:]}{done.stdout.decode()[-1000:]}")
        if check_skip and b"contradiction check skipped" in done.stderr:
            raise SystemExit(f"{side.name}: {' '.join(argv[:6])} skipped its contradiction check:\n"
                             f"{done.stderr.decode()[-2000:]}")
        return elapsed, done

    def vmem_write(self, side: Side, key: str, args: list[str], env: dict | None = None) -> float:
        elapsed, _ = self.run(side, side.vmem_argv(*args), env=env)
        git_dir = side.root / ".git"
        pending = not side.stage.settled(git_dir)  # right as the command returned
        waited = time.perf_counter()
        while not side.stage.settled(git_dir):
            time.sleep(0.002)
        self.facts[f"{key}:flusher-pending-at-return"].append(pending)
        self.samples[f"{key}:flush-after-return"].append(time.perf_counter() - waited if pending else 0.0)
        return elapsed

    def interleave(self, operations: dict, rounds: int) -> None:
        for number in range(rounds):
            self.loads.append(load1())
            prepared = {key: make() for key, make in operations.items()}  # per-round inputs, shared by the sides
            order = list(operations)
            self.rng.shuffle(order)
            for key in order:
                self.samples[key].append(prepared[key]())
            log(f"round {number + 1}/{rounds}: " + ", ".join(
                f"{k} {self.samples[k][-1] * 1000:.0f}" for k in operations) + f" ms; load {self.loads[-1]:.2f}")


# -- statistics and tables ---------------------------------------------------------------------------------------

def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}" if seconds >= 0.1 else f"{seconds * 1000:.1f}"


def spread(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else [values[0]] * 3
    return f"{ms(statistics.median(values))} | {ms(q[0])}–{ms(q[2])} | {ms(min(values))}–{ms(max(values))}"


def ratio(a: list[float], b: list[float]) -> str:
    """Ratio of medians, and the median of per-round ratios (samples of one round are paired)."""
    paired = statistics.median(x / y for x, y in zip(a, b))
    return f"{statistics.median(a) / statistics.median(b):.2f}× ({paired:.2f}×)"


def row_table(samples: dict, rows: list[tuple[str, str]]) -> list[str]:
    lines = ["| operation | median ms | IQR ms | min–max ms | n |", "| --- | ---: | ---: | ---: | ---: |"]
    for key, label in rows:
        if samples.get(key):
            lines.append(f"| {label} | {spread(samples[key])} | {len(samples[key])} |")
    return lines


def loads_line(loads: list[float]) -> str:
    return (f"1-min load average at the start of each round: median {statistics.median(loads):.2f}, "
            f"min {min(loads):.2f}, max {max(loads):.2f} ({os.cpu_count()} CPUs)")


# -- the steps ---------------------------------------------------------------------------------------------------

def step_lines(base_src: Path, head_src: Path) -> tuple[str, dict]:
    (bl, bf, bt), (hl, hf, ht) = lines_per_layer(base_src), lines_per_layer(head_src)
    layers = LAYERS + sorted((set(bl) | set(hl)) - set(LAYERS))
    out = ["| layer | base lines | base files | head lines | head files | Δ lines |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for layer in layers:
        b, h = bl.get(layer, 0), hl.get(layer, 0)
        out.append(f"| {layer} | {b:,} | {bf.get(layer, 0)} | {h:,} | {hf.get(layer, 0)} | {h - b:+,} |")
    out.append(f"| **total** | {sum(bl.values()):,} | {sum(bf.values())} | {sum(hl.values()):,} | "
               f"{sum(hf.values())} | {sum(hl.values()) - sum(bl.values()):+,} |")
    out += ["", "Top-level modules:", "", "| module | base | head | Δ |", "| --- | ---: | ---: | ---: |"]
    for name in sorted(set(bt) | set(ht)):
        b, h = bt.get(name, 0), ht.get(name, 0)
        out.append(f"| {name} | {b if name in bt else '–'} | {h if name in ht else '–'} | {h - b:+} |")
    return "\n".join(out), {"base": bl, "head": hl, "base-top": bt, "head-top": ht}


def step_read(base_src: Path, head_src: Path, runs: int, seed: int) -> tuple[str, dict]:
    source = STORES / "items-10000-seed-1"
    assert read_marker(source)["items"] == 10_000
    base = Side("base", base_src, clone(source, OUT / "r10k-base"), OUT / "cache-r10k-base")
    head = Side("head", head_src, clone(source, OUT / "r10k-head"), OUT / "cache-r10k-head")
    plain = Side("git", None, clone(source, OUT / "r10k-git"), OUT / "cache-r10k-git")
    runner = Runner([base, head, plain], seed)
    rules = {s.name: OUT / f"rules-{s.name}" for s in (base, head)}
    for path in rules.values():
        shutil.rmtree(path, ignore_errors=True)
    facts: dict[str, object] = {}
    for side in (base, head):
        elapsed, _ = runner.run(side, side.vmem_argv("sync", "--dir", str(rules[side.name])))
        facts[f"{side.name}: first (cold) sync, untimed"] = round(elapsed, 2)
        elapsed, _ = runner.run(side, side.vmem_argv("index"))
        facts[f"{side.name}: `vmem index` build, untimed"] = round(elapsed, 2)
        elapsed, done = runner.run(side, side.vmem_argv("recall", QUERY, "--json"))  # warm-up: model, bytecode
        facts[f"{side.name}: first recall, untimed"] = round(elapsed, 2)
    log(f"read setup: {facts}")
    words = grep_words(QUERY)
    grep = ["git", "grep", "-i", "-F", "-l", *[a for w in words for a in ("-e", w)]]
    results: dict[str, list] = {}

    def sync(side: Side):
        return lambda: lambda: runner.run(side, side.vmem_argv("sync", "--dir", str(rules[side.name])))[0]

    def recall(side: Side):
        def go() -> float:
            elapsed, done = runner.run(side, side.vmem_argv("recall", QUERY, "--json"))
            data = json.loads(done.stdout)
            results.setdefault(side.name, [x.get("id") for x in _hits(data)][:5])
            return elapsed
        return lambda: go

    def python(code: str):
        return lambda: lambda: runner.run(head, [sys.executable, "-c", code])[0]

    runner.interleave({"sync:base": sync(base), "sync:head": sync(head),
                       "python -c pass": python("pass"), "python -c 'import vmem' (head)": python("import vmem")},
                      runs)
    sync_loads = list(runner.loads)
    runner.loads.clear()
    runner.interleave({"recall:base": recall(base), "recall:head": recall(head),
                       "git grep": lambda: lambda: runner.run(plain, grep, ok=(0, 1))[0],
                       "python -c pass (recall rounds)": python("pass")}, runs)
    recall_loads = list(runner.loads)
    s = runner.samples
    budget = [2 * i for i in s["python -c 'import vmem' (head)"]]
    text = [f"### `vmem sync --dir D`, nothing changed (10k store), {runs} interleaved rounds", "",
            *row_table(s, [("sync:base", f"vmem sync, base `{ARGS.base}`"), ("sync:head", f"vmem sync, head `{HEAD}`"),
                           ("python -c pass", "`python -c pass`"),
                           ("python -c 'import vmem' (head)", "`python -c 'import vmem'` (head's src)")]), "",
            f"head / base: **{ratio(s['sync:head'], s['sync:base'])}** (ratio of medians; median of per-round "
            "ratios in brackets). Against SPEC §10's 2 × `import vmem` (file writes not added): base "
            f"{ratio(s['sync:base'], budget)}, head {ratio(s['sync:head'], budget)}.", "", loads_line(sync_loads), "",
            f"### One-shot `vmem recall \"{QUERY}\" --json`, index up to date (10k store), {runs} interleaved rounds",
            "", *row_table(s, [("recall:base", f"vmem recall, base `{ARGS.base}`"),
                               ("recall:head", f"vmem recall, head `{HEAD}`"),
                               ("git grep", f"`{' '.join(grep)}`"),
                               ("python -c pass (recall rounds)", "`python -c pass`")]), "",
            f"head / base: **{ratio(s['recall:head'], s['recall:base'])}**; base / git grep: "
            f"**{ratio(s['recall:base'], s['git grep'])}**; head / git grep: **{ratio(s['recall:head'], s['git grep'])}"
            "** (SPEC §10: ≤ 2× at 10k as a fresh process).", "",
            f"Top-5 ids: base {results.get('base')}, head {results.get('head')} "
            f"({'same' if results.get('base') == results.get('head') else 'DIFFERENT'}).", "",
            loads_line(recall_loads), "", "Setup (untimed): " + "; ".join(f"{k} {v} s" for k, v in facts.items())]
    return "\n".join(text), {"samples": dict(s), "facts": facts, "loads": {"sync": sync_loads, "recall": recall_loads},
                             "top5": results}


def _hits(data) -> list[dict]:
    """The hits of recall's --json envelope, whatever the revision calls the list."""
    if isinstance(data, dict):
        for key in ("data", "results", "hits", "items"):
            if key in data:
                return _hits(data[key])
        return []
    return [x for x in data if isinstance(x, dict)] if isinstance(data, list) else []


def approved_claims(source: Path, count: int, rng: random.Random) -> list[str]:
    approved = set(git(source, "grep", "-l", "-e", "^status: approved", "--", "claims/").split())
    personal = set(git(source, "grep", "-l", "-e", "^personal: true", "--", "claims/").split())
    paths = sorted(approved - personal)
    return [Path(p).stem for p in rng.sample(paths, count)]


def step_writes(base_src: Path, head_src: Path, runs: int, seed: int) -> tuple[str, dict]:
    source = STORES / ARGS.write_store
    facts_items = read_marker(source)["items"]
    base = Side("base", base_src, clone(source, OUT / "w100k-base"), OUT / "cache-w100k-base")
    head = Side("head", head_src, clone(source, OUT / "w100k-head"), OUT / "cache-w100k-head")
    plain = Side("git", None, clone(source, OUT / "w100k-git"), OUT / "cache-w100k-git")
    vmem_sides = [base, head]
    if ARGS.head_deferred:  # head with the index update left to the flusher, as base did: what the rest costs
        deferred = Side("head-deferred", head_src, clone(source, OUT / "w100k-head-deferred"),
                        OUT / "cache-w100k-head-deferred")
        git(deferred.root, "config", "vmem.indexUpdate", "deferred")
        vmem_sides.append(deferred)
    runner = Runner([*vmem_sides, plain], seed)
    facts: dict[str, object] = {}
    rng = random.Random(seed)
    policy = Store.open(plain.root).policy
    reviewer = policy["reviewers"][0]
    as_reviewer = {"GIT_AUTHOR_NAME": "Reviewer", "GIT_AUTHOR_EMAIL": reviewer,
                   "GIT_COMMITTER_NAME": "Reviewer", "GIT_COMMITTER_EMAIL": reviewer}
    targets = approved_claims(source, runs + 1, rng)
    entities = {}
    for path in sorted((source / "entities").glob("*.yaml")):
        entity = codec.load(path.read_text(), str(path))
        industry = [c for c in entity.get("categories", []) if c.startswith("industry:")]
        if industry:
            entities[entity["id"]] = industry[0]
    entity = sorted(entities)[0]
    category = entities[entity]
    facts["entity"] = f"{entity} ({category})"
    gen = Generator(seed + 7_919, policy)

    # the search index the contradiction check reads, per side (its own: the index records the model's path, which
    # lies inside each revision's exported src, so one side's index is not the other's)
    for side in vmem_sides:
        elapsed, _ = runner.run(side, side.vmem_argv("index"))
        facts[f"{side.name}: `vmem index` build, untimed"] = round(elapsed, 1)
    log(f"writes setup: {facts}")

    def learning_text() -> str:
        for _ in range(10_000):
            text, categories = gen.learning_text()
            if category in categories:
                return text
        return text

    def claim(statement: str) -> dict:
        now = model.now()
        return model.validate("claim", {
            "id": gen.new_id("claim"), "kind": "claim", "statement": statement, "scope": "org", "class": "factual",
            "domain": "finance", "status": "proposed", "audience": "all", "personal": False,
            "source": {"type": "analyst", "user": IDENTITY[1], "episode": None}, "confidence": 0.5,
            "created_at": now, "valid_from": now, "expires_at": expires_at(policy, "factual", now)}, "bench claim")

    def fresh_index() -> None:
        def clean() -> bool:
            files = subprocess.run(["git", "diff-files", "--quiet"], cwd=plain.root).returncode == 0
            staged = subprocess.run(["git", "diff-index", "--cached", "--quiet", "HEAD"],
                                    cwd=plain.root).returncode == 0
            return files and staged
        if not clean():
            runner.facts["git-index-refreshes"].append(1)
            git(plain.root, "update-index", "-q", "--refresh")
            if not clean():
                raise SystemExit("the git clone's index differs from HEAD or the work tree even after a refresh")

    def git_commit(files: dict[str, bytes], message: str) -> float:
        runner.settle()
        fresh_index()
        started = time.perf_counter()
        for path, data in files.items():
            full = plain.root / path
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_bytes(data)
        for argv in (["git", "add", *files], ["git", "commit", "-q", "-m", message]):
            done = subprocess.run(argv, cwd=plain.root, env=plain.env, capture_output=True)
            if done.returncode:
                raise SystemExit(f"{argv[:2]} failed: {done.stderr.decode()}")
        return time.perf_counter() - started

    def git_propose(statement: str) -> float:
        item = claim(statement)
        return git_commit({model.item_path(item["id"]): codec.dump(item).encode()},
                          Message("propose", items=[item["id"]], summary=item["statement"]).render())

    def git_supersede(target: str, statement: str) -> float:
        old = Store.open(plain.root).head().item(target)
        new = claim(statement)
        old.update(status="superseded", superseded_by=new["id"], valid_to=new["created_at"])  # as vmem does
        new["supersedes"] = old["id"]
        old_path = model.item_path(old["id"])
        previous = (plain.root / old_path).read_text()
        return git_commit({old_path: codec.dump(old, previous).encode(),
                           model.item_path(new["id"]): codec.dump(new).encode()},
                          Message("supersede", items=[old["id"], new["id"]], summary=new["statement"]).render())

    target_iter = {s.name: iter(targets) for s in (*vmem_sides, plain)}
    reviewer_env = {s.name: {**s.env, **as_reviewer} for s in vmem_sides}
    counts = {s.name: int(git(s.root, "rev-list", "--count", "HEAD")) for s in (*vmem_sides, plain)}

    def write_ops(number: str) -> dict:
        """This round's operations, with the same statements for base, head and git."""
        text, learning, revision = gen.claim_text()[0], learning_text() + f" (bench {number})", gen.claim_text()[0]
        ops = {}
        for side in vmem_sides:
            target = next(target_iter[side.name])
            ops[f"propose:{side.name}"] = (lambda s=side: runner.vmem_write(
                s, f"propose:{s.name}", ["propose", text, "--domain", "finance"]))
            ops[f"learning:{side.name}"] = (lambda s=side: runner.vmem_write(
                s, f"learning:{s.name}", ["propose", learning, "--from", entity, "-c", category]))
            ops[f"supersede:{side.name}"] = (lambda s=side, t=target: runner.vmem_write(
                s, f"supersede:{s.name}", ["supersede", t, revision, "-r", "bench revision"], reviewer_env[s.name]))
        target = next(target_iter["git"])
        ops["git:propose"] = lambda: git_propose(text)
        ops["git:supersede"] = lambda: git_supersede(target, revision)
        ops["python -c pass"] = lambda: runner.run(head, [sys.executable, "-c", "pass"])[0]
        return ops

    warm = write_ops("warm-up")
    for key in sorted(warm):  # untimed warm-up: one of each write per side
        started = time.perf_counter()
        warm[key]()
        facts[f"warm-up {key}"] = round(time.perf_counter() - started, 2)
    log(f"warm-up: {facts}")
    for key in list(runner.samples):
        runner.samples[key].clear()
    for key in list(runner.facts):
        if key.endswith("pending-at-return"):
            facts[f"warm-up {key}"] = runner.facts.pop(key)
    split = {s.name: any((s.root / ".git").glob("sharedindex.*"))
             for s in (*vmem_sides, plain)}
    facts["split index after warm-up"] = split

    # the per-round ops are built inside interleave: one make() per key returns the round's callables
    round_no = iter(range(1, 10**6))
    current: dict = {}

    def maker(key: str):
        def make():
            if key == keys[0]:  # the first key of the dict: build the whole round's inputs once
                current.clear()
                current.update(write_ops(str(next(round_no))))
            return current[key]
        return make

    keys = [f"{op}:{side.name}" for op in ("propose", "learning", "supersede") for side in vmem_sides] + \
        ["git:propose", "git:supersede", "python -c pass"]
    runner.interleave({key: maker(key) for key in keys}, runs)

    # checks: one commit per write, clean status once everything is staged
    runner.settle()
    for s in (*vmem_sides, plain):
        grown = int(git(s.root, "rev-list", "--count", "HEAD")) - counts[s.name]
        expected = (runs + 1) * (2 if s is plain else 3)
        facts[f"{s.name}: new commits"] = f"{grown} (expected {expected})"
        status = git(s.root, "status", "--porcelain", "--untracked-files=no")
        facts[f"{s.name}: git status after the run"] = "clean" if not status else f"DIRTY: {status[:300]}"
    s = runner.samples
    pend = {k: runner.facts[f"{k}:flusher-pending-at-return"] for k in keys
            if k.startswith(("propose:", "learning:", "supersede:"))}
    lines = [f"### Writes on the {facts_items:,}-item store, {runs} interleaved rounds (+1 untimed warm-up of each "
             "write per side)", "",
             "| write | vmem base ms (IQR; min–max) | vmem head ms (IQR; min–max) | git ms (IQR; min–max) | "
             "head / base | head / git | base / git | SPEC §10 ≤ 0.5× |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for op, label in (("propose", "`propose TEXT --domain finance` (claim)"),
                      ("learning", f"`propose TEXT --from {entity} -c {category}` (learning)"),
                      ("supersede", "`supersede ID TEXT -r …` (approved claim, as a reviewer)")):
        for baseline, blabel in (("git:propose", "1 file"), ("git:supersede", "2 files")):
            if op != "supersede" and baseline == "git:supersede":
                continue
            b, h, g = s[f"{op}:base"], s[f"{op}:head"], s[baseline]
            hb = statistics.median(h) / statistics.median(g)
            bb = statistics.median(b) / statistics.median(g)
            lines.append(
                f"| {label} vs git {blabel} | {_cell(b)} | {_cell(h)} | {_cell(g)} | {ratio(h, b)} | {ratio(h, g)} | "
                f"{ratio(b, g)} | head {'within' if hb <= 0.5 else 'OVER'}, base {'within' if bb <= 0.5 else 'OVER'} |")
    if ARGS.head_deferred:
        lines += ["", "Head with `git config vmem.indexUpdate deferred` on its own clone (the index update left to the "
                  "flusher, as base did on a big store), same rounds:", "",
                  "| write | head-deferred ms (IQR; min–max) | vs base | vs head | vs git 1 file |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for op in ("propose", "learning", "supersede"):
            d = s[f"{op}:head-deferred"]
            lines.append(f"| {op} | {_cell(d)} | {ratio(d, s[f'{op}:base'])} | {ratio(d, s[f'{op}:head'])} | "
                         f"{ratio(d, s['git:propose'])} |")
    lines += ["", "Ratios: ratio of medians, median of per-round ratios in brackets.", "",
              *row_table(s, [("python -c pass", "`python -c pass` (floor under every command)")]), "",
              "The background flusher (git index update deferred by the write): pending when the command returned "
              "/ how long after return until it was done:", "",
              "| write | pending at return | flush after return: median ms (min–max) |", "| --- | --- | ---: |"]
    for key, flags in pend.items():
        after = s[f"{key}:flush-after-return"]
        lines.append(f"| {key} | {sum(flags)}/{len(flags)} | {ms(statistics.median(after))} "
                     f"({ms(min(after))}–{ms(max(after))}) |")
    lines += ["", loads_line(runner.loads), "",
              "Setup and checks: " + "; ".join(f"{k}: {v}" for k, v in facts.items()),
              f"git gc --auto waits (untimed): {runner.facts.get('gc-wait') or 'none'}; "
              f"git clone index refreshes before a git baseline: {len(runner.facts.get('git-index-refreshes', []))}"]
    return "\n".join(lines), {"samples": dict(s), "facts": facts, "loads": runner.loads,
                              "pending": pend, "targets": targets}


def _cell(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4, method="inclusive")
    return f"{ms(statistics.median(values))} ({ms(q[0])}–{ms(q[2])}; {ms(min(values))}–{ms(max(values))})"


ARGS = None
HEAD = None


def main(argv: list[str] | None = None) -> None:
    global ARGS, HEAD
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="5be6554")
    parser.add_argument("--head", default="HEAD", help="pin it: HEAD moves while others commit")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", default="lines,read,writes")
    parser.add_argument("--head-deferred", action="store_true",
                        help="writes: a third vmem side, head with vmem.indexUpdate=deferred (attribution)")
    parser.add_argument("--write-store", default="items-100000-seed-1", help="under bench/stores (a trial: 10k)")
    ARGS = parser.parse_args(argv)
    HEAD = git(REPO, "rev-parse", "--short", ARGS.head).strip()
    ARGS.base = git(REPO, "rev-parse", "--short", ARGS.base).strip()
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    load_start = os.getloadavg()
    base_src = export(ARGS.base, OUT / "base-src")
    head_src = export(HEAD, OUT / "head-src")
    sections, raw = [], {"base": ARGS.base, "head": HEAD, "load-start": load_start}
    steps = ARGS.steps.split(",")
    if "lines" in steps:
        text, raw["lines"] = step_lines(base_src, head_src)
        sections.append("### Non-blank lines of src/vmem/**/*.py per layer\n\n" + text)
        log("lines done")
    if "read" in steps:
        text, raw["read"] = step_read(base_src, head_src, ARGS.runs, ARGS.seed)
        sections.append(text)
    if "writes" in steps:
        text, raw["writes"] = step_writes(base_src, head_src, ARGS.runs, ARGS.seed)
        sections.append(text)
    raw["load-end"] = os.getloadavg()
    head = (f"## Issue 29 before/after: base `{ARGS.base}` vs head `{HEAD}`\n\n"
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC · bench/bench_one_house.py --runs {ARGS.runs} · "
            f"`python -m vmem` fresh processes, PYTHONPATH = each revision's exported src · {os.cpu_count()} CPUs · "
            f"Python {platform.python_version()} · {git(REPO, 'version').strip()} · load average at start "
            f"{'/'.join(f'{x:.2f}' for x in load_start)}, at end {'/'.join(f'{x:.2f}' for x in raw['load-end'])} · "
            f"{time.perf_counter() - started:.0f} s in all\n")
    report = head + "\n" + "\n\n".join(sections) + "\n"
    (OUT / "report.md").write_text(report)
    (OUT / "results.json").write_text(json.dumps(raw, indent=1, default=str))
    print(report)


if __name__ == "__main__":
    main()
