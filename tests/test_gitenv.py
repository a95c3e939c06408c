"""Every git process vmem starts gets one scrubbed environment (vmem.store.gitenv): a caller's variables that
point git at another index, object store or repository never redirect vmem's own git calls."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import assert_clean, git

HOSTILE = ("GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")


def test_the_scrub_drops_every_variable_that_points_git_elsewhere_and_keeps_the_rest(monkeypatch):
    from vmem.store import gitenv

    for name in gitenv.REDIRECTS:
        monkeypatch.setenv(name, "/elsewhere")
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_COUNT", "GIT_CEILING_DIRECTORIES",
                 "GIT_AUTHOR_NAME", "VMEM_KEEP_ME"):
        monkeypatch.setenv(name, "kept")
    env = gitenv.scrubbed_env({"GIT_TERMINAL_PROMPT": "0"})
    assert not gitenv.REDIRECTS & set(env)
    assert {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE"} <= gitenv.REDIRECTS
    assert env["GIT_CONFIG_COUNT"] == env["GIT_CEILING_DIRECTORIES"] == env["VMEM_KEEP_ME"] == "kept"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert "GIT_TERMINAL_PROMPT" not in gitenv.scrubbed_env()


def test_git_s_own_list_of_repository_variables_is_dropped_except_the_users_settings():
    """REDIRECTS follows `git rev-parse --local-env-vars`; the three it leaves are named in gitenv's docstring."""
    from vmem.store import gitenv

    listed = set(subprocess.run(["git", "rev-parse", "--local-env-vars"], capture_output=True, text=True,
                                check=True).stdout.split())
    assert listed - gitenv.REDIRECTS <= {"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_NO_REPLACE_OBJECTS"}


def test_every_git_environment_in_store_is_the_scrubbed_one(monkeypatch):
    from vmem.store import lite, remote, stage

    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE", "GIT_CONFIG"):
        monkeypatch.setenv(name, "/elsewhere")
    for env in (lite.git_env(), remote._git_env(), stage._git_env()):
        assert not {k for k, v in env.items() if v == "/elsewhere"}
    assert lite.git_env()["GIT_NO_REPLACE_OBJECTS"] == "1"
    assert remote._git_env()["GIT_TERMINAL_PROMPT"] == "0"


def test_the_flusher_run_as_a_script_loads_the_same_scrub():
    """stage.py runs as `python -I -S stage.py` (no vmem on sys.path): it loads gitenv.py beside it."""
    from vmem.store import stage

    code = ("import runpy, sys; sys.argv = ['stage.py']; "
            f"ns = runpy.run_path({stage.__file__!r}, run_name='not_main'); "
            "import os; os.environ['GIT_INDEX_FILE'] = '/elsewhere'; print('GIT_INDEX_FILE' in ns['_git_env']())")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def _decoys(tmp_path: Path) -> tuple[dict, Path, Path]:
    objects, index = tmp_path / "decoy-objects", tmp_path / "decoy-index"
    objects.mkdir()
    return {"GIT_OBJECT_DIRECTORY": str(objects), "GIT_INDEX_FILE": str(index)}, objects, index


def _untouched(objects: Path, index: Path) -> None:
    assert not index.exists()
    assert [p for p in objects.rglob("*")] == []


def _run(store, env: dict, *args: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "VMEM_STORE": str(store.root), **env}
    done = subprocess.run([sys.executable, "-m", "vmem", *args], env=full, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    return done


def _settled(store) -> None:
    from vmem.store import stage

    deadline = time.monotonic() + 30
    while not stage.settled(store.git_dir):
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.mark.parametrize("engine", ["lite", "pygit2", "deferred index"])
def test_a_hostile_index_or_object_directory_does_not_redirect_a_proposal(store, tmp_path, engine):
    # Regression (issue 29): `git update-index --add` after a commit was given GIT_OBJECT_DIRECTORY, so the blobs
    # it hashed went to the decoy object store (only GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE were dropped).
    hostile, objects, index = _decoys(tmp_path)
    env = {**hostile, "VMEM_NO_LITE": "1"} if engine == "pygit2" else hostile
    if engine == "deferred index":
        git(store, "config", "vmem.indexUpdate", "deferred")
    _run(store, env, "propose", "the orders feed lags by a day")
    _settled(store)
    assert "the orders feed lags by a day" in git(store, "log", "-1", "--format=%B")
    git(store, "fsck", "--no-dangling")
    assert_clean(store)
    _untouched(objects, index)


def test_a_hostile_index_or_object_directory_does_not_redirect_a_pull(store, tmp_path):
    # Regression (issue 29): `vmem sync --pull` dropped only GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE, so a
    # GIT_OBJECT_DIRECTORY sent the fetched objects elsewhere.
    origin, other = tmp_path / "origin.git", tmp_path / "other"
    subprocess.run(["git", "clone", "-q", "--bare", str(store.root), str(origin)], check=True)
    git(store, "remote", "add", "origin", str(origin))
    git(store, "fetch", "-q", "origin")
    git(store, "branch", "-q", "--set-upstream-to=origin/main")
    subprocess.run(["git", "clone", "-q", str(origin), str(other)], check=True)
    (other / "README.md").write_text("the team's store\n")
    for args in (["add", "README.md"], ["commit", "-qm", "a readme"], ["push", "-q", "origin", "main"]):
        subprocess.run(["git", "-C", str(other), *args], check=True)
    pushed = subprocess.run(["git", "-C", str(other), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()

    hostile, objects, index = _decoys(tmp_path)
    _run(store, hostile, "sync", "--pull", "--dir", str(tmp_path / "project"))
    assert git(store, "rev-parse", "HEAD").strip() == pushed
    git(store, "fsck", "--no-dangling")
    assert_clean(store)
    _untouched(objects, index)
