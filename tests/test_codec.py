"""The YAML codec: safe bounded reads, a stable round-trip layout, hand comments kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem import model, names
from vmem.errors import SchemaError
from vmem.store import codec

TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x85\u2028\u2029"), max_size=60)
TRICKY = st.sampled_from(["yes", "no", "on", "off", "null", "~", "1.0", "0777", "1_000", "12:30", "2026-03-14",
                          "industry:healthcare", "- dash", "# hash", "'quoted'", '"dq"', "a: b", "@at", "%pct",
                          "*star", "&amp", "!bang", " padded ", "", "[x]", "{y}", "line\nbreak", "tab\there"])
PLAINISH = st.text("abcXYZ019 _.,;:()/%$+=@~'-#!*?&\"…–—‘’“”éßΩ日١²\u0301\u00a0\u2028\ufeff", max_size=40)  # near the fast writer's edge
WORDS = st.one_of(TEXT, TRICKY, PLAINISH)
CATEGORY = st.builds("{}:{}".format, st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True),
                     st.one_of(TRICKY, PLAINISH, TEXT)).filter(names.is_category)  # tricky values, valid rule
STAMP = st.datetimes(min_value=__import__("datetime").datetime(1970, 1, 1), max_value=__import__("datetime").datetime(2200, 1, 1), timezones=st.just(__import__("datetime").timezone.utc)).map(model.format_ts)


@st.composite
def claims(draw):
    return model.validate("claim", {
        "id": "c-" + draw(st.text("0123456789abcdef", min_size=12, max_size=12)),
        "kind": "claim",
        "title": draw(st.one_of(st.none(), WORDS)),
        "statement": draw(WORDS.filter(lambda s: s.strip())),
        "scope": draw(st.sampled_from(["org", "entity:acme"])),
        "class": draw(st.sampled_from(model.CLASSES)),
        "categories": draw(st.lists(CATEGORY, max_size=4)),
        "paths": draw(st.lists(WORDS.filter(lambda s: s.strip()), max_size=4)),  # any text in a list
        "status": draw(st.sampled_from(model.CLAIM_STATUSES)),
        "personal": draw(st.booleans()),
        "confidence": draw(st.floats(0, 1)),
        "created_at": draw(STAMP),
        "expires_at": draw(st.one_of(st.none(), STAMP)),
        "source": {"type": "analyst", "user": draw(st.one_of(st.none(), WORDS)), "episode": None},
    }, "generated")


@settings(max_examples=100, deadline=None)
@given(claims())
def test_round_trip_is_lossless_and_byte_stable(item):
    text = codec.dump(item)
    assert model.validate("claim", codec.load(text.encode(), "x"), "x") == item
    assert codec.dump(item, text) == text  # rewriting an unchanged item: same bytes


@settings(max_examples=40, deadline=None)
@given(claims(), claims())
def test_edit_in_place_equals_a_fresh_write_when_there_are_no_comments(first, second):
    second = {**second, "id": first["id"]}
    assert codec.dump(second, codec.dump(first)) == codec.dump(second)


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(claims(), claims(), st.sampled_from(["confidence", "status", "expires_at", "categories", "paths", "title"]))
def test_fast_rewrite_of_an_existing_file_equals_the_round_trip_edit(first, second, keep):
    """Editing a file in the fast layout without ruamel must give ruamel's in-place edit, byte for byte."""
    second = {**second, "id": first["id"], keep: first[keep]}
    previous = codec.dump(first)
    assert codec.dump(second, previous) == codec._dump_rt(second, previous)
    equal_but_typed = previous.replace(f"confidence: {first['confidence']!r}\n", "confidence: 1\n") \
        if first["confidence"] == 1.0 else previous
    assert codec.dump(second, equal_but_typed) == codec._dump_rt(second, equal_but_typed)


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(claims(), claims(), st.data())
def test_fast_rewrite_of_a_file_with_fewer_or_more_keys_equals_the_round_trip_edit(first, second, data):
    """A file written before a field joined the schema (or after one left it) is edited without ruamel too, and
    still byte for byte as ruamel's in-place edit: the added key where the item has it, the dropped one gone."""
    second = {**second, "id": first["id"]}
    keys = list(first)
    missing = data.draw(st.lists(st.sampled_from(keys[1:]), max_size=3, unique=True))
    older = {k: v for k, v in first.items() if k not in missing}  # the file lacks these keys
    extra = data.draw(st.sampled_from([None, "legacy_note", "zz_old"]))
    if extra:
        older[extra] = "kept by nobody"  # a key the item no longer has
    previous = codec.dump(older)
    assert codec.dump(second, previous) == codec._dump_rt(second, previous)
    if codec._dump_fast(second) is not None and codec._dump_fast(older) is not None:
        assert codec._rewrite_fast(second, previous) is not None  # taken without ruamel


