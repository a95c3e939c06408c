"""Which knowledge files may hold a canonical statement, from a per-commit cache, so that a learning is matched
without reading every knowledge file (30k of them in a 100k store).

The cache maps each knowledge file to the canonical statement read from its bytes, or None when the bytes are
not plainly vmem's own layout (then the file is always a candidate and gets parsed). It is kept per commit in
the user cache directory and brought forward by a tree diff, so after the first learning only changed files are
read. Losing or corrupting it costs one full read, never a wrong answer.

Rejected claims get the same treatment in a sibling cache: each rejected claim file maps to its canonical
statement and scope, so a fact proposed again is recognised without parsing every claim (70k in a 100k store).
"""

from __future__ import annotations

import re
from pathlib import Path

from vmem.lazyre import lazy

_LINE = lazy(rb"^canonical: ([^\n]*)\n(?! )", re.M)  # one top-level line, not continued on the next


def canonical_in(data: bytes) -> str | None:
    """The canonical statement as vmem writes it (one plain or single-quoted line); None when unsure."""
    if not data.startswith(b"id: ") or b"\\" in data:
        return None
    found = _LINE.findall(data)
    if len(found) != 1:
        return None
    try:
        raw = found[0].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("''", "'")
    if not raw or raw != raw.strip() or " #" in raw or raw[0] in "'\"|>&*!%@`[]{},?:-#":
        return None
    return raw


SHARD_DIGITS = 2  # 256 shards: a lookup reads and a write rewrites 1/256 of the map


def _shard(canonical: str | None) -> str:
    from vmem import digest

    if canonical is None:
        return "unsure"
    return digest.blake2b(canonical.encode("utf-8"), digest_size=4).hexdigest()[:SHARD_DIGITS]


def candidates(snapshot, root: Path, canonical: str) -> list[str]:
    """Paths of knowledge files that may hold CANONICAL at SNAPSHOT (HEAD): every file whose canonical line
    says so, and every file whose bytes were not plain enough to tell.

    The map is kept in 256 shards keyed by a hash of the canonical statement, plus one shard of files it could
    not read: a lookup reads one shard and a new commit rewrites only the shards its files fall in, so a learning
    costs the same on a store of 10k or 1M items. A shard holds a superset of the truth (a path stays under the
    canonical it used to have until the next full rebuild): every candidate is parsed and compared, so an extra
    path costs a parse, never a wrong answer, and a killed update leaves extra paths at worst."""
    from vmem.store.cache import cache_file, read_cache, write_cache

    if snapshot.commit is None:
        return []
    folder = cache_file(root).with_suffix(".canon.d")
    head = read_cache(folder / "head")
    commit = snapshot.commit_id
    if head is None or head.get("commit") != commit:
        changes = _changes(snapshot, head)
        if changes is None:
            _rebuild(snapshot, folder)
            (folder.parent / (folder.stem + ".canon")).unlink(missing_ok=True)  # the old one-file map
        else:
            _apply(folder, changes)
        write_cache(folder / "head", {"commit": commit})
    shard, unsure = read_cache(folder / _shard(canonical)), read_cache(folder / "unsure")
    if shard is None or unsure is None:  # every rebuild writes all shards: a missing or damaged one means rebuild
        _rebuild(snapshot, folder)
        write_cache(folder / "head", {"commit": commit})
        shard, unsure = read_cache(folder / _shard(canonical)) or {}, read_cache(folder / "unsure") or {}
    found = set(shard.get("map", {}).get(canonical, ())) | set(unsure.get("map", {}).get(None, ()))
    return sorted(found)


def _changes(snapshot, head: dict | None) -> dict[str, str | None] | None:
    """path -> canonical (None: unsure) of every knowledge file changed since HEAD's commit; None to rebuild."""
    from vmem.store import blobs
    from vmem.store.changes import changes_since

    if head is None:
        return None
    changes = changes_since(snapshot.repo, head.get("commit"), snapshot.commit, ("knowledge",))
    if changes is None:
        return None
    return {name: canonical_in(blobs.read(snapshot, change.oid)) for name, change in changes.items()
            if change.is_file and name.endswith(".yaml")}


