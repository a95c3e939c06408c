"""Text normalisation shared by the merge cascade and the stores' exact-match lookups."""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_LOOSE_DOT = re.compile(r"(?<!\d)\.|\.(?!\d)")  # a dot that is not a decimal point
_NOISE = re.compile(r"[^\w\s.~%$€£/+&<>=#@-]")  # punctuation that carries no meaning
_DASHES = re.compile(r"\s+-+\s+|--+")


def canonicalize(statement: str) -> str:
    """NFKC, casefold, drop invisible characters and meaningless punctuation, normalise numbers, collapse space."""
    text = unicodedata.normalize("NFKC", statement).translate(_INVISIBLE).casefold()
    text = _THOUSANDS.sub("", text)
    text = _LOOSE_DOT.sub(" ", text)
    text = _DASHES.sub(" ", text)
    text = _NOISE.sub(" ", text)
    return " ".join(text.split())
