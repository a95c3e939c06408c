"""Benchmark `vmem recall` (warm local index) against `git grep -i` for the query's words, on one store, in one run.

    python bench/bench_recall.py [--items 100000] [--runs 12] [--seed 1] [--query-reps 8] [--catchup 5]
                                 [--bulk 2] [--rebuilds 1] [--profile N] [--cache-dir bench/out/cache]

The store comes from gen_store.ensure_store (generated once, then reused and reset to its generated commit).
The local index lives under --cache-dir (XDG_CACHE_HOME is pointed there, for this process and its children),
so the benchmark never touches the user's own vmem cache. Phases, in this order:

  1. rebuild     `vmem --store DIR index --rebuild --json` as a process (--rebuilds times); this also leaves
                 the index warm. Its JSON "seconds" (time inside LocalIndex.open) is reported too.
  2. CLI rounds  --runs interleaved rounds after 2 warm-up rounds; each round takes the next of QUERIES and runs,
                 in shuffled order: `vmem --store DIR recall "<query>"` (fresh process, warm index);
                 the baseline `git grep -i -F -l -e W1 -e W2 ...` (files holding any of the query's words,
                 stop words dropped; git's work tree of HEAD, git's default threads; exit status 1 = no match
                 is fine); the same with --all-match (files holding all the words); the recall process with
                 the GC fix below (`python -c CODE --store DIR recall "<query>"`); `vmem index` on an
                 up-to-date index (start-up + loading the index, no query); `python -c pass` and
                 `python -c 'import vmem'`.
  3. in-process  Store.open, embedder() and LocalIndex.open once, then vmem.ops.recall.search(index, query,
                 Scope(org, all), include_stale=False, k=5, embed) for every query, --query-reps times, in
                 shuffled order, next to a step-by-step replica of search() at 763ac99 that times its parts,
                 and next to search_fixed(): that search without the two per-query costs that grow with the
                 store (see below). Both run only while search() is still that code and returns what
                 they return. --profile N then cProfiles N passes of search() over the queries.
  4. floors      in-process, fresh parse cache, on the tree that phase 1 rebuilt: walk HEAD's claims/ and
                 knowledge/ trees with pygit2 and read every .yaml blob; the same plus
                 vmem.store.repo.parse_blob on each; embedding every item's index text (vmem.index.local._text
                 of _meta) in one embed() call (what a rebuild does).
  5. catch-up    --catchup rounds, shuffled: LocalIndex.open with nothing new (also with the GC fix); one
                 propose_claim() commit, then LocalIndex.open (it catches up); the same with an incremental
                 _columns (monkeypatch, see below). Then --bulk rounds, shuffled: one 100-claim commit (one
                 store.transaction) before each open, without and with the incremental _columns.
                 In-process, fresh Store each time; stats["parsed"] and the time of each part are recorded.

The report keeps the order rebuild, CLI, in-process, catch-up, rebuild-vs-floors.

Monkeypatched variants (measurements only; src/ is not changed). Each runs only while the code it patches is
there (search_fixed and the replica only while they return what search() returns); otherwise it is left out:
  search_fixed       builds cosine_of only for the ~400 fused candidates instead of a dict over every allowed
                     row, and fetches tantivy stored docs lazily, stopping after DEPTH in-scope hits, instead of
                     fetching 2000 docs and filtering them.
  incremental cols   LocalIndex._columns updates only the rows of the changed items (names of new entities and
                     groups appended) instead of recomputing every row (3 timestamp parses per item).
  gc off             LocalIndex._load's marshal.loads of meta.marshal (every item's metadata) runs with the
                     cyclic garbage collector disabled; with it on, building ~100k small dicts triggers repeated
                     collections.

Python subprocesses run without PYTHONDONTWRITEBYTECODE and with PYTHONPYCACHEPREFIX under bench/out/, so they
load cached bytecode as an installed vmem would. Results: markdown tables on stdout, also written to
bench/out/recall-<items>.md. Afterwards the store is reset to its generated commit (ensure_store) and the script
checks that `git status --porcelain` is empty.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import io
import json
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pygit2  # noqa: E402

from gen_store import BENCH_DIR, IDENTITY, Generator, ensure_store, git, read_marker  # noqa: E402

OUT_DIR = BENCH_DIR / "out"
VMEM = str(Path(sys.executable).with_name("vmem"))
WARMUP_ROUNDS = 2
BUDGET_MS = 20.0
BULK = 100

QUERIES = [
    "how is ARR defined",
    "when is invoices.paid_at stamped",
    "test traffic rows in events by platform",
    "convert amount_cents to USD with fx rates",
    "which time zone does orders.placed_at use",
    "Brightwater Clinics reseller account attribution",
    "fintech buyers push back on data residency",
    "refresh MRR after a backfill",
    "join subscriptions to accounts without fanning out",
    "enterprise customers need a SOC 2 report before security review",
    "when is the finance.payments table rebuilt nightly",
    "net revenue retention trailing window board deck",
]
STOP = {"a", "after", "an", "and", "before", "by", "does", "how", "in", "is", "need", "of", "on", "the", "to",
        "use", "what", "when", "which", "with", "without"}

RECALL = "vmem recall \"<query>\" (CLI process, warm index)"
GREP_ANY = "git grep -i -F -l -e W1 -e W2 … (any word) — baseline"
GREP_ALL = "git grep -i -F -l --all-match -e W1 -e W2 … (all words)"
RECALL_GC = "same, gc off around marshal.loads in _load (monkeypatch)"
INDEX_NOOP = "vmem index, index up to date (CLI process)"
PYTHON = "python -c pass"
IMPORT_VMEM = "python -c 'import vmem'"
CLI_ROWS = [RECALL, RECALL_GC, GREP_ANY, GREP_ALL, INDEX_NOOP, PYTHON, IMPORT_VMEM]
# `vmem ARGS` with LocalIndex._load's marshal.loads run with the cyclic GC off (the fix that RECALL_GC measures)
GC_OFF_CLI = """import gc, marshal, sys, types
import vmem.index.local as local
def loads(data):
    gc.disable()
    try:
        return marshal.loads(data)
    finally:
        gc.enable()
