"""Parsing item blobs, cached by blob id; no pygit2 here, so `vmem sync` can parse without importing it."""

from __future__ import annotations

from vmem import model
from vmem.store import codec

_PARSED: dict[tuple[str, str], dict] = {}  # (kind, blob id) -> validated item; blob ids are content hashes


def parsed(kind: str, oid: str) -> dict | None:
    """The validated item in blob OID if this process parsed it already (None: not yet, or it does not parse)."""
    return _PARSED.get((kind, oid))


def parse_blob(kind: str, path: str, oid: str, data: bytes) -> dict:
    key = (kind, oid)
    cached = _PARSED.get(key)
    if cached is None:
        text = codec.decode(data, path)
        cached = model.validate(kind, codec.load(text, path, oid), path, codec.line_finder(text))
        if len(_PARSED) > 200_000:
            _PARSED.clear()
        _PARSED[key] = cached
    return cached
