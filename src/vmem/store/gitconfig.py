"""One git setting of a repository, read the same way whichever reader opened it (vmem.store.lite or pygit2)."""

from __future__ import annotations


def setting(repo, key: str) -> str | None:
    """KEY's value in REPO's git configuration (git's precedence and includes), None when unset or empty."""
    if getattr(repo, "lite", False) is True:
        return repo.config.get(key) or None
    import pygit2

    try:
        value = repo.config[key]
    except (KeyError, pygit2.GitError):
        return None
    return value or None
