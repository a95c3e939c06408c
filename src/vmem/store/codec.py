"""YAML codec: a safe, bounded, C-accelerated reader and a round-trip writer with one stable layout."""

from __future__ import annotations

import io
import re

from vmem.errors import SchemaError
from vmem.lazyre import lazy

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Any

MAX_BYTES = 1 << 20  # an item is a few hundred bytes; a megabyte is already hostile
MAX_NODES = 50_000  # bounds alias expansion ("billion laughs") and absurd nesting
MAX_DEPTH = 32

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_MERGE_TAGS = frozenset({"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})  # `<<` and `=` keys
_loader = None


def yaml_loader():
    """PyYAML's safe loader, built on first use: files in the stable layout are read without it (below), so a
    write or a sync never imports PyYAML (~13 ms, most of it compiling its reader's character class)."""
    global _loader
    if _loader is not None:
        return _loader
    import yaml

    class DuplicateKey(yaml.YAMLError):
        def __init__(self, key: Any, line: int, first: int) -> None:
            super().__init__(f"duplicate key {key!r}")
            self.key, self.line, self.first = key, line, first

    class SafeLoader(yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader):  # type: ignore[misc]
        """libyaml's safe loader, but timestamps stay text (vmem normalises them itself) and a key may appear only
        once in a mapping: PyYAML keeps the last value silently, so a second `status:` line would override the
        first."""

        def construct_mapping(self, node, deep=False):  # noqa: ANN001 - PyYAML's signature
            """PyYAML's loop, once, with a duplicate check (as fast as PyYAML's own, which loops twice)."""
            if not isinstance(node, yaml.MappingNode):
                return super().construct_mapping(node, deep=deep)  # PyYAML's error
            mapping: dict = {}
            first: dict = {}  # key -> its key node, for the line
            for key_node, value_node in node.value:
                if key_node.tag in _MERGE_TAGS:
                    return self._construct_merged(node, deep)
                key = self.construct_object(key_node, deep=deep)
                try:
                    seen = first.setdefault(key, key_node)
                except TypeError:
                    raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark,
                                                            "found unhashable key", key_node.start_mark) from None
                if seen is not key_node:
                    raise DuplicateKey(key, key_node.start_mark.line + 1, seen.start_mark.line + 1)
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping

        def _construct_merged(self, node, deep):  # noqa: ANN001
            """A mapping with `<<: *base`: its own keys may override merged ones, as YAML intends, not each other."""
            first: dict = {}
            for key_node, _ in node.value:
                if key_node.tag in _MERGE_TAGS:
                    continue
                key = self.construct_object(key_node, deep=deep)  # memoised: PyYAML reuses it below
                try:
                    seen = first.setdefault(key, key_node)
                except TypeError:
                    break  # PyYAML reports it
                if seen is not key_node:
                    raise DuplicateKey(key, key_node.start_mark.line + 1, seen.start_mark.line + 1)
            return super().construct_mapping(node, deep=deep)

    SafeLoader.yaml_implicit_resolvers = {
        first: [r for r in resolvers if r[0] != _TIMESTAMP_TAG]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _loader = (yaml, SafeLoader, DuplicateKey)
    return _loader


def decode(data: bytes, path: str) -> str:
    if len(data) > MAX_BYTES:
        raise SchemaError(path, f"file is {len(data):,} bytes; items are limited to {MAX_BYTES:,}",
                          "an item holds one statement; split or trim the file")
    if b"\0" in data:
        raise SchemaError(path, "file contains NUL bytes (binary, not YAML)", "restore the file from git")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SchemaError(path, f"not UTF-8 (byte 0x{data[exc.start]:02x})", "re-save the file as UTF-8",
                          line=line) from None


def load(data: bytes | str, path: str, blob: str | None = None) -> Any:
    """Parse one store file safely: size-bounded, no object tags, bounded aliases, text timestamps.

    BLOB, the git id of the file's content, lets a file outside the stable layout (the commented policy, a
    hand-written entity) be read from a small cache of parsed content instead of importing PyYAML again."""
    text = decode(data, path) if isinstance(data, bytes) else data
    if len(text) > MAX_BYTES:
        raise SchemaError(path, f"file is larger than {MAX_BYTES:,} bytes", "an item holds one statement")
    bounded: list[bool] = []
    value = _load_fast(text, bounded)
    if value is None and blob is not None:
        value = _parsed(blob, text)
    if value is not None:
        if bounded != [True]:
            _check_bounds(value, path)  # the same size and depth bounds as for YAML
        return value
    value = _load_yaml(text, path)
    if blob is not None:
        _remember(blob, text, value)
    return value


_PARSED_DIR = "parsed"  # under vmem's cache directory: one marshal file per blob id (content-addressed)


def _parsed_file(blob: str):
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", blob):
        return None
    from vmem.store.cache import cache_home

    return cache_home() / _PARSED_DIR / blob[:2] / f"{blob}.marshal"


def _parsed(blob: str, text: str) -> Any:
    """The YAML loader's result for TEXT as cached under its blob id; None when not cached (or not for this text:
    the text is kept with the value, so a stale or planted file is never taken for another content)."""
    import marshal

    path = _parsed_file(blob)
    try:
        cached = marshal.loads(path.read_bytes()) if path is not None else None
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if isinstance(cached, tuple) and len(cached) == 2 and cached[0] == text and isinstance(cached[1], dict):
        return cached[1]
    return None


def _remember(blob: str, text: str, value: Any) -> None:
    import marshal
    import os

    path = _parsed_file(blob)
    if path is None or not isinstance(value, dict):
        return
    try:
        payload = marshal.dumps((text, value))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(payload)
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass  # a cache: not writing it only costs the next reader a parse


def _load_yaml(text: str, path: str) -> Any:
    yaml, loader, duplicate = yaml_loader()
    try:
        value = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader subclass
    except duplicate as exc:
        raise SchemaError(path, f"duplicate key {exc.key!r} (first at line {exc.first})",
                          "keep one of the two lines: a key may appear only once", line=exc.line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SchemaError(path, f"malformed YAML: {problem}", "fix the syntax (or restore it: git checkout -- FILE)",
                          line=mark.line + 1 if mark else None) from None
    except (ValueError, ArithmeticError) as exc:  # a value Python cannot hold (an int of 5,000 digits, say)
        raise SchemaError(path, f"a value vmem cannot read: {str(exc).splitlines()[0][:120]}",
                          "write the value as text (quote it), or restore the file: git checkout -- FILE") from None
    _check_bounds(value, path)
    return value


def _check_bounds(value: Any, path: str) -> None:
    budget = MAX_NODES
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise SchemaError(path, f"more than {MAX_NODES:,} values (alias expansion?)",
                              "items are small; remove YAML aliases (*name)")
        if depth > MAX_DEPTH:
            raise SchemaError(path, f"nested deeper than {MAX_DEPTH} levels", "flatten the file")
        if isinstance(node, dict):
            for k, v in node.items():
                stack.append((v, depth + 1))
                if not isinstance(k, (str, int, float, bool)) and k is not None:
                    raise SchemaError(path, "mapping keys must be plain text", "use simple key: value pairs")
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


def line_finder(text: str):
    """Map a key to its 1-based line, for error messages: a top-level key, or a dotted path into block mappings
    (knowledge.blocker.threshold). None when it is not there (or not in block style)."""
    lines: list[str] = []

    def find(key: str) -> int | None:
        if not lines:
            lines.extend(text.splitlines())  # only when an error needs a line: parsing never pays for it
        parent, at, number = -1, 0, None  # PARENT: the enclosing key's indentation (-1: the document)
        for part in key.split("."):
            child, number = (0 if parent < 0 else None), None  # the indentation of the keys under PARENT
            for n in range(at, len(lines)):
                stripped = lines[n].lstrip(" ")
                if not stripped or stripped[0] == "#":
                    continue
                depth = len(lines[n]) - len(stripped)
                if depth <= parent:
                    break  # the enclosing block ended
                if child is None:
                    child = depth
                if depth == child and stripped.startswith(f"{part}:"):
                    number = n
                    break
            if number is None:
                return None
            parent, at = child, number + 1
        return None if number is None else number + 1
    return find


# -- writing ------------------------------------------------------------------------------

def _resolves_to_non_str(text: str) -> bool:
    """Would a YAML 1.1 reader (PyYAML, libyaml users, older tools) read this plain scalar as non-text?"""
    return not text or _NON_TEXT.match(text) is not None


# The plain scalars YAML 1.1's implicit types take (yaml.org/type: bool, null, int, float, timestamp, merge, value)
# and the indicators PyYAML's resolver also claims, as PyYAML reads them ("$" included: it allows a final newline).
# Here rather than PyYAML's resolver so that a write does not import PyYAML; tests hold the two equal.
_NON_TEXT = re.compile(r"""(?x)(?:
    yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
  | ~|null|Null|NULL
  | [-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(?:0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
  | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
  | [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)? | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
  | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
  | [0-9]{4}-[0-9]{2}-[0-9]{2}
  | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[\ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
    (?:[\ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?
  | << | = | ! | & | \*
)$""")


_CANONICAL_TS = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z")  # \Z: `$` also matches before a final "\n"
_writer = None


def _yaml():
    global _writer
    if _writer is None:
        from ruamel.yaml import YAML
        from ruamel.yaml.representer import RoundTripRepresenter

        class Representer(RoundTripRepresenter):
            def represent_str(self, data: str):  # type: ignore[override]
                style = None
                if any(not ch.isprintable() and ch != "\n" for ch in data):
                    style = '"'  # control characters only survive escaped
                elif "\n" in data:
                    style = "|"
                elif _CANONICAL_TS.match(data):
                    # vmem's own timestamps: plain, so YAML tools see timestamps (vmem reads them as text)
                    return self.represent_scalar("tag:yaml.org,2002:timestamp", data)
                elif data == "" or _resolves_to_non_str(data) or data != data.strip():
                    style = "'"
                return self.represent_scalar("tag:yaml.org,2002:str", data, style=style)

            def represent_none(self, data: Any):  # type: ignore[override]
                return self.represent_scalar("tag:yaml.org,2002:null", "null")

            def represent_float(self, data: float):  # type: ignore[override]
                text = repr(float(data))
                if "e" in text and "." not in text:
                    text = text.replace("e", ".0e")  # YAML 1.1 readers need the dot to see a float
                return self.represent_scalar("tag:yaml.org,2002:float", text)

        Representer.add_representer(str, Representer.represent_str)
        Representer.add_representer(float, Representer.represent_float)
        Representer.add_representer(type(None), Representer.represent_none)
        writer = YAML(typ="rt")
        writer.Representer = Representer
        writer.width = 4096
        writer.indent(mapping=2, sequence=2, offset=0)
        writer.preserve_quotes = True
        _writer = writer
    return _writer


def _to_rt(value: Any) -> Any:
    """Plain Python data into ruamel's round-trip containers, block style throughout."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        out = CommentedMap()
        for k, v in value.items():
            out[k] = _to_rt(v)
        return out
    if isinstance(value, list):
        seq = CommentedSeq(_to_rt(v) for v in value)
        return seq
    if isinstance(value, str):
        return str(value)  # drop ScalarString subclasses so the representer decides quoting
    if isinstance(value, float):
        return float(value)
    return value


def _plain(value: Any) -> Any:
    """ruamel round-trip data back into plain Python data, for comparisons."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    if hasattr(value, "isoformat"):  # a hand-written unquoted timestamp
        from vmem.model import format_ts
        return format_ts(value) if hasattr(value, "hour") else value.isoformat()
    return value


# Text that every YAML reader takes as plain text and that ruamel writes unquoted: the fast writer's domain.
_PLAIN = re.compile(r"[\w(][\w .,;:()/%$+=@~'*?!&\"…–—‘’“”-]*\Z")  # \w: letters and digits of any script
_QUOTABLE = lazy(r"[\w .,;:()/%$+=@~'*?!&\"…–—‘’“”#\[\]{}<>|`^\\-]*\Z")  # one printable line
# what rules out a plain scalar for ruamel's emitter, for certain (it then single-quotes a printable line)
_NEVER_PLAIN = lazy(r"^[#,\[\]{}&*!|>'\"%@`\s]|: | #|:$|\s$")
_RESERVED = re.compile(r": | #|:$|\s$|  |^[-.]|^[0-9+.-]")


def _fast_scalar(value: Any, quoted: bool = False) -> str | None:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return None if "e" in text or "n" in text else text
    if isinstance(value, str):
        known = _WRITTEN[quoted]
        text = known.get(value, known)
        if text is known:
            text = _fast_str(value, quoted)
            if len(value) < 80:  # what repeats across files: statuses, names, stamps, reviewers
                if len(known) > 100_000:
                    known.clear()
                known[value] = text
        return text
    return None


_WRITTEN: dict[bool, dict[str, str | None]] = {False: {}, True: {}}  # by QUOTED: text -> as _fast_str writes it


def _fast_str(value: str, quoted: bool) -> str | None:
    if _CANONICAL_TS.match(value):
        return value
    if len(value) < 1000 and _PLAIN.match(value) and not _RESERVED.search(value) \
            and not _resolves_to_non_str(value):
        return value
    if len(value) < 1000 and _QUOTABLE.match(value) and (quoted or "'" not in value and (  # ruamel: "it's"
            _NEVER_PLAIN.search(value) or _resolves_to_non_str(value))):
        return "'" + value.replace("'", "''") + "'"
    return None


def _fast_lines(mapping: dict, indent: str, out: list[str], quoted: bool = False) -> bool:
    """Append MAPPING in the stable layout; False when a value is outside the fast writer's domain.

    A one-line string that ruamel can never write plain (an indicator first, ": " inside, a value YAML would
    read as another type) is single-quoted, as ruamel does. QUOTED single-quotes every other one-line string
    too: not how a new value is written (ruamel's call), only how an old file's unchanged value is recognised.
    """
    for key, value in mapping.items():
        if isinstance(value, dict):
            if not value:
                out.append(f"{indent}{key}: {{}}")
                continue
            out.append(f"{indent}{key}:")
            if not _fast_lines(value, indent + "  ", out, quoted):
                return False
        elif isinstance(value, list):
            if not value:
                out.append(f"{indent}{key}: []")
                continue
            out.append(f"{indent}{key}:")
            for element in value:
                if isinstance(element, dict) and element:
                    first = len(out)
                    if not _fast_lines(element, indent + "  ", out, quoted):
                        return False
                    out[first] = f"{indent}- " + out[first][len(indent) + 2:]
                else:
                    text = _fast_scalar(element, quoted)
                    if text is None:
                        return False
                    out.append(f"{indent}- {text}")
        else:
            text = _fast_scalar(value, quoted)
            if text is None:
                return False
            out.append(f"{indent}{key}: {text}")
    return True


def _dump_fast(item: dict) -> str | None:
    """The common case without ruamel (its import and emitter cost ~40 ms per write): plain text only.
    Tests hold it byte-identical to the round-trip writer; anything unusual returns None and goes there."""
    out: list[str] = []
    return "\n".join(out) + "\n" if _fast_lines(item, "", out) else None


def _rewrite_fast(item: dict, previous: str) -> str | None:
    """Edit a file in the stable layout (no comments; plain or single-quoted one-line strings) without ruamel.

    Key by key, as the round-trip writer edits in place: an unchanged value keeps its old text (even where it is
    equal but written differently, 1 for 1.0), a changed one is written anew, a key the item no longer has goes,
    and a key the file lacks is written where the item has it (a field added to the schema since the file was
    written: the round-trip writer inserts it at the item's position too). The keys both have must stand in the
    same order. A bulk sweep (expiry of thousands of claims) costs ~1 ms per file instead of ~15-40.
    """
    try:
        old = load(previous, "previous version")
    except SchemaError:
        return None
    if not isinstance(old, dict) or [k for k in old if k in item] != [k for k in item if k in old]:
        return None
    lines: list[str] = []
    if not _fast_lines(old, "", lines, quoted=True) or "\n".join(lines) + "\n" != previous:
        return None  # it holds something the round-trip writer would keep or re-lay: a comment, a style
    lines = []
    for key, value in item.items():
        if key in old and old[key] == value:  # ruamel re-emits an unchanged value as it was, quotes included
            _fast_lines({key: old[key]}, "", lines, quoted=True)
        elif not _fast_lines({key: value}, "", lines):
            return None
    return "\n".join(lines) + "\n"


def dump(item: dict, previous: str | None = None) -> str:
    """Serialise an item in the stable layout; when the file exists, edit it in place to keep comments."""
    fast = _dump_fast(item) if previous is None else _rewrite_fast(item, previous)
    return fast if fast is not None else _dump_rt(item, previous)


def _dump_rt(item: dict, previous: str | None) -> str:
    """The round-trip writer (ruamel): edits PREVIOUS in place, keeping comments and quoting styles."""
    writer = _yaml()
    doc = None
    if previous is not None:
        try:
            doc = writer.load(previous)
        except Exception:  # noqa: BLE001 - an unreadable previous version is simply replaced
            doc = None
    if doc is None or not hasattr(doc, "insert"):
        doc = _to_rt(item)
    else:
        for key in [k for k in doc if k not in item]:
            del doc[key]
        keys = list(item)
        for position, key in enumerate(keys):
            if key in doc:
                if _plain(doc[key]) != item[key]:
                    # delete + insert: plain assignment would keep the old value's quoting style
                    at, comment = list(doc).index(key), doc.ca.items.get(key)
                    del doc[key]
                    doc.insert(at, key, _to_rt(item[key]))
                    if comment is not None:
                        doc.ca.items[key] = comment
            else:
                doc.insert(min(position, len(doc)), key, _to_rt(item[key]))
    stream = io.StringIO()
    writer.dump(doc, stream)
    return stream.getvalue()


# -- reading the stable layout without a YAML parser ------------------------------------------------------
# libyaml scans in C but PyYAML builds every node in Python (~0.9 ms for an item): that bounds an index rebuild
# and a cold sync. Files in the stable layout are read line by line instead, and the result is accepted only if
# the fast writer renders it back to exactly the same text. Any text that the fast writer renders is read by
# YAML as the data it was rendered from (the tests hold the fast writer to ruamel and to a lossless round trip),
# so an accepted result is what the YAML loader would have returned. Anything else goes to the YAML loader.

_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})  # keys YAML reads as non-text
_INT_DIGITS = 4_000  # below int()'s limit on digits (4,300 by default, sys.set_int_max_str_digits)
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+")


_SCALARS: dict[str, Any] = {}  # raw text -> its value, for what repeats across files (statuses, names, stamps)
BAD = object()  # a value's text that the fast writer would not write as it stands: the file goes to YAML


def read_scalar(text: str) -> Any:
    """The value of a scalar's TEXT if the fast writer writes that value as exactly TEXT (quoted=True: how an old
    file's values are recognised), else BAD. Held to the writer value by value, a line reader that places every
    line where the writer puts it accepts only what the writer renders, and so only what YAML reads the same."""
    value = _SCALARS.get(text, _SCALARS)
    if value is not _SCALARS:
        return value
    if _CANONICAL_TS.match(text):
        value = text  # a stamp, the most common unique value: _fast_str writes it as itself
    else:
        if text == "null":
            value = None
        elif text in ("true", "false"):
            value = text == "true"
        elif _INT.fullmatch(text):
            value = int(text) if len(text) <= _INT_DIGITS else BAD  # Python refuses longer ones: YAML decides
        elif _FLOAT.fullmatch(text):
            value = float(text)
        elif len(text) >= 2 and text[0] == text[-1] == "'":
            value = text[1:-1].replace("''", "'")
        else:
            value = text
        if value is not BAD and _fast_scalar(value, True) != text:
            value = BAD
    if len(text) < 80:
        if len(_SCALARS) > 100_000:
            _SCALARS.clear()
        _SCALARS[text] = value
    return value


# one line of the stable layout: indentation, a sequence entry's "- ", then "key:" with " value" or nothing (a
# block opens below), or a value alone (the last group: the rest of the line). A value that looks like "key: x"
# behind "- " is an entry's first key.
_LINE = re.compile(r"( *)(- )?(?:([a-z][a-z0-9_]*):(?= |$))?(.*)")
_BLOCK = object()  # "key:" alone: a block opens on the next line
_EMPTY_MAP, _EMPTY_SEQ = object(), object()  # "key: {}", "key: []": a new container each time (mutable)
_LINES: dict[str, tuple] = {}  # a line's text -> (indentation, dash, key, value): most lines repeat across files


def _line(line: str) -> tuple:
    """(indentation, whether an entry's "- " opens it, key or "", value / _BLOCK / _EMPTY_* / BAD) of LINE."""
    found = _LINE.fullmatch(line)
    if found is None:
        return 0, False, "", BAD
    indent, dash, key, rest = found.groups()
    key = key or ""
    if key and key in _YAML_WORDS:
        value = BAD
    elif key:
        raw = rest[1:]
        value = (_BLOCK if not rest else _EMPTY_MAP if raw == "{}" else _EMPTY_SEQ if raw == "[]"
                 else read_scalar(raw))
    elif dash:  # an entry's scalar: the writer never puts {} or [] in a sequence
        value = read_scalar(rest) if rest not in ("{}", "[]") else BAD
    else:
        value = BAD  # neither a key nor an entry: a comment, a blank line, a document marker, a stray value
    parts = (len(indent), bool(dash), key, value)
    if len(line) < 100:
        if len(_LINES) > 100_000:
            _LINES.clear()
        _LINES[line] = parts
    return parts


def _read_lines(text: str) -> tuple[dict | None, bool]:
    """(the data TEXT holds if it is in the stable layout, else None; whether it is within the size and depth
    bounds for certain). Every line must sit where the fast writer puts it and every value must be one the writer
    writes as exactly its text (read_scalar): what is accepted is what the writer renders, so what YAML reads alike.

    A stack of open blocks (indentation, mapping or sequence) places each line. A sequence sits at its key's
    indentation, a mapping's keys two deeper (an entry's after its "- ")."""
    root: dict = {}
    stack: list[tuple[int, dict | list]] = [(0, root)]
    pending: tuple[dict, str, int] | None = None  # a key whose block opens on the next line
    deepest = 1
    lines = text.split("\n")
    lines.pop()  # TEXT ends with a newline (checked by the caller)
    known = _LINES
    for line in lines:
        parts = known.get(line)
        at, dash, key, value = parts if parts is not None else _line(line)
        if value is BAD:
            return None, False
        if at == 0 and not dash and pending is None:  # a top-level key, most lines: the same steps, fewer
            if len(stack) > 1:
                del stack[1:]
            top = root
        else:
            if pending is not None:
                owner, name, above = pending
                pending = None
                if dash and at == above:
                    block: dict | list = []
                elif not dash and at == above + 2:
                    block = {}
                else:
                    return None, False  # an empty block, or one indented otherwise than the writer does
                owner[name] = block
                stack.append((at, block))
                deepest = max(deepest, len(stack))
            while stack[-1][0] > at:
                stack.pop()
            top_at, top = stack[-1]
            if dash:
                if top_at != at or type(top) is not list:
                    return None, False
                if not key:
                    top.append(value)
                    continue
                entry: dict = {}
                top.append(entry)
                at += 2
                stack.append((at, entry))
                deepest = max(deepest, len(stack))
                top_at, top = at, entry
            elif type(top) is list:
                stack.pop()  # the sequence at this indentation ended; its key's mapping goes on
                top_at, top = stack[-1]
            if top_at != at or type(top) is not dict:
                return None, False
        if key in top:
            return None, False  # a repeated key: the YAML loader then refuses it, naming both lines
        if value is _BLOCK:
            top[key] = None
            pending = (top, key, at)
        elif value is _EMPTY_MAP:
            top[key] = {}
        elif value is _EMPTY_SEQ:
            top[key] = []
        else:
            top[key] = value
    if pending is not None or not root:
        return None, False
    return root, 2 * len(lines) + 1 <= MAX_NODES and deepest <= MAX_DEPTH  # a line adds at most two values


def _load_fast(text: str, bounded: list | None = None) -> dict | None:
    """TEXT's data if it is in the stable layout, else None. BOUNDED, if given, gets whether the data is within
    the size and depth bounds for certain (else the caller checks them)."""
    if not text.endswith("\n") or "\r" in text or "\t" in text or text.startswith((" ", "-")):
        return None
    value, within = _read_lines(text)
    if value is None:
        return None
    if bounded is not None:
        bounded.append(within)
    return value
