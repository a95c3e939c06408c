"""Reading the store's history: its commits newest first, the commit a (short) id names."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Iterator

    import pygit2

    from vmem.store.repo import Snapshot, Store


def _walker(store: Store):
    """The repository handle that walks history: pygit2's (the plumbing reader asks it: Repository.walker)."""
    return store.repo.walker() if store.lite else store.repo


def commits(store: Store) -> Iterator[pygit2.Commit]:
    """Every commit reachable from HEAD, children before their parents and then newest first (topological and time
    order, as `git log --topo-order`); none while HEAD is unborn."""
    import pygit2

    repo = _walker(store)
    if repo.head_is_unborn:
        return
    yield from repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)


def count(store: Store) -> int:
    """How many commits HEAD's history holds."""
    repo = _walker(store)
    return 0 if repo.head_is_unborn else sum(1 for _ in repo.walk(repo.head.target))


def snapshot_named(store: Store, rev: str) -> Snapshot | None:
    """The tree at the commit REV names (a full or an unambiguous short id, or anything that peels to a commit);
    None when it names no commit of this store."""
    import pygit2

    from vmem.store.repo import Snapshot

    repo = _walker(store)
    try:
        commit = repo.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return Snapshot(repo, commit)


def message_of(store: Store, commit_id: str) -> str | None:
    """The message of the commit COMMIT_ID names (None: no such commit here)."""
    try:
        return _walker(store)[commit_id].message
    except (KeyError, ValueError):
        return None