local.marshal = types.SimpleNamespace(loads=loads, dumps=marshal.dumps)
sys.argv[0] = "vmem"
from vmem.cli.entry import main
sys.exit(main())
"""

SEARCH = "search() (as shipped)"
SEARCH_FIXED = "search_fixed() (monkeypatch: candidates-only cosine_of, lazy bm25 docs)"
PARTS = ["↳ (763ac99 replica) embed the query", "↳ (replica) scope mask (_mask)", "↳ (replica) cosines + argsort",
         "↳ (replica) cosine_of dict (all allowed rows)", "↳ (replica) bm25(query, 2000) + mask filter",
         "↳ (replica) _fuse (confidence, top k)"]

OPEN_NOOP = "LocalIndex.open, nothing new"
OPEN_NOOP_GC = "same, gc off around marshal.loads in _load (monkeypatch)"
OPEN_ONE = "LocalIndex.open after 1 new commit (1 claim)"
OPEN_ONE_FIX = "same, incremental _columns (monkeypatch)"
OPEN_BULK = f"LocalIndex.open after 1 commit of {BULK} claims"
OPEN_BULK_FIX = f"same ({BULK} claims), incremental _columns (monkeypatch)"
CATCHUP_ROWS = [OPEN_NOOP, OPEN_NOOP_GC, OPEN_ONE, OPEN_ONE_FIX, OPEN_BULK, OPEN_BULK_FIX]
COMPONENTS = ["_load", "parse_blob", "embed", "_columns", "tantivy + rest of _apply", "_save"]


def grep_words(query: str) -> list[str]:
    return [w for w in dict.fromkeys(re.findall(r"\w+", query.lower())) if len(w) > 1 and w not in STOP]


def _ms(seconds: float) -> str:
    return "–" if seconds != seconds else f"{seconds * 1000:.1f}"  # NaN: not measured


def vmem_revision() -> str:
    project = BENCH_DIR.parent
    head = git(project, "rev-parse", "--short", "HEAD").strip()
    return head + (" + uncommitted changes in src/" if git(project, "status", "--porcelain", "--", "src") else "")


def src_digest() -> str:
    """A hash of the uncommitted changes in src/, to notice edits made while the benchmark runs."""
    import hashlib

    return hashlib.sha256(git(BENCH_DIR.parent, "diff", "HEAD", "--", "src").encode()).hexdigest()


# -- CLI processes ------------------------------------------------------------------------------------------------

class Processes:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPYCACHEPREFIX"] = str(OUT_DIR / "pycache")
        self.hits: dict[tuple[str, str], int] = {}

    def run(self, argv: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=self.root, env=self.env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode not in ok:
            raise SystemExit(f"{' '.join(argv[:5])} ... failed ({done.returncode}):\n{done.stderr}{done.stdout}")
        return elapsed, done.stdout

    def recall(self, query: str) -> float:
        return self.run([VMEM, "--store", str(self.root), "recall", query])[0]

    def grep(self, query: str, all_words: bool) -> float:
        argv = ["git", "-C", str(self.root), "grep", "-i", "-F", "-l"] + (["--all-match"] if all_words else [])
        for word in grep_words(query):
            argv += ["-e", word]
        elapsed, out = self.run(argv, ok=(0, 1))
        self.hits[(query, "all" if all_words else "any")] = len(out.splitlines())
        return elapsed

    def index(self, rebuild: bool = False) -> tuple[float, dict]:
        argv = [VMEM, "--store", str(self.root), "index", "--json"] + (["--rebuild"] if rebuild else [])
        elapsed, out = self.run(argv)
        return elapsed, json.loads(out)["data"]

    def operations(self, query: str, gc_fix: bool) -> dict:
        ops = {RECALL: lambda: self.recall(query),
                RECALL_GC: lambda: self.run([sys.executable, "-c", GC_OFF_CLI, "--store", str(self.root), "recall",
                                             query])[0],
                GREP_ANY: lambda: self.grep(query, False),
                GREP_ALL: lambda: self.grep(query, True),
                INDEX_NOOP: lambda: self.index()[0],
                PYTHON: lambda: self.run([sys.executable, "-c", "pass"])[0],
                IMPORT_VMEM: lambda: self.run([sys.executable, "-c", "import vmem"])[0]}
        if not gc_fix:
            del ops[RECALL_GC]
        return ops


def cli_rounds(procs: Processes, runs: int, rng: random.Random, gc_fix: bool) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = defaultdict(list)
    for n in range(-WARMUP_ROUNDS, runs):
        ops = procs.operations(QUERIES[n % len(QUERIES)], gc_fix)
        names = list(ops)
        rng.shuffle(names)
        for name in names:
            seconds = ops[name]()
            if n >= 0:
                samples[name].append(seconds)
    return samples


# -- in-process search --------------------------------------------------------------------------------------------

def bm25_lazy(index, query: str, limit: int):
    """index.bm25, but each stored doc is fetched only when the caller asks for the next hit."""
    words = re.findall(r"\w+", query.lower())
    if not words:
        return
    index._tantivy.reload()
    searcher = index._tantivy.searcher()
    parsed = index._tantivy.parse_query(" ".join(words), ["text"])
    for score, address in searcher.search(parsed, limit=limit).hits:
        yield searcher.doc(address)["id"][0], score


def search_fixed(index, query: str, who, include_stale: bool, k: int, embed) -> dict:
    """vmem.ops.recall.search with the two store-sized per-query costs removed; same results."""
    import numpy as np

    from vmem.ops.recall import DEPTH, _fuse, _mask

    now = time.time()
    if not index.order:
        return {"coverage": "uncovered", "results": []}
    mask = _mask(index, who, include_stale, now)
    allowed = np.flatnonzero(mask)
    if allowed.size == 0:
        return {"coverage": "uncovered", "results": []}
    qv = embed([query])[0]
    cosines = index.vectors[allowed] @ qv
    top = allowed[np.argsort(-cosines)[:DEPTH]]
    vector_rank = [index.order[r] for r in top]
    lexical = []
    for item_id, score in bm25_lazy(index, query, 2000):
        row = index.rows.get(item_id)
        if row is not None and mask[row]:
            lexical.append((item_id, score))
            if len(lexical) == DEPTH:
                break
    by_row = np.zeros(len(index.order), dtype=cosines.dtype)
    by_row[allowed] = cosines
    cosine_of = {i: float(by_row[index.rows[i]]) for i in set(vector_rank).union(i for i, _ in lexical)}
    return _fuse(index.items, vector_rank, lexical, cosine_of, k, at=datetime.fromtimestamp(now, timezone.utc),
                 stale_ok=include_stale)


def search_parts(index, query: str, who, include_stale: bool, k: int, embed) -> tuple[dict, list[float]]:
    """A step-by-step copy of vmem.ops.recall.search (same code, same result) that times each step."""
    import numpy as np

    from vmem.ops.recall import DEPTH, _fuse, _mask

    t = [time.perf_counter()]
    now = time.time()
    mask = _mask(index, who, include_stale, now)
    allowed = np.flatnonzero(mask)
    t.append(time.perf_counter())
    qv = embed([query])[0]
    t.append(time.perf_counter())
    cosines = index.vectors[allowed] @ qv
    top = allowed[np.argsort(-cosines)[:DEPTH]]
    t.append(time.perf_counter())
    cosine_of = {index.order[r]: float(c) for r, c in zip(allowed, cosines)}
    vector_rank = [index.order[r] for r in top]
    t.append(time.perf_counter())
    lexical = [(i, s) for i, s in index.bm25(query, 2000) if i in index.rows and mask[index.rows[i]]][:DEPTH]
    t.append(time.perf_counter())
    result = _fuse(index.items, vector_rank, lexical, cosine_of, k, at=datetime.fromtimestamp(now, timezone.utc),
                   stale_ok=include_stale)
    t.append(time.perf_counter())
    mask_s, embed_s, cos_s, dict_s, bm25_s, fuse_s = (b - a for a, b in zip(t, t[1:]))
    return result, [embed_s, mask_s, cos_s, dict_s, bm25_s, fuse_s]


def _same(a: dict, b: dict) -> bool:
    """Same coverage, ids, order and cosines (scores and confidence decay with the clock between two calls)."""
    def key(r):
        return r["coverage"], [(row["id"], row["cosine"]) for row in r["results"]]
    return key(a) == key(b)


def in_process_queries(root: Path, reps: int, rng: random.Random, profile: int = 0) -> tuple[dict, dict, dict]:
    from vmem.embed import embedder
    from vmem.index.local import LocalIndex
    from vmem.ops.recall import Scope, search
    from vmem.store.repo import Store

    setup: dict[str, float] = {}
    started = time.perf_counter()
    store = Store.open(root)
    embed = embedder(store.policy, store.root)
    setup["Store.open + embedder() (model load)"] = time.perf_counter() - started
    started = time.perf_counter()
    index = LocalIndex.open(store, embed, model_id=str(embed.path))
    setup["LocalIndex.open, up to date (load)"] = time.perf_counter() - started
    assert index.stats["parsed"] == 0, index.stats
    who = Scope.parse(None, None)
    info = {"items": len(index.items), "allowed": 0, "coverage": {}, "notes": []}
    variants = ["search", "fixed", "parts"]
    if "zip(allowed, cosines)" not in inspect.getsource(search):  # the replica and the fix copy 763ac99's search
        variants = ["search"]
        info["notes"].append("search() is no longer the 763ac99 code that the step replica and search_fixed() copy, "
                             "so only search() is timed (--profile N shows where its time goes)")
    for query in QUERIES:  # warm up, and keep only the variants that return what search() returns
        expected = search(index, query, who, False, 5, embed)
        info["coverage"][query] = expected["coverage"]
        for variant, function in (("fixed", search_fixed), ("parts", lambda *a: search_parts(*a)[0])):
            if variant in variants and not _same(function(index, query, who, False, 5, embed), expected):
                variants.remove(variant)
                info["notes"].append(f"{'search_fixed()' if variant == 'fixed' else 'the step-by-step replica'} "
                                     f"no longer returns what search() returns (src/ changed?), so it is not timed")
    from vmem.ops.recall import _mask
    info["allowed"] = int(_mask(index, who, False, time.time()).sum())

    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(reps):
        queries = list(QUERIES)
        rng.shuffle(queries)
        for query in queries:
            rng.shuffle(variants)
            for variant in variants:
                started = time.perf_counter()
                if variant == "search":
                    search(index, query, who, False, 5, embed)
                    samples[SEARCH].append(time.perf_counter() - started)
                elif variant == "fixed":
                    search_fixed(index, query, who, False, 5, embed)
                    samples[SEARCH_FIXED].append(time.perf_counter() - started)
                else:
                    for name, seconds in zip(PARTS, search_parts(index, query, who, False, 5, embed)[1]):
                        samples[name].append(seconds)
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(profile):
            for query in QUERIES:
                search(index, query, who, False, 5, embed)
        profiler.disable()
        text = io.StringIO()
        text.write(f"{profile} x {len(QUERIES)} in-process search() calls on {info['items']:,} items, "
                   f"under cProfile\n\n")
        for key in ("tottime", "cumulative"):
            pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(key).print_stats(25)
        info["profile"] = OUT_DIR / f"recall-profile-{info['items']}.txt"
        info["profile"].write_text(text.getvalue())
    return setup, samples, info


# -- catch-up -----------------------------------------------------------------------------------------------------

class Timed:
    """Timing wrappers around LocalIndex's steps (behaviour unchanged), with a switchable _columns fix."""

    def __init__(self) -> None:
        import vmem.index.local as local

        self.local = local
        self.times: dict[str, float] = defaultdict(float)
        self.original = {name: getattr(local.LocalIndex, name) for name in ("_load", "_apply", "_columns", "_save")
                         if hasattr(local.LocalIndex, name)}
        self.can_fix = {"_apply", "_columns"} <= set(self.original)  # the incremental-_columns experiment
        self.impl = dict(self.original)
        self.original_parse = local.parse_blob
        for name in self.original:
            setattr(local.LocalIndex, name, self._wrap(name))
        timed = self

        def parse_blob(*args):
            started = time.perf_counter()
            try:
                return timed.original_parse(*args)
            finally:
                timed.times["parse_blob"] += time.perf_counter() - started
        local.parse_blob = parse_blob

    def _wrap(self, name: str):
        timed = self

        def method(index, *args, **kwargs):
            started = time.perf_counter()
            try:
                return timed.impl[name](index, *args, **kwargs)
            finally:
                timed.times[name] += time.perf_counter() - started
        return method

    def restore(self) -> None:
        for name, function in self.original.items():
            setattr(self.local.LocalIndex, name, function)
        self.local.parse_blob = self.original_parse

    def patch(self, on: bool) -> None:
        self.impl = dict(self.original)
        if on and self.can_fix:
            self.impl["_apply"] = _apply_recording(self.original["_apply"])
            self.impl["_columns"] = _columns_incremental(self.original["_columns"])


