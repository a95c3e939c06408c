"""The stable layout compiled from the schema: one regular expression per kind reads a vmem-written item file.

The line reader (codec._load_fast) walks a file line by line and validation (model.validate) then walks the data
field by field; on a fresh clone every item version goes through both (~160 µs a file). A file vmem wrote has
every field of its kind, in schema order, at the indentation the writer uses, so its whole shape is known in
advance: `read` matches it with one expression built from model.SCHEMAS (a group per field, nested records and
lists of records by their own expressions) and turns each field's text into its validated value through the
codec's own value reader (codec.read_scalar, the writer's quoting held value by value) and the field's own check,
remembered per distinct text (statuses, names, stamps and confidences repeat across thousands of files).

It only ever declines: a missing, extra, reordered or repeated field, any other indentation, a comment, a value
the writer would not write as it stands, a value its check refuses, a value Python cannot hold, a file over the
size bound. The caller then takes the line reader (or YAML) and validation as before, which also word the error.
What it accepts it returns exactly as model.validate(kind, codec.load(text)) does: for every value but one kind,
by the line reader's own argument (codec.read_scalar accepts a text only if the writer writes its value as exactly
that text). The exception is a double-quoted line without escapes (ruamel writes text with both quotes and a
colon so), which the line reader leaves to PyYAML: YAML reads a one-line double-quoted scalar without a backslash
as the characters between the quotes, provided each is printable to YAML (_DOUBLE). tests/test_layout.py holds
the whole to codec.load on generated, mangled and hostile files.

A list field is read entry by entry with the entry's check: model._list is exactly that (a check that judged the
list as a whole would have no `each`, so _shape would take it for a scalar, whose one-line pattern never matches
a block: such a field would decline, not be misread).
"""

from __future__ import annotations

import re
from datetime import datetime

from vmem import model
from vmem.store import codec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_MISSING = object()
_MEMO_CAP = 50_000  # values remembered per field (immutable values only); beyond this a field's memo starts over
_IMMUTABLE = (str, int, float, bool, type(None))


class _Decline(Exception):
    """The file is not in the compiled layout (or a value does not check): the slow path decides."""


def _shape(check: Callable) -> tuple[str, Any]:
    """(form, detail) of a field's check, optional or not: ("scalar", None), ("list", item check), ("record",
    fields)."""
    while hasattr(check, "optional"):
        check = check.optional
    if hasattr(check, "each"):
        return "list", check.each
    if hasattr(check, "fields"):
        return "record", check.fields
    return "scalar", None


class _Record:
    """The compiled layout of one record (a kind, or a nested record) whose first line starts with FIRST and the
    others with REST (the same width: an entry's "- " or its indentation)."""

    def __init__(self, fields: tuple, first: str, rest: str) -> None:
        steps: list[tuple] = []  # (name, form, group, field, memo, inner)
        parts = []
        for n, field in enumerate(fields):
            prefix = re.escape(first if n == 0 else rest)
            form, detail = _shape(field.check)
            group = f"g{n}"
            slot: dict = {}  # this field's memo: a block's text -> its value
            inner: Any = None
            if form == "scalar":
                slot = _memo(field.check)
                # "null" is the field's default, as the codec (None) and validation make it: matched here, it is
                # never looked up (an item has ~5 such fields, and a default is never remembered)
                parts.append(rf"{prefix}{field.name}: (?:null|(?P<{group}>[^\n]*))\n")
            elif form == "list":
                item_form, item_detail = _shape(detail)
                dash = re.escape(rest + "- ")
                if item_form == "scalar":
                    entry = model.Field(field.name, detail, True)  # an entry's own memo: required, no default
                    inner = ("scalar", _memo(detail), entry, len(rest) + 2)
                    parts.append(rf"{prefix}{field.name}:(?: (?P<{group}e>\[\])\n| null\n|"
                                 rf"\n(?P<{group}>(?:{dash}[^\n]*\n)+))")
                elif item_form == "record":
                    inner = ("record", _Record(item_detail, rest + "- ", rest + "  "))
                    more = re.escape(rest + "  ")
                    parts.append(rf"{prefix}{field.name}:(?: (?P<{group}e>\[\])\n| null\n|"
                                 rf"\n(?P<{group}>(?:{dash}[^\n]*\n(?:{more}[^\n]*\n)*)+))")
                else:
                    raise AssertionError(f"no compiled layout for a list of {item_form} ({field.name})")
            else:  # a record: "name: null" or its fields indented below
                inner = _Record(detail, rest + "  ", rest + "  ")
                more = re.escape(rest + "  ")
                parts.append(rf"{prefix}{field.name}:(?: null\n|\n(?P<{group}>(?:{more}[^\n]*\n)+))")
            if not field.required:
                parts[-1] = f"(?:{parts[-1]})?"  # an absent field is its default, as validation makes it
            steps.append((field.name, form, group, field, slot, inner))
        self.pattern = re.compile("".join(parts))
        where = self.pattern.groupindex  # each step's groups by position (found.groups() is a tuple): -1 for none
        self.plan = [(name, form, field, memo, inner, where[group] - 1, where.get(group + "e", 0) - 1)
                     for name, form, group, field, memo, inner in steps]

    def read(self, text: str, pos: int = 0, whole: bool = True) -> tuple[dict, int]:
        found = self.pattern.fullmatch(text, pos) if whole else self.pattern.match(text, pos)
        if found is None:
            raise _Decline
        groups = found.groups()
        out: dict = {}
        for name, form, field, memo, inner, at, empty in self.plan:
            raw = groups[at]
            if raw is not None:
                value = memo.get(raw, _MISSING)
                if value is _MISSING:
                    value = _value(memo, field, raw) if form == "scalar" else _block(memo, inner, field, raw)
                elif form != "scalar":
                    value = _copy(value)
                out[name] = value
            elif empty >= 0 and groups[empty] is not None:
                out[name] = field.check([])  # "[]"
            else:
                out[name] = _default(field)  # "null", or the field absent
        return out, found.end()