def test_fast_rewrite_declines_files_with_comments_or_styles():
    item = model.validate("claim", {"id": "c-0123456789ab", "kind": "claim", "statement": "a fact",
                                    "status": "proposed", "created_at": "2026-11-29T10:00:00Z"}, "x")
    text = codec.dump(item)
    assert codec._rewrite_fast({**item, "status": "approved"}, text) == text.replace("proposed", "approved")
    assert codec._rewrite_fast(item, text.replace("a fact\n", "a fact  # why\n")) is None
    assert codec._rewrite_fast(item, text.replace("a fact\n", "'a fact'\n")) is None


def test_layout_is_block_style_with_yaml11_safe_quoting():
    item = model.validate("claim", {"id": "c-0123456789ab", "kind": "claim", "statement": "no",
                                    "categories": ["industry:healthcare", "answer:yes"],
                                    "paths": ["yes", "2026-03-14"],
                                    "status": "proposed", "created_at": "2026-11-29T10:00:00Z"}, "x")
    text = codec.dump(item)
    assert "statement: 'no'\n" in text
    assert "categories:\n- industry:healthcare\n- answer:yes\n" in text
    assert "paths:\n- 'yes'\n- '2026-03-14'\n" in text
    assert "created_at: 2026-11-29T10:00:00Z\n" in text and text.endswith("review: null\n")


def test_hand_comments_survive_a_rewrite():
    item = model.validate("claim", {"id": "c-0123456789ab", "kind": "claim", "statement": "a fact",
                                    "status": "proposed", "created_at": "2026-11-29T10:00:00Z"}, "x")
    text = codec.dump(item).replace("statement: a fact\n", "# why we believe this: the 2025 audit\n"
                                                           "statement: a fact  # see runbook\n")
    rewritten = codec.dump({**item, "status": "approved"}, text)
    assert "# why we believe this: the 2025 audit\n" in rewritten and "# see runbook" in rewritten
    assert "status: approved\n" in rewritten


@pytest.mark.parametrize("text, message", [
    ("a: !!python/object/apply:os.system ['echo hi']", "malformed YAML"),
    ("a: !!python/name:os.system", "malformed YAML"),
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6)),
     "alias expansion"),
    ("a: " + "[" * 40 + "]" * 40, "nested deeper"),
    ("".join("  " * i + "a:\n" for i in range(40)) + "  " * 40 + "a: 1\n", "nested deeper"),  # stable layout
    ("".join(f"k{i}: {i}\n" for i in range(60_000)), "more than"),
    ("key: [unclosed", "malformed YAML"),
])
def test_hostile_yaml_is_refused(text, message):
    with pytest.raises(SchemaError) as caught:
        codec.load(text.encode(), "evil.yaml")
    assert message in caught.value.message and caught.value.message.startswith("evil.yaml")


def test_size_is_bounded_and_bom_is_accepted():
    with pytest.raises(SchemaError, match="items are limited"):
        codec.load(b"a: " + b"x" * (codec.MAX_BYTES + 1), "big.yaml")
    assert codec.load("\ufeffa: 1".encode(), "bom.yaml") == {"a": 1}
    with pytest.raises(SchemaError, match="NUL"):
        codec.load(b"a: 1\0", "nul.yaml")


@settings(max_examples=100, deadline=None)
@given(claims())
def test_fast_writer_is_byte_identical_to_the_round_trip_writer(item):
    """The fast path for new files must never change the layout: it either matches ruamel exactly or declines."""
    fast = codec._dump_fast(item)
    if fast is not None:
        assert fast == codec.dump(item, previous="{}\n")  # force the ruamel path
    assert model.validate("claim", codec.load(codec.dump(item), "x"), "x") == item