def _apply_recording(apply):
    def method(index, changed, embed, progress):
        index._bench_changed = {Path(path).stem for path in changed}
        index._bench_rows_before = len(index.order)
        return apply(index, changed, embed, progress)
    return method


def _columns_incremental(full):
    """LocalIndex._columns that recomputes only the changed and new rows (the fix that this measures)."""
    def method(index):
        import numpy as np

        from vmem.index.local import NO_TIME, SERVABLE, STALE, _epoch

        changed = getattr(index, "_bench_changed", None)
        before = getattr(index, "_bench_rows_before", None)
        cols = index.columns
        n = len(index.order)
        if changed is None or not cols or len(cols["present"]) != before:
            return full(index)
        if n > before:
            cols = {name: np.concatenate([a, np.full(n - before, NO_TIME if a.dtype.kind == "f" else 0, a.dtype)])
                    for name, a in cols.items()}
        entities, groups = list(index.entity_names), list(index.group_names)
        rows = set(range(before, n)) | {index.rows[i] for i in changed if i in index.rows}
        for row in rows:
            meta = index.items.get(index.order[row])
            if meta is None:
                for name, a in cols.items():
                    a[row] = NO_TIME if a.dtype.kind == "f" else 0
                continue
            cols["present"][row] = 1
            cols["servable"][row] = meta["status"] in SERVABLE[meta["kind"]]
            cols["stale"][row] = meta["status"] in STALE
            cols["personal"][row] = bool(meta.get("personal"))
            cols["knowledge"][row] = meta["kind"] == "knowledge"
            scope = meta.get("scope") or "org"
            if scope.startswith("entity:"):
                if scope[7:] not in entities:
                    entities.append(scope[7:])
                cols["scope"][row] = entities.index(scope[7:]) + 1
            else:
                cols["scope"][row] = 0
            audience = meta.get("audience") or "all"
            if audience.startswith("group:"):
                if audience[6:] not in groups:
                    groups.append(audience[6:])
                cols["audience"][row] = groups.index(audience[6:]) + 1
            else:
                cols["audience"][row] = 0
            cols["valid_from"][row] = _epoch(meta.get("valid_from"))
            cols["valid_to"][row] = _epoch(meta.get("valid_to"))
            cols["expires"][row] = _epoch(meta.get("expires_at"))
        index.columns = cols
        index.entity_names, index.group_names = entities, groups
    return method