def _block(memo: dict, inner, field, raw: str) -> Any:
    """A list field's or record field's block RAW, read (and remembered by its text, when short)."""
    if type(inner) is tuple:
        value = _entries(inner, field, raw)
    else:
        value, _ = inner.read(raw)
    if len(raw) < 300:
        _remember(memo, raw, value)
        return _copy(value)
    return value


def _copy(value: Any) -> Any:
    """A fresh copy of a remembered list or record (callers may change what they are given)."""
    if type(value) is dict:
        return {k: _copy(v) if type(v) in (dict, list) else v for k, v in value.items()}
    return [_copy(v) if type(v) in (dict, list) else v for v in value]


_MEMOS: dict = {}  # a scalar check (optional or not) -> {text: its validated value}: shared by every field it
# checks, so a stamp written as created_at and again as valid_from is checked once


def _memo(check: Callable) -> dict:
    """The memo of CHECK's values (shared by every field its base check serves); registers CHECK's certificate."""
    base = check
    while hasattr(base, "optional"):
        base = base.optional  # the value is never None when the memo is asked: the same check decides
    certificate = _CERTIFICATES.get(base)
    if certificate is not None:
        _CERTIFIED[check] = certificate
    return _MEMOS.setdefault(base, {})


# Certificates: for a text that passes one, the codec's value reader and the field's check are known to return the
# text itself, so neither is run (the statement, the commonest unique value, cost ~13 us through both, ~2 us so).
# Free text (check_str, check_nonempty, optional or not): a letter first, then only what the writer leaves plain (codec._PLAIN)
# with none of what rules a plain scalar out (codec._RESERVED: ": ", " #", "  ", a final ":" or space), and not one
# of YAML 1.1's words for true, false or null (codec._NON_TEXT; its other forms start with a digit, a sign or a
# symbol). A letter first also rules out the number, quote, null and stamp readings of codec.read_scalar; the text has
# no space at either end, so _nonempty's strip() keeps it whole. An item id matches model.ITEM_ID: a letter, "-"
# and hex digits, which the writer leaves plain too; a stamp, see _stamp. tests/test_layout.py holds each
# certificate to the two functions it stands for, on generated texts.
_TEXT = re.compile(r"[^\W\d_][\w.,;()/%$+=@~'*?!&\"…–—‘’“”\- :]*")
_WORDS = frozenset("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL".split())
_TEXT_MAX = 1_000  # codec._fast_str leaves longer texts to ruamel


def _plain_text(raw: str) -> bool:
    return (len(raw) < _TEXT_MAX and _TEXT.fullmatch(raw) is not None and ": " not in raw and " #" not in raw
            and "  " not in raw and raw[-1] not in " :" and raw not in _WORDS)


