"""vmem.rx: regular expressions compiled once per machine. A pattern read back from the table must be the pattern
re.compile makes; a damaged table, one another account could have written, or code the engine refuses must never
change what a pattern matches or stop a command. (A table the user's own account wrote is trusted like its
bytecode cache: the engine checks that code is well formed, not whose it is.)"""

from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem import rx

ROOT = Path(__file__).resolve().parents[1]
DEID_CASES = ROOT / "tests" / "data" / "deid_redteam" / "cases_redteam.jsonl"
LEXICON = ROOT / "tests" / "data" / "deid_redteam"

pytestmark = pytest.mark.skipif(rx._engine() is None, reason="vmem.rx keeps compiled code only on CPython")


def _table_path() -> Path:
    return Path(rx._path())


def _fresh_state(monkeypatch) -> None:
    monkeypatch.setattr(rx, "_table", None)
    monkeypatch.setattr(rx, "_added", {})


def _every_kept_pattern() -> list[tuple[bool, str | bytes, int]]:
    """The (pattern, flags) of every vmem module constant compiled through vmem.rx, from a fresh interpreter."""
    code = ("import importlib, pkgutil, marshal, sys, vmem, vmem.rx as rx\n"
            "for m in pkgutil.walk_packages(vmem.__path__, 'vmem.'):\n"
            "    if m.name.endswith('__main__') or m.name.startswith('vmem.mcp'): continue\n"
            "    try: importlib.import_module(m.name)\n"
            "    except (Exception, SystemExit): pass\n"
            "sys.stdout.buffer.write(marshal.dumps(list(rx._added)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                          env={**os.environ, "XDG_CACHE_HOME": "/nonexistent/vmem-rx-test"})
    return marshal.loads(done.stdout)


def _same(a: re.Pattern, b: re.Pattern) -> None:
    assert (a.pattern, a.flags, a.groups, dict(a.groupindex)) == (b.pattern, b.flags, b.groups, dict(b.groupindex))


def test_module_constants_go_through_the_table():
    kept = _every_kept_pattern()
    assert len(kept) > 80  # the write path's de-id, parsing, codec and model patterns
    assert any(isinstance(p, bytes) for _, p, _ in kept)  # lite's tree patterns


def test_a_pattern_read_back_is_the_pattern_re_makes(monkeypatch):
    kept = _every_kept_pattern()
    _fresh_state(monkeypatch)
    for _, pattern, flags in kept:
        rx.compile(pattern, flags)
    rx.save()
    _fresh_state(monkeypatch)
    monkeypatch.setattr(rx, "_fresh", lambda *a: pytest.fail("compiled anew although the table holds it"))
    for _, pattern, flags in kept:
        _same(rx.compile(pattern, flags), re.compile(pattern, flags))


_SAMPLES = st.lists(st.sampled_from(list("aZ09 .,;:-'$€%@/_\n\tIiİıéñ&()") + [
    "Acme", "2026", "€410.000", "15 Sep '26", "twenty", "million", " weeks", "k-0123456789ab", "@example.com"]),
    max_size=25).map("".join)


def _through_the_table(pattern: re.Pattern) -> re.Pattern:
    """PATTERN as vmem.rx rebuilds it from a table entry: the code written to disk and read back."""
    _, entry = rx._fresh(pattern.pattern, pattern.flags, rx._engine())
    return rx._engine()[0].compile(pattern.pattern, *marshal.loads(marshal.dumps(entry)))


def _gate_patterns() -> dict[str, tuple[re.Pattern, re.Pattern]]:
    """Every str pattern the de-id gate, the statement parser and the contradiction check hold, at module level or
    in a module-level list or table of them."""
    from vmem.gates import deid
    from vmem.knowledge import parsing
    from vmem.ops import contradictions

    def patterns(value, depth=0):
        if isinstance(value, re.Pattern):
            yield value
        elif isinstance(value, (list, tuple)) and depth < 2:
            for element in value:
                yield from patterns(element, depth + 1)

    found = {}
    for module in (deid, parsing, contradictions):
        for name in dir(module):
            for n, value in enumerate(patterns(getattr(module, name))):
                if isinstance(value.pattern, str):
                    found[f"{module.__name__}.{name}.{n}"] = (_through_the_table(value),
                                                             re.compile(value.pattern, value.flags))
    return found


_GATE = _gate_patterns()


@settings(max_examples=300, deadline=None)
@given(text=_SAMPLES)
def test_a_pattern_from_the_table_matches_what_re_matches(text):
    assert len(_GATE) > 20
    for name, (kept, fresh) in _GATE.items():
        assert [m.span() for m in kept.finditer(text)] == [m.span() for m in fresh.finditer(text)], name


def test_a_damaged_table_is_compiled_anew_and_rewritten(monkeypatch):
    path = _table_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00garbage, not marshal")
    _fresh_state(monkeypatch)
    compiled = rx.compile(r"(?P<n>\d+) weeks", re.I)
    assert compiled.match("12 WEEKS").group("n") == "12"
    rx.save()
    assert rx._read(str(path))[(False, r"(?P<n>\d+) weeks", int(re.I))][0] & re.I


def _plant(path: Path, table: dict, mode: int = 0o600, payload: bytes | None = None) -> None:
    from vmem import digest

    path.parent.mkdir(parents=True, exist_ok=True)
    payload = marshal.dumps(table) if payload is None else payload
    path.write_bytes(digest.sha256(payload).digest() + payload)
    path.chmod(mode)


def test_code_the_engine_refuses_is_never_used(monkeypatch):
    # a bit-flipped entry under a good checksum: the engine validates the code and refuses it; compiled anew
    key = (False, r"acme|globex", 0)
    _plant(_table_path(), {key: (32, [1, 2, 3, 999999], 0, {}, (None,)), (False, r"x", 0): "not an entry"})
    _fresh_state(monkeypatch)
    assert rx.compile(r"acme|globex").search("call globex today")
    assert rx.compile(r"x").search("x")


def _never_matches() -> tuple:
    return rx._fresh(r"(?!)", 0, rx._engine())[1]


def test_a_table_another_account_could_have_written_is_not_read(monkeypatch):
    """Well-formed code for another pattern passes the engine's check: a table writable by group or others (or
    owned by another user) is therefore not read at all."""
    key = (False, r"[\w.]+@[\w.]+", 0)
    for mode in (0o666, 0o620, 0o602):
        _plant(_table_path(), {key: _never_matches()}, mode=mode)
        _fresh_state(monkeypatch)
        assert rx.compile(r"[\w.]+@[\w.]+").search("mail jane.doe@acmecorp.com now"), oct(mode)


def test_a_table_whose_checksum_fails_is_not_read(monkeypatch):
    key = (False, r"[\w.]+@[\w.]+", 0)
    _plant(_table_path(), {key: _never_matches()})
    damaged = bytearray(_table_path().read_bytes())
    damaged[-1] ^= 1
    _table_path().write_bytes(bytes(damaged))
    _fresh_state(monkeypatch)
    assert rx.compile(r"[\w.]+@[\w.]+").search("mail jane.doe@acmecorp.com now")


def test_a_length_field_that_asks_for_gigabytes_costs_nothing(monkeypatch):
    # marshal raises MemoryError (not ValueError) for such a field under a memory limit: still compile as usual
    _plant(_table_path(), {}, payload=b"{[\xff\xff\xff\x7f")
    _fresh_state(monkeypatch)
    monkeypatch.setattr(marshal, "loads", lambda data: (_ for _ in ()).throw(MemoryError()))
    assert rx.compile(r"y+").fullmatch("yy")
    rx.save()  # never raises


def test_an_unwritable_cache_costs_speed_only(monkeypatch, tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    _fresh_state(monkeypatch)
    assert rx.compile(r"b+").fullmatch("bbb")
    rx.save()  # never raises
    assert rx._added == {}


def test_the_table_is_capped(monkeypatch):
    _fresh_state(monkeypatch)
    monkeypatch.setattr(rx, "MAX_PATTERNS", 3)
    for n in range(10):
        rx.compile(f"p{n}")
    assert len(rx._added) == 3


def test_a_command_keeps_its_patterns_and_the_gate_decides_the_same_warm(tmp_path):
    """End to end: the de-id evaluation on the red-team probes, first with no table (it is written on exit), then
    from the table: the same catches, the same rules, the same false quarantines."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    store = tmp_path / "store"
    subprocess.run([sys.executable, "-m", "vmem", "init", str(store)], env=env, check=True, capture_output=True)
    argv = [sys.executable, "-m", "vmem", "--store", str(store), "eval", "deid", str(DEID_CASES),
            "--lexicon", str(LEXICON), "--json"]
    cold = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    tables = list((tmp_path / "cache" / "vmem" / "regex").glob("*.marshal"))
    assert len(tables) == 1 and len(rx._read(str(tables[0]))) > 50
    warm = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    assert json.loads(warm.stdout) == json.loads(cold.stdout)
