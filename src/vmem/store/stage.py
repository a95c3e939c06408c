"""Keeping git's index in step with vmem's commits without rewriting it on every write.

vmem builds each commit from the changed subtrees only (O(depth)); what grew with the store was keeping git's
index in line afterwards, so that `git status` stays clean: git reads, checks and rewrites the whole index (80 ms
at 100k entries, ~0.8 s at 1M) for one new file. By default every write updates the index before it returns (a
big index is split, so git rewrites only its small part: 20-30 ms at 100k); with `git config vmem.indexUpdate
deferred` (the user's choice: see `wanted`) a write instead appends "blob<TAB>path" to a journal in .git, under the
store lock, and starts a detached flusher; the flusher takes every journaled entry at once and stages it with one
`git update-index`, so a burst of proposals pays for one index rewrite, and none of them waits for it.

What stays true while an entry waits (usually well under a second):
- vmem itself never reads the index: its hand-edit check compares the work tree with the committed blob, so a hand
  edit made before the flush is still refused, never overwritten;
- the flusher stages a file only if its bytes are the committed blob; a file edited since is staged as its
  committed blob (`--index-info`), so the edit shows as an unstaged change, exactly as after a synchronous write;
- `vmem check` flushes first; a killed writer or flusher leaves its journal or batch, and the next vmem write (or
  check) finishes it.
What git shows meanwhile: the new file as "deleted" in the index and untracked in the work tree; `git status`
run after the flusher finishes is clean. A hand `git commit` in that window would record the deletion, and so
could any git command that read the index before a flush and wrote it after (git reads, then locks, then writes:
the flush is lost). So the first deferred write installs a pre-commit guard (.git/hooks/pre-commit, only where no
hook of the user's is and core.hooksPath is not set) that stages into the index git is about to commit the
waiting entries HEAD holds and the last DONE_KEEP staged ones whose work-tree file still holds the committed blob.

Standard library only: the flusher runs as `python -I -S stage.py GIT_DIR ROOT` (no site-packages, ~15 ms); the one
vmem module it needs, vmem.store.gitenv (standard library only too), it loads from beside itself.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path

try:
    from vmem.store.gitenv import scrubbed_env
except ImportError:  # run as `python -I -S stage.py` (the flusher, the guard): no vmem on sys.path, its file beside
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))  # appended: the standard library still comes first
    from gitenv import scrubbed_env  # type: ignore[no-redef]

JOURNAL = "vmem-stage"  # in .git: "blob\tpath" lines committed but not yet staged (appended under the store lock)
BATCH = "vmem-stage.flushing"  # what a flusher has taken from the journal; left behind if it was killed
DONE = "vmem-stage.done"  # the last entries staged (for the pre-commit guard: a git command can undo a flush)
DONE_KEEP = 1024
STAGE_LOCK = "vmem-stage.lock"  # one flusher at a time
GUARD_MARK = "vmem-stage-guard"  # in the pre-commit hook vmem writes: a hook without it is the user's
STORE_LOCK = "vmem.lock"  # the store lock (vmem.store.repo.LOCK_FILE): held briefly to take the journal
DEFER_FROM_BYTES = 2 << 20  # auto: defer once the index file is this big (~20k entries; ~15 ms to rewrite)
LOCK_WAIT_S = 60.0
GIT_BUSY_WAIT_S = 30.0  # a user's own git command holding index.lock: retry for this long


def wanted(git_dir: Path, setting: str | None) -> bool:
    """Defer this write's index update? SETTING is `git config vmem.indexUpdate`: sync (the default) | deferred.
    Deferred is the user's choice only: while an entry waits, a hand `git commit --no-verify` (or one under a
    core.hooksPath) would record the item as deleted, and the flusher holds git's index.lock after vmem returned
    (SPEC 15). A big index is split instead (vmem.store.repo), which keeps the synchronous update small."""
    setting = (setting or "sync").strip().lower()
    if waiting(git_dir):
        return True  # entries are waiting: later ones go after them, never past them
    return setting == "deferred"


def _lines(entries: dict[str, str]) -> str:
    return "".join(f"{blob}\t{path}\n" for path, blob in entries.items())


def _git_env() -> dict[str, str]:
    """The environment for the flusher, `git gc` and their git: none of the caller's variables that point git at
    another repository, object store or namespace (a gc told GIT_OBJECT_DIRECTORY=elsewhere would prune there
    by this store's refs)."""
    return scrubbed_env()


def record(git_dir: Path, entries: dict[str, str]) -> None:
    """Journal PATH -> BLOB for the flusher. The caller holds the store lock (one writer appends at a time)."""
    lines = _lines(entries)
    fd = os.open(git_dir / JOURNAL, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)


def defer(git_dir: Path, root: Path, entries: dict[str, str], hooks_path: str | None = None) -> None:
    """Journal ENTRIES (path -> committed blob) and start a flusher for them; the caller holds the store lock.
    HOOKS_PATH is `git config core.hooksPath` (then no guard is installed: those hooks are managed elsewhere)."""
    guard(git_dir, hooks_path)
    record(git_dir, entries)
    _test_kill("stage")
    spawn(git_dir, root)


def guard(git_dir: Path, hooks_path: str | None) -> None:
    """Install (or bring up to date) the pre-commit guard, unless core.hooksPath is set or a pre-commit hook that
    vmem did not write is there (a symlink counts as the user's). Never fails a write."""
    hook = git_dir / "hooks" / "pre-commit"
    if hooks_path or hook.is_symlink():
        return
    script = _guard_script()
    try:
        current = hook.read_text("utf-8") if hook.exists() else None
    except (OSError, UnicodeDecodeError):
        return
    if current == script or (current is not None and GUARD_MARK not in current):
        return
    try:
        hook.parent.mkdir(exist_ok=True)
        tmp = hook.with_name(f".pre-commit.{os.getpid()}.tmp")
        tmp.write_text(script, "utf-8")
        os.chmod(tmp, 0o755)
        os.replace(tmp, hook)
    except OSError:
        pass


def _guard_script() -> str:
    import shlex

    return ("#!/bin/sh\n"
            f"# {GUARD_MARK}: written by vmem (vmem.store.stage); delete this file to go without it.\n"
            "# On a big store a vmem write stages its files in git's index in the background, within a second or so;\n"
            "# a commit made before that would record them as deleted. This stages them first, as HEAD holds them.\n"
            f"py={shlex.quote(sys.executable)}\n"
            f"stage={shlex.quote(str(Path(__file__).resolve()))}\n"
            '[ -x "$py" ] && [ -f "$stage" ] || exit 0\n'
            '"$py" -I -S "$stage" --pre-commit "$(git rev-parse --absolute-git-dir)" "$(pwd)" || true\n'
            "exit 0\n")


def into_commit(git_dir: Path, root: Path) -> None:
    """The pre-commit guard's work: every waiting entry that HEAD holds, as HEAD holds it, into the index git is
    about to commit (GIT_INDEX_FILE, as git sets it for the hook), and so is every recently staged one whose
    work-tree file still holds that blob (a git command that overlapped the flush may have put the old index back;
    a file the user deleted or changed is the user's). Takes no vmem lock (a flusher may be waiting for git's
    index) and changes nothing else; an entry HEAD does not hold (another branch checked out since) is left."""
    import shutil
    import subprocess

    done = {path: blob for path, blob in _read(git_dir / DONE).items() if _holds(root / path, blob)}
    entries = {**done, **_read(git_dir / BATCH)}
    entries.update(_read(git_dir / JOURNAL))
    git = shutil.which("git")
    if not entries or git is None:
        return
    paths = sorted(entries)
    listed = subprocess.run([git, "cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd=root,
                            input="".join(f"HEAD:{path}\n" for path in paths).encode("utf-8"), capture_output=True,
                            timeout=60)
    held = [f"100644 {entries[path]}\t{path}" for path, line in zip(paths, listed.stdout.decode().splitlines())
            if line == f"{entries[path]} blob"]
    if not held or listed.returncode != 0:
        return
    deadline = time.monotonic() + 5.0
    while True:  # a flusher may hold git's index for a moment
        done = subprocess.run([git, "update-index", "-z", "--index-info"], cwd=root, capture_output=True,
                              input=("\0".join(held) + "\0").encode("utf-8"), timeout=60)
        if done.returncode == 0 or b"index.lock" not in done.stderr or time.monotonic() >= deadline:
            return
        time.sleep(0.05)


def _holds(full: Path, blob: str) -> bool:
    try:
        return not full.is_symlink() and _blob_id(full.read_bytes(), len(blob)) == blob
    except OSError:
        return False


def spawn(git_dir: Path, root: Path) -> None:
    """Start a detached flusher (if it cannot start, the journal stays; the next write or `vmem check` flushes)."""
    detach([sys.executable, "-I", "-S", __file__, str(git_dir), str(root)])


def detach(argv: list[str]) -> bool:
    """Start ARGV detached: it outlives this process, in its own session, stdin/stdout/stderr on /dev/null, with no
    GIT_DIR-like variables of the caller's (os.posix_spawn: no shell, and no `subprocess` import on the write
    path). False when it could not be started."""
    null = os.devnull
    actions = [(os.POSIX_SPAWN_OPEN, fd, null, os.O_RDWR, 0) for fd in (0, 1, 2)]
    _reap()
    try:
        pid = os.posix_spawn(argv[0], argv, _git_env(), file_actions=actions, setsid=True)
    except (OSError, NotImplementedError, TypeError):
        return False
    _SPAWNED.append(pid)
    return True


_SPAWNED: list[int] = []  # detached children this process started and has not yet collected


def _reap() -> None:
    """Collect the exit status of the detached children that have ended, without waiting: a long-lived process
    (`vmem mcp`) keeps at most the zombies of those since its last write; a command that exits leaves that to init.
    (No reaper thread: importing `threading` and starting one cost more than the rest of this module.)"""
    for pid in list(_SPAWNED):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _SPAWNED.remove(pid)


def waiting(git_dir: Path) -> bool:
    """Entries journaled or taken but not yet staged."""
    return (git_dir / JOURNAL).exists() or (git_dir / BATCH).exists()


def orphaned(git_dir: Path) -> bool:
    """Entries waiting with no flusher at work (a killed writer or flusher left them)."""
    return waiting(git_dir) and _idle(git_dir, expect_waiting=True)


def settled(git_dir: Path) -> bool:
    """Nothing waiting and no flusher at work (for tests and the benchmark: never flushes anything itself)."""
    return not waiting(git_dir) and _idle(git_dir, expect_waiting=False)


def _idle(git_dir: Path, expect_waiting: bool) -> bool:
    """No flusher holds the stage lock, and whether entries wait, checked again under it, is EXPECT_WAITING."""
    try:
        with _Flock(git_dir / STAGE_LOCK, 0.0):
            return waiting(git_dir) == expect_waiting
    except TimeoutError:
        return False


def flush(git_dir: Path, root: Path, wait_s: float = LOCK_WAIT_S) -> bool:
    """Stage every waiting entry now; True when nothing is left waiting. Safe to call from any process."""
    git_dir, root = Path(git_dir), Path(root)
    try:
        with _Flock(git_dir / STAGE_LOCK, wait_s):
            while True:
                entries = _read(git_dir / BATCH)  # a batch a killed flusher took: it goes first
                with _Flock(git_dir / STORE_LOCK, wait_s):
                    if (git_dir / JOURNAL).exists():
                        entries.update(_read(git_dir / JOURNAL))  # later entries for a path win
                        if entries:
                            _write_batch(git_dir, entries)
                        (git_dir / JOURNAL).unlink()
                if not entries:
                    return True
                _test_kill("flush")
                if not _stage(root, git_dir, entries):
                    return False
                _remember(git_dir, entries)
                (git_dir / BATCH).unlink(missing_ok=True)
    except TimeoutError:
        return False


def _read(path: Path) -> dict[str, str]:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    entries: dict[str, str] = {}
    for line in text.split("\n")[:-1]:  # a torn last line (a writer killed mid-append) has no newline: skipped;
        blob, sep, name = line.partition("\t")  # recovery re-materialises that commit's files and journals them
        parts = name.split("/")
        if (sep and len(blob) in (40, 64) and all(c in "0123456789abcdef" for c in blob) and name
                and not name.startswith("/") and "" not in parts and "." not in parts and ".." not in parts
                and parts[0] != ".git" and "\0" not in name):
            entries[name] = blob
    return entries


def _remember(git_dir: Path, entries: dict[str, str]) -> None:
    """Keep the last DONE_KEEP staged entries: a git command that read the index before this flush and writes it
    after (git reads, then locks, then writes) puts the old index back, and the guard re-stages them."""
    kept = {**_read(git_dir / DONE), **entries}
    tmp = git_dir / (DONE + ".tmp")
    tmp.write_text(_lines(dict(list(kept.items())[-DONE_KEEP:])), "utf-8")
    os.replace(tmp, git_dir / DONE)


def _write_batch(git_dir: Path, entries: dict[str, str]) -> None:
    tmp = git_dir / (BATCH + ".tmp")
    tmp.write_text(_lines(entries), "utf-8")
    os.replace(tmp, git_dir / BATCH)


def _blob_id(data: bytes, length: int) -> str:
    import hashlib

    algorithm = hashlib.sha1 if length == 40 else hashlib.sha256
    return algorithm(b"blob %d\0" % len(data) + data).hexdigest()


def _stage(root: Path, git_dir: Path, entries: dict[str, str]) -> bool:
    """One `git update-index` for the files that hold their committed bytes (git records their stat data), one
    `--index-info` for files changed since (staged as committed; the change stays a visible, unstaged edit)."""
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None:
        return False
    same: list[str] = []
    changed: list[str] = []
    for path, blob in sorted(entries.items()):
        if _holds(root / path, blob):
            same.append(path)
        else:
            changed.append(f"100644 {blob}\t{path}")
    env = _git_env()
    jobs = [(["update-index", "--add", "-z", "--stdin"], "\0".join(same) + "\0")] if same else []
    if changed:
        jobs.append((["update-index", "-z", "--index-info"], "\0".join(changed) + "\0"))
    for args, feed in jobs:
        deadline = time.monotonic() + GIT_BUSY_WAIT_S
        while True:
            try:
                done = subprocess.run([git, "-C", str(root), *args], input=feed.encode("utf-8"), env=env,
                                      capture_output=True, timeout=600)
            except (OSError, subprocess.SubprocessError):
                return False
            if done.returncode == 0:
                break
            busy = b"index.lock" in done.stderr or (git_dir / "index.lock").exists()
            if not busy or time.monotonic() >= deadline:
                return False  # not a busy index: leave the batch for the next flush (vmem check says why)
            time.sleep(0.05)  # the user's own git command holds the index: wait for it
    return True


class _Flock:
    def __init__(self, path: Path, timeout: float) -> None:
        self.path, self.timeout, self.fd = path, timeout, -1

    def __enter__(self) -> "_Flock":
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(self.fd)
                    raise TimeoutError(str(self.path)) from None
                time.sleep(0.005)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _test_kill(stage: str) -> None:
    if os.environ.get("VMEM_TEST_KILL_AT") == stage:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--pre-commit"] and len(argv) == 3:
        try:
            into_commit(Path(argv[1]), Path(argv[2]))
        except Exception:  # noqa: BLE001 - the guard never stops a commit
            pass
        return 0
    if len(argv) != 2:
        print("usage: stage.py GIT_DIR WORK_TREE | stage.py --pre-commit GIT_DIR WORK_TREE", file=sys.stderr)
        return 2
    return 0 if flush(Path(argv[0]), Path(argv[1])) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