def _stamp(raw: str) -> bool:
    """A stamp in vmem's canonical form (a digit 1-9 first, so also codec._CANONICAL_TS: the codec reads it as the
    text) that names a real moment (_ts returns it as it is)."""
    if model.CANONICAL_TS.fullmatch(raw) is None:
        return False
    try:
        _moment(raw[:19])  # what normalize_ts asks of a canonical stamp before returning it as it is
    except ValueError:
        return False
    return True


_moment = datetime.fromisoformat
_CERTIFICATES = {model.check_str: _plain_text, model.check_nonempty: _plain_text, model.check_item_ref: model.ITEM_ID.match,
                 model.check_ts: _stamp}
_CERTIFIED: dict = {}  # a field's check (optional or not) -> its certificate


def _default(field) -> Any:
    """What validation makes of a field that is absent or null (a required one: the slow path's error)."""
    if field.required:
        raise _Decline
    return field.default() if callable(field.default) else field.default


def _value(memo: dict, field, raw: str) -> Any:
    """The validated value of FIELD written as RAW, as the line reader and model.validate make it; remembered in
    MEMO (its check's) when it is short and immutable."""
    certificate = _CERTIFIED.get(field.check)
    if certificate is not None and certificate(raw):
        if len(raw) < 80:
            _remember(memo, raw, raw)
        return raw  # what codec.read_scalar and the check would both return
    if raw in ("[]", "{}"):  # the line reader makes an empty container of these; a scalar's check refuses it
        raise _Decline
    if raw[:1] == '"':  # ruamel's choice for text with both quotes and a colon, say
        if _DOUBLE.fullmatch(raw) is None:
            raise _Decline
        value = raw[1:-1]
    else:
        value = codec.read_scalar(raw)
        if value is codec.BAD:
            raise _Decline
    if value is None:
        return _default(field)  # the field's own default: never remembered (the memo is its check's)
    try:
        checked = field.check(value)
    except ValueError:
        raise _Decline from None
    if len(raw) < 80 and isinstance(checked, _IMMUTABLE):
        _remember(memo, raw, checked)
    return checked


def _remember(memo: dict, raw: str, value: Any) -> None:
    if len(memo) > _MEMO_CAP:
        memo.clear()
    memo[raw] = value


def _entries(inner: tuple, field, raw: str) -> list:
    """A list field's block RAW, entry by entry; the field's own check decides the list as a whole."""
    if inner[0] == "scalar":
        _, memo, entry, dash = inner
        values = []
        for line in raw[:-1].split("\n"):
            item_raw = line[dash:]
            value = memo.get(item_raw, _MISSING)  # a remembered text passed _scalar or _DOUBLE: never "key: ..."
            if value is _MISSING:
                if _KEY.match(item_raw) is not None:
                    raise _Decline  # "- key: value" opens a mapping in YAML (and in the line reader)
                value = _value(memo, entry, item_raw)
            values.append(value)
        return values
    record, values, pos = inner[1], [], 0
    while pos < len(raw):
        value, pos = record.read(raw, pos, whole=False)
        values.append(value)
    return values


# A double-quoted line without escapes: YAML reads it as the text between the quotes, whatever it holds, if every
# character is printable to YAML (no control, line-break, surrogate or BOM character; a tab is a control here).
_DOUBLE = re.compile('"[^"\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]*"')
_KEY = re.compile(r"[a-z][a-z0-9_]*:(?= |$)")  # what the line reader takes for an entry's first key


_KINDS: dict[str, _Record] = {}


def _compiled(kind: str) -> _Record:
    found = _KINDS.get(kind)
    if found is None:
        found = _KINDS[kind] = _Record(model.SCHEMAS[kind], "", "")
    return found


def read(kind: str, text: str) -> dict | None:
    """The validated item TEXT holds if it is a complete vmem-written KIND file in the stable layout, else None."""
    if not text.endswith("\n") or "\r" in text or "\t" in text or len(text) > codec.MAX_BYTES:
        return None
    if 2 * text.count("\n") + 1 > codec.MAX_NODES:
        return None  # the line reader's bounds, exactly (the depth of a compiled layout is at most 4)
    try:
        value, _ = _compiled(kind).read(text)
    except (_Decline, ValueError, ArithmeticError):  # a value Python cannot hold: the slow path words the error
        return None
    return value
