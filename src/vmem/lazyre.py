"""Module patterns compiled on first use: a command compiles only the regular expressions it uses.

Compiling is pure Python (~0.1-1.5 ms a pattern) and the write path's modules hold ~150 patterns, most of which a
given proposal never uses (the de-id gate's value and date readings, the reader's rarer forms). `lazy` defers
`re.compile` to the first call; nothing else changes: the same pattern, the same flags, the public `re` API only.
"""

from __future__ import annotations

import re

_PASSED_ON = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer", "scanner", "pattern",
              "flags", "groups", "groupindex")


class LazyPattern:
    """re.compile(PATTERN, FLAGS) on the first use of any of its attributes; from then on the compiled pattern's
    methods are this object's own attributes (a later call costs what a call on the pattern costs)."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str):  # only for an attribute not yet set: the first use
        if name.startswith("_"):
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for attribute in _PASSED_ON:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r}, {self._source[1]!r})"


def lazy(pattern: str | bytes, flags: int = 0) -> re.Pattern:
    """A pattern that compiles itself, with re.compile(PATTERN, FLAGS), when first used."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value] - it answers as the compiled pattern does
