"""The compiled stable layout (store/layout.py) is only an optimisation of the full reader: for any text it returns
exactly what model.validate(kind, codec.load(text)) returns (same values, same types, same key order), or
declines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_codec import CATEGORY, FRAGMENTS, STAMP, WORDS, _same, claims

from vmem import model
from vmem.errors import SchemaError
from vmem.store import codec, layout

ITEM_ID = st.text("0123456789abcdef", min_size=12, max_size=12)
NAME = st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)


@st.composite
def learnings(draw):
    evidence = [{"entity": draw(NAME), "writer": draw(WORDS.filter(lambda s: s.strip())),
                 "episode": draw(st.one_of(st.none(), NAME)), "at": draw(STAMP), "tier": draw(st.integers(1, 3))}
                for _ in range(draw(st.integers(0, 4)))]
    gate = draw(st.one_of(st.none(), st.builds(lambda passed, checks, reason, at: {
        "passed": passed, "checks": checks, "reason": reason, "at": at},
        st.booleans(), st.fixed_dictionaries({k: st.booleans() for k in ("deid", "k_support", "writers",
                                                                          "category_floor")}),
        st.one_of(st.none(), WORDS), STAMP)))
    return model.validate("knowledge", {
        "id": "k-" + draw(ITEM_ID),
        "kind": "knowledge",
        "statement": draw(WORDS.filter(lambda s: s.strip())),
        "canonical": draw(WORDS),
        "categories": draw(st.lists(CATEGORY, max_size=4)),
        "status": draw(st.sampled_from(model.KNOWLEDGE_STATUSES)),
        "evidence": evidence,
        "merges": [{"from": "k-" + draw(ITEM_ID), "judge": draw(st.sampled_from(["canonical", "reviewer"])),
                    "reason": draw(st.one_of(st.none(), WORDS)), "at": draw(STAMP)}
                   for _ in range(draw(st.integers(0, 2)))],
        "gate": gate,
        "audience": draw(st.one_of(st.none(), st.sampled_from(["all", "group:finance"]))),
        "published": draw(st.one_of(st.none(), st.builds(lambda by, at: {"by": by, "at": at},
                                                         WORDS.filter(lambda s: s.strip()), STAMP))),
        "first_seen": draw(STAMP),
        "last_reinforced": draw(STAMP),
        "suggestions": draw(st.one_of(st.none(), st.lists(st.builds(
            lambda i, score: {"id": "k-" + i, "score": score}, ITEM_ID, st.floats(0, 1)), max_size=3))),
        "distinct": [{"id": "k-" + draw(ITEM_ID), "by": "rita@example.com", "at": draw(STAMP), "reason": None}
                     for _ in range(draw(st.integers(0, 2)))],
    }, "generated")


ITEMS = st.one_of(claims().map(lambda i: ("claim", i)), learnings().map(lambda i: ("knowledge", i)))


def _slow(kind: str, text: str):
    """What the full reader makes of TEXT: the line reader or YAML, then validation (None: refused)."""
    try:
        return model.validate(kind, codec.load(text, "x"), "x")
    except SchemaError:
        return None


@settings(max_examples=70, deadline=None)
@given(ITEMS)
def test_every_file_the_writer_writes_is_read_as_the_slow_path_reads_it(generated):
    kind, item = generated
    text = codec.dump(item)
    fast = layout.read(kind, text)
    if codec._load_fast(text) is not None:
        assert fast is not None, text  # not vacuous: what the line reader takes, the compiled layout takes
    if fast is not None:
        assert _same(fast, _slow(kind, text)) and _same(fast, item)


@settings(max_examples=80, deadline=None)
@given(ITEMS, st.data())
def test_a_mangled_file_is_declined_or_read_exactly_as_the_slow_path_reads_it(generated, data):
    kind, item = generated
    text = codec.dump(item)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        text = text[:at] + data.draw(st.sampled_from(FRAGMENTS)) + text[at + cut:]
    fast = layout.read(kind, text)
    if fast is not None:
        assert _same(fast, _slow(kind, text)), text


@settings(max_examples=50, deadline=None)
@given(ITEMS, st.data())
def test_lines_moved_dropped_or_repeated_are_declined_or_read_as_the_slow_path_reads_them(generated, data):
    kind, item = generated
    lines = codec.dump(item).splitlines(keepends=True)
    at = data.draw(st.integers(0, len(lines) - 1))
    to = data.draw(st.integers(0, len(lines)))
    edit = data.draw(st.sampled_from(["drop", "repeat", "move", "indent", "dedent"]))
    line = lines[at]
    if edit == "drop":
        del lines[at]
    elif edit == "repeat":
        lines.insert(to, line)
    elif edit == "move":
        del lines[at]
        lines.insert(min(to, len(lines)), line)
    elif edit == "indent":
        lines[at] = "  " + line
    elif line.startswith("  "):
        lines[at] = line[2:]
    text = "".join(lines)
    fast = layout.read(kind, text)
    if fast is not None:
        assert _same(fast, _slow(kind, text)), text


@pytest.mark.parametrize("edit", [
    ("status: approved", "status: approvedd"),  # a value its check refuses
    ("kind: claim\n", "kind: claim\nextra: 1\n"),  # an unknown field
    ("id: c-", "id: C-"),  # an id that is not one
    ("confidence: 0.9", "confidence: 1.5"),
    ("- table:orders", "- table: orders"),  # an entry that YAML reads as a mapping
    ("created_at: 2026-11-01T00:00:00Z", "created_at: 2026-13-01T00:00:00Z"),
])
def test_what_validation_refuses_is_declined_and_the_slow_path_names_the_problem(edit):
    text = CLAIM.replace(*edit)
    assert text != CLAIM
    assert layout.read("claim", text) is None
    with pytest.raises(SchemaError):
        model.validate("claim", codec.load(text, "c.yaml"), "c.yaml")


CLAIM = """id: c-000f71aa012a
kind: claim
title: null
statement: The core.orders table is rebuilt nightly at 07:00 UTC; queries that run earlier see yesterday's rows.
scope: org
class: factual
domain: operations
categories:
- table:orders
paths: []
status: approved
audience: group:operations
personal: false
source:
  type: definition
  user: kiran.rao@example.com
  episode: null
