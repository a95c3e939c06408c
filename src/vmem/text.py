"""Text normalisation shared by the merge cascade and the stores' exact-match lookups."""

from __future__ import annotations

import unicodedata

from vmem import rx

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_THOUSANDS = rx.compile(r"(?<=\d),(?=\d{3}\b)")
_LOOSE_DOT = rx.compile(r"(?<!\d)\.|\.(?!\d)")  # a dot that is not a decimal point
_NOISE = rx.compile(r"[^\w\s.~%$€£/+&<>=#@-]")  # punctuation that carries no meaning
_DASHES = rx.compile(r"\s+-+\s+|--+")


def canonicalize(statement: str) -> str:
    """NFKC, casefold, drop invisible characters and meaningless punctuation, normalise numbers, collapse space."""
    text = unicodedata.normalize("NFKC", statement).translate(_INVISIBLE).casefold()
    text = _THOUSANDS.sub("", text)
    text = _LOOSE_DOT.sub(" ", text)
    text = _DASHES.sub(" ", text)
    text = _NOISE.sub(" ", text)
    return " ".join(text.split())
