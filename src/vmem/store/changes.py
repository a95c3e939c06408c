"""What changed between two trees: the one helper behind every cache that catches up from git (the search index,
the canonical cache, sync's item cache and the attestation).

Git compares subtree ids, so the work is proportional to the change, not to the store.
"""

from __future__ import annotations

import re
from collections import namedtuple

from vmem.lazyre import lazy

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    import pygit2

FILE_MODES = (0o100644, 0o100755)  # pygit2.GIT_FILEMODE_BLOB, GIT_FILEMODE_BLOB_EXECUTABLE


class Change(namedtuple("Change", "oid mode", defaults=(0,))):
    """A file's state after the change: its blob id and mode, or None when it is gone (deleted)."""

    __slots__ = ()

    @property
    def is_file(self) -> bool:
        """A regular file; a symlink (or a submodule) at an item's path is never read as one."""
        return self.oid is not None and self.mode in FILE_MODES


_ENTRIES = {20: re.compile(rb"(\d+) ([^\0]*)\0(.{20})", re.S), 32: lazy(rb"(\d+) ([^\0]*)\0(.{32})", re.S)}
_TREE = b"40000"
_MODES = {b"100644": 0o100644, b"100755": 0o100755, b"120000": 0o120000, b"160000": 0o160000}


_WHOLE = {20: re.compile(rb"\d+ [^\0]*\0.{20}", re.S), 32: lazy(rb"\d+ [^\0]*\0.{32}", re.S)}


def _entries(tree: pygit2.Tree | None) -> dict[bytes, tuple[bytes, bytes]]:
    """name -> (mode, raw id) of a tree's entries, parsed from the raw object in one C-level findall (pygit2's
    entry objects cost ~1 us each plus an enum per file mode, which adds up on shards of thousands of files)."""
    if tree is None:
        return {}
    return {name: (mode, oid) for mode, name, oid in _ENTRIES[len(tree.id.raw)].findall(tree.read_raw())}


def _differing(before: pygit2.Tree | None, after: pygit2.Tree | None) -> tuple[dict, dict]:
    """_entries() of both trees, restricted to the entries that are not byte for byte in both: two versions of a
    shard of a 1M store share ~2,800 entries and differ in one, so only that one is parsed (sets of raw entries,
    compared in C)."""
    if before is None or after is None:
        return _entries(before), _entries(after)
    size = len(after.id.raw)
    was, now = set(_WHOLE[size].findall(before.read_raw())), set(_WHOLE[size].findall(after.read_raw()))
    pattern = _ENTRIES[size]
    return ({name: (mode, oid) for mode, name, oid in pattern.findall(b"".join(was - now))},
            {name: (mode, oid) for mode, name, oid in pattern.findall(b"".join(now - was))})


def tree_changes(old: pygit2.Tree | None, new: pygit2.Tree, tops: tuple[str, ...]) -> dict[str, Change]:
    """path -> Change for every file under TOPS (folders, or exact file names) that differs from OLD to NEW.
    OLD None: every file in NEW.

    A walk of both trees that never opens a subtree whose id did not change: after one commit it reads the few
    trees on the changed paths. (libgit2's tree diff reads far more: ~30 ms per fresh repository on a 20k store,
    against ~1 ms here, and a write such as propose pays it on every call.)
    """
    if _REMEMBERED is not None:
        asked = (old.id if old is not None else None, new.id, tops)
        if asked in _REMEMBERED:
            return dict(_REMEMBERED[asked])
    exact, under = frozenset(tops), tuple(top + "/" for top in tops)

    def wanted(path: str) -> bool:
        return path in exact or path.startswith(under)

    def on_the_way(path: str) -> bool:
        return any(top.startswith(path + "/") for top in tops) or wanted(path)

    changed: dict[str, Change] = {}
    stack: list[tuple[str, pygit2.Tree | None, pygit2.Tree | None]] = [("", old, new)]
    while stack:
        prefix, before, after = stack.pop()
        if before is None and prefix.startswith(under):  # a new folder inside TOPS: every file in it, as it is
            for mode, name, oid in _ENTRIES[len(after.id.raw)].findall(after.read_raw()):
                key = name.decode("utf-8", "surrogateescape")
                if mode == _TREE:
                    stack.append((prefix + key + "/", None, after[key]))
                else:
                    changed[prefix + key] = Change(oid.hex(), _MODES.get(mode) or int(mode, 8))
            continue
        was, now = _differing(before, after)
        for name in was.keys() | now.keys():
            a, b = was.get(name), now.get(name)
            if a == b:
                continue
            path = prefix + name.decode("utf-8", "surrogateescape")
            a_tree = a is not None and a[0] == _TREE
            b_tree = b is not None and b[0] == _TREE
            if (a_tree or b_tree) and on_the_way(path):
                key = name.decode("utf-8", "surrogateescape")
                stack.append((path + "/", before[key] if a_tree else None, after[key] if b_tree else None))
            if wanted(path):
                if b is not None and not b_tree:
                    changed[path] = Change(b[1].hex(), int(b[0], 8))
                elif a is not None and not a_tree:
                    changed[path] = Change(None)
    if _REMEMBERED is not None:
        _REMEMBERED[asked] = dict(changed)
    return changed


_REMEMBERED: dict | None = None  # (old tree, new tree, tops) -> changes, while remembering() is on


class remembering:
    """`with remembering():` tree_changes keeps its answers meanwhile (a replay that looks ahead at what each
    commit changed, then steps through the same commits, diffs each pair of trees once)."""

    def __enter__(self) -> None:
        global _REMEMBERED
        _REMEMBERED = {}

    def __exit__(self, *exc) -> None:
        global _REMEMBERED
        _REMEMBERED = None


def changed_files(commits: list[pygit2.Commit], tops: tuple[str, ...]) -> list[tuple[str, Change]]:
    """(path, Change) for each file under TOPS that each of COMMITS changed from its first parent, in order."""
    return [pair for commit in commits for pair in tree_changes(commit.parents[0].tree if commit.parent_ids else None,
                                                                commit.tree, tops).items()]


def entry_at(tree: pygit2.Tree, path: str) -> Change:
    """PATH's state in TREE, as a Change (for a path whose attestation moved while its file did not)."""
    try:
        found = tree[path]
    except KeyError:
        return Change(None)
    return Change(str(found.id), found.filemode)


def changes_since(repo: pygit2.Repository, since: str | None, head: pygit2.Commit,
                  tops: tuple[str, ...]) -> dict[str, Change] | None:
    """What changed under TOPS from commit SINCE to HEAD; None when SINCE is unknown here (rebuild from HEAD)."""
    if not since:
        return None
    if getattr(repo, "lite", False) is True:
        old = repo.commit_or_none(since)
        return None if old is None else tree_changes(old.tree, head.tree, tops)
    import pygit2

    try:
        old = repo[since].peel(pygit2.Commit)
    except (KeyError, ValueError, TypeError, pygit2.GitError):
        return None
    return tree_changes(old.tree, head.tree, tops)
