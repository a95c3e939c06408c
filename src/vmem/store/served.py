"""The items a store may serve, at HEAD: a commit-keyed cache of what history attests (SPEC 12), brought
forward by tree diffs, so a pre-session hook on an unchanged store reads one file and never imports pygit2.

All git reading for sync lives here (HEAD from .git directly; pygit2 only when the cache is behind). An item is
read once per content (parse.parse_blob: a file in vmem's stable layout by the layout compiled from the schema,
store/layout.py; any other in full) and cached as served."""

from __future__ import annotations

import re
from pathlib import Path

from vmem.store.cache import cache_file, read_cache, write_cache
from vmem.visibility import held_back

# 3: a reviewed item deleted without a reviewer is served as reviewed; 2: provenance (reviewer, date, evidence) as
# history attests it
FORMAT = 3


def head_commit(root: Path) -> str | None:
    """HEAD's commit id read from .git directly (no pygit2); None when it cannot be read that simply."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head if re.fullmatch(r"[0-9a-f]{40}", head) else None
        ref = head[5:]
        loose = git / ref
        if loose.is_file():
            value = loose.read_text().strip()
            return value if re.fullmatch(r"[0-9a-f]{40}", value) else None
        packed = git / "packed-refs"
        for line in packed.read_text().splitlines() if packed.is_file() else []:
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref:
                return parts[0]
    except OSError:
        return None
    return None


# A small change is written as a delta beside the cache (what changed since its commit), not as the whole cache
# again: rewriting ~5k served items at 10k cost ~25 ms of every sync after a teammate's commit. Past this many
# changed items the whole cache is written and the delta dropped.
DELTA_MAX = 256


class Candidates:
    """What HEAD may serve; unpacks as (commit, policy, items, about, served_at). (A plain class: typing's
    NamedTuple would cost every warm sync its import.)"""

    __slots__ = ("commit", "policy", "items", "about", "served_at")

    def __init__(self, commit: str | None, policy: dict, items: list[dict], about: dict, served_at: str | None):
        self.commit, self.policy = commit, policy
        self.items = items  # the items that may be served, each with the status history attests
        self.about = about  # the store: its id, entities, a broken lexicon
        # the commit since which all of the above is the same (a commit that changed none of it moves HEAD, not
        # this): what was derived from them then still holds
        self.served_at = served_at

    def __iter__(self):
        return iter((self.commit, self.policy, self.items, self.about, self.served_at))


def load_candidates(root: Path, items: bool = True) -> Candidates:
    """What HEAD may serve, from the cache when HEAD has not moved; else brought forward from the cached commit
    (SPEC 12). ITEMS False: the caller needs the items only when something served changed since the commit it
    last derived from (served_at), so a commit that changed nothing served (a teammate's proposal) is brought
    forward from the small head file alone, and the result's items are None."""
    commit = head_commit(root)
    path = cache_file(root)
    since = None  # what changed since the head file's commit, when a quiet forward looked and could not
    if not items and commit is not None:
        head = read_cache(_head_file(path))
        if head is not None and _current(head) and isinstance(head.get("paths"), list):
            if head.get("commit") != commit:
                since = _Since(root, head)
                head = _quiet_forward(since, head)
                if head is not None:
                    write_cache(_head_file(path), head)
            if head is not None and head.get("commit") == commit:
                return Candidates(commit, head["policy"], None, head["store"], head["served_at"])
    base = read_cache(path)
    cached = _with_delta(base, read_cache(_delta_file(path)))
    if cached is not None and commit is not None and cached.get("commit") == commit and _current(cached):
        return _candidates(cached)
    from vmem.store.parse import bulk

    with bulk():
        data = _read_store(root, cached, since)
        _write(path, base, data)
    return _candidates(data)


def _head_file(path: Path) -> Path:
    return path.with_suffix(".head")


class _Since:
    """The store at HEAD and what changed since CACHED's commit and attestation token: in the tree (changes) and
    in what history attests (moved); either None when that cannot be told (read everything). Worked out once per
    process: a quiet forward that fails hands it to the whole cache's catch-up, which needs the same."""

    def __init__(self, root: Path, cached: dict | None) -> None:
        from vmem.store.changes import changes_since
        from vmem.store.repo import Store

        self.store = store = Store.open(root, lite=True)  # the one reader; history walks are asked of pygit2
        self.snapshot, self.state = store.head(), store.attestation()
        self.key = (cached.get("commit"), cached.get("token")) if _usable(cached) else None
        self.changes = changes_since(store.repo, cached["commit"], self.snapshot.commit, ("claims", "knowledge")) \
            if self.key is not None and self.snapshot.commit is not None else None
        self.moved = self.state.moved_since(cached["token"]) if self.changes is not None else None

    def suits(self, cached: dict | None) -> bool:
        """Whether this is what changed since CACHED too (the same commit and token, and a cache as usable)."""
        return self.key is not None and _usable(cached) and self.key == (cached.get("commit"), cached.get("token"))


def _usable(cached: dict | None) -> bool:
    """A cache (or head file) this version can bring forward from: its format, a token, a policy."""
    return cached is not None and _current(cached) and cached.get("policy") is not None


def _quiet_forward(since: _Since, head: dict) -> dict | None:
    """HEAD (the head file: the cache's description of the served set at its commit, and the paths served) brought
    to the store's HEAD, when no path that changed since -- in the tree, or in what history attests of it -- was
    served or may be served now, and the policy, the store's description and the lexicon's state are the same:
    the served set is then the same, and only its commit and attestation token move. None whenever that is not so
    (the caller brings the whole cache forward, as _read_store does)."""
    from vmem.model import SERVABLE
    from vmem.store.changes import entry_at

    store, snapshot, state, changes, moved = since.store, since.snapshot, since.state, since.changes, since.moved
    if snapshot.commit is None or changes is None or moved is None:
        return None
    served = set(head["paths"])
    for item_path in set(changes) | moved:
        if item_path in served:
            return None
        kind = "claim" if item_path.startswith("claims/") else "knowledge"
        change = changes[item_path] if item_path in changes else entry_at(snapshot.tree, item_path)
        if item_path.endswith(".yaml") and state.status_of(item_path) in SERVABLE[kind] and \
                state.serve(item_path, change) is not None:
            return None  # it may be served now: the whole cache decides
    if store.policy != head["policy"] or _about(snapshot, state) != head["store"] or \
            state.lexicon_since != head["lexicon_since"]:
        return None
    return {**head, "commit": snapshot.commit_id, "token": state.token()}


def _candidates(data: dict) -> Candidates:
    return Candidates(data["commit"], data["policy"], _servable(data), data["store"],
                      data.get("served_at", data["commit"]))


def _delta_file(path: Path) -> Path:
    return path.with_suffix(".delta")


def _with_delta(base: dict | None, delta: dict | None) -> dict | None:
    """BASE brought to the delta's commit, when the delta was written against BASE's commit; else BASE."""
    if base is None or delta is None or delta.get("base") != base.get("commit") or not _current(base) or \
            not isinstance(delta.get("items"), dict) or not isinstance(delta.get("data"), dict):
        return base  # no delta, one written against another cache, or not one this code wrote: the cache alone
    items = dict(base["items"])
    for item_path, item in delta["items"].items():
        if item is None:  # no longer served
            items.pop(item_path, None)
        else:
            items[item_path] = item
    return {**delta["data"], "items": items}


def _write(path: Path, base: dict | None, data: dict) -> None:
    """DATA as a delta against BASE (the cache file as read) when few items changed, else as the whole cache; and
    beside it the head file (everything but the items, with the paths served), written last."""
    _write_items(path, base, data)
    head = {k: v for k, v in data.items() if k != "items"}
    write_cache(_head_file(path), {**head, "served_at": data.get("served_at", data["commit"]),
                                   "paths": sorted(data["items"])})


def _write_items(path: Path, base: dict | None, data: dict) -> None:
    import os

    old = base["items"] if base is not None and _current(base) else None
    if old is not None:
        items = data["items"]
        changed = {p: item for p, item in items.items() if old.get(p, False) is not item}  # unchanged: same object
        changed.update((p, None) for p in old.keys() - items.keys())
        if len(changed) <= DELTA_MAX:
            rest = {k: v for k, v in data.items() if k != "items"}
            write_cache(_delta_file(path), {"base": base["commit"], "items": changed, "data": rest})
            return
    write_cache(path, data)
    try:
        os.unlink(_delta_file(path))
    except OSError:
        pass


def _current(cached: dict) -> bool:
    return "token" in cached and cached.get("format") == FORMAT


def _servable(data: dict) -> list[dict]:
    """The cached items, less knowledge published after the lexicon broke (SPEC 11), while it is broken."""
    since = data.get("lexicon_since")
    if since is None:  # the usual case, on every warm sync: nothing is held back, no call per item
        return [item for item in data["items"].values() if item is not None]
    seqs = data.get("seqs", {})
    return [item for p, item in data["items"].items() if item is not None
            and not held_back(item["kind"], seqs.get(p), since)]


def _read_store(root: Path, cached: dict | None, since: _Since | None = None) -> dict:
    """Bring the item cache to HEAD: parse what changed since the cached commit, or whose attestation moved (SINCE:
    that already worked out against the same commit and token, by a quiet forward that could not go on)."""
    from vmem.errors import SchemaError
    from vmem.model import SERVABLE
    from vmem.store.changes import entry_at, tree_changes
    from vmem.store.parse import PARSED as parsed  # blob id -> item, filled by this process's parses
    from vmem.store.repo import parse_blob

    if since is None or not since.suits(cached):
        since = _Since(root, cached)
    store, snapshot, state, changes, moved = since.store, since.snapshot, since.state, since.changes, since.moved
    tops = ("claims", "knowledge")
    items: dict[str, dict | None] = {}
    seqs: dict[str, int] = {}
    if changes is None or moved is None:
        state.preload()
        tree = snapshot.tree
        full = store.repo.walker_if_open() if store.lite and tree is not None else None
        if full is not None:  # a replay opened pygit2 already: its reads of the ~500 shard trees need no pipe
            tree = full[snapshot.commit_id].tree
        changes = {**state.dropped_changes(), **(tree_changes(None, tree, tops) if tree is not None else {})}
    else:
        items, seqs = dict(cached["items"]), dict(cached["seqs"])
        for path in moved - set(changes):
            changes[path] = entry_at(snapshot.tree, path)  # same file, but what history attests of it moved
    before = {p: items.get(p) for p in changes} if items else None  # (None: read whole, compared as changed)
    for item_path, change in changes.items():
        items.pop(item_path, None)
        seqs.pop(item_path, None)
        status = state.status_of(item_path)
        kind = "claim" if item_path.startswith("claims/") else "knowledge"
        # the version history attests: a hand edit or a deletion of a reviewed text serves the reviewed one
        oid = state.serve(item_path, change)
        if oid is None or not item_path.endswith(".yaml") or status not in SERVABLE[kind]:
            continue
        # parsed already by this process (replaying history on a fresh clone), else read here: a file in vmem's
        # stable layout by its compiled expression (store/layout.py), any other in full
        item = parsed.get((kind, oid))
        if item is None:
            try:
                item = parse_blob(kind, item_path, oid, store.repo[oid].data)
            except SchemaError:
                continue  # vmem check reports it; sync serves the rest
        if f"{item['id']}.yaml" != item_path.rsplit("/", 1)[-1]:
            continue  # a file that holds another item's id is not that item
        items[item_path] = {**state.as_served(item_path, item), "status": status}  # as history attests it
        if status == "published":
            seqs[item_path] = state.published.get(item_path)
    about = _about(snapshot, state)
    data = {"commit": snapshot.commit_id, "policy": store.policy, "items": items, "token": state.token(),
            "seqs": seqs, "lexicon_since": state.lexicon_since, "store": about, "format": FORMAT}
    same = before is not None and all(items.get(p) == item for p, item in before.items()) and all(
        data[key] == cached.get(key) for key in ("policy", "seqs", "lexicon_since", "store"))
    data["served_at"] = cached.get("served_at", cached["commit"]) if same else snapshot.commit_id
    return data


def _about(snapshot, state) -> dict:
    """The store as a bundle describes it: its id, its entities, a broken lexicon."""
    entities = sorted(p[9:-5] for p, _ in snapshot.walk("entities") if p.endswith(".yaml"))
    problems = state.lexicon_problems()
    lexicon = f"{problems[0][0]}: {problems[0][1]}" if problems else None
    return {"id": state.store_root or state.root, "entities": entities, "lexicon": lexicon}
