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

_LINE = re.compile(rb"^canonical: ([^\n]*)\n(?! )", re.M)  # one top-level line, not continued on the next


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


def candidates(snapshot, root: Path, canonical: str) -> list[str]:
    """Paths of knowledge files that may hold CANONICAL at SNAPSHOT (HEAD): every file whose canonical line
    says so, and every file whose bytes were not plain enough to tell."""
    from vmem.store.cache import cache_file, read_cache, write_cache

    if snapshot.commit is None:
        return []
    path = cache_file(root).with_suffix(".canon")
    cached = read_cache(path)
    commit = snapshot.commit_id
    if cached is not None and cached.get("commit") == commit:
        canon = cached["canon"]
    else:
        canon = _forward(snapshot, cached) if cached is not None else None
        if canon is None:
            canon = {name: canonical_in(entry.data) for name, entry in snapshot.walk("knowledge")
                     if name.endswith(".yaml")}
        write_cache(path, {"commit": commit, "canon": canon})
    return sorted(name for name, text in canon.items() if text is None or text == canonical)


def _forward(snapshot, cached: dict) -> dict | None:
    """The cached map brought from its commit to SNAPSHOT's by a tree diff; None if that commit is gone."""
    from vmem.store.changes import changes_since

    changes = changes_since(snapshot.repo, cached.get("commit"), snapshot.commit, ("knowledge",))
    if changes is None:
        return None
    canon = dict(cached["canon"])
    for name, change in changes.items():
        canon.pop(name, None)
        if change.is_file and name.endswith(".yaml"):
            canon[name] = canonical_in(snapshot.repo[change.oid].data)
    return canon


# -- rejected claims ----------------------------------------------------------------------------------------------

# a line after the first that is not `key: value`, `key:`, an indented line, a `- ` list item or empty
_ODD_LINE = re.compile(rb"\n(?:[^a-z_ \n-]|-[^ \n]|[a-z_]+(?:[^a-z_:\n]|:[^ \n]|\n))")


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
        files = ((name, snapshot.repo[change.oid].data) for name, change in changes.items() if change.is_file)
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