confidence: 0.9
verifications: []
created_at: 2026-11-01T00:00:00Z
valid_from: 2026-11-01T00:00:00Z
valid_to: null
expires_at: 2027-01-30T00:00:00Z
supersedes: c-cf94a8560489
superseded_by: null
review:
  by: jonas.silva@example.com
  at: 2026-11-01T00:00:00Z
  action: approve
  reason: null
"""


_HOSTILE = CLAIM.replace("title: null", 'title: "x"') + "  junk\n"  # a double quote sends the full path to YAML


@pytest.mark.parametrize("text", [
    CLAIM.replace("statement: The core.orders table", "statement: " + "1" * 4301 + "\nx: The"),  # int() refuses it
    CLAIM.replace("created_at: 2026-11-01T00:00:00Z", "created_at: '0001-01-01T00:00:00+01:00'"),  # before year 1
    _HOSTILE.replace("statement: The core.orders table", "statement: " + "1" * 4301 + "\nx: The"),
    _HOSTILE.replace("created_at: 2026-11-01T00:00:00Z", "created_at: '0001-01-01T00:00:00+01:00'"),
    CLAIM.replace("title: null", 'title: "' + "a" * (1 << 20) + '"'),  # over the size bound, on one line
    CLAIM.replace("paths: []\n", "paths:\n" + ("- " + "b" * 990 + "\n") * 1060),  # over it, in many lines
], ids=["long-int", "year-0", "long-int-then-junk", "year-0-then-junk", "one-long-line", "many-long-lines"])
def test_a_value_python_cannot_hold_or_an_oversized_file_is_a_schema_error_never_a_crash(text):
    """Found by an adversarial review: the compiled layout raised ValueError or OverflowError (and accepted files
    over the size bound), and so did the full path on the first two; a committed file like these crashed sync."""
    text = text.replace("\nx: The core.orders table is rebuilt nightly at 07:00 UTC; queries that run earlier see "
                        "yesterday's rows.", "")
    assert layout.read("claim", text) is None
    with pytest.raises(SchemaError):
        model.validate("claim", codec.load(text, "c.yaml"), "c.yaml")


def test_a_hand_comment_is_left_to_the_yaml_reader():
    text = CLAIM.replace("status: approved", "status: approved  # checked with finance")
    assert layout.read("claim", text) is None
    assert model.validate("claim", codec.load(text, "c.yaml"), "c.yaml") == layout.read("claim", CLAIM)


def test_a_double_quoted_line_is_read_as_yaml_reads_it_or_declined():
    for statement, read in (('"it\'s: a colon"', "it's: a colon"), ('"#hash, \'quotes\': é"', "#hash, 'quotes': é"),
                            ('"null"', "null"), ('"  padded "', "padded"), ('"a\\tb"', None), ('"a\tb"', None),
                            ('"a""b"', None), ('"open', None), ('"\u2028"', None), ('"\x85"', None)):
        text = CLAIM.replace("statement: The core.orders table", f"statement: {statement}\nx: The core.orders table")
        text = text.replace("\nx: The core.orders table is rebuilt nightly at 07:00 UTC; queries that run earlier see "
                            "yesterday's rows.", "")
        fast = layout.read("claim", text)
        assert (fast["statement"] if fast else None) == read, statement
        if fast is not None:
            assert fast == _slow("claim", text)


def test_the_everyday_claim_is_read_by_the_compiled_layout():
    item = layout.read("claim", CLAIM)
    assert item is not None and item == model.validate("claim", codec.load(CLAIM, "c.yaml"), "c.yaml")
    assert item["categories"] == ["table:orders"] and item["review"]["action"] == "approve"
    # fields a file written by an older vmem lacks are their defaults, as validation makes them
    older = CLAIM.replace("domain: operations\n", "").replace("verifications: []\n", "")
    assert layout.read("claim", older) == model.validate("claim", codec.load(older, "c.yaml"), "c.yaml")


# -- certificates: a value text the reader takes as it stands, without the codec's value reader or the check ------

_PIECES = st.sampled_from(["a", "Z", "é", "Ω", "ß", "9", "0", "_", " ", "  ", ":", ": ", " #", "#", "'", '"', "-", ".",
                           ",", ";", "(", ")", "/", "%", "$", "+", "=", "@", "~", "*", "?", "!", "&", "…", "–", "“",
                           "[", "]", "{", "}", "|", ">", "`", "^", "\\", "\t", "\u00a0", "\u2028", "yes", "No",
                           "null", "NULL", "true", "Off", "on", "1.5", "0x1f", "2026-01-02", "T10:00:00Z", "<<",
                           "c-", "k-", "0123456789ab", "abcdef"])
CERTIFIED = [(model.check_str, "_str"), (model.check_nonempty, "_nonempty"), (model.check_item_ref, "_item_ref"), (model.check_ts, "_ts")]


def _yaml_reads(raw: str):
    import yaml

    try:
        return yaml.safe_load(f"v: {raw}\n")["v"]
    except Exception:  # noqa: BLE001 - not a YAML scalar: the certificate must not pass it either
        return SchemaError


_RAW = st.one_of(
    st.lists(_PIECES, max_size=8).map("".join),
    st.tuples(st.sampled_from(["a", "Z", "é", "Ω", "ß"]), st.lists(_PIECES, max_size=8))
    .map(lambda t: t[0] + "".join(t[1])),
    st.text(max_size=30),
    st.builds(lambda k, h: f"{k}-{h}", st.sampled_from("ckx"), st.text("0123456789abcdefA", min_size=11, max_size=13)),
    st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", fullmatch=True))


@settings(max_examples=700, deadline=None)
@given(_RAW)
def test_a_certified_value_is_what_the_codec_the_check_and_yaml_make_of_it(raw):
    for check, name in CERTIFIED:
        if layout._CERTIFICATES[check](raw):
            assert codec.read_scalar(raw) == raw, (name, raw)
            assert check(raw) == raw, (name, raw)
            assert _yaml_reads(raw) == raw or (check is model.check_ts and str(_yaml_reads(raw)).startswith(raw[:10])), \
                (name, raw)


def test_the_certificates_pass_everyday_values_and_refuse_what_yaml_or_the_writer_reads_otherwise():
    text, ref, stamp = (layout._CERTIFICATES[c] for c in (model.check_nonempty, model.check_item_ref, model.check_ts))
    for good in ("Revenue is net of refunds.", "Join on account_id (not e-mail); 27% fan out", "Ünïcode ratio 3:1 holds",
                 "Él dijo “sí”…", "x"):
        assert text(good), good
    for bad in ("yes", "Null", "off", "a: b", "a #b", "ends:", "ends ", "two  spaces", "1st", "_x", "'q'", '"q"',
                "- item", "[a]", "a\tb", "", "é\u2028", "x" * 1000, "key: value"):
        assert not text(bad), bad
    assert ref("c-0123456789ab") and not ref("c-0123456789AB") and not ref("c-0123456789ab\n")
    assert stamp("2026-01-02T10:00:00Z") and not stamp("2026-02-30T10:00:00Z") and not stamp("0999-01-02T10:00:00Z")
    assert not stamp("2026-01-02 10:00:00Z")
