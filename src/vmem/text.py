"""Text normalisation shared by the merge cascade and the stores' exact-match lookups."""

from __future__ import annotations

import re
import unicodedata

_HANGUL_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")


def ignorable(ch: str) -> bool:
    """Whether CH renders as nothing: a format control (zero-width characters, soft hyphen, bidi controls, the
    invisible separators), a variation selector, a Hangul filler, a Mongolian free variation selector, a tag
    character, the combining grapheme joiner or the Khmer inherent vowels. The one set every reader of a statement
    ignores: canonical form, the contradiction words, the merge judge and the de-identification gate."""
    code = ord(ch)
    return (unicodedata.category(ch) == "Cf" or ch in _HANGUL_FILLERS or 0xFE00 <= code <= 0xFE0F
            or 0x180B <= code <= 0x180F or 0xE0000 <= code <= 0xE0FFF or ch in "\u034f\u17b4\u17b5")


def visible(text: str) -> str:
    """TEXT without the characters that render as nothing (see ignorable)."""
    if text.isascii():
        return text
    return "".join(ch for ch in text if not ignorable(ch))

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_LOOSE_DOT = re.compile(r"(?<!\d)\.|\.(?!\d)")  # a dot that is not a decimal point
_NOISE = re.compile(r"[^\w\s.~%$€£/+&<>=#@-]")  # punctuation that carries no meaning
_DASHES = re.compile(r"\s+-+\s+|--+")


def canonicalize(statement: str) -> str:
    """NFKC, casefold, drop invisible characters and meaningless punctuation, normalise numbers, collapse space."""
    text = visible(unicodedata.normalize("NFKC", statement)).casefold()
    text = _THOUSANDS.sub("", text)
    text = _LOOSE_DOT.sub(" ", text)
    text = _DASHES.sub(" ", text)
    text = _NOISE.sub(" ", text)
    return " ".join(text.split())