def _rebuild(snapshot, folder: Path) -> None:
    """Every shard from the whole knowledge tree (the first learning on a store, or after a history rewrite)."""
    from vmem.store.cache import write_cache

    shards: dict[str, dict] = {f"{n:02x}": {} for n in range(256)}
    shards["unsure"] = {}
    for name, entry in snapshot.walk("knowledge"):
        if name.endswith(".yaml"):
            text = canonical_in(entry.data)
            shards[_shard(text)].setdefault(text, []).append(name)
    for key, mapping in shards.items():
        write_cache(folder / key, {"map": mapping})


def _apply(folder: Path, changes: dict[str, str | None]) -> None:
    from vmem.store.cache import read_cache, write_cache

    by_shard: dict[str, dict[str | None, list[str]]] = {}
    for name, text in changes.items():
        by_shard.setdefault(_shard(text), {}).setdefault(text, []).append(name)
    for key, added in by_shard.items():
        mapping = (read_cache(folder / key) or {}).get("map", {})
        for text, names in added.items():
            mapping[text] = sorted(set(mapping.get(text, ())) | set(names))
        write_cache(folder / key, {"map": mapping})


# -- rejected claims ----------------------------------------------------------------------------------------------

# a line after the first that is not `key: value`, `key:`, an indented line, a `- ` list item or empty
_ODD_LINE = lazy(rb"\n(?:[^a-z_ \n-]|-[^ \n]|[a-z_]+(?:[^a-z_:\n]|:[^ \n]|\n))")


def plainly_not_rejected(data: bytes) -> bool:
    """True when a claim file's bytes are vmem's block layout (each top-level line a `key: value` or a list item)
    with one plain `status:` line that is not rejected. A status hidden any other way makes an odd line or a
    second `status:` line, so False means only "parse it to know". (~10 us a file; parsing costs ~1 ms.)"""
    if not data.startswith(b"id: ") or data.count(b"\nstatus:") != 1 or _ODD_LINE.search(data):
        return False
    start = data.find(b"\nstatus: ") + 9
    end = data.find(b"\n", start)
    if start < 9 or end < 0 or data[end + 1:end + 2] == b" ":
        return False
    value = data[start:end]
    return value.isalpha() and value.islower() and value != b"rejected"


def rejected_claims(snapshot, root: Path) -> dict[str, list[str]]:
    """path -> [canonical statement, scope] of every rejected claim at SNAPSHOT (HEAD), from a per-commit cache
    brought forward by a tree diff; files the bytes cannot vouch for are parsed once per blob."""
    from vmem.store import blobs
    from vmem.store.cache import cache_file, read_cache, write_cache
    from vmem.store.changes import changes_since

    if snapshot.commit is None:
        return {}
    path = cache_file(root).with_suffix(".rejected")
    cached = read_cache(path)
    commit = snapshot.commit_id
    if cached is not None and cached.get("commit") == commit and isinstance(cached.get("rejected"), dict):
        return cached["rejected"]
    changes = changes_since(snapshot.repo, cached.get("commit"), snapshot.commit, ("claims",)) if cached else None
    if changes is None or not isinstance(cached.get("rejected"), dict):
        rejected: dict[str, list[str]] = {}
        files = ((name, entry.data) for name, entry in snapshot.walk("claims"))
    else:
        rejected = {name: value for name, value in cached["rejected"].items() if name not in changes}
        files = ((name, blobs.read(snapshot, change.oid)) for name, change in changes.items() if change.is_file)
    for name, data in files:
        if name.endswith(".yaml") and not plainly_not_rejected(data):
            found = _rejected(snapshot, name)
            if found is not None:
                rejected[name] = found
    write_cache(path, {"commit": commit, "rejected": rejected})
    return rejected


def _rejected(snapshot, path: str) -> list[str] | None:
    from vmem.errors import SchemaError
    from vmem.text import canonicalize

    try:
        item = snapshot.load_file("claim", path)
    except SchemaError:
        return None  # a broken file matches nothing; vmem check reports it
    if item is None or item["status"] != "rejected":
        return None
    return [canonicalize(item["statement"]), item["scope"]]
