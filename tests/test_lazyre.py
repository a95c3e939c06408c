"""Regular expressions with the public `re` API only: no module imports the interpreter's private regex engine
(`_sre`, `sre_*`, `re._compiler`, ...), and a pattern compiled on first use (vmem.lazyre) is the pattern
re.compile makes, compiled only when used, in every module that holds one."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import vmem
from vmem.lazyre import LazyPattern, lazy

SRC = Path(vmem.__file__).resolve().parent
# the engine's private modules, by any spelling: import, from-import, importlib, getattr(re, "_compiler")
PRIVATE = re.compile(r"\b_sre\b|\bsre_(?:compile|parse|constants)\b|\bre\._(?:compiler|parser|constants|casefix)\b"
                     r"|[\"']_(?:compiler|parser|constants|casefix)[\"']")


def test_no_module_reaches_into_the_regex_engine():
    found = [f"{path.relative_to(SRC)}:{n}: {line.strip()}" for path in sorted(SRC.rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if PRIVATE.search(line)]
    assert found == []


def test_a_lazy_pattern_compiles_on_first_use_and_then_is_the_compiled_pattern():
    pattern = lazy(r"(?P<n>\d+) weeks", re.I)
    assert "search" not in vars(pattern)  # nothing compiled yet
    assert pattern.search("in 12 WEEKS").group("n") == "12"
    compiled = re.compile(r"(?P<n>\d+) weeks", re.I)
    for method in ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"):
        assert getattr(pattern, method).__self__ is compiled  # re's own cache: the very pattern re.compile makes
    assert (pattern.pattern, pattern.flags, pattern.groups, dict(pattern.groupindex)) == \
        (compiled.pattern, compiled.flags, compiled.groups, dict(compiled.groupindex))
    assert pattern.sub("N", "3 weeks, 4 Weeks") == "N, N"


def test_a_bad_lazy_pattern_fails_on_first_use_as_re_does():
    pattern = lazy(r"(unclosed")
    with pytest.raises(re.error):
        pattern.search("x")


def _lazy_patterns():
    """Every lazy pattern a vmem module holds, at module level or in a module-level list, tuple or dict."""
    def held(value, depth=0):
        if isinstance(value, LazyPattern):
            yield value
        elif isinstance(value, (list, tuple)) and depth < 2:
            for element in value:
                yield from held(element, depth + 1)
        elif isinstance(value, dict) and depth < 2:
            for element in value.values():
                yield from held(element, depth + 1)

    for info in pkgutil.walk_packages(vmem.__path__, "vmem."):
        if info.name.endswith("__main__") or info.name.startswith("vmem.mcp"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            for n, pattern in enumerate(held(value)):
                yield f"{info.name}.{name}.{n}", pattern


def test_every_lazy_pattern_in_vmem_compiles_to_what_re_compile_makes():
    """A typo in a pattern that compiles on first use would otherwise show only on the rare path that uses it."""
    found = dict(_lazy_patterns())
    assert len(found) > 20  # the de-id gate's value readings, the reader's rarer forms
    for name, pattern in found.items():
        source, flags = pattern._source
        compiled = re.compile(source, flags)
        assert pattern.search is not None, name
        assert (pattern.pattern, pattern.flags, pattern.groups) == (compiled.pattern, compiled.flags,
                                                                   compiled.groups), name
