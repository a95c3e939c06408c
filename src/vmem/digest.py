"""SHA-1, SHA-256 and BLAKE2b for the hot paths, without importing hashlib.

hashlib loads OpenSSL's binding (`_hashlib`, ~3 ms) on import, and a proposal or a hook run only needs a digest
or two of a few bytes: git's object ids, cache keys. CPython also builds each algorithm as a small module of its
own (`_sha1`, `_sha256` or, from 3.12, `_sha2`, `_blake2`), which load in a fraction of that and give the same
digests. Where one is missing (another interpreter, a build without them) hashlib's is used.
"""

from __future__ import annotations

_MADE: dict[str, object] = {}


def _constructor(name: str):
    made = _MADE.get(name)
    if made is None:
        for module in {"sha1": ("_sha1",), "sha256": ("_sha256", "_sha2"), "blake2b": ("_blake2",)}[name]:
            try:
                made = getattr(__import__(module), name)
                break
            except (ImportError, AttributeError):
                continue
        if made is None:
            import hashlib

            made = getattr(hashlib, name)
        _MADE[name] = made
    return made


def sha1(data: bytes = b""):
    return _constructor("sha1")(data)


def sha256(data: bytes = b""):
    return _constructor("sha256")(data)


def blake2b(data: bytes = b"", *, digest_size: int = 64):
    return _constructor("blake2b")(data, digest_size=digest_size)
