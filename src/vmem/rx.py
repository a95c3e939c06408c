"""Regular expressions compiled once per machine, not once per process.

Compiling a pattern is pure Python (parse, then code generation) and the write path builds ~200 of them: ~20 ms
of every `vmem propose`, more than the commit. The result of that work is a list of integers that CPython's
regular expression engine takes as it is (`_sre.compile`, which also validates it). This module keeps those
lists in one file under the user cache, keyed by the interpreter and engine version, the way `__pycache__`
keeps bytecode; a pattern not yet there is compiled as usual and written at the end of the command (`save`).

Only patterns from a fixed family go through here: module constants, and subsets of a fixed table. A pattern
built from input (a file name, a statement's words) uses `re.compile` and is never kept. The table is capped.

Whatever is wrong with the file (missing, damaged, another Python, code the engine refuses) means: compile as
usual. The file is as trusted as the user's own bytecode cache; it is never read from a store or a clone.
"""

from __future__ import annotations

import os
import re
import sys

MAX_PATTERNS = 4096  # a fixed family is a few hundred; the cap only bounds a mistake

_table: dict | None = None  # (pattern, flags) -> (flags, code, groups, groupindex, indexgroup)
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
    engine = _engine()
    if engine is None:
        return None
    from vmem.store.cache import cache_home

    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-{engine[0].MAGIC}-{engine[0].CODESIZE}"
    return os.path.join(cache_home(), "regex", f"{tag}.marshal")


def _load() -> dict:
    global _table
    if _table is None:
        _table = {}
        path = _path()
        if path is not None:
            import marshal

            try:
                with open(path, "rb") as handle:
                    found = marshal.loads(handle.read())  # load(handle) reads in small pieces: ~10x slower
                if isinstance(found, dict):
                    _table = found
            except (OSError, EOFError, ValueError, TypeError):
                pass
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
    key = (pattern, int(flags))
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
    path = _path()
    if path is None:
        return
    import marshal

    try:
        try:
            with open(path, "rb") as handle:
                table = marshal.loads(handle.read())
            if not isinstance(table, dict):
                table = {}
        except (OSError, EOFError, ValueError, TypeError):
            table = {}
        table.update(added)
        if len(table) > MAX_PATTERNS:
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temp = f"{path}.{os.getpid()}.tmp"
        with open(temp, "wb") as handle:
            marshal.dump(table, handle)
        os.replace(temp, path)
    except (OSError, ValueError):
        try:
            os.unlink(temp)
        except (OSError, UnboundLocalError):
            pass