def test_fast_writer_handles_the_everyday_item():
    item = model.validate("knowledge", {
        "id": "k-0123456789ab", "kind": "knowledge", "statement": "Healthcare buyers ask for audit logs early.",
        "canonical": "healthcare buyers ask for audit logs early", "categories": ["industry:healthcare"],
        "status": "candidate", "first_seen": "2026-11-29T10:00:00Z", "last_reinforced": "2026-11-29T10:00:00Z",
        "evidence": [{"entity": "acme", "writer": "a@b.c", "episode": None, "at": "2026-11-29T10:00:00Z"}],
    }, "x")
    fast = codec._dump_fast(item)
    assert fast is not None and fast == codec.dump(item, previous="{}\n")
    assert codec._load_fast(fast) == item  # and read back without the YAML parser


@pytest.mark.parametrize("text", ["category below the floor of 3 customers: industry:retail (2)", "**/*.sql",
                                  "yes", "#1 complaint", "ends with:", " padded", "it's: quoted twice"])
def test_fast_writer_quotes_what_ruamel_can_never_write_plain(text):
    item = {"reason": text, "paths": [text]}
    fast = codec._dump_fast(item)
    assert fast == codec._dump_rt(item, None) or (fast is None and "'" in text)


def _yaml_load(text):
    yaml, loader, _ = codec.yaml_loader()
    return yaml.load(text, Loader=loader)


