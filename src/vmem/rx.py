"""Regular expressions compiled once per machine, not once per process.

Compiling a pattern is pure Python (parse, then code generation) and the write path builds ~200 of them: ~20 ms
of every `vmem propose`, more than the commit. The result of that work is a list of integers that CPython's
regular expression engine takes as it is (`_sre.compile`, which also validates it). This module keeps those
lists in one file under the user cache, keyed by the interpreter, the engine's version and the compiler's own
files, the way `__pycache__` keeps bytecode; a pattern not yet there is compiled as usual and written at the end
of the command (`save`).

Only patterns from a fixed family go through here: module constants, and subsets of a fixed table. A pattern
built from input (a file name, a statement's words) uses `re.compile` and is never kept. The table is capped.

Whatever is wrong with the file means: compile as usual. That covers a missing file, another Python, a damaged
file (a checksum covers the whole table) and code the engine refuses. It also covers a file that another account
could have written: one owned by another user, or writable by group or others.

The engine checks that code is well formed, not that it is the code of this pattern. So the table is as trusted as
the user's own bytecode cache, and that is what guards the de-id gate's patterns read from it: whoever can write
the user's cache can as well write the user's packages, or the sync bundle cache next to it. The table is never
read from a store or a clone.
"""

from __future__ import annotations

import os
import re
import sys

MAX_PATTERNS = 4096  # a fixed family is a few hundred; the cap only bounds a mistake

_table: dict | None = None  # (is bytes, pattern, flags) -> (flags, code, groups, groupindex, indexgroup)
_added: dict = {}


def _engine():
    """(_sre, re._parser, re._compiler) when this interpreter compiles the way this module knows; else None."""
    try:
        import _sre
        from re import _compiler, _parser  # CPython 3.11 and later
    except ImportError:
        return None
    if sys.implementation.name != "cpython" or not hasattr(_compiler, "_code"):
        return None
    return _sre, _parser, _compiler


def _path() -> str | None:
    """The table's file: its name holds the interpreter, the engine's magic and code size, and the size and time of
    the compiler's own modules (a patched build of the same version gets its own table)."""
    engine = _engine()
    if engine is None:
        return None
    from vmem import digest
    from vmem.store.cache import cache_home

    parts = [sys.implementation.cache_tag, sys.version, str(engine[0].MAGIC), str(engine[0].CODESIZE)]
    for module in engine[1:]:
        try:
            found = os.stat(module.__file__)
            parts.append(f"{found.st_size}:{found.st_mtime_ns}")
        except (OSError, TypeError):
            parts.append("?")
    tag = digest.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(cache_home(), "regex", f"{sys.implementation.cache_tag}-{tag}.marshal")


def _read(path: str) -> dict:
    """The table in PATH, or {} when it is missing, damaged, or could have been written by another account."""
    import marshal

    from vmem import digest

    try:
        with open(path, "rb") as handle:
            found = os.fstat(handle.fileno())
            if (hasattr(os, "getuid") and found.st_uid != os.getuid()) or found.st_mode & 0o022:
                return {}
            data = handle.read()  # marshal.load(handle) reads in small pieces: ~10x slower
        check, payload = data[:32], data[32:]
        if digest.sha256(payload).digest() != check:
            return {}
        table = marshal.loads(payload)
    except Exception:  # noqa: BLE001 - MemoryError from a damaged length field included: compile as usual
        return {}
    return table if isinstance(table, dict) else {}


def _load() -> dict:
    global _table
    if _table is None:
        path = _path()
        _table = _read(path) if path is not None else {}
    return _table


def _fresh(pattern: str | bytes, flags: int, engine) -> tuple[re.Pattern, tuple]:
    _sre, _parser, _compiler = engine
    parsed = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, number in groupindex.items():
        indexgroup[number] = name
    entry = (int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup))
    return _sre.compile(pattern, *entry), entry


def compile(pattern: str | bytes, flags: int | re.RegexFlag = 0) -> re.Pattern:  # noqa: A001 - re's own name
    """re.compile(PATTERN, FLAGS), from the machine's table when it holds the pattern's code."""
    engine = _engine()
    if engine is None or flags & re.DEBUG:
        return re.compile(pattern, flags)
    key = (isinstance(pattern, bytes), pattern, int(flags))  # 'a' and b'a' are equal keys otherwise (-bb warns)
    entry = _load().get(key)
    if entry is not None:
        try:
            return engine[0].compile(pattern, *entry)
        except Exception:  # noqa: BLE001 - damaged or foreign code: the engine refused it; compile anew
            pass
    try:
        compiled, entry = _fresh(pattern, int(flags), engine)
    except re.error:
        raise
    except Exception:  # noqa: BLE001 - an interpreter whose internals moved: the public way
        return re.compile(pattern, flags)
    if len(_table or ()) + len(_added) < MAX_PATTERNS:
        _added[key] = entry
    return compiled


def save() -> None:
    """Write the patterns compiled by this process into the machine's table (atomically; never raises)."""
    global _added
    if not _added:
        return
    added, _added = _added, {}
    try:
        path = _path()
        if path is None:
            return
        import marshal

        from vmem import digest

        table = _read(path)
        table.update(added)
        if len(table) > MAX_PATTERNS:
            return
        payload = marshal.dumps(table)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        temp = f"{path}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(digest.sha256(payload).digest() + payload)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except Exception:  # noqa: BLE001 - an unwritable or full cache only costs the next run the compiling
        pass