class CatchUp:
    def __init__(self, root: Path, seed: int) -> None:
        from vmem.embed import embedder
        from vmem.store.repo import Store

        self.root = root
        store = Store.open(root)
        self.embed = embedder(store.policy, store.root)
        self.gen = Generator(seed + 2_000_003, store.policy)  # other ids and text than the store's
        self.timed = Timed()
        self.commits = 0
        self.parsed: dict[str, list[int]] = defaultdict(list)
        self.parts: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.checked = False

    def _open(self, row: str, fixed: bool, gc_off: bool = False) -> float:
        import gc
        import marshal
        import types

        from vmem.index.local import LocalIndex
        from vmem.store.repo import Store

        def loads(data):
            gc.disable()
            try:
                return marshal.loads(data)
            finally:
                gc.enable()
        self.timed.local.marshal = types.SimpleNamespace(loads=loads, dumps=marshal.dumps) if gc_off else marshal
        self.timed.patch(fixed)
        self.timed.times.clear()
        embed = self.embed
        embed_time = [0.0]

        def timed_embed(texts):
            started = time.perf_counter()
            try:
                return embed(texts)
            finally:
                embed_time[0] += time.perf_counter() - started
        timed_embed.path = embed.path
        store = Store.open(self.root)
        started = time.perf_counter()
        index = LocalIndex.open(store, timed_embed, model_id=str(embed.path))
        elapsed = time.perf_counter() - started
        self.timed.patch(False)
        self.timed.local.marshal = marshal
        t = self.timed.times
        nan = float("nan")
        known = set(self.timed.original) | {"parse_blob"}
        parts = {name: t[name] if name in known else nan for name in ("_load", "parse_blob", "_columns", "_save")}
        parts["embed"] = embed_time[0]
        parts["tantivy + rest of _apply"] = (t["_apply"] - t["parse_blob"] - embed_time[0] - t["_columns"]
                                             if "_apply" in known else nan)
        for name, seconds in parts.items():
            self.parts[row][name].append(seconds)
        self.parsed[row].append(index.stats["parsed"])
        if fixed and not self.checked:  # the incremental columns must equal a full recompute
            self._check(index)
        return elapsed

    def _check(self, index) -> None:
        import numpy as np

        cols, names = index.columns, (index.entity_names, index.group_names)
        self.timed.original["_columns"](index)
        assert names == (index.entity_names, index.group_names), "entity/group codes differ"
        for name, array in index.columns.items():
            assert np.array_equal(array, cols[name], equal_nan=True), f"incremental column {name} differs"
        self.checked = True

    def _claim(self, statement: str) -> dict:
        from vmem import model
        from vmem.ops.common import expires_at

        now = model.now()
        return model.validate("claim", {
            "id": self.gen.new_id("claim"), "kind": "claim", "statement": statement, "scope": "org",
            "class": "factual", "domain": "finance", "status": "approved", "audience": "all", "personal": False,
            "source": {"type": "analyst", "user": IDENTITY[1], "episode": None}, "confidence": 0.5,
            "review": {"by": IDENTITY[1], "at": now, "action": "approve", "reason": None},
            "created_at": now, "valid_from": now, "expires_at": expires_at(self.gen.policy, "factual", now),
        }, "benchmark claim")

    def commit_one(self) -> None:
        from vmem.ops.propose import propose_claim
        from vmem.store.repo import Store

        propose_claim(Store.open(self.root), self.gen.claim_text()[0], domain="finance")
        self.commits += 1

    def commit_bulk(self) -> None:
        from vmem.store.repo import Store

        items = [self._claim(self.gen.claim_text()[0]) for _ in range(BULK)]
        store = Store.open(self.root)
        with store.transaction("import", items=[i["id"] for i in items], summary=f"{BULK} benchmark claims") as txn:
            for item in items:
                txn.write(item)
        self.commits += 1

    def run(self, rounds: int, bulk_rounds: int, rng: random.Random, gc_fix: bool) -> dict[str, list[float]]:
        samples: dict[str, list[float]] = defaultdict(list)
        self._open(OPEN_NOOP, False)  # warm up (and catch up with anything left over)
        ops = {OPEN_NOOP: lambda: self._open(OPEN_NOOP, False),
               OPEN_NOOP_GC: lambda: self._open(OPEN_NOOP_GC, False, gc_off=True),
               OPEN_ONE: lambda: (self.commit_one(), self._open(OPEN_ONE, False))[1],
               OPEN_ONE_FIX: lambda: (self.commit_one(), self._open(OPEN_ONE_FIX, True))[1]}
        if not gc_fix:
            del ops[OPEN_NOOP_GC]
        if not self.timed.can_fix:
            del ops[OPEN_ONE_FIX]
        for _ in range(rounds):
            names = list(ops)
            rng.shuffle(names)
            for name in names:
                samples[name].append(ops[name]())
        ops = {OPEN_BULK: lambda: (self.commit_bulk(), self._open(OPEN_BULK, False))[1],
               OPEN_BULK_FIX: lambda: (self.commit_bulk(), self._open(OPEN_BULK_FIX, True))[1]}
        if not self.timed.can_fix:
            del ops[OPEN_BULK_FIX]
        for _ in range(bulk_rounds):
            names = list(ops)
            rng.shuffle(names)
            for name in names:
                samples[name].append(ops[name]())
        self.timed.restore()
        return samples


