"""Git's own housekeeping, for the commits vmem makes without git.

`git commit` ends with `git gc --auto`: once the repository holds more loose objects than `gc.auto` (6,700 by
default), git packs them, in the background. vmem writes its commits through pygit2 or vmem.store.lite, which
never do that, so a store only vmem writes to would gather loose objects forever: `vmem consolidate` alone writes
tens of thousands (56k after an expire and a consolidate of the 100k benchmark store), and every object read
after that opens and inflates a file of its own. After each commit vmem makes the same cheap check git makes
(how full one of the 256 fan-out folders is) and, when it is over the limit, starts `git gc --auto --quiet`
detached, so git decides (the user's gc.* settings, another gc already running) and does the packing as it
would after a `git commit`. `git config gc.auto 0` turns it off, as it does for git.
"""

from __future__ import annotations

import os
from pathlib import Path

GC_AUTO_DEFAULT = 6_700  # git's default for gc.auto
_HEX = frozenset("0123456789abcdef")


def gc_limit(setting: str | None) -> int | None:
    """`gc.auto` as git reads it (strtoimax in base 0: decimal, 0x hexadecimal or 0 octal, with an optional sign
    and k/m/g suffix); None when it is not a number (git itself would refuse it, so vmem starts nothing)."""
    if setting is None or not setting.strip():
        return GC_AUTO_DEFAULT
    text = setting.strip().lower()
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(text[-1:], 1)
    if scale != 1:
        text = text[:-1]
    sign, digits = (-1, text[1:]) if text[:1] == "-" else (1, text[1:] if text[:1] == "+" else text)
    base = 16 if digits[:2] == "0x" else 8 if digits[:1] == "0" and len(digits) > 1 else 10
    digits = digits[2:] if base == 16 else digits
    if not digits or not all(c in "0123456789abcdef"[:base] for c in digits):  # no "_" or spaces, as git
        return None
    return sign * int(digits, base) * scale


def too_many_loose(git_dir: Path, limit: int) -> bool:
    """git's estimate: more loose objects in objects/17 than LIMIT / 256 (rounded up) means more than about LIMIT
    in all (object ids are uniformly spread over the 256 folders)."""
    if limit <= 0:
        return False
    allowed = (limit + 255) // 256
    found = 0
    try:
        with os.scandir(Path(git_dir) / "objects" / "17") as entries:
            for entry in entries:
                if len(entry.name) == 38 and _HEX.issuperset(entry.name):
                    found += 1
                    if found > allowed:
                        return True
    except OSError:
        return False
    return False


def after_commit(git_dir: Path, setting) -> bool:
    """Start `git gc --auto --quiet` detached when the store holds more loose objects than gc.auto (SETTING, a
    function that reads it: a configuration that cannot be read is inside the guard too); True when it was
    started. Never raises: the commit is made by then, and housekeeping left undone costs speed, not data."""
    try:
        limit = gc_limit(setting() if callable(setting) else setting)
        if limit is None or not too_many_loose(git_dir, limit):
            return False
        from vmem.store import stage
        from vmem.store.lite import git_executable

        git = git_executable()
        if git is None:
            return False
        return stage.detach([git, f"--git-dir={Path(git_dir).absolute()}", "gc", "--auto", "--quiet"])
    except Exception:  # noqa: BLE001 - see above
        return False


def running(git_dir: Path) -> bool:
    """A `git gc` holds this repository's gc.pid and its process is alive (on this host: git writes "PID HOST")."""
    try:
        pid = int((Path(git_dir) / "gc.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
