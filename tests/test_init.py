"""vmem init: a new store, or nothing at all when it refuses."""

from __future__ import annotations

import pygit2
import pytest


def _tree(path):
    """Every file and folder under PATH with its bytes, to compare before and after."""
    return {str(p.relative_to(path)): p.read_bytes() if p.is_file() else None for p in sorted(path.rglob("*"))}


@pytest.fixture
def nobody(tmp_path, monkeypatch):
    """No git identity anywhere: a HOME without .gitconfig, no GIT_* or EMAIL in the environment."""
    home = tmp_path / "nobody"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    pygit2.settings.search_path[pygit2.enums.ConfigLevel.GLOBAL] = str(home)  # the autouse fixture restores it
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_init_without_an_identity_leaves_nothing_behind(tmp_path, nobody, vmem):
    # regression: a refused `vmem init PATH` left an empty .git (or PATH itself), so the next try said "not empty"
    # or found "a git repository"
    target = tmp_path / "new" / "store"
    refused = vmem("init", str(target), code=1)
    assert "no git identity" in refused.stderr
    assert not (tmp_path / "new").exists()  # the parent it made is gone too

    empty = tmp_path / "empty"
    empty.mkdir()
    vmem("init", str(empty), code=1)
    assert list(empty.iterdir()) == []  # a directory that existed stays as it was

    prepared = tmp_path / "prepared"  # git init'ed by hand, identity not set yet
    pygit2.init_repository(str(prepared), initial_head="main")
    before = _tree(prepared)
    vmem("init", str(prepared), code=1)
    assert _tree(prepared) == before

    identity = {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.com",
                "GIT_COMMITTER_NAME": "Ann", "GIT_COMMITTER_EMAIL": "ann@example.com"}
    for path in (target, empty, prepared):
        vmem("init", str(path), env=identity)
        assert (path / "vmem.yaml").is_file() and not pygit2.Repository(str(path)).head_is_unborn