# -- floors -------------------------------------------------------------------------------------------------------

def floors(root: Path) -> dict[str, float]:
    import vmem.store.repo as repo_module
    from vmem.embed import embedder
    from vmem.index.local import _meta, _text
    from vmem.store.repo import Snapshot, Store, parse_blob

    out: dict[str, float] = {}
    store = Store.open(root)
    repo = store.repo
    kinds = {"claims": "claim", "knowledge": "knowledge"}

    def walk():
        snapshot = Snapshot(repo, repo.head.peel(pygit2.Commit))
        for top in kinds:
            for path, entry in snapshot.walk(top):
                if path.endswith(".yaml"):
                    yield kinds[top], path, entry

    started = time.perf_counter()
    count = size = 0
    for _, _, entry in walk():
        size += len(repo[entry.id].data)
        count += 1
    out["walk HEAD + read every claim/knowledge blob"] = time.perf_counter() - started
    repo_module._PARSED.clear()
    parsed = []
    started = time.perf_counter()
    for kind, path, entry in walk():
        try:
            parsed.append(parse_blob(kind, path, str(entry.id), repo[entry.id].data))
        except Exception:  # noqa: BLE001 - the index skips broken files too
            pass
    out["walk + read + parse_blob every blob (fresh parse cache) — parse floor"] = time.perf_counter() - started
    repo_module._PARSED.clear()
    embed = embedder(store.policy, store.root)
    texts = [_text(_meta(item)) for item in parsed]  # what the index embeds
    del parsed
    started = time.perf_counter()
    embed(texts)
    out["embed every indexed text (one embed() call)"] = time.perf_counter() - started
    out["_blobs"], out["_bytes"] = count, size
    return out


