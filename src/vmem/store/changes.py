"""What changed between two trees: the one helper behind every cache that catches up from git (the search index,
the canonical cache, sync's item cache and the attestation).

Git compares subtree ids, so the work is proportional to the change, not to the store.
"""

from __future__ import annotations

from typing import NamedTuple

import pygit2

FILE_MODES = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)


class Change(NamedTuple):
    """A file's state after the change: its blob id and mode, or None when it is gone (deleted)."""

    oid: str | None
    mode: int = 0

    @property
    def is_file(self) -> bool:
        """A regular file; a symlink (or a submodule) at an item's path is never read as one."""
        return self.oid is not None and self.mode in FILE_MODES


def tree_changes(old: pygit2.Tree | None, new: pygit2.Tree, tops: tuple[str, ...]) -> dict[str, Change]:
    """path -> Change for every file under TOPS (folders, or exact file names) that differs from OLD to NEW.
    OLD None: every file in NEW."""
    def wanted(path: str) -> bool:
        return any(path == top or path.startswith(top + "/") for top in tops)

    changed: dict[str, Change] = {}
    if old is None:
        stack = [("", new)]
        while stack:
            prefix, tree = stack.pop()
            for entry in tree:
                path = prefix + entry.name
                if entry.type_str == "tree":
                    if any(top == path or top.startswith(path + "/") or path.startswith(top + "/") for top in tops):
                        stack.append((path + "/", entry))
                elif wanted(path):
                    changed[path] = Change(str(entry.id), entry.filemode)
        return changed
    for delta in old.diff_to_tree(new).deltas:  # deltas only: no patch text is computed
        status = delta.status_char()
        if status != "A" and wanted(delta.old_file.path):
            changed[delta.old_file.path] = Change(None)
        if status != "D" and wanted(delta.new_file.path):
            changed[delta.new_file.path] = Change(str(delta.new_file.id), delta.new_file.mode)
    return changed


def changes_since(repo: pygit2.Repository, since: str | None, head: pygit2.Commit,
                  tops: tuple[str, ...]) -> dict[str, Change] | None:
    """What changed under TOPS from commit SINCE to HEAD; None when SINCE is unknown here (rebuild from HEAD)."""
    if not since:
        return None
    try:
        old = repo[since].peel(pygit2.Commit)
    except (KeyError, ValueError, TypeError, pygit2.GitError):
        return None
    return tree_changes(old.tree, head.tree, tops)
