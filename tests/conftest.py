"""Shared fixtures: real stores built from store_template with real commits, an isolated environment."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable

import pygit2
import pytest
from typer.testing import CliRunner

from vmem.cli.app import app, for_argv
from vmem.ops.demo import seed_store
from vmem.ops.init import init_store
from vmem.store.repo import Store

ALICE = ("Alice Analyst", "alice@example.com")
REVIEWER = ("Rita Reviewer", "rita@example.com")


# vmem's caches derived from installed files alone (the WordNet table, the tokenizer's vocabulary, the English word
# frequencies, the typer-free path's option tables): a machine makes each once, so a test run does too. Each test's
# cache directory links them from one directory per worker; everything derived from a store stays the test's own.
MACHINE_CACHES = ("wordnet", "wordpiece", "words", "cli")


def pytest_sessionstart(session):
    """vmem's modules compiled once, before any test starts a `vmem` process: with PYTHONDONTWRITEBYTECODE set (as
    on CI's machines) and an editable install, every such process would otherwise compile each module it imports
    from source (~100 ms more per typer command), since nothing writes the compiled files. compileall writes them
    where the interpreter looks (__pycache__, or PYTHONPYCACHEPREFIX); pytest-xdist's workers skip it."""
    if hasattr(session.config, "workerinput"):
        return
    import compileall

    import vmem

    compileall.compile_dir(str(Path(vmem.__file__).parent), quiet=2, workers=0)


def pytest_collection_modifyitems(items):
    """Tests marked slow (several seconds each) run first. pytest-xdist's worksteal gives each worker a contiguous
    part of this order and lets an idle worker take from the end of another's: a long test started last kept one
    worker busy for up to a minute after the other had run out. A slow test that shares a module-scoped fixture
    moves with its whole module, so the fixture is still made once."""
    def shares(item) -> bool:
        return any(defs[-1].scope == "module" for defs in item._fixtureinfo.name2fixturedefs.values())

    slow = [item for item in items if item.get_closest_marker("slow")]
    modules = {item.module for item in slow if shares(item)}
    alone = {id(item) for item in slow if item.module not in modules}
    items.sort(key=lambda item: 0 if id(item) in alone else 1 if item.module in modules else 2)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch, tmp_path_factory):
    with isolation(tmp_path, monkeypatch, tmp_path_factory):
        yield