def _same(a, b):
    """Equal with the same types all the way down (1 is not 1.0, True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@settings(max_examples=100, deadline=None)
@given(claims(), st.data())
def test_the_line_reader_returns_what_yaml_returns_or_declines(item, data):
    """Reading the stable layout without YAML is only an optimisation: same data, or None, for any text."""
    text = codec.dump(item)
    fast = codec._load_fast(text)
    assert fast is None or _same(fast, _yaml_load(text))
    lines = text.splitlines(keepends=True)
    at = data.draw(st.integers(0, len(lines) - 1))
    edit = data.draw(st.sampled_from(["  ", "- ", "yes: 1\n", " ", "#", "'", "x: [a]\n", "a: &x 1\n", ":", "\t"]))
    mutated = "".join(lines[:at]) + edit + "".join(lines[at:])
    fast = codec._load_fast(mutated)
    if fast is not None:
        assert _same(fast, _yaml_load(mutated))


FRAGMENTS = ["  ", "- ", "-", " ", ":", ": ", "'", "''", "{}", "[]", "#", "\n", "\u2028", "\x85", "yes", "1", "1.0",
             "0.5", "007", "null", "~", "x: 1\n", "- x\n", "  x: 1\n", "a:\n", "2026-01-01T00:00:00Z", "\t", "\"", "&a ",
             "*a", "!!str ", "%", "@", "|", ">", "é", "\u202e"]


@settings(max_examples=130, deadline=None)
@given(claims(), st.data())
def test_what_the_line_reader_accepts_is_what_the_writer_renders(item, data):
    """The line reader checks each value against the writer instead of rendering the whole file back: whatever it
    accepts, however mangled, must still be exactly what the writer renders from it (so what YAML reads alike)."""
    text = codec.dump(item)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        text = text[:at] + data.draw(st.sampled_from(FRAGMENTS)) + text[at + cut:]
    fast = codec._load_fast(text)
    if fast is not None:
        rendered: list[str] = []
        assert codec._fast_lines(fast, "", rendered, quoted=True)
        assert "\n".join(rendered) + "\n" == text
        assert _same(fast, _yaml_load(text))


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n", "yes: 1\n", "a:\n  b: 1\n  b: 2\n", "a: 0.50\n", "a: 007\n", "a: 1_000\n", "a: yes\n",
    "a:\n- {}\n", "a:\n", "a: ~\n", "a: 'it''s'\n", "a: '1'\n", "a: 2026-01-01\n", "a: *x\n", "a:  b\n",
])
def test_the_line_reader_declines_or_agrees_on_awkward_yaml(text):
    fast = codec._load_fast(text)
    try:
        expected = _yaml_load(text)
    except Exception:  # noqa: BLE001 - YAML refuses it: the line reader must not accept it either
        assert fast is None
        return
    assert fast is None or _same(fast, expected)


# -- duplicate keys (SPEC 11): an error naming both lines, from every reader ----------------------------------

@pytest.mark.parametrize("text, key, line, first", [
    ("id: c-0123456789ab\nkind: claim\nstatus: proposed\nstatement: x\nstatus: approved\n", "status", 5, 3),
    ("a: 1\nb:\n  c: 1\n  d: 2\n  c: 3\n", "c", 5, 3),  # nested, block style
    ("a:\n- x: 1\n  y: 2\n- x: 1\n  x: 2\n", "x", 5, 4),  # inside a sequence of mappings
    ("a: {b: 1, b: 2}\n", "b", 1, 1),  # flow style
    ("a: 1\n'a': 2\n", "a", 2, 1),  # the same key, quoted differently
])
def test_duplicate_keys_are_refused_naming_both_lines(text, key, line, first):
    assert codec._load_fast(text) is None  # the line reader never accepts it: it declines to YAML
    with pytest.raises(SchemaError) as caught:
        codec.load(text.encode(), "claims/01/c-0123456789ab.yaml")
    assert str(caught.value) == f"claims/01/c-0123456789ab.yaml:{line}: duplicate key {key!r} (first at line {first})"
    assert caught.value.line == line and caught.value.hint


def test_merge_keys_may_still_override_what_they_merge():
    assert codec.load(b"base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  x: 3\n", "m.yaml") == \
        {"base": {"x": 1, "y": 2}, "d": {"x": 3, "y": 2}}


@settings(max_examples=50, deadline=None)
@given(claims(), st.data())
def test_a_duplicated_line_in_the_stable_layout_is_never_read(item, data):
    """Regression (duplicate keys were last-wins): repeat any top-level line of a vmem-written file, anywhere below."""
    text = codec.dump(item)
    lines = text.splitlines(keepends=True)
    tops = [i for i, ln in enumerate(lines) if ln[:1].isalpha()]
    at = data.draw(st.sampled_from(tops[:-1]))
    to = data.draw(st.sampled_from([i for i in tops if i > at] + [len(lines)]))  # between two top-level keys
    key = lines[at].partition(":")[0]
    mutated = "".join(lines[:to] + [lines[at]] + lines[to:])
    assert codec._load_fast(mutated) is None
    with pytest.raises(SchemaError, match=rf"duplicate key {key!r} \(first at line {at + 1}\)"):
        codec.load(mutated, "x.yaml")


def test_the_fast_writer_never_drops_a_trailing_newline():
    """Regression: `$` matched before a final newline, so 'x\\n' was written as a two-line quoted scalar ('x ')."""
    for text in ("x\n", "2026-01-01T00:00:00Z\n", "a: b\n", "it's\n"):
        item = {"title": text, "paths": [text]}
        written = codec.dump(item)
        assert codec.load(written, "x") == item, written


def test_line_finder_names_nested_keys():
    text = ("# policy\nknowledge:\n  k_min: 3  # k\n  blocker:\n    threshold: 0.5\n"
            "  judge:\n    timeout_s: 30\nsync:\n  dir: x\n")
    find = codec.line_finder(text)
    assert [find("knowledge"), find("knowledge.k_min"), find("knowledge.blocker.threshold"),
            find("knowledge.judge.timeout_s"), find("sync.dir")] == [2, 3, 5, 7, 9]
    assert find("knowledge.nope") is None and find("sync.dir.x") is None and find("k_min") is None


YAML11_EDGES = ["", "~", "null", "Null", "NULL", "nULL", "y", "Y", "n", "N", "yes", "YES", "yEs", "on", "Off", "oFF",
                "true", "TRUE", "tRUE", "0", "-0", "+0", "00", "0b101", "-0b1_0", "0b", "0o17", "017", "019", "0x1F",
                "0xg", "1_000", "_1", "1__", "12:30", "1:60", "190:20:30", "-1:5", "1.0", "1.", ".5", "-.5", "1e5",
                "1.0e5", "1.0e+5", "1.5e-3", "1:30.5", ".inf", "-.Inf", "+.INF", ".NaN", ".nan", "-.nan", ".", "-",
                "+", "2026-03-14", "2026-3-14", "2026-03-14T10:00:00", "2026-3-4 1:02:03.5 +01:00", "2026-03-14t10:00:00Z",
                "2026-03-14 10:00:00 Z", "2026-03-14T10:00", "12026-03-14", "<<", "<", "=", "==", "!", "&", "*", "!x",
                "yes\n", "1\n", "\n", "true ", " true", "1 ", "١٢", "²", "1.0\n"]


@pytest.mark.parametrize("text", YAML11_EDGES)
def test_yaml11_resolution_equals_pyyaml_on_its_edges(text):
    """The writer decides quoting without importing PyYAML: its table of YAML 1.1's implicit types must read
    every plain scalar as PyYAML's resolver does (a difference would write a value another reader takes as a
    number, a boolean or a date, or quote one that needs none)."""
    import yaml

    resolver = yaml.resolver.Resolver()
    expected = resolver.resolve(yaml.ScalarNode, text, (True, False)) != "tag:yaml.org,2002:str"
    assert codec._resolves_to_non_str(text) == expected


@pytest.mark.slow
@settings(max_examples=1000)
@given(st.one_of(st.text("0123456789_:.-+eEbxoaAfFinINtTyYsSlLuUrRZ \t\n<=!&*~", max_size=24), WORDS,
                 st.from_regex(r"[-+]?[0-9_]{1,4}(:[0-9]{1,2}){0,2}(\.[0-9_]{0,3})?([eE][-+]?[0-9]{1,2})?", fullmatch=True),
                 st.from_regex(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?"
                               r"( ?(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?", fullmatch=True)))
def test_yaml11_resolution_equals_pyyaml(text):
    import yaml

    resolver = yaml.resolver.Resolver()
    expected = resolver.resolve(yaml.ScalarNode, text, (True, False)) != "tag:yaml.org,2002:str"
    assert codec._resolves_to_non_str(text) == expected


def test_a_write_and_a_read_of_the_stable_layout_do_not_import_pyyaml():
    """PyYAML is imported only for a file outside the stable layout (its import is ~13 ms of every write)."""
    import subprocess
    import sys

    code = ("import sys\nfrom vmem.store import codec\nfrom vmem import model\n"
            "item = {'id': 'c-0123456789ab', 'statement': 'The orders feed lags 2 days', 'status': 'proposed',"
            " 'categories': ['industry:retail'], 'confidence': 0.7, 'valid_to': None}\n"
            "assert codec.load(codec.dump(item), 'x') == item\n"
            "print('yaml' in sys.modules)\n"
            "codec.load('a: [1, 2]\\n', 'y')\nprint('yaml' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_a_file_outside_the_stable_layout_is_parsed_once_per_content(tmp_path, monkeypatch):
    """The commented policy and hand-written entities are read from a cache keyed by their blob id; a cache file
    that does not hold the very same text (stale, damaged or planted) is never taken for it."""
    import marshal

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = "# a comment\nname: Acme  # and another\nrestricted:\n- $4.7M deal\n"
    blob = "ab" * 20
    assert codec._load_fast(text) is None
    assert codec.load(text, "entities/acme.yaml", blob) == {"name": "Acme", "restricted": ["$4.7M deal"]}
    cached = codec._parsed_file(blob)
    assert cached.is_file()
    cached.write_bytes(marshal.dumps((text.replace("Acme", "Evil"), {"name": "Evil", "restricted": []})))
    assert codec.load(text, "entities/acme.yaml", blob)["name"] == "Acme"  # planted for other text: ignored
    cached.write_bytes(marshal.dumps((text, {"name": "Acme", "restricted": ["$4.7M deal"]})))
    assert codec.load(text, "entities/acme.yaml", blob)["restricted"] == ["$4.7M deal"]
    cached.write_bytes(b"\x00garbage")
    assert codec.load(text, "entities/acme.yaml", blob)["name"] == "Acme"  # damaged: parsed again
    with pytest.raises(SchemaError, match="duplicate key"):
        codec.load("a: 1\na: 2\n", "x.yaml", "cd" * 20)  # errors are never cached
    assert codec._parsed_file("../../etc/passwd") is None  # only a hex id ever becomes a path
