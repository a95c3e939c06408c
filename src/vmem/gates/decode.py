"""Text an agent may emit encoded, decoded so the de-id gate can screen what it says (pure, standard library only).

HTML entities, percent-encoding and backslash escapes are decoded where they stand, and markup a renderer shows as
nothing (a tag inside a word, a word hyphenated across a line break) is taken out; base64 and hex runs long
enough to hide a name (eight characters or more) are decoded alone, and kept only when they decode to text.
rot13 is not here: every word is rot13 of some letters, so the gate reads it as a name only when the decoded run
is a lexicon term whole (deid._rot13_hits).
"""

from __future__ import annotations

import base64
import binascii
import re

from vmem.lazyre import lazy

_ENTITY = lazy(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_PERCENT = lazy(r"%[0-9A-Fa-f]{2}")
_ESCAPE = lazy(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2}))")
# base64 (standard or URL-safe alphabet): eight or more characters; tried only when the run does not read as a
# word (a digit, a sign, or a capital after the first letter), so "onboarding" is never decoded
_BASE64 = lazy(r"(?<![\w+/-])[A-Za-z0-9+/_-]{8,}={0,2}(?![\w+/=-])")  # "id=U2Fua3Q...": a value after its key
# hex of text: pairs whose first nibble is 2-7 (printable ASCII) or of UTF-8, at least four pairs, optionally
# apart by spaces, colons or \x / 0x prefixes
# markup inside running text: an HTML tag (a break opportunity <wbr>, a bold span <b>...</b>) that a renderer
# shows as nothing, so "Penna<wbr>cott" reads Pennacott; a tag that breaks a line or a block shows as a space
_TAG = lazy(r"</?([A-Za-z][\w-]*)(?:\s[^<>]{0,200})?/?>")
_BLOCK_TAGS = frozenset("br p div li ul ol tr td th table h1 h2 h3 h4 h5 h6 hr section article".split())
# a word hyphenated across a line break by a typesetter ("Bra-\ndán"): one word
_LINE_HYPHEN = lazy(r"(?<=[^\W\d_])[-\u2010\u2011](?:[ \t]*\r?\n)+[ \t]*(?=[^\W\d_])")
_HEX = lazy(r"(?<![0-9A-Za-z])(?:0x|\\x)?[0-9a-fA-F]{2}(?:(?:[\s:]|\\x|0x)?[0-9a-fA-F]{2}){3,}(?![0-9A-Za-z])")


def _texty(raw: bytes) -> str | None:
    """RAW as text when it is UTF-8 that reads as text (letters and ordinary punctuation), else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 3:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    letters = sum(ch.isalpha() for ch in text)
    return text if printable == len(text) and letters * 2 >= len(text) else None


def _wordlike(run: str) -> bool:
    """A run of letters with at most a capital at its start is a word (or a CamelCase name), not base64."""
    body = run.rstrip("=")
    return body.isalpha() and (body[1:].islower() or body.isupper())


def _base64(run: str) -> str | None:
    body = run.rstrip("=")
    if _wordlike(run) or len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _texty(raw)


def _hex(run: str) -> str | None:
    digits = re.sub(r"0x|\\x|[\s:]", "", run)
    if len(digits) % 2 or not any(ch.isdigit() for ch in digits):
        return None
    try:
        return _texty(bytes.fromhex(digits))
    except ValueError:
        return None


def _unescape(match: re.Match) -> str:
    code = int(next(g for g in match.groups() if g), 16)
    try:
        return chr(code)
    except (ValueError, OverflowError):
        return match.group(0)


def _surrogates(text: str) -> str:
    """A JSON escape pair for one astral character (\\ud83c\\udd7a) decoded as that character."""
    try:
        return text.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeError:
        return text


def decodings(text: str) -> list[tuple[str, str]]:
    """(decoding, decoded text) for each encoding found in TEXT: the whole text with its entities, percent
    escapes or backslash escapes decoded, and each base64 or hex run alone. Empty for ordinary text (the checks
    are literal first, so a plain statement compiles no pattern)."""
    out = []
    if "<" in text and _TAG.search(text) or "\n" in text and _LINE_HYPHEN.search(text):
        joined = _TAG.sub(lambda m: " " if m.group(1).casefold() in _BLOCK_TAGS else "", text)
        joined = _LINE_HYPHEN.sub("", joined)
        if joined != text:
            out.append(("markup", joined))
    if "&" in text and _ENTITY.search(text):
        import html

        decoded = html.unescape(text)
        if decoded != text:
            out.append(("HTML entities", decoded))
    if "%" in text and _PERCENT.search(text):
        from urllib.parse import unquote

        decoded = unquote(text, errors="replace")
        if decoded != text:
            out.append(("percent-encoding", decoded))
    if "\\" in text and _ESCAPE.search(text):
        out.append(("escape sequences", _surrogates(_ESCAPE.sub(_unescape, text))))
    if any(ch.isdigit() or ch in "+/=_-" for ch in text) or any(w[1:] != w[1:].lower() for w in text.split()):
        for match in _BASE64.finditer(text):
            decoded = _base64(match.group(0))
            if decoded:
                out.append(("base64", decoded))
    if any(ch.isdigit() for ch in text):
        for match in _HEX.finditer(text):
            decoded = _hex(match.group(0))
            if decoded:
                out.append(("hex", decoded))
    return out


def rot13(text: str) -> str:
    import codecs

    return codecs.encode(text, "rot13")