@contextlib.contextmanager
def isolation(tmp_path: Path, monkeypatch, tmp_path_factory):
    """A home, caches and git configuration of TMP_PATH's own, and no vmem or git variable of the caller's."""
    cache = tmp_path / "cache" / "vmem"
    cache.mkdir(parents=True)
    for name in MACHINE_CACHES:
        shared = tmp_path_factory.getbasetemp() / "machine-cache" / name
        shared.mkdir(parents=True, exist_ok=True)
        (cache / name).symlink_to(shared, target_is_directory=True)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[user]\n\tname = {ALICE[0]}\n\temail = {ALICE[1]}\n")
    monkeypatch.setenv("HOME", str(home))
    # libgit2 reads the global config path once, when pygit2 is imported: point it at this test's home too
    level = pygit2.enums.ConfigLevel.GLOBAL
    previous = pygit2.settings.search_path[level]
    pygit2.settings.search_path[level] = str(home)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("VMEM_WIDTH", "200")
    monkeypatch.setenv("VMEM_LOCK_TIMEOUT", "5")
    for name in ("VMEM_STORE", "VMEM_DEBUG", "VMEM_TEST_KILL_AT", "GIT_DIR", "GIT_WORK_TREE", "XDG_DATA_HOME",
                 "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    try:
        yield
    finally:
        pygit2.settings.search_path[level] = previous


def _identify(path: Path, who: tuple[str, str]) -> None:
    pygit2.init_repository(str(path), initial_head="main")
    config = pygit2.Repository(str(path)).config
    config["user.name"], config["user.email"] = who


@pytest.fixture
def store(tmp_path, monkeypatch) -> Store:
    """An empty store with a local git identity, selected through VMEM_STORE."""
    path = tmp_path / "store"
    _identify(path, ALICE)
    monkeypatch.setenv("VMEM_STORE", str(path))
    return init_store(path)


_SEEDED: list[Path] = []  # this worker's first seeded store, as seed_store left it


@pytest.fixture
def seeded(tmp_path, monkeypatch, tmp_path_factory) -> Store:
    """A store holding the example customers and episodes, with one reviewer listed. seed_store runs once per
    worker; every other test gets a copy of what it made (a store's repository holds no path of its own, so a copy
    is that store as a fresh clone would have it: same commits, no vmem caches yet)."""
    path = tmp_path / "seeded"
    monkeypatch.setenv("VMEM_STORE", str(path))
    if _SEEDED:
        shutil.copytree(_SEEDED[0], path, symlinks=True)
        return Store.open(path)
    path.mkdir()
    # a store from before vmem init named a reviewer in its first commit: its root lets anyone review, which the
    # attacks through forks of that root need (tests/test_trust_clones.py); a fresh init is anchored
    store = seed_store(path, ALICE, [REVIEWER[1]], anchored=False)
    pristine = tmp_path_factory.mktemp("pristine") / "seeded"
    shutil.copytree(path, pristine, symlinks=True)
    _SEEDED.append(pristine)
    return store


_DEMO: list[Path] = []


def demo_store(dest: Path, tmp_path_factory) -> Path:
    """A copy at DEST of the store `vmem demo` makes (the examples' team, claims, learnings and reviews; ~8 s to
    make). The demo runs once per worker, the first time a test asks; a store's repository holds no path of its
    own, so a copy is that store as a fresh clone would have it. Tests of the demo command itself run it. The
    demo is made in an environment of its own, as a test would make it: a module's fixture may ask first, before
    its first test's isolation."""
    if not _DEMO:
        from vmem.ops.demo import run_demo

        base = tmp_path_factory.mktemp("demo-pristine")
        with pytest.MonkeyPatch.context() as monkeypatch, isolation(base, monkeypatch, tmp_path_factory):
            run_demo(base / "demo", lambda *args: None)
        _DEMO.append(base / "demo" / "store")
    shutil.copytree(_DEMO[0], dest, symlinks=True)
    return dest


class Made:
    """State some tests share (stores, a remote and its clones), made once by the first test that asks -- in its
    isolated environment -- at fixed paths under BASE, and restored there for each test, which may change it. The
    making gets a cache directory of its own, copied into each test's: vmem keeps caches per store path, so a test
    starts as warm as the making left it, as if it had made the state itself."""

    def __init__(self, base: Path) -> None:
        self.base, self.value, self.made = base, None, False

    def restore(self, make: Callable[[], Any], monkeypatch, *paths: Path) -> Any:
        """PATHS (under BASE) as MAKE left them, and MAKE's value; the first call runs MAKE."""
        pristine, cache = self.base / ".pristine", self.base / ".cache"
        for path in paths:
            shutil.rmtree(path, ignore_errors=True)
        if not self.made:
            shutil.rmtree(pristine, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
            cache.mkdir(parents=True)
            with monkeypatch.context() as making:
                making.setenv("XDG_CACHE_HOME", str(cache))
                self.value = make()
            for path in paths:
                shutil.copytree(path, pristine / path.relative_to(self.base), symlinks=True)
            self.made = True
        else:
            for path in paths:
                shutil.copytree(pristine / path.relative_to(self.base), path, symlinks=True)
        shutil.copytree(cache, os.environ["XDG_CACHE_HOME"], symlinks=True, dirs_exist_ok=True)
        return self.value


def git(store: Store, *args: str) -> str:
    return subprocess.run(["git", "-C", str(store.root), *args], check=True, capture_output=True,
                          text=True).stdout


def commit_count(store: Store) -> int:
    return int(git(store, "rev-list", "--count", "HEAD"))


def commit_file(store: Store, path: str, data: bytes) -> None:
    """Commit a file by hand, with git itself (hand edits, broken or hostile files)."""
    full = store.root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_bytes(data)
    git(store, "add", path)
    git(store, "commit", "-q", "-m", "hand-committed file")


def app_commands() -> list[list[str]]:
    """Every command the app has, groups and their subcommands (e.g. ["entity", "add"]), read from the typer app
    itself: a test that walks them cannot miss a command added later."""
    import typer.main

    def walk(command, path: list[str]):
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            if not getattr(sub, "hidden", False):
                yield [*path, name]
                yield from walk(sub, [*path, name])

    return list(walk(typer.main.get_command(app), []))


def assert_clean(store: Store) -> None:
    assert git(store, "status", "--porcelain", "--untracked-files=all") == ""


class Vmem:
    """Run the CLI in-process and check what every command promises: exit code, clean work tree."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0, input: str | None = None, env: dict | None = None,
                 store: Store | None = None, who: str | None = None):
        """WHO ('Name <email>'): run as that person, as git would see them in their own clone (committer and
        author, through git's environment variables)."""
        if who is not None:
            name, email = who[:-1].split(" <")
            env = {**(env or {}), "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
                   "GIT_COMMITTER_EMAIL": email}
        # the app as the console script builds it for these words (for_argv: the one command they name)
        result = self.runner.invoke(for_argv(list(args)), list(args), input=input, env=env, catch_exceptions=False)
        assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
        if store is not None:
            assert_clean(store)
        return result

    def json(self, *args: str, code: int = 0, store: Store | None = None, who: str | None = None):
        result = self(*args, "--json", code=code, store=store, who=who)
        payload = json.loads(result.stdout)
        assert payload["schema_version"] == 1
        return payload


@pytest.fixture
def vmem() -> Vmem:
    return Vmem()


@pytest.fixture
def gnupg(tmp_path, monkeypatch):
    """A keyring of its own; its agent is ended afterwards."""
    if shutil.which("gpg") is None:
        pytest.skip("gpg is not installed (CI installs gnupg)")
    home = gnupg_home("gnupg")
    monkeypatch.setenv("GNUPGHOME", str(home))

    def make(uid: str) -> str:
        subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never"],
                       check=True, capture_output=True)
        listing = subprocess.run(["gpg", "--batch", "--with-colons", "--list-secret-keys", uid], check=True,
                                 capture_output=True, text=True).stdout
        return next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:"))
    gpgconf = shutil.which("gpgconf")
    yield make
    if gpgconf:
        subprocess.run([gpgconf, "--kill", "all"], capture_output=True, env={"GNUPGHOME": str(home)})
    shutil.rmtree(home, ignore_errors=True)


def gnupg_home(name: str) -> Path:
    """A keyring directory (mode 0700) with a short path: gpg's agent socket lives in it, and a socket path longer
    than ~107 bytes cannot be connected to (pytest-xdist's per-worker tmp paths are that long)."""
    return Path(tempfile.mkdtemp(prefix=f"vmem-{name}-"))
