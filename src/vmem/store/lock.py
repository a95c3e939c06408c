"""An advisory store lock: concurrent vmem processes serialise their read-modify-commit."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from vmem.errors import LockTimeout

DEFAULT_TIMEOUT_S = 10.0


def lock_timeout() -> float:
    try:
        return float(os.environ.get("VMEM_LOCK_TIMEOUT", DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S


class StoreLock:
    """flock(2) on a file in .git: the kernel drops it when the holder dies, so a lock is never stale."""

    def __init__(self, path: Path, timeout: float | None = None) -> None:
        self.path = path
        self.timeout = lock_timeout() if timeout is None else timeout
        self._fd: int | None = None

    def __enter__(self) -> "StoreLock":
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + self.timeout
        delay = 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise LockTimeout(
                        f"store is locked by another vmem process{holder}; waited {self.timeout:g}s",
                        "retry when it finishes, or raise the wait with VMEM_LOCK_TIMEOUT=SECONDS",
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode().strip()
    except OSError:
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""
