"""Running an external command (a judge): no shell, a deadline, bounded output, and nothing left running after it."""

from __future__ import annotations

import os
import signal
import subprocess
import time

_CHUNK = 65536
_POLL_S = 0.05  # how often to look for the command's exit where the kernel cannot signal it (no pidfd)


class Completed:
    """How a bounded run ended.

    OUTCOME is "exited" (RETURNCODE says how), "timeout", "too_large" (DETAIL names the stream) or "error" (the
    command could not start; DETAIL says why). Output read before the end is kept, at most MAX_OUTPUT (plus one
    read) per stream. (A plain class: `dataclasses` imports `inspect`, ~15 ms of every write that delivers.)
    """

    __slots__ = ("outcome", "returncode", "stdout", "stderr", "detail")

    def __init__(self, outcome: str, returncode: int | None, stdout: bytes, stderr: bytes, detail: str = "") -> None:
        self.outcome, self.returncode, self.stdout, self.stderr, self.detail = \
            outcome, returncode, stdout, stderr, detail

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Completed) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return (f"Completed(outcome={self.outcome!r}, returncode={self.returncode!r}, stdout={self.stdout!r}, "
                f"stderr={self.stderr!r}, detail={self.detail!r})")


def run_bounded(command: list[str], *, input: bytes | str | None = None, timeout_s: float,
                max_output: int = 1_000_000, cwd: str | os.PathLike | None = None,
                env: dict[str, str] | None = None) -> Completed:
    """Run COMMAND (an argv list, never through a shell) with INPUT on stdin, for at most TIMEOUT_S seconds.

    The command starts in a session (and process group) of its own. On timeout, on more than MAX_OUTPUT bytes on
    stdout or stderr, or when it exits, the whole group is killed (SIGKILL), so nothing it forked keeps running
    or keeps its pipes open. Always returns; only a COMMAND that is not a list of strings raises TypeError.
    """
    if not isinstance(command, (list, tuple)) or not command or not all(isinstance(p, str) for p in command):
        raise TypeError("command must be a non-empty list of strings (it never runs through a shell)")
    data = input.encode("utf-8") if isinstance(input, str) else input
    try:
        proc = subprocess.Popen(list(command), stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env, shell=False,
                                close_fds=True, start_new_session=True)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        return Completed("error", None, b"", b"", f"{type(exc).__name__}: {exc}")
    try:
        return _supervise(proc, data, time.monotonic() + timeout_s, max_output)
    finally:
        _end(proc)


def _supervise(proc: subprocess.Popen, data: bytes | None, deadline: float, max_output: int) -> Completed:
    import selectors

    out = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    names = {proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr"}
    exit_fd = _pidfd(proc.pid)
    exited = False

    def ended(outcome: str, detail: str = "") -> Completed:
        code = proc.returncode if outcome == "exited" else None
        return Completed(outcome, code, bytes(out[proc.stdout.fileno()]), bytes(out[proc.stderr.fileno()]), detail)

    with selectors.DefaultSelector() as selector:
        for fd in out:
            selector.register(fd, selectors.EVENT_READ)
        if exit_fd is not None:
            selector.register(exit_fd, selectors.EVENT_READ)
        stdin_fd, sent, view = None, 0, memoryview(data or b"")
        if proc.stdin is not None:
            if data:
                stdin_fd = proc.stdin.fileno()
                os.set_blocking(stdin_fd, False)
                selector.register(stdin_fd, selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
        try:
            while any(fd in out for fd in selector.get_map()) or not exited:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return ended("timeout")
                signalled = exit_fd is not None and exit_fd in selector.get_map()
                wait = remaining if exited or signalled else min(remaining, _POLL_S)
                for key, _ in selector.select(wait):
                    if key.fd == exit_fd:
                        selector.unregister(exit_fd)
                    elif key.fd == stdin_fd:
                        try:
                            sent += os.write(stdin_fd, view[sent:sent + _CHUNK])
                        except BlockingIOError:
                            continue
                        except BrokenPipeError:  # it stopped reading: its answer decides
                            sent = len(view)
                        if sent >= len(view):
                            selector.unregister(stdin_fd)
                            proc.stdin.close()
                    else:
                        chunk = os.read(key.fd, _CHUNK)
                        if not chunk:
                            selector.unregister(key.fd)
                            continue
                        out[key.fd] += chunk
                        if len(out[key.fd]) > max_output:
                            return ended("too_large", f"more than {max_output:,} bytes on {names[key.fd]}")
                if not exited and _has_exited(proc.pid):
                    # the command is done: end whatever it left in its group (it may hold the pipes open), then
                    # drain what is already in the pipes
                    exited = True
                    _kill_group(proc.pid)
                    if stdin_fd is not None and stdin_fd in selector.get_map():
                        selector.unregister(stdin_fd)
                        proc.stdin.close()
        finally:
            if exit_fd is not None:
                os.close(exit_fd)
    proc.wait()
    return ended("exited")


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when PID exits (Linux 5.3+), or None: then the exit is polled."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _has_exited(pid: int) -> bool:
    """Whether the child PID has exited, WITHOUT reaping it: while it is an unreaped zombie its pid (the group id)
    cannot be reused, so killing the group afterwards can never hit an unrelated process."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _end(proc: subprocess.Popen) -> None:
    """Kill the command's whole group unless it was already reaped (only then is the group id still its own)."""
    if proc.returncode is None:
        _kill_group(proc.pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # stuck in the kernel; Popen reaps it later
            pass
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
