"""Per-store caches in the user cache directory (marshal, atomic, versioned); losing one only costs time.

Kept free of pygit2 and heavy imports: `vmem sync` reads these on a hook's start-up path.
"""

from __future__ import annotations

import os
from pathlib import Path

VERSION = 1


def cache_home() -> Path:
    """vmem's user cache directory. On Linux this is platformdirs' answer ($XDG_CACHE_HOME or ~/.cache, + vmem)
    without importing platformdirs (~10 ms of every propose and hook run); elsewhere platformdirs decides."""
    import sys

    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        return Path(base if base else os.path.expanduser("~/.cache")) / "vmem"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("vmem"))


def cache_file(root: Path) -> Path:
    """The store's cache path (sync's item cache); sibling caches use other suffixes (.bundles, .canon)."""
    from vmem import digest

    key = digest.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return cache_home() / "sync" / f"{key}.marshal"


def read_cache(path: Path) -> dict | None:
    import marshal

    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None  # missing or corrupt: rebuilt, never fatal
    return data if isinstance(data, dict) and data.get("version") == VERSION else None


def write_cache(path: Path, data: dict) -> None:
    import marshal

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps({**data, "version": VERSION}))
        os.replace(tmp, path)
    except OSError:
        pass
