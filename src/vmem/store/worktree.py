"""What the store's work tree holds that its HEAD commit does not (vmem reads only what is committed)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from vmem.store.repo import Store


def uncommitted(store: Store) -> list[str]:
    """Each path `git status --untracked-files=all` lists (new, changed, deleted, staged or not), in its order;
    the files git ignores left out."""
    import pygit2

    repo = store.repo.walker() if store.lite else store.repo  # git status is libgit2's here
    repo.index.read(False)  # only if it changed on disk (a flush just now)
    return [path for path, flags in repo.status(untracked_files="all").items()
            if not flags & pygit2.GIT_STATUS_IGNORED]