# -- report -------------------------------------------------------------------------------------------------------

def row(name: str, values: list[float], extra: str = "") -> str:
    return (f"| {name} | {_ms(statistics.median(values))} | {_ms(min(values))} | {_ms(max(values))} | "
            f"{len(values)} |{extra}")


def report(items: int, root: Path, args, revision: str, rebuild: list[tuple[float, dict]], cli: dict, procs: Processes,
           setup: dict, queries: dict, qinfo: dict, catchup: dict, cu: CatchUp, floor: dict) -> str:
    lines = [f"## vmem recall, {items:,} items", "",
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC · store `{root.relative_to(BENCH_DIR.parent)}` "
             f"(generated in {read_marker(root)['seconds']:.0f} s) · {os.cpu_count()} CPUs · Python "
             f"{platform.python_version()} · {git(root, 'version').strip()} · pygit2 {pygit2.__version__} · "
             f"vmem at {revision} · index in `{os.environ['XDG_CACHE_HOME']}`", ""]

    base = statistics.median(cli[GREP_ANY])
    lines += [f"### 1. CLI processes ({args.runs} interleaved rounds after {WARMUP_ROUNDS} warm-up rounds, one query "
              f"per round, {len(QUERIES)} queries rotated)", "",
              "| operation | median ms | min ms | max ms | n | median / git grep (any) |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name in (r for r in CLI_ROWS if cli.get(r)):
        lines.append(row(name, cli[name], f" {statistics.median(cli[name]) / base:.2f}× |"))
    gc_text = f" With the GC fix: {statistics.median(cli[RECALL_GC]) / base:.2f}×." if cli.get(RECALL_GC) else ""
    paired = statistics.median(r / g for r, g in zip(cli[RECALL], cli[GREP_ANY]))
    ratio = statistics.median(cli[RECALL]) / base
    lines += ["", f"vmem recall / git grep (any word): **{ratio:.2f}×** (ratio of medians), {paired:.2f}× (median of "
              f"per-round ratios) — {'faster than' if ratio < 1 else 'SLOWER than'} git grep"
              f"{' (SPEC §10 budget at 100k: faster)' if items >= 100_000 else ''}.{gc_text}", ""]

    lines += ["Queries (grep words: the query's words, lower-cased, stop words and 1-letter words dropped):", "",
              "| query | grep words | files (any) | files (all) | vmem coverage |", "| --- | --- | ---: | ---: | --- |"]
    for query in QUERIES:
        lines.append(f"| {query} | {' '.join(grep_words(query))} | {procs.hits.get((query, 'any'), '–')} | "
                     f"{procs.hits.get((query, 'all'), '–')} | {qinfo['coverage'][query]} |")

    searched = queries[SEARCH]
    lines += ["", f"### 2. In-process query ({args.query_reps} reps × {len(QUERIES)} queries; index already open: "
              f"{qinfo['items']:,} items, {qinfo['allowed']:,} in the org/all scope)", "",
              "| operation | median ms | min ms | max ms | n | p90 ms |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name in (r for r in [SEARCH, *PARTS, SEARCH_FIXED] if queries.get(r)):
        p90 = statistics.quantiles(queries[name], n=10, method="inclusive")[-1]
        lines.append(row(name, queries[name], f" {_ms(p90)} |"))
    median = statistics.median(searched)
    fixed = (f"; search_fixed() median {_ms(statistics.median(queries[SEARCH_FIXED]))} ms"
             if queries.get(SEARCH_FIXED) else "")
    lines += ["", f"search() median {_ms(median)} ms: {'within' if median * 1000 <= BUDGET_MS else 'OVER'} the SPEC "
              f"§10 budget (≤ {BUDGET_MS:.0f} ms){fixed}. One-off setup in the process: " +
              ", ".join(f"{k} {_ms(v)} ms" for k, v in setup.items()) + "." +
              "".join(f" Note: {note}." for note in qinfo["notes"]), ""]

    lines += [f"### 3. Catch-up (in-process LocalIndex.open, fresh Store; {args.catchup} rounds of 1-claim commits, "
              f"{args.bulk} rounds of {BULK}-claim commits)", "",
              "| operation | median ms | min ms | max ms | n | parsed | " +
              " | ".join(f"{c} ms" for c in COMPONENTS) + " |",
              "| --- | ---: | ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in COMPONENTS) + " |"]
    for name in CATCHUP_ROWS:
        if not catchup.get(name):
            continue
        parsed = sorted(set(cu.parsed[name]))
        comps = " | ".join(_ms(statistics.median(cu.parts[name][c])) for c in COMPONENTS)
        lines.append(row(name, catchup[name], f" {','.join(map(str, parsed))} | {comps} |"))
    noop = statistics.median(catchup[OPEN_NOOP])
    one = statistics.median(catchup[OPEN_ONE]) - noop
    lines += ["", f"Catch-up beyond loading the index: 1 claim {_ms(one)} ms"]
    if catchup.get(OPEN_BULK):
        lines[-1] += f", {BULK} claims {_ms(statistics.median(catchup[OPEN_BULK]) - noop)} ms"
    if catchup.get(OPEN_ONE_FIX) and catchup.get(OPEN_BULK_FIX):
        lines[-1] += (f"; with incremental _columns: 1 claim {_ms(statistics.median(catchup[OPEN_ONE_FIX]) - noop)} "
                      f"ms, {BULK} claims {_ms(statistics.median(catchup[OPEN_BULK_FIX]) - noop)} ms")
    lines[-1] += " (medians minus the median 'nothing new' open)."

    rebuild_wall = [w for w, _ in rebuild]
    rebuild_inner = [d["seconds"] for _, d in rebuild]
    parse_floor = floor["walk + read + parse_blob every blob (fresh parse cache) — parse floor"]
    embed_floor = floor["embed every indexed text (one embed() call)"]
    lines += ["", f"### 4. Full rebuild ({len(rebuild)}×) and its floors (in-process, {floor['_blobs']:,} blobs, "
              f"{floor['_bytes'] / 1e6:.0f} MB)", "",
              "| operation | seconds (median) | min | max | / parse floor |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, values in [("`vmem index --rebuild` (CLI process, wall)", rebuild_wall),
                         ("↳ its own \"seconds\" (inside LocalIndex.open)", rebuild_inner)]:
        lines.append(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f} | {max(values):.2f} | "
                     f"{statistics.median(values) / parse_floor:.2f}× |")
    for name, seconds in floor.items():
        if not name.startswith("_"):
            lines.append(f"| {name} | {seconds:.2f} | | | {seconds / parse_floor:.2f}× |")
    lines.append(f"| parse floor + embedding | {parse_floor + embed_floor:.2f} | | | "
                 f"{(parse_floor + embed_floor) / parse_floor:.2f}× |")
    lines += ["", f"Rebuild (CLI wall) / (parse + embed floor): "
              f"**{statistics.median(rebuild_wall) / (parse_floor + embed_floor):.2f}×**.", ""]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000, help="store size (default: 100000)")
    parser.add_argument("--runs", type=int, default=12, help="CLI rounds (default: 12)")
    parser.add_argument("--seed", type=int, default=1, help="store seed (default: 1)")
    parser.add_argument("--query-reps", type=int, default=8, help="in-process passes over the queries (default: 8)")
    parser.add_argument("--catchup", type=int, default=5, help="rounds of 1-claim commits (default: 5)")
    parser.add_argument("--bulk", type=int, default=2, help=f"rounds of {BULK}-claim commits (default: 2)")
    parser.add_argument("--rebuilds", type=int, default=1, help="`vmem index --rebuild` runs (default: 1)")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also cProfile N passes of search() over the queries (bench/out/recall-profile-*.txt)")
    parser.add_argument("--cache-dir", default=str(OUT_DIR / "cache"), help="XDG_CACHE_HOME for the index")
    args = parser.parse_args(argv)
    if args.runs < 2 or args.query_reps < 1 or args.catchup < 1 or args.rebuilds < 1:
        parser.error("--runs must be at least 2; --query-reps, --catchup and --rebuilds at least 1")

    os.environ["XDG_CACHE_HOME"] = str(Path(args.cache_dir).absolute())
    root = ensure_store(args.items, args.seed)
    procs = Processes(root)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    revision = vmem_revision()  # of the code measured: checked again at the end
    digest = src_digest()

    print(f"1. rebuilding the index ({args.rebuilds}×) ...", flush=True)
    rebuild = [procs.index(rebuild=True) for _ in range(args.rebuilds)]
    for wall, data in rebuild:
        print(f"   {wall:.2f} s wall, {data['seconds']} s inside, {data['items']} items, {data['parsed']} parsed")
    from vmem.index.local import index_dir
    from vmem.store.repo import Store

    gc_fix = (index_dir(Store.open(root)) / "meta.marshal").is_file()  # the GC experiment patches its loading
    print(f"2. CLI rounds ({WARMUP_ROUNDS} warm-up + {args.runs}) ...", flush=True)
    cli = cli_rounds(procs, args.runs, rng, gc_fix)
    print(f"3. in-process queries ({args.query_reps} × {len(QUERIES)}) ...", flush=True)
    setup, queries, qinfo = in_process_queries(root, args.query_reps, rng, args.profile)
    print("4. floors: read, parse, embed (before any benchmark commit: the tree that was rebuilt) ...", flush=True)
    floor = floors(root)
    print(f"5. catch-up ({args.catchup} + {args.bulk} rounds) ...", flush=True)
    cu = CatchUp(root, args.seed)
    catchup = cu.run(args.catchup, args.bulk, rng, gc_fix)

    if vmem_revision() != revision or (revision.endswith("src/") and src_digest() != digest):
        revision += " (src/ CHANGED DURING THE RUN: results may mix two versions)"
    text = report(args.items, root, args, revision, rebuild, cli, procs, setup, queries, qinfo, catchup, cu, floor)
    text += f"Total benchmark time {time.perf_counter() - started:.0f} s.\n"
    print("\n" + text)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"recall-{args.items}.md"
    path.write_text(text)
    print(f"written to {path}")
    if qinfo.get("profile"):
        print(f"profile: {qinfo['profile']}")

    grown = int(git(root, "rev-list", "--count", f"{read_marker(root)['commit']}..HEAD"))
    assert grown == cu.commits, f"expected {cu.commits} new commits, found {grown}"
    ensure_store(args.items, args.seed)  # back to the generated commit
    dirty = git(root, "status", "--porcelain")
    assert not dirty, f"the store has uncommitted changes after the benchmark:\n{dirty}"
    print(f"checked: {grown} benchmark commits, store reset to its generated commit, git status is clean")


if __name__ == "__main__":
    main()
