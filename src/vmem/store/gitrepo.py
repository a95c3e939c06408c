"""Making the git repository a store lives in: `git init`, the first commit, the origin, a clone."""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    import pygit2


def init(path: Path, branch: str = "main") -> pygit2.Repository:
    """`git init PATH` with HEAD on BRANCH (on a repository already there, git's harmless re-initialisation)."""
    import pygit2

    return pygit2.init_repository(str(path), initial_head=branch)


def open_for_new_store(root: Path, branch: str = "main") -> pygit2.Repository:
    """The repository at ROOT for a store about to be created there: the one that is there when it has no commits
    yet (its own identity and settings kept), else a new one with HEAD on BRANCH. StoreExists for one with history:
    a store starts its own history."""
    import pygit2

    from vmem.errors import StoreExists

    try:
        repo = pygit2.Repository(str(root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        if not repo.head_is_unborn:
            raise StoreExists(f"{root} is a git repository with history", "create the store in a new directory")
    except pygit2.GitError:
        repo = init(root, branch)
    return repo


def set_identity(path: Path, name: str, email: str) -> None:
    """user.name and user.email in the config of the repository at PATH (not the user's global one)."""
    import pygit2

    config = pygit2.Repository(str(path)).config
    config["user.name"], config["user.email"] = name, email


def unset_identity(path: Path) -> None:
    """Remove user.name and user.email from the config of the repository at PATH: git falls back to the user's."""
    import pygit2

    config = pygit2.Repository(str(path)).config
    for key in ("user.name", "user.email"):
        try:
            del config[key]
        except KeyError:
            pass


def commit_everything(repo: pygit2.Repository, identity: pygit2.Signature, message: str) -> str:
    """Stage every file of the work tree (git's ignore rules apply) and commit it on HEAD as IDENTITY, author and
    committer alike; the new commit's id."""
    index = repo.index
    index.add_all()
    index.write()
    return str(repo.create_commit("HEAD", identity, identity, message, index.write_tree(), []))


def add_remote(repo: pygit2.Repository, name: str, url: str) -> None:
    """A remote NAME at URL (push with: git push -u NAME main)."""
    repo.remotes.create(name, url)


def clone(url: str, target: Path) -> pygit2.Repository:
    """`git clone URL TARGET` (libgit2's); VmemError when it cannot be cloned."""
    import pygit2

    from vmem.errors import VmemError

    try:
        return pygit2.clone_repository(url, str(target))
    except (pygit2.GitError, ValueError) as exc:
        raise VmemError(f"cannot clone {url}: {exc}", "check the URL and your access to it") from None
