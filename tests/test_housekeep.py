"""vmem's commits get the housekeeping `git commit` gives its own: `git gc --auto` once loose objects pile up.

Before this, a store only vmem wrote to kept every object loose (56k after one expire and one consolidate of the
100k benchmark store), and the first `git commit` anyone made there started a background repack that ran for
tens of seconds under whatever came next.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pygit2
import pytest

from conftest import assert_clean, git
from vmem.store import housekeep


def loose_count(store) -> int:
    fields = dict(line.split(": ") for line in git(store, "count-objects", "-v").splitlines())
    return int(fields["count"])


def fill_with_reachable_objects(store, at_least_in_17: int) -> None:
    """Commit (on a side branch, so every object is reachable and packable) enough blobs that objects/17 holds
    AT_LEAST_IN_17 loose objects: what a store looks like after thousands of vmem writes."""
    repo = pygit2.Repository(str(store.root))
    folder = store.git_dir / "objects" / "17"
    builder = repo.TreeBuilder()
    n = 0
    while not folder.is_dir() or len(os.listdir(folder)) < at_least_in_17:
        builder.insert(f"filler-{n}.txt", repo.create_blob(f"filler {n}\n".encode()), pygit2.GIT_FILEMODE_BLOB)
        n += 1
    signature = pygit2.Signature("Filler", "filler@example.com")
    repo.create_commit("refs/heads/filler", signature, signature, "filler", builder.write(), [])


def wait_for_gc(store, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    time.sleep(0.05)
    while housekeep.running(store.git_dir) or (store.git_dir / "gc.log.lock").exists():
        assert time.monotonic() < deadline, "git gc did not finish"
        time.sleep(0.05)


@pytest.mark.parametrize(("setting", "limit"), [
    (None, 6_700), ("", 6_700), ("0", 0), ("-1", -1), ("250", 250), ("10k", 10_240), ("2M", 2 << 20),
    (" 7 ", 7), ("many", None), ("1.5k", None), ("0x10", 16), ("010", 8), ("1_000", None), ("+5", 5), ("0", 0),
    ("08", None), ("0x", None), ("-", None), ("1 000", None),
])
def test_gc_auto_is_read_as_git_reads_it(setting, limit):
    assert housekeep.gc_limit(setting) == limit


def test_the_estimate_counts_object_files_in_one_fanout_folder(tmp_path):
    folder = tmp_path / "objects" / "17"
    folder.mkdir(parents=True)
    for n in range(2):
        (folder / f"{n:038x}").write_bytes(b"")
    (folder / "tmp_obj_abcdef").write_bytes(b"")  # git's temporary files are not objects
    (folder / ("z" * 38)).write_bytes(b"")
    assert not housekeep.too_many_loose(tmp_path, 512)  # allowed 2: 2 is not more
    (folder / f"{2:038x}").write_bytes(b"")
    assert housekeep.too_many_loose(tmp_path, 512)
    assert not housekeep.too_many_loose(tmp_path, 0)  # gc.auto 0: never
    assert not housekeep.too_many_loose(tmp_path / "nowhere", 1)


def test_nothing_starts_below_the_limit_or_when_gc_auto_is_off(store):
    fill_with_reachable_objects(store, 3)
    assert not housekeep.after_commit(store.git_dir, None)  # a few objects: far below git's 6,700
    assert not housekeep.after_commit(store.git_dir, "0")
    assert not housekeep.after_commit(store.git_dir, "not a number")
    assert not (store.git_dir / "gc.pid").exists()


@pytest.mark.parametrize("lite", [True, False])
def test_a_vmem_write_over_the_limit_packs_the_store_in_the_background(store, lite):
    """gc.auto 256 means "more than one loose object in objects/17": filled past it, the next proposal (a
    separate process, as an analyst runs it) starts git's own gc, which packs everything; the proposal is
    committed and git status stays clean."""
    git(store, "config", "gc.auto", "256")
    fill_with_reachable_objects(store, 2)
    before = loose_count(store)
    assert before > 100
    env = {**os.environ, "VMEM_STORE": str(store.root)}
    if not lite:
        env["VMEM_NO_LITE"] = "1"
    done = subprocess.run([sys.executable, "-m", "vmem", "propose", "the orders feed lags by a day", "--json"],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    wait_for_gc(store)
    assert loose_count(store) < 10  # packed (a few objects may be written after gc took its list)
    assert "the orders feed lags by a day" in git(store, "log", "-1", "--format=%B")
    assert_clean(store)
    git(store, "fsck", "--no-progress")


def test_without_housekeeping_the_objects_stay_loose(store):
    """The same store with gc.auto 0: nothing packs it (this is what every vmem-only store did before)."""
    git(store, "config", "gc.auto", "0")
    fill_with_reachable_objects(store, 2)
    before = loose_count(store)
    env = {**os.environ, "VMEM_STORE": str(store.root)}
    done = subprocess.run([sys.executable, "-m", "vmem", "propose", "the orders feed lags by a day"],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    time.sleep(0.3)
    assert not housekeep.running(store.git_dir)
    assert loose_count(store) > before


def test_a_gc_auto_that_cannot_be_read_never_fails_a_committed_write(store):
    """A gc.auto value that is not UTF-8 made reading the setting raise after the commit had landed: the write
    was made, the command died with a traceback. It is read inside the guard now: committed, exit 0."""
    with open(store.git_dir / "config", "ab") as f:
        f.write(b"[gc]\n\tauto = \xff\n")
    env = {**os.environ, "VMEM_STORE": str(store.root), "VMEM_NO_LITE": "1"}
    done = subprocess.run([sys.executable, "-m", "vmem", "propose", "the orders feed lags by a day"],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "the orders feed lags by a day" in git(store, "log", "-1", "--format=%B")


def test_gc_and_the_flusher_never_get_the_callers_repository_variables(monkeypatch):
    """A `git gc` told GIT_OBJECT_DIRECTORY=elsewhere would repack and prune that object store by this store's refs."""
    from vmem.store import stage

    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                 "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE"):
        monkeypatch.setenv(name, "/elsewhere")
    monkeypatch.setenv("VMEM_KEEP_ME", "1")
    from vmem.store import gitenv

    env = stage._git_env()
    assert env == gitenv.scrubbed_env()  # one scrub for every git vmem starts (issue 29)
    assert not {k for k in env if k.startswith("GIT_") and env[k] == "/elsewhere"}
    assert env["VMEM_KEEP_ME"] == "1"


@pytest.mark.parametrize("lite", [True, False])
def test_a_ref_lock_held_for_a_moment_is_waited_for(store, lite):
    """gc's pack-refs and reflog expire lock the branch for a moment; a vmem write meanwhile waits (git's
    core.filesRefLockTimeout on lite, a retry on pygit2) instead of failing."""
    import threading

    from vmem.store.repo import Store

    opened = Store.open(store.root, lite=lite)
    branch = git(store, "symbolic-ref", "HEAD").strip()
    lock = store.git_dir / f"{branch}.lock"
    lock.write_text("")

    def release() -> None:
        time.sleep(0.4)
        lock.unlink()

    releaser = threading.Thread(target=release)
    releaser.start()
    try:
        with opened.transaction("propose", summary="while gc held the branch") as tx:
            tx.write_file("claims/00/c-00cccccccccc.yaml", {"note": "vmem's"})
    finally:
        releaser.join()
    assert "while gc held the branch" in git(store, "log", "-1", "--format=%B")
