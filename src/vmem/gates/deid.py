"""De-identification: does a knowledge statement name, contact, quote or pin down a customer? (SPEC 7.2)

Pure functions over a lexicon built from entities/ and episodes/. A statement is read the ways a person would
read it: NFKC, invisible and bidi controls out, look-alike letters by Unicode's confusables data, other scripts
transliterated (and compared by sound), leetspeak and spelled-out letters joined. Names match on windows of
those readings, so case, possessives, plurals and hyphen/space/no-space variants do not hide a term, while a
term never matches inside a longer word or across a sentence. Amounts, counts, percentages and dates are
compared as values, in any common format or in words. Every hit names the rule that fired.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from datetime import date
from collections import namedtuple

from vmem.gates.values import CURRENCY, MINOR_UNITS, currency_before, headcount
from vmem.lazyre import lazy
from vmem.text import ignorable  # the one set of characters every reader ignores

# -- normalisation -----------------------------------------------------------------------

# Letters that render like Latin ones are mapped with Unicode's confusables data (confusable-homoglyphs); whatever
# is left outside ASCII is transliterated (anyascii). Both load on the first statement with a non-ASCII character.
_BIDI_OPEN = frozenset("\u202a\u202b\u202d\u202e\u2066\u2067\u2068")  # embeddings, overrides, isolates
_REVERSING = frozenset("\u202e\u2067")  # right-to-left override / isolate: a Latin run inside displays reversed
# How a renderer resolves nested controls is its own business: the readings the gate also tries (override only,
# and none), so a name reversed inside an isolate inside an override is read however it displays
_BIDI_READINGS = (frozenset("\u202e"), frozenset())
_BIDI_CLOSE = frozenset("\u202c\u2069")


@functools.cache
def _confusable_map() -> dict[str, str]:
    from confusable_homoglyphs.utils import load

    table: dict[str, str] = {}
    for char, homoglyphs in load("confusables.json").items():
        if len(char) != 1 or char.isascii():
            continue
        targets = [h["c"] for h in homoglyphs if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalnum()]
        letters = [t for t in targets if t.isalpha()]
        if letters or targets:
            table[char] = (letters or targets)[0]
    return table


def _visible(text: str, reversing: frozenset[str] = _REVERSING) -> str:
    """What a reader sees: invisible characters gone, runs inside a right-to-left override put back in order."""
    if text.isascii():
        return text
    out, stack = [], []  # stack of (reversing, start index in out)
    for ch in text:
        if ch in _BIDI_OPEN:
            stack.append((ch in reversing, len(out)))
        elif ch in _BIDI_CLOSE and stack:
            reversing, start = stack.pop()
            if reversing:
                out[start:] = out[start:][::-1]
        elif ch in _BIDI_CLOSE or ignorable(ch):
            continue
        else:
            out.append(ch)
    while stack:
        reversing, start = stack.pop()
        if reversing:
            out[start:] = out[start:][::-1]
    return "".join(out)


def _latin(text: str, transliterate: bool) -> str:
    """Non-ASCII letters to ASCII: look-alikes by shape (confusables) unless TRANSLITERATE, then by sound."""
    if text.isascii() or not any(ch.isalnum() for ch in text if not ch.isascii()):
        return text  # symbols such as £ or € need no table: the hot path loads none
    from anyascii import anyascii

    if transliterate:
        return "".join(ch if ch.isascii() else anyascii(ch) for ch in text)
    table = _confusable_map()
    # a digit of any script is its digit, not the letter it looks like ("२०२६" is 2026, not "?o?6")
    return "".join(ch if ch.isascii() else str(unicodedata.decimal(ch)) if unicodedata.category(ch) == "Nd" else
                   table.get(ch) or (anyascii(ch) if ch.isalnum() else ch) for ch in text)


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})
_CONTRACTIONS = [(lazy(p), r) for p, r in (  # quotes only: compiled when a customer has one
    (r"\bcan't\b", "can not"), (r"\bcannot\b", "can not"), (r"\bwon't\b", "will not"),
    (r"\bshan't\b", "shall not"), (r"n't\b", " not"),
    (r"'re\b", " are"), (r"'ll\b", " will"), (r"'ve\b", " have"), (r"'d\b", " would"), (r"\bit's\b", "it is"),
    (r"\bthat's\b", "that is"), (r"\bwe're\b", "we are"), (r"\bi'm\b", "i am"), (r"\blet's\b", "let us"),
)]
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_TITLES = {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "madam"}
# An alias that is also an everyday industry acronym ("CLM", "SCC") identifies nobody on its own: a statement
# about contract lifecycle management must not be quarantined because some customer's ticker is CLM.
COMMON_ACRONYMS = frozenset("""
    ACV AI API ARR BI CCPA CEO CFO CIO CISO CLM COO CRM CSM CSV CTO DPA DPO EMEA EOR ERP ETL EU GDPR GTM HIPAA HR
    IAM IT KPI KYC LATAM MFA ML MRR MSA NDA NPS NRR OKR PCI PDF PII PLG POC QA RFI RFP ROI SAML SCC SCIM SDK SLA
    SMB SOC SOW SQL SSO TCV UK US VP VPN
""".split())
_EXAMPLE_DOMAINS = lazy(r"@(?:[\w-]+\.)*(?:example\.(?:com|org|net)|[\w-]+\.(?:example|test|invalid)|localhost)$",
                         re.I)


_LETTER_NAME = re.compile(r"(?:LATIN (CAPITAL|SMALL) |REGIONAL INDICATOR SYMBOL )LETTER ([A-Z])$")


def _letterlike(text: str) -> str:
    """Symbols drawn as a Latin letter, which NFKC leaves alone or wraps in brackets, as that letter: regional
    indicators (🇰), negative circled or squared letters (🅚, 🅺), parenthesized ones (⒦). Read from the
    character's Unicode name, so a whole class is covered, not a table of examples."""
    if text.isascii():
        return text
    out = []
    for ch in text:
        if not ch.isascii() and unicodedata.category(ch) == "So":
            match = _LETTER_NAME.search(unicodedata.name(ch, ""))
            if match:
                ch = match.group(2).lower() if match.group(1) == "SMALL" else match.group(2)
        out.append(ch)
    return "".join(out)


def fold(text: str, transliterate: bool = False, reversing: frozenset[str] = _REVERSING) -> str:
    """Visible-form folding: letter-like symbols to letters, NFKC, invisibles and bidi controls out, accents off,
    look-alikes (or sounds) to Latin."""
    text = _visible(unicodedata.normalize("NFKC", _letterlike(text).translate(_APOSTROPHES)), reversing)
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return _latin(text, transliterate).translate(_APOSTROPHES)


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; possessive 's is dropped, hyphens, dots and underscores split words."""
    return [word.text.casefold() for word in _words(fold(text))]


_POSSESSIVE = re.compile(r"'s\b|(?<=s)'(?=\W|$)")
_BREAK = re.compile(r"[.;:!?]+(?=\s|$)|[()\[\]\"]")


class Word(namedtuple("Word", "text boundary possessive glued gap")):
    """A word as read: text; boundary: it starts a sentence or clause; possessive: an 's or s' follows; glued: an
    apostrophe joins it to the word before (the Neil of O'Neil); gap: what stands between it and the next word,
    spaces stripped ("," "(" ")."), or "." after the last word."""

    __slots__ = ()


def _words(folded: str) -> list[Word]:
    """The words in order; a word is never split by a dropped 's."""
    rows: list[list] = []  # [text, boundary, possessive, glued, end]: Words made at the end (no copy per word)
    breaks = {m.start() for m in _BREAK.finditer(folded)}
    previous = 0
    for match in _TOKEN.finditer(folded):
        start = match.start()
        # "Ms. Brandt", "P. Raman": the dot ends an abbreviation, not a sentence
        abbreviation = bool(rows) and (rows[-1][0].casefold() in _TITLES or len(rows[-1][0]) == 1)
        boundary = not rows or not abbreviation and any(previous <= b < start for b in breaks)
        previous = start
        word = match.group(0)
        if word.casefold() == "s" and rows and folded[start - 1:start] == "'":
            rows[-1][2] = True
            rows[-1][4] = match.end()
            continue
        glued = bool(rows) and start - 1 == rows[-1][4] and folded[start - 1] == "'"
        rows.append([word, boundary, bool(_POSSESSIVE.match(folded, match.end())), glued, match.end(), start])
    return [Word(text, boundary, possessive, glued,
                 folded[end:rows[n + 1][5]].strip() if n + 1 < len(rows) else folded[end:].strip() or ".")
            for n, (text, boundary, possessive, glued, end, _) in enumerate(rows)]


def _stem(token: str) -> str:
    """Plural-insensitive form: kestrels -> kestrel, branches -> branch, companies -> company."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("ches", "shes", "sses", "xes", "zes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


# -- values: amounts, counts, percentages, dates ------------------------------------------

_MONTHS = {m: i for i, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
    ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
    ("dec", "december")), 1) for m in names}
# A scale word multiplies the number before it, in the abbreviations of several locales: thousands (k, Tsd., TEUR,
# grand, mil), Indian lakh (10^5) and crore (10^7), millions (Mio., mln, MM), milliards (Mrd.). "mil" is a
# thousand in Spanish and Portuguese and a million in English slang: both readings are kept (fail closed).
_SCALE = {
    "k": (1e3,), "thousand": (1e3,), "thousands": (1e3,), "tsd": (1e3,), "tausend": (1e3,), "grand": (1e3,),
    "mille": (1e3,), "mil": (1e3, 1e6), "teur": (1e3,), "keur": (1e3,), "tusd": (1e3,), "kusd": (1e3,),
    "lakh": (1e5,), "lakhs": (1e5,), "lac": (1e5,), "lacs": (1e5,), "crore": (1e7,), "crores": (1e7,), "cr": (1e7,),
    "m": (1e6,), "mm": (1e6,), "mn": (1e6,), "mio": (1e6,), "mill": (1e6,), "mln": (1e6,), "million": (1e6,),
    "millions": (1e6,), "millionen": (1e6,), "millones": (1e6,), "milhoes": (1e6,),
    "b": (1e9,), "bn": (1e9,), "bln": (1e9,), "billion": (1e9,), "billions": (1e9,), "mrd": (1e9,), "md": (1e9,),
    "milliard": (1e9,), "milliarden": (1e9,), "dozen": (12,), "dozens": (12,),
    # the same scales in other languages' words (accents off): Indonesian and Malay, Hungarian, the Slavic,
    # Baltic and Nordic languages, Dutch, Italian, Romanian, Turkish
    "ribu": (1e3,), "juta": (1e6,), "miliar": (1e9,), "milyar": (1e9,), "ezer": (1e3,), "millio": (1e6,),
    "tys": (1e3,), "tis": (1e3,), "tisic": (1e3,), "milion": (1e6,), "miliony": (1e6,), "milionu": (1e6,),
    "milionow": (1e6,), "miliard": (1e9,), "miliardy": (1e9,), "miliardu": (1e9,), "miliardow": (1e9,),
    "mld": (1e9,), "mlrd": (1e9,), "mia": (1e9,), "miljoen": (1e6,), "miljard": (1e9,), "miljoner": (1e6,),
    "miljarder": (1e9,), "miljoonaa": (1e6,), "miljardia": (1e9,), "milioni": (1e6,), "milione": (1e6,),
    "miliardi": (1e9,), "miliardo": (1e9,), "milioane": (1e6,), "miliarde": (1e9,), "milyon": (1e6,)}
_SCALE_RE = "|".join(sorted(_SCALE, key=len, reverse=True))
# the value readings below compile on first use: a statement is read for values only when a customer has a
# restricted value or a date (vmem.lazyre)
_NUMBER = lazy(
    r"(?P<cur>[$€£¥])?\s?(?P<num>\d{1,3}(?:[,\u00a0 '_]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s?(?P<scale>{_SCALE_RE})(?:\b|(?=[$€£¥])))?(?P<pct>\s?%| percent\b)?",
    re.IGNORECASE)
# scientific notation: 1.2e6, 1,2E+06, 1.2 x 10^6, 1.2×10**6 (a superscript power is written out before folding)
_SCIENTIFIC = lazy(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s?(?:[eE]\s?([+-]?\d{1,2})|[x×*·]\s?10\s?(?:\^|\*\*)\s?([+-]?\d{1,2}))"
                   r"(?![\w.]\d)")
_POWER = lazy(r"([x×*·]\s?10)([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
# CJK number units after digits: 84万 is 840,000; Korean writes the same units in Hangul (124억 is 12.4 billion)
_CJK_UNITS = {"千": 1e3, "万": 1e4, "萬": 1e4, "億": 1e8, "亿": 1e8, "兆": 1e12,
              "천": 1e3, "만": 1e4, "억": 1e8, "조": 1e12}
_CJK_SCALED = lazy(r"(\d+(?:\.\d+)?)\s?([千万萬億亿兆천만억조])")
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(\d{4}|'\d{2})"  # a two-digit year only with its apostrophe in written dates ("15 Sep '26")
_DATE_PATTERNS = [
    (lazy(r"\b(\d{4})([-./])(\d{1,2})\2(\d{1,2})\b"), ("y", "", "m", "d")),
    (lazy(r"\b((?:19|20)\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\b"), ("y", "m", "d")),  # 20260915
    (lazy(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}(?!\w)", re.I), ("M", "d", "y")),
    (lazy(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+{_YEAR}(?!\w)", re.I),
     ("d", "M", "y")),
    # day and month in either order (both readings, fail closed); a two-digit year is 20yy
    (lazy(r"\b(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})\b"), ("a", "", "b", "y")),
]


_COUNT_WORDS_DAYS = {"the": 1, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                     "eight": 8, "nine": 9, "ten": 10, "fourteen": 14}
_WEEKDAY_NAMES = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
# "a week before 25 August 2026", "3 days after 2026-08-15", "the day before 24 November 2026", "the Tuesday after
# 14 August 2026"
_RELATIVE_TO_DATE = lazy(r"\b(?:(?P<n>\d{1,3}|an?|the|one|two|three|four|five|six|seven|eight|nine|ten|fourteen)\s+"
                         r"(?P<unit>days?|weeks?)|(?:the\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|"
                         r"sunday))\s+(?P<dir>before|after|prior to|ahead of|following)\s+(?:the\s+)?(?P<rest>.{6,32})",
                         re.I)


def _dates_relative_to_dates(text: str) -> dict[date, str]:
    """Days written as an offset from a written date: the date is read with dates_in, then moved."""
    from datetime import timedelta

    if "before" not in text.casefold() and "after" not in text.casefold() and "prior" not in text.casefold() \
            and "ahead" not in text.casefold() and "following" not in text.casefold():
        return {}
    found: dict[date, str] = {}
    for m in _RELATIVE_TO_DATE.finditer(text):
        anchors = dates_in(m.group("rest"))
        sign = -1 if m.group("dir").casefold() in ("before", "prior to", "ahead of") else 1
        for anchor in anchors:
            if m.group("n"):
                n = int(m.group("n")) if m.group("n").isdigit() else _COUNT_WORDS_DAYS[m.group("n").casefold()]
                if n == 1 and m.group("unit").casefold().endswith("s"):
                    continue  # "the days before 24 November" are several days, not one
                days = n * (7 if m.group("unit").casefold().startswith("week") else 1)
                found.setdefault(anchor + timedelta(days=sign * days), "date relative to a date")
            else:
                target, day = _WEEKDAY_NAMES.index(m.group("wd").casefold()), anchor + timedelta(days=sign)
                while day.weekday() != target:
                    day += timedelta(days=sign)
                found.setdefault(day, "date relative to a date")
    return found


_SPOKEN_YEAR = lazy(rf"\b({_MONTH_RE})\.?,?\s+(19|20) ([1-9]\d)\b", re.I)


class Quantity(namedtuple("Quantity", "value percent")):
    """value (float), percent (bool)."""

    __slots__ = ()


_NUMBER_WORD = lazy(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen(?:th)?|"
                     r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|\w+tieth|hundred|thousand|"
                     r"million|billion|first|second|third|fifth|eighth|ninth|twelfth|dozen)\b", re.I)


_DIGIT_WORDS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                "seven": "7", "eight": "8", "nine": "9"}
_DIGIT = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|\d+)"
# "one point two", "3 point 75": a decimal point spoken (number-parser reads neither side of it as one number)
_WHOLE_WORD = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
               r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)")
_SPOKEN_DECIMAL = lazy(rf"\b({_WHOLE_WORD}(?:[\s-]+(?:and[\s-]+)?{_WHOLE_WORD})*|\d+)[\s-]+point"
                        rf"((?:[\s-]+{_DIGIT})+)\b", re.I)
# number-parser reads "1.2 million" as "1.2 1000000" (and "12,5 thousand" as "12,5 1000"): a decimal, with a point
# or a decimal comma, before a scale is one number; so is a whole number and a spoken fraction ("twelve and a
# half thousand": "12 and a half 1000")
_DECIMAL_SCALE = lazy(r"\b(\d+(?:[.,]\d{1,2}(?!\d)|\.\d+)?)(?: and an? (half|quarter|third))? "
                       r"(1000|1000000|1000000000|dozen)\b")
_FRACTIONS = {"half": 0.5, "quarter": 0.25, "third": 1 / 3}


def _decimals(text: str) -> str:
    from number_parser import parse

    def whole(match: re.Match) -> str:
        left = match.group(1)
        left = left if left.isdigit() else parse(left).split()[-1]
        if not left.isdigit():
            return match.group(0)
        digits = "".join(_DIGIT_WORDS.get(d.lower(), d) for d in re.split(r"[\s-]+", match.group(2).strip(" -")))
        return f"{left}.{digits}"

    return _SPOKEN_DECIMAL.sub(whole, text)


_A_DOZEN = lazy(r"\b(half )?an? dozen\b", re.I)


def _in_digits(text: str) -> str | None:
    """TEXT with numbers written in words as digits (number-parser), or None when it has no number word."""
    if not _NUMBER_WORD.search(text):
        return None
    from number_parser import parse

    try:
        if re.search(r"\bpoint\b", text, re.I):
            text = _decimals(text)
        text = _A_DOZEN.sub(lambda m: "6" if m.group(1) else "12", text)  # "a dozen", "half a dozen"
        return _DECIMAL_SCALE.sub(_scaled, parse(text))
    except Exception:  # a parser bug must not open the gate: the statement is still checked as written
        return None


def _scaled(match: re.Match) -> str:
    whole = float(match.group(1).replace(",", ".")) + _FRACTIONS.get(match.group(2) or "", 0.0)
    return f"{whole * (12 if match.group(3) == 'dozen' else int(match.group(3))):.0f}"


def dates_in(text: str) -> set[date]:
    found: set[date] = set()
    folded = fold(text)
    for pattern, order in _DATE_PATTERNS:
        for match in pattern.finditer(folded):
            parts = dict(zip(order, match.groups()))
            year = parts["y"].lstrip("'")
            parts["y"] = str(2000 + int(year)) if len(year) == 2 else year
            if "M" in parts:
                parts["m"] = str(_MONTHS[parts.pop("M").lower()])
            readings = [(parts["a"], parts["b"]), (parts["b"], parts["a"])] if "a" in parts else [(parts["m"],
                                                                                                    parts["d"])]
            for month, day in readings:
                try:
                    found.add(date(int(parts["y"]), int(month), int(day)))
                except ValueError:
                    continue
    return found


def quantities_in(text: str, dates: bool = True) -> set[Quantity]:
    """Every number in the text as a value (scale words applied); date parts are not quantities."""
    return {quantity for quantity, _, _ in _numbers(text, dates)}


_GROUPED_DOTS = lazy(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?:,\d+)?(?![\d.]\d)")
# 12,5 thousand / 12,5k / 3,5 %: a decimal comma (the other reading, a list or thousands, is read as well)
_DECIMAL_COMMA = lazy(rf"(?<![\d.,])(\d+),(\d{{1,2}})(?![\d])(?:\s?({_SCALE_RE})(?:\b|(?=[$€£¥])))?"
                       r"(\s?%| percent\b)?", re.I)
_CURRENCY = CURRENCY  # a currency's sign, ISO code, name or local abbreviation (gates/values.py)


def _numbers(text: str, dates: bool = True) -> list[tuple[Quantity, bool, frozenset[str]]]:
    """Each number: its value, whether it is money, and the stems of the three words on either side of it (its
    unit: "12,500 pallets" and "pallets: 12,500")."""
    if not text.isascii():  # before folding: NFKC reads 10⁶ as 106 and transliterates 万
        text = _POWER.sub(lambda m: m.group(1) + "^" + m.group(2).translate(_SUPERSCRIPTS), text)
        text = _CJK_SCALED.sub(lambda m: f" {float(m.group(1)) * _CJK_UNITS[m.group(2)]:.0f} ", text)
    folded = fold(text)
    if dates:
        for pattern, _ in _DATE_PATTERNS:
            folded = pattern.sub(" ", folded)

    def unit(match: re.Match) -> frozenset[str]:
        # a unit squared keeps its 2 ("km²" folds to "km2")
        tail = re.findall(r"[^\W\d_]+(?:2(?!\d))?", folded[match.end():match.end() + 40])[:3]
        head = re.findall(r"[^\W\d_]+", folded[max(match.start() - 40, 0):match.start()])[-3:]
        return frozenset(_stem(w.casefold()) for w in tail + head)

    out = []
    for match in _GROUPED_DOTS.finditer(folded):  # 410.000 EUR: European thousands (the other reading follows)
        value = float(match.group(0).replace(".", "").replace(",", "."))
        out.append((Quantity(round(value, 6), False), bool(_CURRENCY.match(folded[match.end():].strip())),
                    unit(match)))
    for match in _DECIMAL_COMMA.finditer(folded):
        for scale in _SCALE.get((match.group(3) or "").lower(), (1,)):
            value = float(f"{match.group(1)}.{match.group(2)}") * scale
            out.append((Quantity(round(value, 6), bool(match.group(4))),
                        bool(_CURRENCY.match(folded[match.end():].strip())), unit(match)))
    for match in _SCIENTIFIC.finditer(folded):
        power = int(match.group(2) or match.group(3))
        value = float(match.group(1).replace(",", ".")) * 10.0 ** power
        out.append((Quantity(round(value, 6), False), bool(_CURRENCY.match(folded[match.end():].strip())),
                    unit(match)))
    for match in _NUMBER.finditer(folded):
        raw = re.sub(r"[,\u00a0 '_]", "", match.group("num"))
        money = bool(match.group("cur") or _CURRENCY.match(folded[match.end():match.end() + 40].strip())
                     or currency_before(folded[:match.start()]))
        around = unit(match)
        for scale in _SCALE.get((match.group("scale") or "").lower(), (1,)):
            out.append((Quantity(round(float(raw) * scale, 6), bool(match.group("pct"))), money, around))
        # a figure in a currency's minor unit ("amount_cents: 86000000", "4,500 pence") is a hundredth of it
        key = re.sub(r"(?<=[a-z])(?=[A-Z])|_", " ", folded[max(match.start() - 24, 0):match.start()])
        beside = re.findall(r"[^\W\d_]+", key)[-2:] + re.findall(r"[^\W\d_]+", folded[match.end():match.end() + 12])[:1]
        if not match.group("scale") and any(w.casefold() in MINOR_UNITS for w in beside):
            out.append((Quantity(round(float(raw) / 100, 6), False), True, around))
    return out


_IDENTIFIER = lazy(r"(?=\S*\d)(?=\S*[A-Za-z])[A-Za-z0-9]+(?:[-_/.][A-Za-z0-9]+)+")


# -- numbers as values: near a restricted value, a narrow range around it, a fraction, multiple or per-period form

_NEAR_VALUE = 0.02  # a number within 2 % of a restricted amount or count (its unit with it) pins it: $1.25M for $1.24M
_DERIVED_VALUE = 0.01  # a stated fraction, multiple or per-period form, within 1 % (rounding: $7,200 a month)
_RANGE_SPAN = 0.15  # a range that holds a restricted value and spans at most 15 % of it pins it ("13 to 15 plants")
# words that say a number is a part, a multiple or a per-period form of another, and the factor back to the whole
_FACTOR_WORDS = {"half": 2.0, "double": 0.5, "third": 3.0, "triple": 1 / 3, "quarter": 4.0, "month": 12.0,
                 "week": 52.0, "day": 365.0}
# one pattern for all of them (compiled once, on the first statement with a number and a restricted value)
_FACTOR_WORD = lazy(r"(?P<half>\bhal(?:f|ves)\b|\bthe same again\b|\bsemi-?annual|\bbi-?annual|\bsix[- ]month)|"
                    r"(?P<double>\bdoubl(?:e|ed|ing)\b|\btwice\b)|(?P<third>\bthirds?\b)|"
                    r"(?P<triple>\btripl(?:e|ed)\b|\bthrice\b)|(?P<quarter>\bquarter(?:s|ly)?\b)|"
                    r"(?P<month>\bmonth(?:s|ly)?\b|/\s?mo\b|\bp\.?m\.?\b)|(?P<week>\bweek(?:s|ly)?\b|/\s?wk\b)|"
                    r"(?P<day>\bdaily\b|\bper day\b|\ba day\b)", re.I)
_TIMES = lazy(r"(?:[x×*]\s?(\d{1,3})\b|\b(\d{1,3})\s?[x×](?!\w)|\b(\d{1,3}) times\b|/\s?(\d{1,3})\b(?![.,]\d)|"
              r"\bdivided by (\d{1,3})\b)", re.I)
_EACH = lazy(r"\b(?:each|apiece|per|every)\b", re.I)
_OVER_PERIODS = lazy(r"\b(?:over|across|for|in|spread over)\s+(?:the\s+)?(?:next\s+|first\s+)?"
                     r"(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]+(?:years?|months?)\b",
                     re.I)
_SMALL_COUNT = lazy(r"\b(?:([2-9]|1[0-2])|(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))\b(?![.,]\d)",
                    re.I)
_PARTS_OF = lazy(r"\b(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:equal\s+)?"
                 r"(?:instal+ments?|payments?|tranches?|batches|lots|parts|phases|waves|shipments|deliveries)\s+of\b",
                 re.I)
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                "eleven": 11, "twelve": 12}
_RANGE = lazy(r"([$€£¥]?\s?\d[\d,.]*\s?(?:k|m|mn|bn|million|billion|thousand)?)\s*(?:-|–|—|to|and|through)\s*"
              r"([$€£¥]?\s?\d[\d,.]*\s?(?:k|m|mn|bn|million|billion|thousand)?)(?![\w.]\d)", re.I)


def _factors(text: str) -> dict[float, str]:
    """The factors back to a whole that the words of TEXT state: half or "then the same again" (2), double (1/2), a
    month (12), x3 (3 and 1/3), "two ... each" (2), "over two years" (1/2). Each with how it reads, for the hit's
    rule."""
    found: dict[float, str] = {}
    for match in _FACTOR_WORD.finditer(text):
        factor, how = _FACTOR_WORDS[match.lastgroup], match.group(0).strip().casefold()
        found.setdefault(factor, how)
        if match.lastgroup in ("half", "double", "third", "triple"):
            found.setdefault(1 / factor, how)  # either way round: "half is $1.1M" and "half of a $4.4M programme"
    for match in _TIMES.finditer(text):
        n = int(next(g for g in match.groups() if g))
        if 2 <= n <= 365:
            found.setdefault(float(n), match.group(0).strip())
            found.setdefault(1 / n, match.group(0).strip())
    # a total over several years or months of a per-year or per-month value: "$2.48M over two years"
    for match in _OVER_PERIODS.finditer(text):
        n = match.group(1)
        n = int(n) if n.isdigit() else _COUNT_WORDS[n.casefold()]
        if 2 <= n <= 12:
            found.setdefault(1 / n, match.group(0).strip())
    # a whole paid or delivered in N parts: "two instalments of $320,000", "3 tranches of 40 buses"
    for match in _PARTS_OF.finditer(text):
        n = match.group(1)
        n = int(n) if n.isdigit() else _COUNT_WORDS.get(n.casefold(), 0)
        if 2 <= n <= 12:
            found.setdefault(float(n), match.group(0).strip())
    if _EACH.search(text):
        for match in _SMALL_COUNT.finditer(text):
            n = int(match.group(1)) if match.group(1) else _COUNT_WORDS[match.group(2).casefold()]
            found.setdefault(float(n), f"{match.group(0)} ... each")
    return found


def _ranges(text: str) -> list[tuple[float, float, bool, frozenset[str]]]:
    """Ranges written "$5.5M-$5.7M", "between 12,400 and 12,600 seats", "5.5 to 5.7 million": (low, high,
    money, the words around); a bare low end takes the high end's scale ("$5.5-5.7M")."""
    folded = fold(text)
    out = []
    for match in _RANGE.finditer(folded):
        low = [q for q, _, _ in _numbers(match.group(1), dates=False) if not q.percent]
        high = _numbers(match.group(2), dates=False)
        high_values = [q for q, _, _ in high if not q.percent]
        if not low or not high_values:
            continue
        lo, hi = max(q.value for q in low), max(q.value for q in high_values)
        if 0 < lo < hi / 100:  # "5.5-5.7M": the low end written without its scale
            lo *= 10 ** round(math.log10(hi / lo))
        money = bool(_CURRENCY.search(match.group(0))) or bool(_CURRENCY.match(folded[match.end():].strip()))
        tail = re.findall(r"[^\W\d_]+", folded[match.end():match.end() + 40])[:3]
        head = re.findall(r"[^\W\d_]+", folded[max(match.start() - 40, 0):match.start()])[-3:]
        if lo < hi:
            out.append((lo, hi, money, frozenset(_stem(w.casefold()) for w in tail + head)))
    return out


# units of one dimension, each by its size in the dimension's base unit: a restricted count in one unit is
# pinned in another ("12,400 hectares" is "30,640 acres" and "124 km²"); in an area, "km" and "mile" are square
_UNIT_SIZES = {
    "area": {"hectare": 1e4, "ha": 1e4, "acre": 4046.856, "km": 1e6, "kilometre": 1e6, "kilometer": 1e6,
             "mile": 2.58999e6, "mi": 2.58999e6, "sqft": 0.092903, "foot": 0.092903, "feet": 0.092903,
             "ft": 0.092903, "metre": 1.0, "meter": 1.0, "m": 1.0, "sqm": 1.0},
    "length": {"km": 1e3, "kilometre": 1e3, "kilometer": 1e3, "mile": 1609.344, "mi": 1609.344, "metre": 1.0,
               "meter": 1.0, "m": 1.0, "foot": 0.3048, "feet": 0.3048, "ft": 0.3048, "yard": 0.9144},
    "mass": {"kg": 1.0, "kilogram": 1.0, "kilo": 1.0, "tonne": 1e3, "ton": 1e3, "t": 1e3, "lb": 0.4536,
             "pound": 0.4536, "lbs": 0.4536},
    "volume": {"litre": 1.0, "liter": 1.0, "l": 1.0, "gallon": 3.785, "gal": 3.785, "barrel": 158.987,
               "bbl": 158.987, "m3": 1e3},
    # a metric prefix on a watt or a watt-hour: "22,000 kW" is 22 MW ("kilowatt-hours" is read as two words: only
    # the symbols say energy)
    "power": {"w": 1.0, "watt": 1.0, "watts": 1.0, "kw": 1e3, "kilowatt": 1e3, "kilowatts": 1e3, "mw": 1e6,
              "megawatt": 1e6, "megawatts": 1e6, "gw": 1e9, "gigawatt": 1e9, "gigawatts": 1e9},
    "energy": {"wh": 1.0, "kwh": 1e3, "mwh": 1e6, "gwh": 1e9, "twh": 1e12},
}
_UNIT_DIMENSIONS = {"hectare": "area", "acre": "area", "kilometre": "length", "kilometer": "length",
                    "mile": "length", "tonne": "mass", "kilogram": "mass", "litre": "volume", "liter": "volume",
                    "gallon": "volume", "barrel": "volume",
                    **{unit: dimension for dimension in ("power", "energy") for unit in _UNIT_SIZES[dimension]
                       if len(unit) > 1}}


def _converted(quantity: float, unit: frozenset[str], q: float, around: frozenset[str]) -> bool:
    """Whether Q with a unit AROUND it is the restricted QUANTITY (with UNIT) in another unit of its dimension,
    within 2 %."""
    for word in unit:
        dimension = _UNIT_DIMENSIONS.get(word)
        if dimension is None:
            continue
        sizes = _UNIT_SIZES[dimension]
        written = around & sizes.keys()
        if dimension == "area" and not around & {"square", "sq"}:
            # km, mile, metre and foot are lengths unless squared: "km2" (km² folded), "square miles"
            written = {w for w in written if w in ("hectare", "ha", "acre", "sqft", "sqm")} | {
                w[:-1] for w in around if w.endswith("2") and w[:-1] in sizes}
        for other in written:
            if other != word and sizes[other] != sizes[word] and \
                    abs(q * sizes[other] - quantity * sizes[word]) <= _NEAR_VALUE * quantity * sizes[word]:
                return True
    return False


def _pinned_values(numbers: list, texts: list[str], lexicon: "Lexicon", done: set) -> list["Hit"]:
    """Restricted amounts and counts pinned without being stated: a number within 2 % of one (with its unit, or as
    money for money), a narrow range around one, or a stated fraction, multiple or per-period form of one."""
    hits = []
    factors: dict[float, str] = {}
    for text in texts:
        for factor, how in _factors(text).items():
            factors.setdefault(factor, how)
    ranges = [r for text in texts[:1] for r in _ranges(text)]
    for term, quantity in lexicon.quantities:
        if (term.entity, term.text) in done or quantity.percent or quantity.value < 100:
            continue
        target, unit = quantity.value, lexicon.units.get((term.text, quantity))
        money = unit is None and bool(_CURRENCY.search(term.text))

        def fits(is_money: bool, around: frozenset[str]) -> bool:
            return _same_unit(unit, around) if unit is not None else is_money or not money

        rule = None
        for q, is_money, around in numbers:
            if q.percent or q.value <= 0:
                continue
            if unit is not None and _converted(target, unit, q.value, around):
                rule = "value in another unit"
                break
            if q.value != target and abs(q.value - target) <= _NEAR_VALUE * target:
                rule = f"value within {_NEAR_VALUE:.0%}"
            for factor, how in factors.items() if rule is None else ():
                if abs(q.value * factor - target) <= _DERIVED_VALUE * target:
                    rule = f"value as a part or multiple ({how})"
                    break
            if rule and fits(is_money, around):  # the unit last: its synonyms are read only for a value that fits
                break
            rule = None
        for lo, hi, is_money, around in ranges if rule is None else ():
            if lo <= target <= hi and hi - lo <= _RANGE_SPAN * target and fits(is_money, around):
                rule = "range around the value"
        if rule:
            hits.append(Hit(term.entity, "restricted", term.text, _fmt(quantity), rule))
    hits += _small_counts_pinned(numbers, texts, ranges, factors, lexicon, done)
    return hits


def _parts_pinned(texts: list[str], lexicon: "Lexicon", done: set) -> list["Hit"]:
    """A restricted amount or count (with its unit) stated as two parts of it: the sum or difference of two numbers
    side by side that a joining word sets up as one whole ("1,000 owned trucks plus 400 subcontracted ones")."""
    from vmem.gates.values import parts

    wanted = [(t, q) for t, q in lexicon.quantities if (t.entity, t.text) not in done and not q.percent]
    if not wanted:
        return []
    hits = []
    for text in texts:
        folded = fold(text)
        spans, seen = [], set()
        for match in _NUMBER.finditer(folded):
            numbers = [q for q, _, _ in _numbers(match.group(0), dates=False) if not q.percent]
            if numbers and match.start() not in seen:
                seen.add(match.start())
                spans.append((match.start(), match.end(), max(q.value for q in numbers)))
        for value, how, start, end in parts(spans, folded):
            around = [a for q, _, a in _numbers(folded[max(start - 40, 0):end + 40], dates=False)]
            words = frozenset().union(*around) if around else frozenset()
            for term, quantity in wanted:
                unit = lexicon.units.get((term.text, quantity))
                if abs(value - quantity.value) <= 1e-6 * quantity.value and \
                        (unit is None or _same_unit(unit, words)) and (term.entity, term.text) not in done:
                    done = done | {(term.entity, term.text)}
                    found = folded[start:end].strip()
                    hits.append(Hit(term.entity, "restricted", term.text, found, f"value as a {how}"))
    return hits


_SMALL_COUNT_TERM = re.compile(r"^\s*(\d{1,2})\s+([A-Za-z][A-Za-z -]*)$")


def _small_counts_pinned(numbers: list, texts: list[str], ranges: list, factors: dict[float, str],
                         lexicon: "Lexicon", done: set) -> list["Hit"]:
    """A restricted count under 100 with its unit ("14 plants", "27 substations", kept as text) pinned without
    being written as it is listed: the count with its unit a few words on ("all 14 of their plants", "73 wind
    turbines"), a range with its unit that holds it and spans at most _RANGE_SPAN of it ("13 to 15 plants"),
    or a stated multiple with its unit ("nine substations in each of three regions")."""
    hits = []
    for term in lexicon.terms:
        match = _SMALL_COUNT_TERM.match(term.text) if term.kind == "restricted" else None
        if match is None or (term.entity, term.text) in done:
            continue
        target = float(match.group(1))
        unit = frozenset(_stem(w.casefold()) for w in re.findall(r"[A-Za-z]+", match.group(2)))
        if target < 2:
            continue
        rule = None
        for text in texts:  # (a count in words is in digits in the second text)
            for found in re.finditer(rf"(?<![\d.,]){int(target)}(?![\d]|[.,]\d)", text):
                clause = re.split(r"[,.;:!?()]", text[found.end():found.end() + 40])[0]  # "in 14 regions, clinics"
                tail = re.findall(r"[^\W\d_]+", clause)[:3]
                if _same_unit(unit, frozenset(_stem(w.casefold()) for w in tail)):
                    rule = "count with its unit a few words on"
        for q, is_money, around in numbers if rule is None else ():  # "22,000 kW" for 22 MW
            if not is_money and _converted(target, unit, q.value, around):
                rule = "value in another unit"
        for lo, hi, is_money, around in ranges if rule is None else ():
            if not is_money and lo <= target <= hi and hi - lo <= _RANGE_SPAN * target and _same_unit(unit, around):
                rule = "range around the value"
        for q, is_money, around in numbers if rule is None else ():
            if is_money or q.percent or q.value <= 0 or q.value >= target or not _same_unit(unit, around):
                continue
            for factor, how in factors.items():
                if factor > 1 and factor == int(factor) and abs(q.value * factor - target) < 1e-9:
                    rule = f"value as a part or multiple ({how})"
                    break
            if rule:
                break
        if rule:
            hits.append(Hit(term.entity, "restricted", term.text, match.group(0).strip(), rule))
    return hits


_UNIT_ENDS = frozenset("per across over under via between among within".split())


# a scale written right after the figure ("9.6M", "4.2 bn", "12 million") says how many, not of what
_SCALE_SUFFIX = lazy(r"^(?:k|m|mm|mn|b|bn|t|tn|thousand|million|billion|trillion|lakh|crore)\b", re.I)
# an amount in a currency the gate has no name for: its code, three capitals, right before the figure ("AZN 9.6M")
_CODE_BEFORE = lazy(r"(?<![A-Za-z])[A-Z]{3}\s?(?=\d)")


def _head_noun(value: str) -> frozenset[str]:
    """The noun a restricted count counts: the last word of the phrase after its number ("340 wind turbines" counts
    turbines; "wind" says which, and a statement about 340 MW of wind counts no turbines); empty when none."""
    after = _SCALE_SUFFIX.sub("", re.split(r"\d[\d,.\u00a0' ]*", fold(value), maxsplit=1)[-1], count=1)
    phrase = []
    for word in re.findall(r"[^\W\d_]+", after):
        if word.casefold() in _FUNCTION_WORDS or word.casefold() in _UNIT_ENDS:
            break
        phrase.append(word)
    return frozenset({_stem(phrase[-1].casefold())}) if phrase else frozenset()


def _distinctive(quantity: Quantity, text: str) -> bool:
    """Small round counts ("3-year term") identify nobody; amounts, percentages and big or exact numbers may."""
    if not quantity.percent and quantity.value == int(quantity.value) and 1900 <= quantity.value <= 2100 \
            and not _CURRENCY.search(text) and not re.search(r"\d[,.\u00a0 ']\d{3}", text):
        return False  # a year alone is not a restricted value: "2026" is not SCC-RFP-2026-014 or a renewal date
        # (a year is never written with a thousands separator: "1,900 beds" is a count)
    return quantity.percent or quantity.value >= 100 or quantity.value != int(quantity.value)


# -- the lexicon ---------------------------------------------------------------------------


class Term(namedtuple("Term", "entity kind text squashed")):
    """entity; kind: name | alias | person | domain | restricted; text; squashed: tokens joined with no
    separator, plural-insensitive last token."""

    __slots__ = ()


class Lexicon:
    """Every customer's terms, restricted values and quotes, with lookups built on first use."""

    FIELDS = ("terms", "person_parts", "domains", "quantities", "units", "dates", "quotes", "categories")
    __slots__ = FIELDS + ("_lookup", "_quote_index", "_lookup_il", "_skeletons", "_person_skeletons", "_heads",
                          "_first_words", "_derived", "_near", "_codes", "_clips", "_reorderable")

    def __init__(self, terms: list[Term] | None = None, person_parts: dict[str, tuple[Term, ...]] | None = None,
                 domains: list[Term] | None = None, quantities: list[tuple[Term, Quantity]] | None = None,
                 units: dict[tuple[str, Quantity], frozenset[str]] | None = None,
                 dates: list[tuple[Term, date]] | None = None,
                 quotes: list[tuple[str, str, list[str]]] | None = None,
                 categories: dict[str, tuple[str, ...]] | None = None) -> None:
        self.terms: list[Term] = terms if terms is not None else []
        self.person_parts = person_parts if person_parts is not None else {}  # surname / first name alone
        self.domains: list[Term] = domains if domains is not None else []
        self.quantities = quantities if quantities is not None else []
        # a restricted count matches only with its unit ("4,200 seats", not "4,200 rows"); money, percentages: none
        self.units = units if units is not None else {}
        self.dates = dates if dates is not None else []
        self.quotes = quotes if quotes is not None else []  # entity, quote, its tokens
        self.categories = categories if categories is not None else {}  # entity -> its facet:value categories
        self._lookup: tuple | None = None
        self._quote_index: tuple | None = None
        self._lookup_il: tuple | None = None
        self._skeletons: tuple | None = None
        self._person_skeletons: tuple | None = None
        self._heads: tuple | None = None
        self._first_words: tuple | None = None
        self._derived: tuple | None = None
        self._near: tuple | None = None
        self._codes: tuple | None = None
        self._clips: tuple | None = None
        self._reorderable: tuple | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lexicon) and all(getattr(self, k) == getattr(other, k) for k in self.FIELDS)

    def __repr__(self) -> str:
        return f"Lexicon({len(self.terms)} terms, {len(self.quotes)} quotes)"

    def quotes_sharing(self, content: set[str]) -> list[int]:
        """Indexes of the quotes that share at least two content words with CONTENT (an inverted index)."""
        if self._quote_index is None or self._quote_index[0] != len(self.quotes):
            index: dict[str, list[int]] = {}
            for i, (_, _, quoted) in enumerate(self.quotes):
                for word in set(_content(quoted)) | set(_content(quoted, uninflected=True)):
                    index.setdefault(word, []).append(i)
            self._quote_index = (len(self.quotes), index)
        shared: dict[int, int] = {}
        for word in content:
            for i in self._quote_index[1].get(word, ()):
                shared[i] = shared.get(i, 0) + 1
        return sorted(i for i, n in shared.items() if n >= 2 or len(self.quotes[i][2]) < _QUOTE_RUN)

    def lookup(self) -> tuple[dict[str, Term], int]:
        """Terms by squashed form, and the widest word window worth trying; built once per lexicon."""
        if self._lookup is None or self._lookup[0] != len(self.terms):
            by_squash: dict[str, Term] = {}
            for term in self.terms:
                by_squash.setdefault(term.squashed, term)
            width = max((len(tokens(t.text)) for t in self.terms), default=1) + 2
            self._lookup = (len(self.terms), by_squash, width)
        return self._lookup[1], self._lookup[2]

    def skeletons(self) -> dict[str, tuple[Term, ...]]:
        """One-word names and aliases by sound-alike key (at least four consonant sounds, so few collide)."""
        if self._skeletons is None or self._skeletons[0] != len(self.terms):
            keys: dict[str, tuple[Term, ...]] = {}
            for term in self.terms:
                if term.kind in ("name", "alias") and len(tokens(term.text)) == 1:
                    key = _skeleton(term.squashed)
                    if len(key) >= 4:
                        keys[key] = keys.get(key, ()) + (term,)
            self._skeletons = (len(self.terms), keys)
        return self._skeletons[1]

    def first_words(self) -> frozenset[str]:
        """The first word of every term and every term squashed: where a name found in a reading can start."""
        if self._first_words is None or self._first_words[0] != len(self.terms):
            self._first_words = (len(self.terms), frozenset(
                w for t in self.terms for w in (t.squashed, *tokens(t.text)[:1])))
        return self._first_words[1]

    def derived(self) -> "Derived":
        """The forms people make of every name (see Derived); built once per lexicon, from the terms alone."""
        if self._derived is None or self._derived[0] != len(self.terms):
            self._derived = (len(self.terms), _derive(self.terms))
        return self._derived[1]

    def derived_codes(self) -> dict[str, tuple[Term, ...]]:
        """The codes the listed names carry (see _listed_codes); built once per lexicon."""
        if self._codes is None or self._codes[0] != len(self.terms):
            self._codes = (len(self.terms), _listed_codes(self))
        return self._codes[1]

    def reorderable(self) -> dict[str, list[tuple[Term, list[str]]]]:
        """Names and aliases of two or three distinct words (no "and", "of"), with those words, by each of their
        words but the first (where a reordered name can start); built once per lexicon."""
        if self._reorderable is None or self._reorderable[0] != len(self.terms):
            index: dict[str, list[tuple[Term, list[str]]]] = {}
            for term in self.terms:
                wanted = [w for w in tokens(term.text) if w not in _SKIPPED_IN_INITIALS]
                if term.kind in ("name", "alias") and 2 <= len(wanted) <= 3 and len(set(wanted)) == len(wanted):
                    for word in wanted[1:]:
                        index.setdefault(word, []).append((term, wanted))
            self._reorderable = (len(self.terms), index)
        return self._reorderable[1]

    def clipped_names(self) -> dict[str, tuple[Term, ...]]:
        """A rare name word's clipped forms (see _clipped); built once per lexicon."""
        if self._clips is None or self._clips[0] != len(self.terms):
            self._clips = (len(self.terms), _clipped(self))
        return self._clips[1]

    def near_index(self) -> "NearIndex":
        """The name words fuzzy and phonetic matching compares against (see NearIndex); built once per lexicon."""
        if self._near is None or self._near[0] != len(self.terms):
            self._near = (len(self.terms), _near_index(self.terms))
        return self._near[1]

    def heads(self) -> frozenset[str]:
        """The first words of the names of more than one word (where a name written backwards can start)."""
        if self._heads is None or self._heads[0] != len(self.terms):
            self._heads = (len(self.terms), frozenset(
                tokens(t.text)[0] for t in self.terms if len(tokens(t.text)) > 1))
        return self._heads[1]

    def kana_skeletons(self) -> dict[str, tuple[Term, ...]]:
        """One-word names and aliases by their katakana sound-alike key (_kana_key; four or more sounds)."""
        keys: dict[str, tuple[Term, ...]] = {}
        for term in self.terms:
            if term.kind in ("name", "alias") and len(tokens(term.text)) == 1:
                key = _kana_key(term.squashed)
                if len(key) >= 4:
                    keys[key] = keys.get(key, ()) + (term,)
        return keys

    def person_skeletons(self) -> dict[tuple[str, ...], tuple[Term, ...]]:
        """Contacts' full names by the sound-alike keys of their words (two to four words, each key two or more
        consonant sounds long, so a transliterated name matches and little else)."""
        if self._person_skeletons is None or self._person_skeletons[0] != len(self.terms):
            keys: dict[tuple[str, ...], tuple[Term, ...]] = {}
            for term in self.terms:
                key = tuple(_skeleton(w) for w in tokens(term.text)) if term.kind == "person" else ()
                if 2 <= len(key) <= 4 and all(len(k) >= 2 for k in key):
                    keys[key] = keys.get(key, ()) + (term,)
            self._person_skeletons = (len(self.terms), keys)
        return self._person_skeletons[1]

    def lookup_il(self) -> dict[str, Term]:
        """Terms keyed with i and l folded together, for readings where 1, |, ! or a palochka may stand for either."""
        if self._lookup_il is None or self._lookup_il[0] != len(self.terms):
            by_squash: dict[str, Term] = {}
            for term in self.terms:
                by_squash.setdefault(term.squashed.translate(_IL), term)
            self._lookup_il = (len(self.terms), by_squash)
        return self._lookup_il[1]

    @property
    def max_words(self) -> int:
        return self.lookup()[1]

    def to_plain(self) -> dict:
        """The lexicon as marshal-able values (tuples, strings, numbers), for the per-store cache."""
        return {"terms": [tuple(t) for t in self.terms],
                "person_parts": {k: [tuple(t) for t in v] for k, v in self.person_parts.items()},
                "domains": [tuple(t) for t in self.domains],
                "quantities": [(tuple(t), tuple(q)) for t, q in self.quantities],
                "units": [(text, tuple(q), tuple(sorted(unit))) for (text, q), unit in self.units.items()],
                "dates": [(tuple(t), day.toordinal()) for t, day in self.dates],
                "quotes": [(entity, quote, list(words)) for entity, quote, words in self.quotes],
                "categories": {entity: list(held) for entity, held in self.categories.items()}}

    @classmethod
    def from_plain(cls, plain: dict) -> "Lexicon":
        """The inverse of to_plain; raises (KeyError, TypeError, ValueError) on anything else."""
        if set(plain) != set(cls.FIELDS):
            raise ValueError("the lexicon's fields changed")
        return cls(terms=[Term(*t) for t in plain["terms"]],
                   person_parts={k: tuple(Term(*t) for t in v) for k, v in plain["person_parts"].items()},
                   domains=[Term(*t) for t in plain["domains"]],
                   quantities=[(Term(*t), Quantity(*q)) for t, q in plain["quantities"]],
                   units={(text, Quantity(*q)): frozenset(unit) for text, q, unit in plain["units"]},
                   dates=[(Term(*t), date.fromordinal(day)) for t, day in plain["dates"]],
                   quotes=[(entity, quote, list(words)) for entity, quote, words in plain["quotes"]],
                   categories={entity: tuple(held) for entity, held in plain["categories"].items()})


def _squash(words: list[str]) -> str:
    return "".join(words[:-1] + [_stem(words[-1])]) if words else ""


def build_lexicon(entities: list[dict], episodes: list[dict] = ()) -> Lexicon:
    lexicon = Lexicon()

    def add(entity: str, kind: str, text: str) -> None:
        words = tokens(text)
        if words:
            lexicon.terms.append(Term(entity, kind, text, _squash(words)))

    for entity in entities:
        eid = entity["id"]
        if entity.get("categories"):
            lexicon.categories[eid] = tuple(str(c) for c in entity["categories"])
        add(eid, "name", entity["name"])
        for alias in entity.get("aliases") or []:
            if alias.strip().upper() not in COMMON_ACRONYMS:
                add(eid, "alias", alias)
        for person in entity.get("people") or []:
            add(eid, "person", person)
            parts = fold(person).split()
            if len(parts) >= 2:  # the surname squashed whole: "Farr-Jones" is not "Jones", "van Dam" not "Dam"
                first = len(parts) - 1
                while first > 1 and parts[first - 1].casefold() in _PARTICLES:
                    first -= 1
                keys = {"".join(tokens(" ".join(parts[first:])))}
                if len("".join(tokens(parts[0]))) >= 4:
                    keys.add("".join(tokens(parts[0])))
                for key in keys:
                    term = Term(eid, "person", person, key)
                    lexicon.person_parts[key] = lexicon.person_parts.get(key, ()) + (term,)
        for domain in entity.get("domains") or []:
            lexicon.domains.append(Term(eid, "domain", domain, fold(domain).casefold()))
            label = tokens(domain.rsplit(".", 1)[0])
            if label and len("".join(label)) >= 5:
                lexicon.terms.append(Term(eid, "domain", domain, _squash(label)))
        for value in entity.get("restricted") or []:
            if _IDENTIFIER.fullmatch(value.strip()):  # matched whole, never by the year or count inside it
                add(eid, "restricted", value)
                continue
            found_dates = dates_in(value)
            for day in found_dates:
                lexicon.dates.append((Term(eid, "restricted", value, ""), day))
            quantities = [q for q in quantities_in(value) if _distinctive(q, value)]
            numbers = {q: (money, unit) for q, money, unit in _numbers(value)}
            for quantity in quantities:
                lexicon.quantities.append((Term(eid, "restricted", value, ""), quantity))
                money, unit = numbers.get(quantity, (True, frozenset()))
                if not money and not quantity.percent and not _CURRENCY.search(value) and \
                        not _CODE_BEFORE.search(value) and unit:
                    lexicon.units[(value, quantity)] = _head_noun(value) or unit
            if not found_dates and not quantities:
                add(eid, "restricted", value)
    for episode in episodes:
        for quote in episode.get("quotes") or []:
            lexicon.quotes.append((episode["entity"], quote, _quote_tokens(quote)))
    return lexicon


# -- the gate -------------------------------------------------------------------------------


class Hit(namedtuple("Hit", "entity kind term found rule", defaults=("exact",))):
    """entity, kind, term, found; rule: which reading or rule fired (exact, transliterated, de-leet,
    letter-spacing, ...)."""

    __slots__ = ()

    def describe(self) -> str:
        what = {"name": "customer name", "alias": "customer alias", "person": "customer contact",
                "domain": "customer domain", "restricted": "restricted value", "quote": "customer quote",
                "email": "e-mail address", "membership": "the only customer of its kind",
                "unreadable": "text the gate could not read"}[self.kind]
        matches = f"matches {self.term!r}" if self.term != self.found else ""
        how = ", ".join(x for x in (matches, "" if self.rule == "exact" else f"rule: {self.rule}") if x)
        return f"{what} {self.found!r}" + (f" ({how})" if how else "")


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.I)
_QUOTE_RUN = 6  # a shared run of this many words is reuse, not a theme
_QUOTE_SHARE = 0.6  # or this share of the quote's word triples


def _quote_tokens(text: str) -> list[str]:
    text = fold(text).casefold()
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return [_stem(t) for t in _TOKEN.findall(text)]


_LEET = str.maketrans({"4": "a", "@": "a", "3": "e", "0": "o", "5": "s", "$": "s", "7": "t", "8": "b", "9": "g",
                       "|": "l", "!": "i", "€": "e", "£": "l", "¢": "c"})
_LEETY = lazy(r"(?<![\w@$|!€£¢])(?=[\w@$|!€£¢]*[A-Za-z])(?=[\w@$|!€£¢]*[\d@$|!€£¢])[\w@$|!€£¢]+")
_LEET_SIGNS = frozenset("@$|!€£¢")
# letters drawn with several signs; replaced before the one-sign table (plain text: str.replace, not patterns)
_LEET_DRAWN = (
    ("|\\/|", "m"), ("/\\/\\", "m"), ("|\\|", "n"), ("|-|", "h"), ("]-[", "h"), ("|<", "k"), ("|{", "k"),
    ("/\\", "a"), ("\\/", "v"), ("|)", "d"), ("|2", "r"), ("|3", "b"), ("()", "o"), ("[]", "o"))
_SPACED = re.compile(r"(?<![\w.])(?:[A-Za-z](?:\s*[.\-_\u00b7]\s*|\s+)){2,}[A-Za-z](?!\w)")


def _deleet(text: str, one: str) -> str:
    """Digits and signs standing for letters inside a word: L4rkspur, Kestre1, Quint@ra, |<estrel, K€strel."""
    for drawn, letter in _LEET_DRAWN:
        text = text.replace(drawn, letter)
    return _LEETY.sub(lambda m: m.group(0).translate(_LEET).replace("1", one), text)


def _leety(folded: str) -> bool:
    # _LEETY needs a digit (\d: a Unicode decimal) or one of its signs: without one it cannot match (nor compile)
    signs = any(ch in _LEET_SIGNS or ch.isdecimal() for ch in folded)
    return signs and bool(_LEETY.search(folded)) or any(drawn in folded for drawn, _ in _LEET_DRAWN)


def _collapse(text: str) -> str:
    """Letters spelled out one by one ("C-o-r-v-a-n-e", "L a r k s p u r", "M.e.r.i.d.a.l.e") become one word."""
    return _SPACED.sub(lambda m: re.sub(r"[^A-Za-z]", "", m.group(0)), text)


def _spelled_hits(folded: str, by_squash: dict[str, Term]) -> list[Hit]:
    """A name inside a run of spelled-out letters, wherever it starts: "a L a r k s p u r" holds Larkspur."""
    hits = []
    for match in _SPACED.finditer(folded):
        letters = re.sub(r"[^A-Za-z]", "", match.group(0)).casefold()
        for key, term in by_squash.items():
            if len(key) >= 4 and key in letters:
                hits.append(Hit(term.entity, term.kind, term.text, match.group(0), "letter-spacing"))
    return hits


def _reversed_hits(folded: str, lexicon: Lexicon, by_squash: dict[str, Term]) -> list[Hit]:
    """Names written backwards ("lertseK", "thgierF lertseK", "raweD"). A backwards word is matched only when it is
    no English word itself and the name it reverses has five letters or more: short words and English words
    reverse into names by chance ("am" / Ma), spelling a name backwards is no chance."""
    hits = []
    words = _TOKEN.findall(folded)
    # a word that reverses into no name is dropped before the English-word test, whose dictionary costs ~60 ms to
    # load: the same words pass as when the dictionary was asked first
    derived = lexicon.derived()
    candidates = [w for w in words if len(w) >= 5 and (w[::-1].casefold() in by_squash
                                                        or w[::-1].casefold() in lexicon.person_parts
                                                        or w[::-1].casefold() in derived.heads
                                                        or w[::-1].casefold() in derived.parts)]
    candidates = [w for w in candidates if not _ordinary(w) and w.casefold() not in _dictionary()]
    for word in candidates:
        key = word[::-1].casefold()
        term = by_squash.get(key)
        if term is not None and len(key) >= 5 and not needs_cue(term):
            hits.append(Hit(term.entity, term.kind, term.text, word, "reversed"))
        for part in lexicon.person_parts.get(key, ()) if len(key) >= 5 else ():
            hits.append(Hit(part.entity, "person", part.text, word, "reversed"))
        # a word of a longer name, written backwards ("hsramtlaS"), when English does not write it forwards
        named = derived.heads.get(key, ()) + derived.parts.get(key, ())
        if named and key not in by_squash:
            from vmem.gates.near import common

            if not common(key) and key not in _dictionary():
                hits += [Hit(t.entity, t.kind, t.text, word, "reversed word of the name") for t in named]
    backwards = [w[::-1].casefold() for w in reversed(words)]
    _, max_words = lexicon.lookup()
    heads = lexicon.heads()
    for start in (n for n, word in enumerate(backwards) if word in heads):
        for width in range(2, min(max_words, len(backwards) - start) + 1):
            term = by_squash.get(_squash(backwards[start:start + width]))
            if term is not None and (" " in term.text.strip() or term.kind == "person"):
                hits.append(Hit(term.entity, term.kind, term.text, " ".join(backwards[start:start + width]),
                                "reversed"))
    return hits


_IL = str.maketrans("iI", "lL")


_NATO = {"alfa": "a", "alpha": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e", "foxtrot": "f",
         "golf": "g", "hotel": "h", "india": "i", "juliet": "j", "juliett": "j", "kilo": "k", "lima": "l",
         "mike": "m", "november": "n", "oscar": "o", "papa": "p", "quebec": "q", "romeo": "r", "sierra": "s",
         "tango": "t", "uniform": "u", "victor": "v", "whiskey": "w", "whisky": "w", "xray": "x", "x-ray": "x",
         "yankee": "y", "zulu": "z"}
_NATO_WORD = "(?:" + "|".join(sorted(map(re.escape, _NATO), key=len, reverse=True)) + ")"
# three or more code words in a row, apart only by spaces, hyphens, dots, commas or slashes, spell a word
_NATO_RUN = lazy(rf"\b{_NATO_WORD}(?:[\s,./-]+{_NATO_WORD}){{2,}}\b", re.I)


def _spelling_alphabet(folded: str) -> str:
    """Runs of NATO code words as the word they spell ("Kilo Echo Sierra ..." is Kes...), capitalised as a name."""
    lowered = folded.casefold()
    if sum(lowered.count(word) for word in _NATO) < 3:  # the literal first: the pattern compiles only when it may match
        return folded
    return _NATO_RUN.sub(lambda m: "".join(_NATO[w.casefold()] for w in re.findall(
        _NATO_WORD, m.group(0), re.I)).capitalize(), folded)


def _readings(statement: str, folded: str) -> list[tuple[str, str, bool]]:
    """The statement as a reader may read it: as shown, transliterated, de-leeted (spelled-out letters joined).

    The third field says the reading folds i and l together: a 1, |, ! or a palochka may stand for either, and
    an evader may mix them within one word ("Qu1llon", "Quiӏlon").
    """
    readings = [("exact", folded, False)]
    if not statement.isascii():
        readings += [("transliterated", fold(statement, transliterate=True), False),
                     ("look-alike", _collapse(folded).translate(_IL), True)]
        if _BIDI_OPEN.intersection(statement):
            readings += [("bidi", fold(statement, reversing=r), False) for r in _BIDI_READINGS]
    if _leety(folded):
        readings.append(("de-leet", _collapse(_deleet(folded, "l")).translate(_IL), True))
    spelled = _spelling_alphabet(folded)
    if spelled != folded:
        readings.append(("spelling alphabet", spelled, False))
    split = _identifier_words(folded)
    if split != folded:
        readings.append(("identifier split", split, False))
    seen, unique = set(), []
    for reading in readings:
        if reading[1:] not in seen:
            seen.add(reading[1:])
            unique.append(reading)
    return unique


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])|_")


def _identifier_words(folded: str) -> str:
    """FOLDED with the words an identifier runs together written apart: camelCase and PascalCase humps, snake_case
    underscores, letters glued to digits ("BayuLestariCommissionJob", "UkukhanyaSolar2026", "bayu_lestari_v2"), so
    every name rule reads the words inside code as words."""
    return " ".join(_CAMEL.sub(" ", token) if len(token) > 3 else token for token in folded.split(" "))


def _skeleton(word: str) -> str:
    """A sound-alike key: consonants after the first letter, c/k/q, v/w, i/j/y folded, doubles collapsed.

    Names transliterated into another script and back rarely come out letter for letter ("Тайдвелл" reads
    Taydvell for Tidewell, "Меридейл" Merideyl for Meridale), but their consonants survive.
    """
    word = word.casefold().replace("dzh", "j").replace("kh", "h").replace("qu", "kv").replace("ph", "f").replace("x", "ks")
    word = word.translate(str.maketrans("cqwjy", "kkvii"))
    key = word[:1] + re.sub(r"[aeiouh]", "", word[1:])
    return re.sub(r"(.)\1+", r"\1", key)


# Modern Greek writes d, b and g as these pairs (Ντάλας: Dallas); a letter-by-letter table reads nt, mp, gk
_GREEK_PAIRS = [("ντ", "d"), ("Ντ", "D"), ("ΝΤ", "D"), ("μπ", "b"), ("Μπ", "B"), ("ΜΠ", "B"), ("γκ", "g"), ("Γκ", "G"),
                ("ΓΚ", "G")]


_GREEK_PAIR = re.compile("|".join(pair for pair, _ in _GREEK_PAIRS))
_GREEK_LETTER = dict(_GREEK_PAIRS)


def _greek_readings(word: str) -> set[str]:
    """WORD with each of its ντ, μπ and γκ (up to four) read as d, b, g or as nt, mp, nk, each on its own: Greek
    writes a foreign d as ντ, and a foreign n-t as ντ too ("Γκενταντορ" is Gen-ta-dor)."""
    found = [m.start() for m in _GREEK_PAIR.finditer(word)][:4]
    out = set()
    for mask in range(2 ** len(found)):
        parts, last = [], 0
        for bit, start in enumerate(found):
            pair = word[start:start + 2]
            parts += [word[last:start], _GREEK_LETTER[pair] if mask >> bit & 1 else pair]
            last = start + 2
        out.add("".join(parts) + word[last:])
    return out


def _sounded(word: str) -> str:
    for pair, letter in _GREEK_PAIRS:
        word = word.replace(pair, letter)
    return _skeleton(fold(word, transliterate=True))


# Katakana has no l and no closed r: English r after a vowel becomes a long vowel (コーヴェイン, Corvane), l
# becomes r (ケストレル, Kestrel), w before a vowel is written ウ plus a small vowel (タイドウェル, Tidewell)
_KANA = lazy(r"[\u30a0-\u30ff\u3040-\u309f]")
_KANA_PAIRS = [("ウィ", "wi"), ("ウェ", "we"), ("ウォ", "wo"), ("ヴァ", "va"), ("ヴィ", "vi"), ("ヴェ", "ve"),
               ("ヴォ", "vo"), ("ヴ", "vu"), ("ー", ""),
               # a small vowel makes one syllable of a foreign sound: ティ is ti, not te-i
               ("ティ", "ti"), ("ディ", "di"), ("トゥ", "tu"), ("ドゥ", "du"), ("ファ", "fa"), ("フィ", "fi"),
               ("フェ", "fe"), ("フォ", "fo"), ("シェ", "she"), ("ジェ", "je"), ("チェ", "che")]


def _kana_key(latin: str) -> str:
    """A sound-alike key as a name sounds in katakana: l as r, an r closing a syllable dropped."""
    word = latin.casefold().replace("l", "r")
    return _skeleton(re.sub(r"(?<=[aeiouy])r(?=[^aeiouy]|$)", "", word))


def _sound_hits(statement: str, lexicon: Lexicon) -> list[Hit]:
    """Words written in another script whose sound-alike keys are a one-word name's, or a contact's full name's
    word for word (rule: transliteration)."""
    keys, people = lexicon.skeletons(), lexicon.person_skeletons()
    words = re.findall(r"[^\W\d_]+", unicodedata.normalize("NFKC", statement))
    sounds = [_sounded(word) for word in words]
    hits = []
    kana = lexicon.kana_skeletons() if _KANA.search(statement) else {}
    for n, word in enumerate(words):
        if word.isascii():
            continue
        for term in keys.get(sounds[n], ()):
            hits.append(Hit(term.entity, term.kind, term.text, word, "transliteration (sound-alike)"))
        if kana and _KANA.search(word):
            from anyascii import anyascii

            for pair, letters in _KANA_PAIRS:
                word = word.replace(pair, letters)
            # anyascii on the composed kana: folding would strip the voicing mark (ド is not ト)
            for term in kana.get(_skeleton(anyascii(word)), ()):
                hits.append(Hit(term.entity, term.kind, term.text, words[n], "katakana (sound-alike)"))
        for width in range(2, 5):  # a full name with this word in it (Ник Фарр-Джонс)
            for start in range(max(n - width + 1, 0), min(n, len(words) - width) + 1):
                for term in people.get(tuple(sounds[start:start + width]), ()):
                    hits.append(Hit(term.entity, "person", term.text, " ".join(words[start:start + width]),
                                    "transliteration (sound-alike)"))
    return hits


def _script_forms(word: str, name: bool = False) -> set[str]:
    """The spellings of WORD that a name's trip through katakana, Greek or Cyrillic and back keeps apart from its
    vowels: l and r one letter, g, j, tz and dz one sound, qu a k before a vowel. Written, th is Greek theta,
    heard as s; a NAME's th may also be written t (katakana has no th), its j as y (Jürgen is "yurugen"), its qu
    as kv (Cyrillic), and an r that closes a syllable may be dropped, which katakana writes as a long vowel."""
    word = word.casefold().replace("tz", "g").replace("dz", "g")
    forms = {word.replace("qu", "ku").replace("th", "s").replace("j", "g")}
    if name:
        forms = {word.replace("qu", qu).replace("th", th).replace("j", j)
                 for qu in ("ku", "kv") for th in ("s", "t") for j in ("g", "y")}
        forms |= {dropped for form in forms for dropped in _closing_r_dropped(form)}
    return {form.replace("l", "r") for form in forms}


def _closing_r_dropped(word: str) -> set[str]:
    """WORD with each subset of the r's that close a syllable dropped (up to four of them): katakana writes one as
    a long vowel and may keep another (ドー for "dor", ユル for "jur")."""
    places = [m.start() for m in re.finditer(r"(?<=[aeiouy])r(?=[^aeiou]|$)", word)][:4]
    out = set()
    for mask in range(1, 2 ** len(places)):
        drop = {place for bit, place in enumerate(places) if mask >> bit & 1}
        out.add("".join(ch for i, ch in enumerate(word) if i not in drop))
    return out


def _script_keys(word: str, name: bool = False) -> set[str]:
    """Sound keys of _script_forms: vowels out (the vowels katakana adds between consonants go with them):
    "koruvannu" and "Corvanne" are both k-r-v-n, "Baiolotziks" and "Biologics" b-r-g-k-s."""
    return {_skeleton(form) for form in _script_forms(word, name)}


# Greek writes u as "ου" and w as "γου" (Θίσλγουντ: Thistlewood); katakana doubles a consonant with a small tsu
_SCRIPT_PAIRS = [("γου", "w"), ("Γου", "W"), ("ΓΟΥ", "W"), ("ου", "u"), ("Ου", "U"), ("ΟΥ", "U"), ("ού", "u"),
                 ("ッ", "")]
# a name's key of this many sounds may be written one sound off (a silent letter: the t of Thistlewood is not
# heard in Θίσλγουντ);
# shorter keys must be equal, and a one-word name needs a key of at least _SCRIPT_ONE_WORD sounds
_SCRIPT_FUZZY = 5
_SCRIPT_ONE_WORD = 4
# a one-word name's letters shared with the transliteration (normalised edit similarity); fitted on the class
# probes and the commonest 20,000 words of Japanese, Greek, Russian, Ukrainian and Bulgarian (wordfreq), where
# "kostel" (0.71) is the nearest ordinary word to a name (Kestrel)
_SCRIPT_SPELLING = 0.75


def _script_alike(written: str, wanted: set[str]) -> bool:
    if written in wanted:
        return True
    if len(written) < _SCRIPT_FUZZY - 1:
        return False
    from rapidfuzz.distance import OSA

    return any(len(key) >= _SCRIPT_FUZZY and OSA.distance(written, key, score_cutoff=1) <= 1 for key in wanted)


# scripts that spell a foreign name's vowels too, so a key of its consonants is compared with their letters: an
# abjad (Arabic, Hebrew) writes few vowels and ideographs no sounds of a name, and consonants alone match by chance
_SPELLING_SCRIPTS = ("KATAKANA", "GREEK", "CYRILLIC")


def _script_text(statement: str) -> str:
    """STATEMENT as the other-script readers take it: NFKC (half-width katakana is katakana), the characters every
    reader ignores out (a zero-width space or soft hyphen inside ヴェルモーラ splits no word), and stray
    combining marks that NFKC could not compose out (an accent put on a Greek consonant)."""
    text = _visible(unicodedata.normalize("NFKC", statement))
    return "".join(ch for ch in text if unicodedata.category(ch) != "Mn")


def _foreign_letters(statement: str) -> bool:
    """Whether STATEMENT has letters of katakana, Greek or Cyrillic."""
    return any(not ch.isascii() and ch.isalpha() and unicodedata.name(ch, "").startswith(_SPELLING_SCRIPTS)
               for ch in statement)


def _script_name_hits(statement: str, lexicon: Lexicon) -> list[Hit]:
    """Names written in another script ("コルヴァンヌ・バイオロジクス", "Κορβάν Μπαϊολότζικς", "ヴェルモーラ",
    "Ο Ομάρι Θίσλγουντ"): transliterated (anyascii), each word's _script_keys like the name's word for word. A
    name of one word needs a key of four sounds or more and a spelling like the name's. Greek reads ντ, μπ and γκ
    as d, b and g, and inside a foreign name also as nt, mp and nk: each is read both ways (_greek_readings)."""
    from anyascii import anyascii

    from vmem.gates.near import similarity

    def words_of(text: str) -> list[str]:
        return re.findall(r"[^\W\d_]+", unicodedata.normalize("NFKC", text.replace("・", " ").replace("·", " ")))

    originals = words_of(statement)
    keys: list[set[str]] = [set() for _ in originals]  # per word: its sound keys and its spellings
    spellings: list[set[str]] = [set() for _ in originals]
    for n, original in enumerate(originals):
        word = original
        for pair, letter in _SCRIPT_PAIRS:
            word = word.replace(pair, letter)
        for pair, letters in _KANA_PAIRS:
            word = word.replace(pair, letters)
        if word.isascii():
            continue
        for reading in _greek_readings(word):
            forms = _script_forms(anyascii(reading))
            keys[n] |= {_skeleton(form) for form in forms}
            spellings[n] |= forms
    hits = []
    for term in lexicon.terms:
        if term.kind not in ("name", "alias", "person"):
            continue
        wanted = [_script_keys(w, name=True) for w in tokens(term.text)]
        if any(len(k) < 2 for keys_of in wanted for k in keys_of):
            continue
        if len(wanted) == 1 and (term.kind == "person" or needs_cue(term) or
                                 max(len(k) for k in wanted[0]) < _SCRIPT_ONE_WORD):
            continue
        for start in range(len(keys) - len(wanted) + 1):
            if not all(any(_script_alike(key, wanted[k]) for key in keys[start + k]) for k in range(len(wanted))):
                continue
            # one word alone must also be spelt like one of the name's forms: "verumora" is Velmora, "kontororu"
            # (control) is not Quintara though both are k-n-t-r, nor "kostel" (a church) Kestrel
            if len(wanted) == 1 and (not keys[start] & wanted[0] or max(
                    similarity(written, form) for written in spellings[start]
                    for form in _script_forms(term.squashed, name=True)) < _SCRIPT_SPELLING):
                continue
            hits.append(Hit(term.entity, term.kind, term.text, " ".join(originals[start:start + len(wanted)]),
                            "transliteration (sound-alike)"))
    return hits


# a word: letters with the combining marks among them (a Devanagari vowel sign, a Hebrew point)
_LETTERS_AND_MARKS = re.compile(r"[^\W\d_](?:[^\W\d_]|[\u0300-\u036f\u0591-\u05c7\u064b-\u065f\u0900-\u0dff"
                                r"\u3099\u309a])*")


_VOWEL_CARRIERS = frozenset("\u05d0\u05e2\u05d4\u05d9\u05d5\u0627\u0623\u0625\u0622\u0639\u0647\u064a\u0648\u06cc")


def _vav_readings(form: str) -> set[str]:
    """FORM with each single vav or waw (up to five) read as a consonant or dropped as the vowel it may write
    (a doubled vav is a consonant)."""
    places = [m.start() for m in re.finditer("(?<![\u05d5\u0648])[\u05d5\u0648](?![\u05d5\u0648])", form)][:5]
    return {"".join(ch for i, ch in enumerate(form) if i not in {p for bit, p in enumerate(places) if mask >> bit & 1})
            for mask in range(2 ** len(places))}


def _skeleton_words(lexicon: Lexicon) -> list[tuple[tuple[str, ...], Term]]:
    """Every name and alias as its content words (no "and", "of"); contacts are left to the full-name rules."""
    out = []
    for term in lexicon.terms:
        if term.kind in ("name", "alias"):
            words = tuple(w for w in tokens(term.text) if w not in _SKIPPED_IN_INITIALS and w.isalpha())
            if words:
                out.append((words, term))
    return out


def _skeleton_hits(text: str, lexicon: Lexicon) -> list[Hit]:
    """A name written in any other script, matched on the consonant skeleton its script keeps
    (gates/skeleton.py): one word of five sounds or more that is a name word no English writes, or two or more
    script words side by side that are a name's words in order (a short word between them, a written "and", is
    skipped); never a word ordinary in its own script's languages, never ideographs."""
    from anyascii import anyascii

    from vmem.gates.near import common
    from vmem.gates.skeleton import MANY_WORD_SOUNDS, ONE_WORD_SOUNDS, level, name_skeletons, native, script_of, \
        skeleton

    originals = _LETTERS_AND_MARKS.findall(text.replace("・", " ").replace("·", " "))
    scripts = [script_of(w) for w in originals]
    if not any(scripts):
        return []
    levels = [level(script) for script in scripts]
    keys: list[set[str]] = []
    for word, script, merges in zip(originals, scripts, levels):
        if script is None:
            keys.append(set())
            continue
        for pair, letters in _SCRIPT_PAIRS + _KANA_PAIRS:
            word = word.replace(pair, letters)
        # a single vav (or waw) writes a vowel as often as a v: "דרבנהול" is Dravenhol
        readings = _vav_readings(word) if merges == "abjad" else _greek_readings(word)
        latin = {anyascii(reading) for reading in readings}
        keys.append({skeleton(form, merges) for form in latin} - {""})
    hits: list[Hit] = []
    ordinary: dict[int, bool] = {}

    def foreign(n: int) -> bool:  # a script word that is not an ordinary word of its languages
        if n not in ordinary:
            ordinary[n] = scripts[n] is not None and not native(originals[n], scripts[n])
        return ordinary[n]

    @functools.lru_cache(maxsize=None)
    def wanted(word: str, merges: str, sounds: int) -> frozenset[str]:
        return frozenset(s for s in name_skeletons(word, merges) if len(s) >= sounds)

    def carried(n: int, word: str) -> bool:
        # an abjad writes a word's first vowel with a carrier letter (alef, ayin, he, yod, vav): a name that starts
        # with a vowel is not a word that starts with a consonant ("كمحاولات" is no AcmeHealth)
        return levels[n] != "abjad" or word[:1] not in "aeiou" or originals[n][:1] in _VOWEL_CARRIERS

    for words, term in _skeleton_words(lexicon):
        rare = [not common(w) and w not in _dictionary() for w in words]
        alone = not needs_cue(term)
        for start in range(len(originals)):
            if scripts[start] is None:
                continue
            merges = levels[start]
            # one word: a rare name word of five sounds or more
            for word, is_rare in zip(words, rare):
                if is_rare and alone and len(word) >= 5 and keys[start] & wanted(word, merges, ONE_WORD_SOUNDS) \
                        and carried(start, word) and foreign(start):
                    hits.append(Hit(term.entity, term.kind, term.text, originals[start],
                                    "other script (consonant skeleton)"))
            # two or more words in order, from the name's first word on; one short written word may stand between
            matched, n = 0, start
            while matched < len(words) and n < len(originals) and scripts[n] is not None:
                if keys[n] & wanted(words[matched], levels[n], MANY_WORD_SOUNDS) and carried(n, words[matched]) \
                        and foreign(n):
                    matched, n = matched + 1, n + 1
                elif matched and max(map(len, keys[n]), default=0) <= 2 and n + 1 < len(originals):
                    n += 1
                else:
                    break
            if matched >= 2 and any(rare[:matched]):
                hits.append(Hit(term.entity, term.kind, term.text, " ".join(originals[start:n]),
                                "other script (consonant skeleton)"))
    return hits


def _unreadable_hits(text: str, found: list[Hit]) -> list[Hit]:
    """Words in another script that no rule tied to a customer and that are no ordinary word of that script's
    languages (gates/skeleton.unreadable): held, because the screen cannot tell whose name they are, and a
    learning for agents written in English has no need of a foreign name. Fails closed by design; a reviewer
    who can read the word releases it."""
    from vmem.gates.skeleton import unreadable

    named = " ".join(h.found for h in found)
    return [Hit("", "unreadable", word, word, f"a {script.lower()} word that is no ordinary word: a name the gate "
                "cannot compare") for word, script in unreadable(text) if word not in named]


@functools.lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    """Whole words of the bundled model's WordPiece vocabulary: the ~20k commonest English word forms. A word
    outside it (a rare surname, a made-up brand) is not ordinary English. Empty if unreadable: then nothing is
    ordinary and the gate matches more, never less."""
    import json
    from importlib import resources

    try:
        data = resources.files("vmem").joinpath("models/minilm-l6-distill-256/tokenizer.json").read_bytes()
        vocab = json.loads(data)["model"]["vocab"]
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset()
    return frozenset(word for word in vocab if word.isalpha())


def _ordinary(word: str) -> bool:
    return word.casefold() in _vocabulary()


def _same_unit(unit: frozenset[str], around: frozenset[str]) -> bool:
    """Whether the words around a number name a restricted count's unit: the same word, or a synonym of it in the
    bundled WordNet ("375 shops" is "375 stores")."""
    if unit & around or headcount(unit) and headcount(around):  # "640 staff" for 640 employees
        return True
    synsets = _synsets()
    wanted = {i for word in unit for i in synsets.get(word, ())}
    return bool(wanted) and any(wanted & synsets.get(word, frozenset()) for word in around)


@functools.lru_cache(maxsize=1)
def _synsets() -> dict[str, frozenset[str]]:
    """Word -> its WordNet synset ids (the bundled models/wordnet: words that share a sense with another word)."""
    import gzip
    from importlib import resources

    try:
        data = gzip.decompress(resources.files("vmem").joinpath("models/wordnet/synsets.tsv.gz").read_bytes())
    except (OSError, EOFError):
        return {}
    out = {}
    for line in data.decode("utf-8").splitlines():
        word, _, ids = line.partition("\t")
        out[word] = frozenset(ids.split(","))
    return out


@functools.lru_cache(maxsize=1)
def _dictionary() -> frozenset[str]:
    """Common English words (the bundled WordNet's, models/wordnet): an alias equal to one ("Harvest", "Summit")
    is that word unless something marks it as a name. Empty if unreadable: then no alias needs a cue."""
    import gzip
    from importlib import resources

    try:
        data = gzip.decompress(resources.files("vmem").joinpath("models/wordnet/synsets.tsv.gz").read_bytes())
    except (OSError, EOFError):
        return frozenset()
    return frozenset(line.split("\t", 1)[0] for line in data.decode("utf-8").splitlines())


def needs_cue(term: "Term") -> bool:
    """A one-word alias under four letters ("HGM", "M&F") or equal to a dictionary word ("Harvest") is as likely an
    abbreviation or the word itself as the customer: it names the customer only with a cue (_org_cue)."""
    if term.kind not in ("alias", "name") or " " in term.text.strip():
        return False
    return len(term.squashed) < 4 or term.squashed in _dictionary()


_DETERMINERS = frozenset("the a an this that these those our their its his her my your some any every each no".split())
# an organisation is the subject of what people do ("HGM asked"), the place they work ("at HGM"), the party to a
# deal ("with HGM", "lost HGM"), or owns something ("HGM's team", "HGM Inc"); an abbreviation is none of these
_ORG_BEFORE = frozenset("at with from like including customer customers client clients account prospect vs versus "
                        "lost won signed onboarded called joined met than".split())
_ORG_AFTER = frozenset("inc corp co ltd llc plc gmbh ag sa bv group team ops procurement legal leadership staff "
                       "employees management board account".split())  # ("the Quetz account confirmed")


def _headline(words: list[Word], index: int) -> bool:
    """Whether the clause holding words[index] is written all in capitals (a headline): capitals mark nothing there."""
    start = index
    while start > 0 and not words[start].boundary:
        start -= 1
    end = index + 1
    while end < len(words) and not words[end].boundary:
        end += 1
    letters = [ch for word in words[start:end] for ch in word.text if ch.isalpha()]
    return len(letters) >= 8 and sum(ch.isupper() for ch in letters) >= 0.9 * len(letters)


# English's irregular simple past tenses (a closed class), less those that are as often a noun or an adjective
# after a name ("bid", "split", "spread", "ground", "lit", "wound", "bore", "dove", "lay", "smelt", "bet")
_IRREGULAR_PAST = frozenset("became began left went came made took gave found led ran won lost met kept held sent "
                            "sold got brought built wrote spoke felt knew saw told paid set put sought thought bought "
                            "caught taught fought chose drove rose fell grew threw spent struck stood understood "
                            "withdrew overtook undertook cut hit let shut quit arose awoke beat bent bit bled blew "
                            "broke bred burnt clung crept dealt did drew drank dwelt ate fed fled flung flew forbade "
                            "forecast forgot forgave froze hung hid leapt lent meant mistook overcame overran "
                            "overrode overthrew rang rode sank sang sat shook shone shot shrank slept slid slung sped "
                            "spun spat sprang stole stuck stung stank strode strove swore swept swam swung tore trod "
                            "woke wore wove wept wrung upheld withheld".split())


def _verb(word: str) -> bool:
    """A reporting or past-tense verb (not an auxiliary: "HGM is" may be anything)."""
    return word in _AFTER_NAME - _AUXILIARIES or word in _IRREGULAR_PAST or word.endswith("ed") and len(word) > 4


def _spelled_out_before(words: list[Word], start: int, end: int) -> bool:
    """An acronym in parentheses right after the words it stands for: "the Reserve Bank of Australia (RBA)",
    "the Bank of Japan's (BOJ)": those words name an organisation, and the acronym is its name."""
    if not start or not words[start - 1].gap.endswith("(") or not words[end - 1].gap.startswith(")"):
        return False
    letters = "".join(w.text for w in words[start:end]).casefold()
    for width in range(len(letters), len(letters) + 3):
        before = [w.text for w in words[max(start - width, 0):start]]
        if len(before) < width or not all(w[:1].isupper() for w in before if w.casefold() not in
                                          _SKIPPED_IN_INITIALS):
            continue  # a name's words have capitals: "left-handed pitchers (LHP)" is no organisation
        initials = ["".join(w[0] for w in before).casefold(),
                    "".join(w[0] for w in before if w.casefold() not in _SKIPPED_IN_INITIALS).casefold()]
        if letters in initials:
            return True
    return False


def _org_cue(words: list[Word], start: int, end: int, headline: bool) -> bool:
    """Whether words[start:end] stand as an organisation's name (see _ORG_BEFORE), or, for a dictionary word, are
    written with a capital where the word itself would have none (not at a sentence start, not in a headline)."""
    first, last = words[start], words[end - 1]
    before = words[start - 1].text.casefold() if start and not first.boundary else ""
    after = words[end].text.casefold() if end < len(words) and not words[end].boundary else ""
    if last.possessive or after in _ORG_AFTER or _stem(after) in _ORG_PEOPLE:
        return True
    # "with HGM" is a party to a deal; "with PTL walls" has a kind of wall: a word before is void when the name
    # modifies the content word after it
    if before in _ORG_BEFORE and not _modifies(after, last.gap):
        return True
    # an acronym's people after a word that says which of them: "SMJ plant managers", "HGM claims staff" (as an
    # initialism's, _initialism_stands)
    following = [w.text.casefold() for w in words[end:end + 2] if not w.boundary]
    if all(w.text.isupper() for w in words[start:end]) and len(following) == 2 and _stem(following[1]) in _ORG_PEOPLE \
            and not headline:
        return True
    if after and _verb(after) or _spelled_out_before(words, start, end):
        return True
    if _table_row(words, start, end) or _source_line(words, start, end):
        return True
    # an acronym with the definite article as a clause's subject is an organisation: "the BOJ is", "the HGM will"
    if before == "the" and after in _AUXILIARIES and all(w.text.isupper() for w in words[start:end]):
        return True
    short = len("".join(w.text for w in words[start:end])) < 4
    return not short and not headline and not first.boundary and first.text[:1].isupper()


def _table_row(words: list[Word], start: int, end: int) -> bool:
    """Whether words[start:end] label a row of figures: first in the line (after a rank, "2."), a number right
    after them, at least two numbers in the line and more numbers than lower-case words. A results table or a
    standings row ("MTK 3 Ferencvaros 0", "2. MTK 3 3 - - 7 1 9", "FLORIDA 58 69.457 22") is about the team or
    firm its rows name; prose that starts with a word and a number ("Summit 2 has three rooms") is not a row."""
    if end >= len(words) or not words[end].text.isdigit() or not all(w.text.isdigit() for w in words[:start]):
        return False
    numbers = sum(w.text.isdigit() for w in words)
    lowered = sum(w.text.isalpha() and w.text.islower() for w in words)
    return numbers >= 2 and numbers > lowered


def _source_line(words: list[Word], start: int, end: int) -> bool:
    """Whether words[start:end] end the statement after a dash, as a news line names its source ("... - RBA."),
    not as the last of a list of codes ("Sioux City, IA - SD")."""
    if end != len(words) or start == 0 or words[start - 1].gap[-1:] not in _BYLINE:
        return False
    previous = words[start - 1].text
    return not (previous.isupper() and len(previous) <= 3)


def _name_hits(words: list[Word], rule: str, by_squash: dict, max_words: int) -> list[Hit]:
    """Names, aliases, people, domain labels and textual restricted values as windows of words, squashed.

    A window never crosses a sentence or clause boundary ("tide. Well-timed" is not Tidewell), and a one-word
    name found split into lower-case words that are all ordinary English ("ash grove" for Ashgrove) is not the
    name; one rare part is enough to name it ("quillon pay" for QuillonPay). A short or dictionary-word alias
    needs a cue (needs_cue).
    """
    hits = []
    lower = [w.text.casefold() for w in words]
    for start in range(len(words)):
        for width in range(1, min(max_words, len(words) - start) + 1):
            if width > 1 and words[start + width - 1].boundary:
                break
            window = lower[start:start + width]
            keys = {_squash(window), "".join(window)}
            if window[-1].endswith(("ses", "xes", "zes")) and len(window[-1]) > 5:  # Olvantises: a name in -s, plural
                keys |= {"".join(window)[:-2], _squash(window[:-1] + [window[-1][:-2]])}
            for key in keys:
                term = by_squash.get(key)
                if term is None:
                    continue
                run_together = " " not in term.text.strip()
                if width > 1 and run_together and all(w.text.islower() for w in words[start:start + width]) \
                        and all(_ordinary(w) for w in window) and not _dotted(words[start:start + width]) \
                        and not _slug(words, start, start + width):  # a slug's words: "cs/harbour-finch-docs"
                    continue
                if needs_cue(term):
                    if not _org_cue(words, start, start + width, _headline(words, start)):
                        continue
                elif width > 1 and rule == "exact" and term.kind in ("name", "alias") \
                        and len(tokens(term.text)) == width and not any(w.gap for w in words[start:start + width - 1]) \
                        and all(w.text.islower() for w in words[start:start + width]) \
                        and all(_common_word(w) for w in window) \
                        and not _org_cue(words, start, start + width, False):
                    continue  # a name of ordinary words written in lower case, words apart, is the phrase: "back to
                    # steady state" (in a path or an identifier, "steady_state_energy", it is the name)
                hits.append(Hit(term.entity, term.kind, term.text, " ".join(window), rule))
    return hits


# A contact's surname (or distinctive first name) alone names them only in a name-like context: a title or an
# initial, a reporting verb, a preposition of address, a possessive. "Dewar flasks" and "the CEO said" do not.
_BEFORE_NAME = _TITLES | {"with", "by", "from", "to", "ask", "asked", "told", "tell", "cc", "contact", "email", "call",
                          "ping", "per", "thank", "thanks", "via"}
_AFTER_NAME = {"said", "says", "say", "asked", "asks", "wants", "wanted", "told", "tells", "mentioned",
               "noted", "insisted", "insists", "wrote", "writes", "thinks", "thought", "approved",
               "approves", "signed", "prefers", "prefer", "confirmed", "agreed", "objected",
               "explained", "warned", "added", "will", "would", "is", "was", "has", "had", "requires",
               "required", "needs", "needed", "expects", "expected", "believes", "argues"}
_AUXILIARIES = frozenset({"will", "would", "is", "was", "has", "had"})
# a first name with its role or team is someone in particular: "Marisol from the lab", "Neil in procurement",
# "Marisol, their plant manager,"
_ROLE_AFTER = frozenset({"from", "in", "at"})  # not "of": "Helen of Lithuania" is a title
_APPOSITION = frozenset({"their", "our", "the", "its", "who"})  # not "a": "Rafael, a singer" is anyone
# a surname particle belongs to the surname: "van Dam" is not "Dam"
_PARTICLES = frozenset("van von de der den del della di da dos das du le la ter ten bin ibn al el st".split())


def _initial(words: list[Word], index: int) -> bool:
    """A one-letter capital standing for a name (P. Raman), not the O of O'Neil nor the pronoun I or article A."""
    word = words[index]
    return len(word.text) == 1 and word.text.isupper() and word.text not in "AI" and not word.gap.startswith("'")


def _another_name(words: list[Word], index: int, own: set[str], headline: bool) -> bool:
    """Whether words[index] (next to a contact's name part) is a capitalised name part of someone else: "Paul
    Dewar", "Edward Said", "Anna Schmidt", "Said Business School". A title, an initial, one of the contact's own
    names, an acronym or a function word is not; a sentence's first word counts only when it is no dictionary
    word ("Yesterday Dewar said" is Dewar)."""
    if headline or not 0 <= index < len(words):
        return False
    word = words[index]
    text, low = word.text, word.text.casefold()
    if not text[:1].isupper() or len(text) < 2 or text.isupper() or low in own or low in _TITLES:
        return False
    if low in _FUNCTION_WORDS or low in _BEFORE_NAME or low in _AFTER_NAME:
        return False
    return not word.boundary or low not in _dictionary()


def _person_hits(words: list[Word], lexicon: Lexicon) -> list[Hit]:
    """Contacts named by a surname or a first name alone, where the position makes it a name.

    A surname counts written with a capital (or in a headline) wherever it stands as a name: with a name cue,
    before punctuation, a function word or a verb, after a preposition or a verb, inside parentheses; not when it
    modifies the next word ("Dewar flasks") and not when another name stands next to it ("Paul Dewar", "Said
    Business School"). A first name counts with a name cue or its role ("Marisol from the lab"); first names
    written alone count when two different ones of one customer's contacts stand together.
    """
    hits = []
    bare: dict[str, set[str]] = {}  # entity -> the distinct first names written alone, without a cue
    lower = [w.text.casefold() for w in words]
    parts = lexicon.person_parts
    for index in range(len(lower)):
        for width in (1, 2):
            end = index + width
            if end > len(lower) or width == 2 and (words[end - 1].boundary or len(lower[index]) == 1 and
                                                    len(lower[end - 1]) == 1):
                continue
            if words[index].glued:
                continue  # the Neil of O'Neil is not a word of its own
            name = "".join(lower[index:end])
            key = name if name in parts else _stem(name)
            # a first name has no plural: "Owens" is a surname of its own, not two Owens
            found_terms = {p for p in parts.get(key, ()) if key == name or key != _first(p)}
            if not found_terms:
                continue
            word = words[index]
            headline = _headline(words, index)
            before = lower[index - 1] if index and not word.boundary else ""
            after = lower[end] if end < len(words) and not words[end].boundary else ""
            gap_before = words[index - 1].gap if index else ""
            gap_after = words[end - 1].gap
            initial = index and not word.boundary and _initial(words, index - 1) or \
                end < len(words) and _initial(words, end)
            first_name = any(key == _first(p) for p in found_terms)
            capital = word.text[:1].isupper()
            if first_name and not capital:
                continue  # a first name is only a name when written as one ("a grace period" is not Grace)
            if not capital and not headline and _common_word(name):
                continue  # nor is a common word in lower case ("their banks' files" is not Terrence Banks)
            # a capital that starts a sentence says little of a common surname: "Price is the first objection" needs
            # a role beside it ("Price, their practice manager,", "Baker from the grid-ops team"); a first name is
            # capitalised anywhere ("Nick was clear")
            weak = not first_name and word.boundary and _common_word(name) and not words[end - 1].possessive
            if _not_a_person_here(words, index, end, after, headline):
                continue
            own = {w for p in found_terms for w in tokens(p.text)}
            if (_another_name(words, index - 1, own, headline) and not gap_before
                    or _another_name(words, end, own, headline) and not gap_after):
                continue  # someone else's name: "Paul Dewar", "Anna Schmidt"
            # written in lower case, a name needs a strong cue: "what he said was" is not the contact Said
            loose = capital and (after in _AUXILIARIES and not weak or after.endswith("ed") and len(after) > 4)
            context = bool(before in _BEFORE_NAME or after in _AFTER_NAME - _AUXILIARIES or loose
                           or words[end - 1].possessive or initial)
            if first_name and capital and not context:
                context = after in _ROLE_AFTER or gap_after == "(" or \
                    gap_after == "," and after in _APPOSITION or _speaker(words, index, end)
            elif weak:
                context = context or gap_after == "," and after in _APPOSITION or after == "from" or \
                    _role_beside(words, end)
            elif capital or headline:
                context = context or headline and not _foreign_beside(before, after) or \
                    _surname_position(before, after, gap_before, gap_after) or _role_beside(words, end)
            rule = "name-in-context"
            # a rare name needs no cue, but stands as a name: not modifying the next word ("the Kakakaka flask"),
            # not in a phrase of another language ("Asante sana"), one written word ("Fair-weather" is two)
            if not context and capital and width == 1 and _rare_name(name) and not _foreign_beside(before, after) \
                    and not _modifies(after, gap_after):
                context, rule = True, "a contact's rare name"
            for part in found_terms if context else ():
                found = " ".join(w for w in (before, *lower[index:end], after) if w)
                hits.append(Hit(part.entity, "person", part.text, found, rule))
            if first_name and not context:
                for part in found_terms:
                    bare.setdefault(part.entity, set()).add(name)
    # one first name alone may be anyone's; two different first names of one customer's contacts are that customer
    # (one word counts once, however many contacts share it)
    for entity, named in bare.items():
        if len(named) >= 2:
            people = {p.text for key in named for p in parts.get(key, ()) if p.entity == entity}
            hits += [Hit(entity, "person", person, " ".join(sorted(named)), "contacts' first names together")
                     for person in sorted(people)]
    return hits


# a contact's first name or surname this rare in English (Zipf), of five letters or more and in no English word list,
# is that contact wherever it is written as a name, cue or none ("Thandeka", "Goikoetxea", "Morwenna"); fitted on
# the person probes of every set but the newest blind one: "Stavros" is 2.49, "Siobhan" 2.77, and the clean traps
# that are surnames ("Dewar" 2.71, "Bose" 3.21, "Nguyen" 3.23, "Santos" 3.7) stay above it
_RARE_NAME_ZIPF = 2.5


def _common_word(word: str) -> bool:
    from vmem.gates.near import zipf

    return zipf(word) >= _COMMON_NAME_ZIPF


# a contact's name this common in English is an ordinary word first ("Price" 5.2, "Banks" 4.7, "Marsh" 3.9); fitted
# on the clean probes of the blind sets 2-7 (the surnames written as common words) and the real-text sets
_COMMON_NAME_ZIPF = 3.8


def _rare_name(name: str) -> bool:
    from vmem.gates.near import zipf

    return len(name) >= 5 and not _ordinary(name) and name not in _dictionary() and zipf(name) < _RARE_NAME_ZIPF


def _speaker(words: list[Word], index: int, end: int) -> bool:
    """Whether words[index:end] open a chat or transcript line as its speaker: first in the line, after nothing
    but a time ("[14:02] Pimchanok:") or a quote mark ("> Wiremu:"), a colon after them."""
    return words[end - 1].gap[:1] == ":" and all(w.text.isdigit() for w in words[:index]) and \
        (index == 0 or words[index - 1].gap.endswith(("]", ")")))


_ROLE_WORDS = frozenset("head chief lead manager director officer coordinator supervisor owner".split())


def _role_beside(words: list[Word], end: int) -> bool:
    """Whether a role stands just after a name in parentheses or after a comma: a title in capitals ("Verhoeven
    (CMIO)", "Banks, CFO,") or a few words ending in a role ("Banks, dispatch lead", "Moss (claims manager)")."""
    gap = words[end - 1].gap
    if gap not in ("(", ",") or end >= len(words):
        return False
    role = []
    for word in words[end:end + 3]:
        role.append(word)
        if word.gap[:1] in (")", ",", ".", ";", ":") or word is words[-1]:
            break
    else:
        return False
    last = role[-1].text
    if gap == "(" and role[-1].gap[:1] != ")":
        return False
    return len(role) == 1 and last.isupper() and 2 <= len(last) <= 5 and last.isalpha() or \
        last.islower() and (_stem(last) in _ROLE_WORDS or _stem(last) in _ORG_PEOPLE and len(role) >= 2)


def _not_a_person_here(words: list[Word], index: int, end: int, after: str, headline: bool) -> bool:
    """Whether a contact's name word, where it stands, is an acronym English writes: in capitals outside a
    headline, four letters at most, as common as _FOREIGN_ZIPF ("a flat LAN" is no Lan), unless a person cue
    stands by it (a reporting verb after, a possessive, a title or an initial before). (A place that is also a
    surname, "in Albuquerque", needs a gazetteer the gate does not have: the real-text probes put surnames in
    exactly that position.)"""
    from vmem.gates.near import zipf

    written = "".join(w.text for w in words[index:end])
    if headline or not written.isupper() or len(written) > 4 or zipf(written) < _FOREIGN_ZIPF:
        return False
    strong = after in _AFTER_NAME - _AUXILIARIES or words[end - 1].possessive or \
        index >= 1 and (words[index - 1].text.casefold() in _TITLES or _initial(words, index - 1))
    return not strong


def _foreign_beside(before: str, after: str) -> bool:
    """Whether a word beside a surname in a headline is no English word (rarer than _FOREIGN_ZIPF) and no number:
    the surname is a word of another language there ("ASANTE SANA" is Swahili thanks, not Kwame Asante)."""
    from vmem.gates.near import zipf

    return any(w and w.isalpha() and w not in _FUNCTION_WORDS and zipf(w) < _FOREIGN_ZIPF for w in (before, after))


_FOREIGN_ZIPF = 3.5  # "sana" is 3.0 in English (and 6 in Turkish); the words beside headline names are commoner


def _first(person: "Term") -> str:
    return "".join(tokens(person.text.split()[0]))


# words that may follow a name without being what it modifies: "met Dewar yesterday", "ask Dewar directly"
_WHEN_WORDS = frozenset("today yesterday tomorrow now again too also soon later earlier first last next personally "
                        "himself herself themselves directly".split())


def _modifies(after: str, gap: str) -> bool:
    """Whether a name-like word modifies AFTER, the word right after it (no punctuation between): a content word
    that is no function word, verb, adverb or word of time ("PTL walls", "Bose headsets"; not "met BBB last week")."""
    return bool(after) and not gap and after not in _FUNCTION_WORDS and not _verb(after) \
        and not after.endswith("ly") and after not in _WHEN_WORDS


def _surname_position(before: str, after: str, gap_before: str, gap_after: str) -> bool:
    """Whether a capitalised word stands as a name where it is: it ends a phrase (punctuation or the end after it),
    stands in parentheses or after a comma, a verb or a function word before it (not a determiner: "the Dewar
    flask"), a function word or a verb after it. A word followed by a content word modifies it ("Dewar flasks")."""
    if gap_after[:1] in tuple(",;:.!?)\"'") or gap_after[:1] in ("\u2014", "\u2013") or gap_before[-1:] in ("(", ","):
        return True
    if after and (after in _FUNCTION_WORDS or _verb(after)):
        return True
    if _modifies(after, gap_after):
        return False  # it modifies the word after it, whatever stands before: "on Bose headsets"
    return bool(before) and before not in _DETERMINERS and (before in _FUNCTION_WORDS or _verb(before)
                                                            or before in _ORG_BEFORE)


# -- derived forms: initialisms, first-word heads, affixed forms, people's initials and handles --------------------

class Derived(namedtuple("Derived", "initialisms heads affixable initials handles prefixes people parts "
                                    "subsequences mixed tickers")):
    """Forms people make of the lexicon's names, each key to the terms it stands for: initialisms of names of two
    or more words ("nos" for Northwind Orbital Systems, with or without a generic last word, with or without
    "of"/"and"); first words of such names (tested for common English when met); what an affix may be added to
    (one-word names and aliases, heads, surnames); people's initials ("dw"); handle shapes ("dwhitcombe",
    "danaw"); the first words of names of three or more words, squashed ("harborlane"); people: a contact's
    name words by their first letter, for names cut short ("F.McA."); parts: every later word of a name of two
    words or more ("oduya" of Pryce & Oduya Maritime, "vireo" of Tandem Vireo Bank); subsequences: two or more of
    a longer name's words in order that are neither its first words nor all of it ("orchard learning", "lantern
    dental"), squashed; mixed: a name's first three words or more with a run of them written as its initials
    ("tv bank", "go learning", "tkv oe"), as a tuple of the words written, each with whether it is initials, by
    its first word written;
    tickers: a one-word name's consonants, doubles as one ("qrvl" for Quorvell), three to five letters."""

    __slots__ = ()


_SKIPPED_IN_INITIALS = frozenset("of the and for de der la".split())


def _name_parts(person: str) -> tuple[str, str]:
    """(first name, surname) of a contact, each squashed; the surname keeps its particles ("van dam")."""
    parts = fold(person).split()
    if len(parts) < 2:
        return "", ""
    first = len(parts) - 1
    while first > 1 and parts[first - 1].casefold() in _PARTICLES:
        first -= 1
    return "".join(tokens(parts[0])), "".join(tokens(" ".join(parts[first:])))


def _derive(terms: list[Term]) -> Derived:
    initialisms: dict[str, tuple[Term, ...]] = {}
    heads: dict[str, tuple[Term, ...]] = {}
    affixable: dict[str, tuple[Term, ...]] = {}
    initials: dict[str, tuple[Term, ...]] = {}
    handles: dict[str, tuple[Term, ...]] = {}
    prefixes: dict[str, tuple[Term, ...]] = {}
    people: dict[str, list[tuple[tuple[str, ...], Term]]] = {}
    parts: dict[str, tuple[Term, ...]] = {}
    subsequences: dict[str, tuple[Term, ...]] = {}
    mixed: dict[str, dict[tuple[str, ...], tuple[tuple[tuple[bool, ...], Term], ...]]] = {}
    tickers: dict[str, tuple[Term, ...]] = {}

    def put(table: dict, key: str, term: Term) -> None:
        if key and term not in table.get(key, ()):
            table[key] = table.get(key, ()) + (term,)

    for term in terms:
        words = tokens(term.text)
        if term.kind in ("name", "alias"):
            if len(words) >= 2:
                content = [w for w in words if w not in _SKIPPED_IN_INITIALS]
                for letters in {"".join(w[0] for w in words), "".join(w[0] for w in content),
                                "".join(w[0] for w in content[:-1]) if len(content) >= 3 else ""}:
                    if len(letters) >= 2:
                        put(initialisms, letters, term)
                for width in range(2, len(words)):
                    put(prefixes, "".join(words[:width]), term)
                if len(words[0]) >= 4:
                    put(heads, words[0], term)
                    put(affixable, words[0], term)
                for word in words[1:]:
                    if len(word) >= 4 and word.isalpha() and word not in _SKIPPED_IN_INITIALS:
                        put(parts, word, term)
                _subsequences_and_mixed(content, term, put, subsequences, mixed)
            elif len(term.squashed) >= 5:
                put(affixable, term.squashed, term)
                ticker = _ticker("".join(words))
                if 3 <= len(ticker) <= 5:
                    put(tickers, ticker, term)
        elif term.kind == "person":
            first, surname = _name_parts(term.text)
            if not first:
                continue
            if len(words) >= 2:
                people.setdefault(words[0][0], []).append((tuple(words), term))
            put(initials, "".join(w[0] for w in words), term)
            put(initials, first[0] + surname[0], term)
            if len(surname) >= 5:
                put(affixable, surname, term)
            for handle in (first[0] + surname, first + surname[0], surname + first[0]):
                if len(handle) >= 5:
                    put(handles, handle, term)
    return Derived(initialisms, heads, affixable, initials, handles, prefixes, people, parts, subsequences, mixed,
                   tickers)


def _ticker(word: str) -> str:
    """A one-word name's ticker-like code: its first letter and its consonants after it, doubles as one ("qrvl"
    for Quorvell, "vntr" for Vantorre)."""
    return re.sub(r"(.)\1+", r"\1", word[:1] + re.sub(r"[aeiouy]", "", word[1:]))


_NAME_WORDS_DERIVED = 8  # a name's first words that make subsequences and mixed forms (real names have fewer)


def _subsequences_and_mixed(content: list[str], term: Term, put, subsequences: dict, mixed: dict) -> None:
    """The subsequences and mixed forms of a name's CONTENT words (see Derived), into their tables."""
    from itertools import combinations, product

    content = content[:_NAME_WORDS_DERIVED]  # both tables grow as 2^n: a pasted long name must not stall the gate
    n = len(content)
    if n >= 3:
        for width in range(2, n):
            for chosen in combinations(range(n), width):
                if chosen != tuple(range(width)):  # the first words are Derived.prefixes
                    put(subsequences, "".join(content[i] for i in chosen), term)
    for width in range(3, n + 1):
        for shape in product((False, True), repeat=width):  # True: written as its initial
            if all(shape) or not any(shape):
                continue
            written: list[str] = []
            initials: list[bool] = []
            for word, initial in zip(content[:width], shape):
                if initial and initials and initials[-1]:
                    written[-1] += word[0]
                else:
                    written.append(word[0] if initial else word)
                    initials.append(initial)
            key = tuple(written)
            table = mixed.setdefault(key[0], {})  # by the first word written: where a form can start
            if not any(t == term for _, t in table.get(key, ())):
                table[key] = table.get(key, ()) + ((tuple(initials), term),)


# forms made by adding an affix to a name: "Velmora-esque", "Corvannesque", "Velmorian", "Northwind-style"
_AFFIXES = ("esque", "ish", "ian", "ians", "ean", "eans", "an", "ans", "ite", "ites", "ism", "ist", "ists", "like",
            "style", "led", "type", "based", "backed", "run", "owned", "ized", "ised", "er", "ers")
# an affixed form may drop or double the name's last letter: Velmor-ian, Corvann-esque, Kestrell-ish
_JOINERS = ("", "e", "a", "o", "i", "y")
_BYLINE = frozenset("-\u2013\u2014~/")
_PERSON_AFTER = frozenset({"said", "says", "wrote", "writes", "asked", "asks", "thinks", "mentioned", "noted",
                           "agreed", "approved", "confirmed", "wants", "wanted", "signed", "suggested", "replied"})
# an acronym this common in English text ("NATO", "IBM", "HQ") is that acronym unless something marks it as a
# customer's; a rarer one written in capitals is the customer's initialism
_ACRONYM_ZIPF = 3.9
# a word at or above this Zipf frequency is one English text uses ("kestrel" 2.5), below it a name ("Sankt" 1.9)
_KNOWN_ZIPF = 2.0
# a word below this one English has next to never written ("Seimitsu" 0, "Baath" 2.1 is not)
_UNSEEN_ZIPF = 1.0


def _dotted(words: list[Word]) -> bool:
    """Whether WORDS are single letters each followed by a dot, in any case ("y.k.e.", "c.k.f."): an initialism
    written with its dots, never two ordinary words split."""
    return len(words) >= 2 and all(len(w.text) == 1 and w.text.isalpha() and w.gap == "." for w in words)


def _dotted_upper(words: list[Word]) -> list[Word]:
    """WORDS with each dotted run of three or more lower-case single letters in capitals ("y.k.e." reads as
    "Y.K.E."), so the initialism rules read it; shorter runs are abbreviations ("e.g.", "p.m.")."""
    if not any(len(w.text) == 1 and w.gap == "." and w.text.islower() for w in words):
        return words
    out, n = list(words), 0
    while n < len(words):
        end = n
        while end < len(words) and len(words[end].text) == 1 and words[end].text.isalpha() and \
                words[end].gap == "." and (end == n or not words[end].boundary or len(words[end - 1].text) == 1):
            end += 1
        if end - n >= 3 and any(w.text.islower() for w in words[n:end]):
            for k in range(n, end):
                out[k] = words[k]._replace(text=words[k].text.upper())
        n = max(end, n + 1)
    return out


def _caps_runs(words: list[Word]) -> list[tuple[int, int, str, bool]]:
    """(start, end, letters, joined) for each run of capital letters that may be an initialism: one all-capital
    word of two to six letters ("NOS"), or single capitals apart by dots, spaces, "&", "-" or "and" ("N.O.S.",
    "N O S", "H&Q", "H and Q"), a chunk of two or three after an "&" ("H&QI"); joined: an "&" or "and" stands
    between letters, as in a firm's name."""
    runs = []
    n = 0
    while n < len(words):
        text = words[n].text
        if 2 <= len(text) <= 6 and text.isalpha() and text.isupper():
            runs.append((n, n + 1, text.casefold(), False))
            n += 1
            continue
        if len(text) == 1 and text.isupper() and text.isalpha():
            end, letters, joined = n + 1, [text], False
            while end < len(words) and not words[end].boundary and words[end - 1].gap in ("", ".", "&", "-", "/"):
                nxt = words[end].text
                if len(nxt) == 1 and nxt.isupper() and nxt.isalpha():
                    joined = joined or words[end - 1].gap == "&"
                    letters.append(nxt)
                    end += 1
                elif words[end - 1].gap == "&" and 2 <= len(nxt) <= 3 and nxt.isupper() and nxt.isalpha():
                    joined = True  # a chunk of capitals after "&": "H&QI", "S&PGR"
                    letters.append(nxt)
                    end += 1
                elif nxt.casefold() == "and" and end + 1 < len(words) and len(words[end + 1].text) == 1 \
                        and words[end + 1].text.isupper():
                    joined = True
                    end += 1
                else:
                    break
            if len(letters) >= 2:
                runs.append((n, end, "".join(letters).casefold(), joined))
            n = end
            continue
        n += 1
    return runs


def _person_cue(words: list[Word], start: int, end: int) -> bool:
    """Whether words[start:end] stand as a person: a cue before ("per DW", "cc DW", "from DW", "thanks, DW"), a
    reporting verb after ("DW said"), in parentheses, their team after ("J.E. from dispatch"), or signed at the
    end after a dash ("- DW"); never when a surname follows (the initials of "C. R. Gregory" are Gregory's)."""
    if end < len(words) and not words[end].boundary and words[end].text[:1].isupper() and \
            not words[end - 1].gap.strip(".") and words[end].text.casefold() not in _PERSON_AFTER:
        return False
    before = words[start - 1].text.casefold() if start else ""
    after = words[end].text.casefold() if end < len(words) else ""
    gap_before = words[start - 1].gap if start else ""
    if before in _BEFORE_NAME or after in _PERSON_AFTER or after in _AFTER_NAME - _AUXILIARIES:
        return True
    if gap_before[-1:] == "(" and words[end - 1].gap[:1] == ")":
        return True
    # with their team or place, as a first name has ("J.E. from dispatch", "DW in procurement"), unless the
    # letters are an acronym English uses ("IT in the hospital")
    letters = "".join(w.text for w in words[start:end])
    if after in _ROLE_AFTER and end + 1 < len(words) and words[end + 1].text[:1].islower() and \
            letters.upper() not in COMMON_ACRONYMS:
        from vmem.gates.near import zipf

        return zipf(letters) < _ACRONYM_ZIPF
    # signed at the end: "- DW", "~DW"; not the last of a list of codes ("Sioux City, IA - SD")
    return end == len(words) and start > 0 and gap_before[-1:] in _BYLINE and not (
        words[start - 1].text.isupper() and len(words[start - 1].text) <= 3)


def _initialism_stands(words: list[Word], start: int, end: int, letters: str, joined: bool) -> bool:
    """Whether a run of capitals stands as an organisation's name where it is. Two letters ("KF") or an acronym
    common in English need an organisation cue ("KF's", "at KF", "KF Inc"); three or more, or two joined like a
    firm's ("H&Q", "H and Q"), may also stand as a name ("NOS asked", "with NOS.") or have the organisation's
    people after them ("SRCU members", "H&Q claims staff"); not a modifier of anything else ("the LHP rotation",
    "PHG signals") nor an acronym being defined ("PHG (photoplethysmography)", "left-handed pitchers (LHP)")."""
    before = words[start - 1].text.casefold() if start and not words[start].boundary else ""
    after = words[end].text.casefold() if end < len(words) and not words[end].boundary else ""
    last = words[end - 1]
    if last.possessive or before in _ORG_BEFORE or after in _ORG_AFTER:
        return True
    if len(letters) < 3 and not joined or _headline(words, start) or before in ("a", "an"):
        return False  # (an organisation is not counted with "a": "a BLT and a coffee")
    from vmem.gates.near import zipf

    # letters joined by "&" are no English word whatever they spell ("hq", "S&KI" is not "ski"): only an acronym
    # written as one word is compared with how common it is
    if not joined and len(letters) >= 3 and zipf(letters) >= _ACRONYM_ZIPF or _defined(words, start, end, letters):
        return False
    following = [w.text.casefold() for w in words[end:end + 2] if not w.boundary]
    if any(_stem(w) in _ORG_PEOPLE for w in following[:2]):
        return True
    if _modifies(after, last.gap):
        return False  # it modifies the word after it, whatever stands before: "on SSE streams", "the LHP rotation"
    return _surname_position(before, after, words[start - 1].gap if start else "", last.gap)


# the people of an organisation: "SRCU members", "HLH nurses", "H&Q claims staff"
_ORG_PEOPLE = frozenset("""member nurse director staff lead buyer user engineer analyst admin adjuster manager
    clinician doctor physician agent dispatcher driver executive officer people folk employee team procurement
    leadership customer developer accountant scientist researcher clerk teller planner operator spokesman
    spokeswoman spokesperson official chairman chairwoman governor shareholder""".split())


def _defined(words: list[Word], start: int, end: int, letters: str) -> bool:
    """Whether an acronym is being defined where it stands: its letters begin the words just before it, it in
    parentheses ("left-handed pitchers (LHP)"), or the words in parentheses just after it
    ("PHG (photoplethysmography)": a definition of another thing)."""
    if start and words[start - 1].gap.endswith("("):
        previous = [w.text.casefold() for w in words[max(start - len(letters), 0):start]]
        if "".join(w[0] for w in previous) == letters:
            return True
    return words[end - 1].gap.startswith("(") and end < len(words) and words[end].text[:1].islower()


def _firm_cue(words: list[Word], start: int, end: int) -> bool:
    """An organisation cue that a capital alone is not: a possessive, a word before that takes an organisation
    ("at", "with", "customer"), its people or a verb after ("Harbor Lane's nurses", "at Summit Ridge", "Harbor
    Lane nurses", "Summit Ridge asked")."""
    before = words[start - 1].text.casefold() if start and not words[start].boundary else ""
    after = words[end].text.casefold() if end < len(words) and not words[end].boundary else ""
    return words[end - 1].possessive or before in _ORG_BEFORE or after in _ORG_AFTER or \
        _stem(after) in _ORG_PEOPLE or bool(after) and _verb(after)


def _listed_codes(lexicon: Lexicon) -> dict[str, tuple[Term, ...]]:
    """The codes a customer's listed names carry, by their letters: a one-word alias of three or more letters
    ("HFU") and a word in capitals inside a listed name or alias ("VKT" of "Tavrelune VKT Logistics"), where the
    letters are no word English uses ("HFU", not "ACE" nor "USA"). Written in capitals they are the customer's
    wherever they stand (_listed_code_hits); an initialism derived from a name is not listed and keeps its cues."""
    from vmem.gates.near import zipf

    codes: dict[str, tuple[Term, ...]] = {}
    for term in lexicon.terms:
        if term.kind not in ("name", "alias"):
            continue
        written = re.findall(r"[^\W_]+", fold(term.text))
        for word in written if len(written) > 1 else ["".join(written)]:
            key = word.casefold()
            if len(key) >= 3 and word.isupper() and word.isalpha() and word not in COMMON_ACRONYMS and \
                    key not in _dictionary() and zipf(key) < _ACRONYM_ZIPF and term not in codes.get(key, ()):
                codes[key] = codes.get(key, ()) + (term,)
    return codes


def _slug(words: list[Word], start: int, end: int) -> bool:
    """Whether words[start:end] are pieces of a slug: a run without spaces that holds a slash and joins its words by
    hyphens or underscores (a URL's path, a repository or a branch: "feature/zwz-roster-export",
    "cs-team/harbour-finch-onboarding"), the words themselves joined by a hyphen or an underscore."""
    if any(w.gap not in ("-", "_") for w in words[start:end - 1]):
        return False
    left = start
    while left and words[left - 1].gap:  # a gap is what stands between two words, spaces stripped: "" is a space
        left -= 1
    right = end - 1
    while right < len(words) - 1 and words[right].gap:
        right += 1
    gaps = [w.gap for w in words[left:right]]
    return any("/" in g for g in gaps) and any(g in ("-", "_") for g in gaps)


_CLIPPED = (4, 5)  # a nickname keeps a name's first four or five letters: "Virve" of Virvelaine


def _clipped(lexicon: Lexicon) -> dict[str, tuple[Term, ...]]:
    """The first four and five letters of a name's or alias's first word, when that word is seven letters or more
    and one English has next to never written (below _UNSEEN_ZIPF: "Virvelaine", not "Bellwether") and the
    clipped form is no English word either."""
    from vmem.gates.near import common, zipf

    clips: dict[str, tuple[Term, ...]] = {}
    for term in lexicon.terms:
        words = tokens(term.text) if term.kind in ("name", "alias") else []
        if not words or len(words[0]) < 7 or not words[0].isalpha() or zipf(words[0]) >= _UNSEEN_ZIPF:
            continue
        for size in _CLIPPED:
            clip = words[0][:size]
            if not common(clip) and zipf(clip) < _KNOWN_ZIPF and clip not in _dictionary() and \
                    not _ordinary(clip) and term not in clips.get(clip, ()):
                clips[clip] = clips.get(clip, ()) + (term,)
    return clips


def _clipped_hits(words: list[Word], lexicon: Lexicon) -> list[Hit]:
    """A rare name clipped to its first letters, written with its capital, where an organisation stands: its
    possessive, a word before that takes one, its people or a verb after ("Virve's control room", "Tavre ops
    said"); never in a clause written all in capitals, never as part of a longer word."""
    clips = lexicon.clipped_names()
    hits = []
    for n, word in enumerate(words) if clips else ():
        for term in clips.get(word.text.casefold(), ()):
            if word.text[:1].isupper() and not word.text.isupper() and not word.glued and \
                    word.text.casefold() not in lexicon.lookup()[0] and \
                    (_firm_cue(words, n, n + 1) or _people_acting(words, n + 1)):
                hits.append(Hit(term.entity, term.kind, term.text, word.text, "name clipped"))
    return hits


# a chat line's speaker as chat clients write it, in any case: "<lagi>", "[09:14] <lagi>", "@lagi:", "lagi>", and
# after a channel's prompt, "#learnings> lagi:"
_NICK = lazy(r"(?:^|\n)\s*(?:\[[^\]\n]{1,20}\]\s*)?(?:<@?([^\W\d_]{3,20})>|@([^\W\d_]{3,20}):|([^\W\d_]{3,20})>\s)"
             r"|#[\w.-]{1,30}>\s*@?([^\W\d_]{3,20}):\s", re.I)


def _nick_hits(folded: str, lexicon: Lexicon) -> list[Hit]:
    """A contact's first name as a chat line's speaker in a chat client's own form ("<lagi> hatchery audit is ..."),
    lower case included: the form says it is someone's name."""
    if "<" not in folded and "@" not in folded and ">" not in folded:
        return []
    nicks = {next(g for g in m.groups() if g).casefold() for m in _NICK.finditer(folded)}
    return [Hit(term.entity, "person", term.text, nick, "a contact's first name as a chat speaker")
            for term in lexicon.terms if term.kind == "person" for nick in nicks
            if len(_first(term)) >= 3 and _first(term).casefold() == nick]


def _cut_short_hits(words: list[Word], folded: str, lexicon: Lexicon) -> list[Hit]:
    """A name's first word cut short where the writer says so, by an ellipsis or a dangling hyphen ("Sandae... (the
    hospital group)", "Nyered- wallet team"): the first four letters or more of a name or alias word that English
    does not write, with the capital it has, the cut word itself no English word."""
    from vmem.gates.near import common, zipf

    hits = []
    for word in words:
        text = word.text
        if len(text) < 4 or not text[:1].isupper() or text.isupper() or not (
                word.gap.startswith("...") or word.gap == "-" and re.search(rf"(?<!\w){re.escape(text)}-\s", folded)):
            continue
        if common(text.casefold()) or zipf(text.casefold()) >= _KNOWN_ZIPF:
            continue
        for term in lexicon.terms:
            first = tokens(term.text)[0] if term.kind in ("name", "alias") and tokens(term.text) else ""
            if len(first) >= len(text) + 2 and first.casefold().startswith(text.casefold()) and \
                    zipf(first.casefold()) < _UNSEEN_ZIPF:
                hits.append(Hit(term.entity, term.kind, term.text, text, "name cut short"))
                break
    return hits


def _people_acting(words: list[Word], index: int) -> bool:
    """Whether words[index] is a plural noun for people, known by what they do next: they say, ask or want
    ("underwriters asked", "brokers want"), not a modifier's thing ("firmware before", "signals are", "statement
    said")."""
    following = words[index:index + 2]
    return len(following) == 2 and not following[1].boundary and following[0].text.islower() and \
        _stem(following[0].text) != following[0].text and \
        following[1].text.casefold() in _PERSON_AFTER | (_AFTER_NAME - _AUXILIARIES)


def _listed_code_hits(words: list[Word], folded: str, lexicon: Lexicon) -> list[Hit]:
    """A listed code (_listed_codes) written in capitals as an organisation stands (an organisation cue, a verb
    after: "VKT wants"), as a ticket's key ("VKT-1187"), or with its people, known by what they do, after it ("HFU underwriters asked"; not "the
    HFU firmware"); or in lower case as a piece of a slug ("feature/zwz-roster-export"); not where it is an
    acronym being defined ("pitchers (HFU)") nor in a clause written all in capitals."""
    codes = lexicon.derived_codes()
    if not codes:
        return []
    hits = []
    for n, word in enumerate(words):
        for term in codes.get(word.text.casefold(), ()):
            if word.text.isupper():
                if _headline(words, n) or _defined(words, n, n + 1, word.text.casefold()) or not (
                        _org_cue(words, n, n + 1, False) or _people_acting(words, n + 1) or
                        word.gap == "-" and n + 1 < len(words) and words[n + 1].text.isdigit()):  # a key: HFU-118
                    continue
            elif not (word.text.islower() and _slug(words, n, n + 1)):
                continue
            hits.append(Hit(term.entity, term.kind, term.text, word.text, "listed code"))
    return hits


def _abbreviated_names(words: list[Word], lexicon: Lexicon) -> list[Hit]:
    """A contact's name with its words cut short behind a dot, in order: "F.McA." for Fergus McAlinden, "Tamsin
    O." for Tamsin Okonkwo. Each word written is the start of the name's word, at least one is cut short and at
    least one is more than a letter (bare initials need a cue of person-ness: _person_cue)."""
    hits = []
    people = lexicon.derived().people
    for n, word in enumerate(words):
        if not word.text[:1].isupper():
            continue
        for parts, term in people.get(word.text[0].casefold(), ()):
            window = words[n:n + len(parts)]
            if len(parts) < 2 or len(window) < len(parts) or any(w.boundary for w in window[1:]):
                continue
            said = [w.text.casefold() for w in window]
            if not all(part.startswith(s) and w.text[:1].isupper() for s, part, w in zip(said, parts, window)):
                continue
            cut = [s != part for s, part in zip(said, parts)]
            if any(cut) and any(len(s) > 1 for s in said) and all(
                    w.gap.startswith(".") for w, short in zip(window, cut) if short):
                hits.append(Hit(term.entity, "person", term.text, " ".join(w.text for w in window),
                                "name cut short"))
    return hits


def _derived_hits(words: list[Word], folded: str, lexicon: Lexicon) -> list[Hit]:
    """Customers named by a form made from their names: an initialism (a common acronym or a two-letter one needs
    an organisation cue), a first word that is not common English, an affixed form, a person's initials with a cue
    of person-ness, a handle."""
    from vmem.gates.near import common, zipf

    derived = lexicon.derived()
    hits: list[Hit] = []
    for start, end, letters, joined in _caps_runs(_dotted_upper(words)):
        found = " ".join(w.text for w in words[start:end])
        for term in derived.initialisms.get(letters, ()):
            if term.squashed == letters or letters.upper() in COMMON_ACRONYMS:
                continue  # the alias itself is matched as written; an everyday acronym is nobody's
            if _initialism_stands(words, start, end, letters, joined):
                hits.append(Hit(term.entity, term.kind, term.text, found, "initialism"))
        for term in derived.initials.get(letters, ()) if len(letters) <= 3 else ():
            if _person_cue(words, start, end):
                hits.append(Hit(term.entity, "person", term.text, found, "initials"))
    for n, word in enumerate(words):
        low = word.text.casefold()
        # the first words of a longer name, each with its capital: "Harbor Lane's nurses"; words all common in
        # English ("New York") need an organisation cue
        for width in range(2, 5):
            window = words[n:n + width]
            if len(window) < width or any(w.boundary for w in window[1:]) or \
                    not all(w.text[:1].isupper() and len(w.text) > 1 for w in window):
                break  # single letters ("U.S.") are initials, read as such above
            key = "".join(w.text.casefold() for w in window)
            for term in derived.prefixes.get(key, ()) if key not in lexicon.lookup()[0] else ():
                if not all(common(w.text) for w in window) or \
                        not _headline(words, n) and _firm_cue(words, n, n + width):
                    hits.append(Hit(term.entity, term.kind, term.text, " ".join(w.text for w in window),
                                    "first words of the name"))
        hits += _subsequence_hits(words, n, derived, lexicon)
        if len(low) < 4 or word.glued:
            continue
        for key in {low, _stem(low)}:
            # a later word of a longer name, where it stands as that name ("Oduya's operations staff", "Vireo
            # asked"), not beside another name ("Maccabi Haifa" is not Hapoel Haifa)
            for term in derived.parts.get(key, ()) if word.text[:1].isupper() else ():
                headline = _headline(words, n)
                own = set(tokens(term.text))
                if word.gap in ("", "&", "-") and _another_name(words, n + 1, own, headline) or \
                        n and words[n - 1].gap in ("", "&", "-") and _another_name(words, n - 1, own, headline):
                    continue
                # a later word is less of a name than a first word: it needs an organisation cue more than its
                # capital ("Baath socialism") unless English never writes it
                if not common(key) and (zipf(key) < _UNSEEN_ZIPF and key not in _dictionary()
                                        or _firm_cue(words, n, n + 1)):
                    hits.append(Hit(term.entity, term.kind, term.text, word.text, "a word of the name"))
            # a first word alone is the name only written as one (with its capital): "our moda dashboards" is not
            # Moda Quintara
            for term in derived.heads.get(key, ()) if word.text[:1].isupper() else ():
                # another name goes on after it ("Sankt Petersburg", "Northwind Traders"): that name's first word
                if not word.gap and _another_name(words, n + 1, set(tokens(term.text)), _headline(words, n)):
                    continue
                # a word English uses at all ("kestrel") is the name only where it stands as one
                if term.squashed != key and not common(key) and (zipf(key) < _KNOWN_ZIPF and key not in _dictionary()
                                                                 or _org_cue(words, n, n + 1, _headline(words, n))):
                    hits.append(Hit(term.entity, term.kind, term.text, word.text, "first word of the name"))
            for term in derived.handles.get(key, ()):
                if not common(key) and key not in _dictionary():
                    hits.append(Hit(term.entity, "person", term.text, word.text, "handle"))
        for affix in _AFFIXES:
            if not low.endswith(affix) or len(low) - len(affix) < 4:
                continue
            stem = low[:-len(affix)]
            for candidate in {stem + j for j in _JOINERS} | {stem[:-1]}:
                for term in derived.affixable.get(candidate, ()):
                    if not common(candidate) and not common(low):
                        hits.append(Hit(term.entity, term.kind, term.text, word.text, f"affixed form (-{affix})"))
    hits += _abbreviated_names(words, lexicon)
    hits += _mixed_hits(words, derived)
    hits += _ticker_hits(words, derived)
    # a handle written with a dot or an underscore, without the @: "omari.t", "d.whitcombe", "dana_w"
    for match in re.finditer(r"(?<![\w.@+-])([A-Za-z]+(?:[._][A-Za-z]+)+)(?![\w@]|\.\w)", folded):
        parts = re.split(r"[._]", match.group(1).casefold())
        if len(parts) > 3 or max(map(len, parts)) < 2:
            continue
        for term in derived.handles.get("".join(parts), ()):
            hits.append(Hit(term.entity, "person", term.text, match.group(0), "handle"))
    for match in re.finditer(r"(?<![\w.+-])@([A-Za-z][\w.-]{1,30})", folded):
        handle = match.group(1).casefold()
        parts = [p for p in re.split(r"[._-]", handle) if p]
        keys = {handle.replace(".", "").replace("_", "").replace("-", ""), *parts}
        for key in keys:
            for term in derived.handles.get(key, ()):
                hits.append(Hit(term.entity, "person", term.text, match.group(0), "handle"))
            for term in lexicon.person_parts.get(key, ()) if len(key) >= 3 else ():
                hits.append(Hit(term.entity, "person", term.text, match.group(0), "handle"))
    return hits


def _subsequence_hits(words: list[Word], n: int, derived: "Derived", lexicon: Lexicon) -> list[Hit]:
    """Two or more of a longer name's words in order, not its first words, each with its capital, from
    words[n]: "Orchard Learning's teachers", "Lantern Dental asked". Words all common in English need an
    organisation cue (_firm_cue) outside a headline and must not end with the name's last word; no other name
    may stand before them."""
    from vmem.gates.near import common

    hits = []
    for width in range(2, 5):
        window = words[n:n + width]
        if len(window) < width or any(w.boundary for w in window[1:]) or \
                not all(w.text[:1].isupper() and len(w.text) > 1 for w in window):
            break
        key = "".join(w.text.casefold() for w in window)
        for term in derived.subsequences.get(key, ()) if key not in lexicon.lookup()[0] else ():
            headline = _headline(words, n)
            if n and words[n - 1].gap in ("", "&", "-") and _another_name(words, n - 1, set(tokens(term.text)),
                                                                         headline):
                continue  # "American Stock Exchange" is not New York Stock Exchange
            # a name's last words in common English say what kind of body it is ("Stock Exchange", "Socialist
            # Party", "Learning Trust"), not which one
            if all(common(w.text) for w in window) and tokens(term.text)[-1] == window[-1].text.casefold() and \
                    tokens(term.text)[0] != window[0].text.casefold():
                continue
            if not all(common(w.text) for w in window) or not headline and _firm_cue(words, n, n + width):
                hits.append(Hit(term.entity, term.kind, term.text, " ".join(w.text for w in window),
                                "words of the name"))
    return hits


def _mixed_hits(words: list[Word], derived: "Derived") -> list[Hit]:
    """A name's first words with a run of them as initials ("TV Bank", "GO Learning", "TKV-OE", "L.B. Dental"):
    the initials in capitals (single capitals apart by dots or spaces are one run), the words written with their
    capital, and an organisation cue, a word of the name that is no common word, or initials of three letters
    or more that English does not use."""
    from vmem.gates.near import common, zipf

    if not derived.mixed:
        return []
    hits = []
    for n in range(len(words)):
        first, end = words[n].text.casefold(), n + 1
        while len(words[end - 1].text) == 1 and end < len(words) and end - n < 6 and len(words[end].text) == 1 and \
                words[end - 1].gap in ("", ".", "-", "&") and not words[end].boundary:  # (initials: six at most)
            first += words[end].text.casefold()  # "L.B. Dental": the run of single capitals is one group
            end += 1
        starts = derived.mixed.get(first)
        if not starts:
            continue
        groups: list[tuple[str, bool]] = []  # (letters or word, written as capitals)
        end = n
        while end < len(words) and len(groups) < 5 and (end == n or not words[end].boundary):
            text = words[end].text
            single = len(text) == 1 and text.isupper() and text.isalpha()
            if single and groups and groups[-1][1] and len(words[end - 1].text) == 1 and \
                    words[end - 1].gap in ("", ".", "-", "&"):
                groups[-1] = (groups[-1][0] + text.casefold(), True)
            else:
                groups.append((text.casefold(), text.isupper() and text.isalpha()))
            end += 1
            for shape, term in starts.get(tuple(g for g, _ in groups), ()):
                written = words[n:end]
                if not all(caps if initial else True for (_, caps), initial in zip(groups, shape)) or \
                        not all(w.text[:1].isupper() for w in written):
                    continue
                full = [g for (g, _), initial in zip(groups, shape) if not initial]
                letters = [g for (g, _), initial in zip(groups, shape) if initial]
                # initials joined by "&" are a firm's ("A&P Solicitors"), as in _initialism_stands
                joined = any(w.gap == "&" and len(w.text) == 1 for w in written[:-1])
                if _firm_cue(words, n, end) or joined or any(not common(w) for w in full) or \
                        any(len(g) >= 3 and zipf(g) < _ACRONYM_ZIPF for g in letters):
                    hits.append(Hit(term.entity, term.kind, term.text, " ".join(w.text for w in written),
                                    "initials and words of the name"))
    return hits


# words that say a code is a stock's: "ticker QRVL", "NASDAQ: VNTR", "QRVL shares"
_TICKER_CUES = frozenset("ticker tickers symbol nasdaq nyse lse tsx asx otc stock stocks shares share listed "
                         "exchange".split())


def _ticker_hits(words: list[Word], derived: "Derived") -> list[Hit]:
    """A one-word name's ticker-like code (its consonants, "QRVL" for Quorvell) in capitals, with a cue that it is
    a stock's or an organisation's: a stock word within two words of it ("ticker QRVL", "QRVL shares"; not anywhere
    in the sentence: "MSC plans share one login"), in parentheses or after "$", or, four letters or more, standing
    as a name (_initialism_stands). Never for a name that is a common word."""
    from vmem.gates.near import common, zipf

    if not derived.tickers:
        return []
    hits = []
    for n, word in enumerate(words):
        text = word.text
        if not (3 <= len(text) <= 5 and text.isalpha() and text.isupper()):
            continue
        key = text.casefold()
        for term in derived.tickers.get(key, ()):
            if key == term.squashed or text in COMMON_ACRONYMS or zipf(key) >= _ACRONYM_ZIPF or common(term.squashed):
                continue  # (a name that is a common word: "DLT" for Delta is a common word's consonants)
            gap_before = words[n - 1].gap if n else ""
            beside = {w.text.casefold() for w in words[max(0, n - 2):n] + words[n + 1:n + 3]}
            cued = bool(beside & _TICKER_CUES) or gap_before.endswith(("(", "$")) or (
                len(key) >= 4 and _initialism_stands(words, n, n + 1, key, False))
            if cued:
                hits.append(Hit(term.entity, term.kind, term.text, text, "ticker-like code"))
    return hits


# -- near-spellings and sound-alikes -----------------------------------------------------------------------------

class NearIndex(namedtuple("NearIndex", "words sounds singles surnames windows respelt")):
    """words: every name word of four letters or more; sounds: phonetic key -> those words; respelt: each word
    in one spelling per sound (near.respelt), in the order of words; singles: words that
    name a customer alone (one-word names and aliases, first words of longer names), five letters or more;
    surnames: contacts' surnames of five letters or more; windows: (words, term) for every name of two words or
    more, its first words when it has three or more, and without its "and"."""

    __slots__ = ()


def _near_index(terms: list[Term]) -> NearIndex:
    from vmem.gates.near import sound_keys

    words: set[str] = set()
    singles: dict[str, tuple[Term, ...]] = {}
    surnames: dict[str, tuple[Term, ...]] = {}
    windows: dict[tuple[str, ...], tuple[Term, ...]] = {}
    for term in terms:
        if term.kind not in ("name", "alias", "person"):
            continue
        toks = tokens(term.text)
        words.update(t for t in toks if len(t) >= 4 and t.isalpha())
        if term.kind == "person":
            _, surname = _name_parts(term.text)
            if len(surname) >= 5 and surname.isalpha():
                surnames[surname] = surnames.get(surname, ()) + (term,)
                words.add(surname)
        elif len(toks) == 1 or len(toks[0]) >= 5:
            key = toks[0]  # as written: the squashed form drops a plural s ("Korkorvis")
            if len(key) >= 5 and key.isalpha():
                singles[key] = singles.get(key, ()) + (term,)
                words.add(key)
        if len(toks) >= 2:
            shapes = {tuple(toks), tuple(t for t in toks if t != "and")}
            if term.kind != "person" and len(toks) >= 3:
                shapes.update(tuple(toks[:width]) for width in range(2, len(toks)))
            for shape in shapes:
                if len(shape) >= 2:
                    windows[shape] = windows.get(shape, ()) + (term,)
    sounds: dict[str, set[str]] = {}
    for word in words:
        for key in sound_keys(word) | {"s:" + _skeleton(word)} if len(_skeleton(word)) >= 3 else sound_keys(word):
            sounds.setdefault(key, set()).add(word)
    from vmem.gates.near import respelt

    ordered = sorted(words)
    return NearIndex(ordered, sounds, singles, surnames, windows, [respelt(w) for w in ordered])


_WV = str.maketrans("w", "v")
_AS_V: dict[int, tuple[list[str], list[str] | None]] = {}  # id of an index's word list -> (that list, its w as v)


def _as_v(words: list[str]) -> list[str] | None:
    """WORDS with w written v (in their order), or None when no word has a w; made once per index."""
    cached = _AS_V.get(id(words))
    if cached is None or cached[0] is not words:
        cached = (words, [w.translate(_WV) for w in words] if any("w" in w for w in words) else None)
        if len(_AS_V) > 64:
            _AS_V.clear()
        _AS_V[id(words)] = cached
    return cached[1]


def _likeness(words: list[str], index: NearIndex, spelling_only: bool = False) -> list[dict[str, str]]:
    """For each word of the statement, the name words it is like: "near spelling" (a few edits) or "sound-alike"
    (a phonetic key in common, or respelt by sound to nearly the same letters: near.sound_alike); a word equal to
    a name word is matched elsewhere and left out. SPELLING_ONLY (words written apart and joined here): the
    phonetic keys are not asked, whose short codes match split words by chance ("Police Day" and Pellucid)."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import extract

    from vmem.gates.near import SOUND_ALIKE, near_spellings, respelt, sound_alike, sound_keys

    out: list[dict[str, str]] = []
    known = set(index.words)
    # w and v are one letter in many languages' names (Polish Sosnówka is said Sosnuvka): compared as one
    as_v = _as_v(index.words)
    for word in words:
        like: dict[str, str] = {}
        # a plural or possessive of a name word is the name itself, matched (or not) by the exact rules
        if len(word) >= 4 and word.isalpha() and word not in known and _stem(word) not in known:
            for choice in near_spellings(word, index.words):
                like[choice] = "near spelling"
            if as_v is not None and ("v" in word or "w" in word):
                for choice in near_spellings(word.translate(_WV), as_v):
                    like.setdefault(index.words[as_v.index(choice)], "near spelling")
            # respelt by sound ("Kworvel" for Quorvell, "Van Torray" for Vantorre): the respelt forms nearly equal
            # and their consonants within one edit
            # (only words sharing half their letters with a name word are respelt: a sound-alike must, _near_hits)
            if extract(word, index.words, scorer=Levenshtein.normalized_similarity,
                       score_cutoff=_SOUND_SIMILARITY - 1e-3, limit=1):
                for _, _, at in extract(respelt(word), index.respelt, scorer=Levenshtein.normalized_similarity,
                                        score_cutoff=SOUND_ALIKE - 1e-3, limit=None):
                    choice = index.words[at]
                    if sound_alike(word, choice) >= SOUND_ALIKE - 1e-9:
                        like.setdefault(choice, "sound-alike")
            if spelling_only:
                out.append(like)
                continue
            keys = sound_keys(word)
            skeleton = _skeleton(word)
            if len(skeleton) >= 3:
                keys.add("s:" + skeleton)
            agreeing: Counter = Counter(choice for key in keys for choice in index.sounds.get(key, ()))
            for choice, codes in agreeing.items():
                if codes >= 2 and abs(len(choice) - len(word)) <= 3:
                    like.setdefault(choice, "sound-alike")
        out.append(like)
    return out


def _near_hits(words: list[Word], lexicon: Lexicon) -> list[Hit]:
    """Names spelt a little wrong or as they sound ("Corvane", "Tavsito", "Korvan Byologics", "Halvarde and
    Kwist", "Ilsa Fandersteen"). Only words that are not common English count as near a name, and only name
    words that are not common English count alone: "Quest" is not Quist, "sank" not Sankt. A name of several
    words counts when each word is the name's, near it, or (in a name of three words or more, one of them)
    loosely alike, and one matched word is no common word ("Harbour Lane Health" is all of a three-word name)."""
    from vmem.gates.near import common, respelt, similarity, zipf

    index = lexicon.near_index()
    if not index.words:
        return []
    words = _hyphen_pieces_joined(words)
    lower = [w.text.casefold() for w in words]
    like = _likeness(lower, index)
    # words written apart for one: two or three capitalised ones, a particle between ("Vel Moura", "Van Torray",
    # "Bal de Serra"), or short pieces joined by hyphens ("Oh-doo-ya")
    joined: dict[tuple[int, int], str] = {}
    for n in range(len(words) - 1):
        for end in (n + 2, n + 3):
            part = words[n:end]
            if len(part) < end - n or any(w.boundary for w in part[1:]):
                break
            capitals = part[0].text[:1].isupper() and part[-1].text[:1].isupper() and all(
                w.text[:1].isupper() or w.text.casefold() in _PARTICLES for w in part[1:-1])
            hyphens = all(w.gap == "-" for w in part[:-1]) and max(len(w.text) for w in part) <= 4
            if capitals or hyphens:
                joined[(n, end)] = "".join(lower[n:end])
    joined_like = dict(zip(joined, _likeness(list(joined.values()), index, spelling_only=True))) if joined else {}
    joined_at: dict[int, list[tuple[int, dict[str, str]]]] = {}  # by start: one pass over them, not one per word
    for (start, end), found in joined_like.items():
        if found:
            joined_at.setdefault(start, []).append((end, found))
    hits: list[Hit] = []

    def rare(word: str, lowered: bool) -> bool:
        return not common(word) and (not lowered or zipf(word) < _KNOWN_ZIPF)

    for n, word in enumerate(words):
        candidates = [(n, n + 1, choice, how) for choice, how in like[n].items()]
        # split words joined are compared by spelling and respelt sound only: by phonetic codes, "Police Day" is
        # Pellucid
        candidates += [(n, end, choice, how) for end, found in joined_at.get(n, ()) for choice, how in found.items()]
        for start, end, choice, how in candidates:
            written = " ".join(w.text for w in words[start:end])
            found = "".join(lower[start:end])
            # one word alone: six letters or more (a five-letter name has real neighbours: Mehra, Mehta), five
            # after a title ("Ms. Kealey" for Kealy)
            titled = start > 0 and not word.boundary and lower[start - 1] in _TITLES
            if len(choice) < (5 if titled else 6):
                continue
            # by sound alone a word must share half its letters with the name: "Karvina" (a town) sounds like
            # Corvanne to Metaphone and NYSIIS, "Korvan" also looks like it
            if how == "sound-alike" and similarity(found, choice) < _SOUND_SIMILARITY:
                continue
            if choice in index.singles and rare(choice, False) and rare(found, word.text.islower()):
                for term in index.singles[choice]:
                    if not needs_cue(term):
                        hits.append(Hit(term.entity, term.kind, term.text, written, how))
            if choice in index.surnames and end == start + 1 and word.text[:1].isupper() and rare(choice, False) \
                    and rare(found, False):
                before = words[start - 1] if start and not word.boundary else None
                after = lower[end] if end < len(words) and not words[end].boundary else ""
                named = before is not None and before.text[:1].isupper() and not before.gap or \
                    before is not None and before.text.casefold() in _BEFORE_NAME or after in _AFTER_NAME
                if named:
                    for term in index.surnames[choice]:
                        first, _ = _name_parts(term.text)
                        # a full name with another first name is someone else ("Paul Dewar")
                        if before is None or not before.text[:1].isupper() or before.gap or \
                                _first_alike(before.text.casefold(), first, like[start - 1]):
                            hits.append(Hit(term.entity, "person", term.text, written, how))
    for shape, terms in index.windows.items():
        width = len(shape)
        for start in range(len(words) - width + 1):
            if lower[start] != shape[0] and shape[0] not in like[start]:
                continue
            window = words[start:start + width]
            if any(w.boundary for w in window[1:]) or not all(
                    w.text[:1].isupper() or w.text.casefold() in _SKIPPED_IN_INITIALS for w in window):
                continue
            kinds = []
            for k, part in enumerate(shape):
                said = lower[start + k]
                if said == part:
                    kinds.append("exact")
                elif part in like[start + k]:
                    kinds.append(like[start + k][part])
                elif len(part) >= 4 and similarity(said, part) >= _LOOSE_SIMILARITY:
                    kinds.append("loose")
                else:
                    break
            else:
                if all(k == "exact" for k in kinds) or kinds.count("loose") > (1 if width >= 3 else 0):
                    continue
                matched = [part for part, k in zip(shape, kinds) if k != "loose"]
                whole = width >= 3 and kinds.count("exact") == width - 1
                changed = [lower[start + k] for k, kind in enumerate(kinds) if kind != "exact"]
                # a common word is that word, unless it sounds as the name's word does ("Price" for Pryce)
                # beside a matched word that is no common word
                if (whole or any(not common(part) for part in matched)) and not any(
                        common(word) and zipf(word) >= _COMMON_TYPO_ZIPF and
                        (respelt(word) != respelt(part) or all(common(p) for p in matched if p != part))
                        for word, part in zip(lower[start:start + width], shape) if word != part):
                    how = "near spelling" if "near spelling" in kinds else "sound-alike"
                    for term in terms:
                        hits.append(Hit(term.entity, term.kind, term.text, " ".join(w.text for w in window), how))
    return hits


def _reordered_hits(words: list[Word], lexicon: Lexicon) -> list[Hit]:
    """A name or alias of two or three words written with its words in another order, side by side ("Vane &
    Willow" for Willow & Vane, "Lam Song" for Song Lam; "and", "&" and "of" may stand between). Each word
    capitalised, as a name is written; words in one clause."""
    index = lexicon.reorderable()
    lower = [w.text.casefold() for w in words]
    hits = []
    for start in range(len(words)):
        for term, wanted in index.get(lower[start], ()):
            found, n = [], start
            while n < len(words) and len(found) < len(wanted) and (n == start or not words[n].boundary):
                if lower[n] in _SKIPPED_IN_INITIALS and found:
                    n += 1
                    continue
                if lower[n] not in wanted or lower[n] in found or not words[n].text[:1].isupper():
                    break
                found.append(lower[n])
                n += 1
            if len(found) == len(wanted):
                hits.append(Hit(term.entity, term.kind, term.text, " ".join(w.text for w in words[start:n]),
                                "its words reordered"))
    return hits


def _hyphen_pieces_joined(words: list[Word]) -> list[Word]:
    """WORDS with a run of short pieces joined by hyphens made one word, as a name spelt out by its syllables is
    read ("Oh-doo-ya" is Ohdooya); the run's pieces are four letters or fewer, three or more of them."""
    if not any(w.gap == "-" for w in words):
        return words
    out: list[Word] = []
    n = 0
    while n < len(words):
        end = n + 1
        while end < len(words) and words[end - 1].gap == "-" and not words[end].boundary:
            end += 1
        run = words[n:end]
        if len(run) >= 3 and all(len(w.text) <= 4 for w in run):
            out.append(run[0]._replace(text="".join(w.text for w in run), possessive=run[-1].possessive,
                                       gap=run[-1].gap))
        else:
            out.extend(run)
        n = end
    return out


# in a name of three words or more, one word may be only loosely alike ("Zankt Owrel Kliniken": Owrel, Aurel)
_LOOSE_SIMILARITY = 0.6
_SOUND_SIMILARITY = 0.5
# a changed word this common is that word, whatever name it is near ("the Quest team" is not Quist)
_COMMON_TYPO_ZIPF = 4.5


def _first_alike(written: str, first: str, like: dict[str, str]) -> bool:
    from vmem.gates.near import similarity

    return written == first or first in like or similarity(written, first) >= 0.5


# encodings inside encodings are decoded this many layers deep (base64 of base64 of base64); each layer is shorter
# than the one around it, so the work stays bounded
_DECODE_DEPTH = 4


def scan(statement: str, lexicon: Lexicon, _depth: int = 0) -> list[Hit]:
    """Every identifying thing in STATEMENT; an empty list means it passes. Encoded text in it (HTML entities,
    percent-encoding, backslash escapes, base64 and hex runs) is decoded and screened too, four layers deep, and
    each hit found there names its decoding; so is rot13, where a decoded run must be a lexicon term whole."""
    hits: list[Hit] = []
    folded = fold(statement)
    readings = _readings(statement, folded)
    by_squash, max_words = lexicon.lookup()
    for rule, text, il in readings:
        hits.extend(_name_hits(_words(text), rule, lexicon.lookup_il() if il else by_squash, max_words))
    folded_words = _words(folded)
    hits.extend(_person_hits(folded_words, lexicon))
    hits.extend(_derived_hits(folded_words, folded, lexicon))
    hits.extend(_listed_code_hits(folded_words, folded, lexicon))
    hits.extend(_clipped_hits(folded_words, lexicon))
    hits.extend(_cut_short_hits(folded_words, folded, lexicon))
    hits.extend(_nick_hits(folded, lexicon))
    hits.extend(_near_hits(folded_words, lexicon))
    hits.extend(_reordered_hits(folded_words, lexicon))
    hits.extend(_spelled_hits(folded, by_squash))
    hits.extend(_reversed_hits(folded, lexicon, by_squash))
    hits.extend(_identifier_hits(folded, lexicon))
    hits.extend(_code_name_hits(folded, lexicon))
    if not statement.isascii():
        script_text = _script_text(statement)
        hits.extend(_sound_hits(script_text, lexicon))
        if _foreign_letters(script_text):
            hits.extend(_script_name_hits(script_text, lexicon))
        # (with its combining marks: Devanagari writes vowels and the virama as marks)
        marked = _visible(unicodedata.normalize("NFKC", statement))
        hits.extend(_skeleton_hits(marked, lexicon))
        hits.extend(_unreadable_hits(marked, hits))
    lowered = folded.casefold()
    for domain in lexicon.domains:  # the literal first: a pattern is built only for a domain that occurs
        if domain.squashed in lowered and re.search(rf"(?<![\w-]){re.escape(domain.squashed)}(?![\w-])", lowered):
            hits.append(Hit(domain.entity, "domain", domain.text, domain.text))
    for email in _EMAIL.findall(folded):
        if not _EXAMPLE_DOMAINS.search(email):  # RFC 2606 placeholders identify nobody
            hits.append(Hit("", "email", email, email))
    for url in _URL.findall(folded):
        if not any(h.found == url for h in hits):
            for domain in lexicon.domains:
                if domain.squashed in url.casefold():
                    hits.append(Hit(domain.entity, "domain", domain.text, url))
    # values
    # numbers in words only matter where a restricted value could match them (and their parser costs ~3 ms)
    small_counts = any(t.kind == "restricted" and t.text[:1].isdigit() for t in lexicon.terms)
    texts = [statement] + [t for t in [_in_digits(folded) if lexicon.quantities or lexicon.dates or small_counts
                                       else None] if t]
    if len(texts) > 1:  # a small count kept as text ("42 clinics") said in words: "three and a half dozen clinics"
        hits.extend(h._replace(rule="number in words") for h in _name_hits(_words(texts[1]), "exact", by_squash,
                                                                           max_words) if h.kind == "restricted")
    if lexicon.quantities or small_counts:
        numbers = [n for text in texts for n in _numbers(text)]
        present = {q for q, _, _ in numbers}
        for term, quantity in lexicon.quantities:
            unit = lexicon.units.get((term.text, quantity))
            if unit is not None:
                if any(q == quantity and _same_unit(unit, tail) for q, _, tail in numbers):
                    hits.append(Hit(term.entity, "restricted", term.text, _fmt(quantity), "count-with-unit"))
            elif quantity in present or Quantity(quantity.value, not quantity.percent) in present and quantity.percent:
                hits.append(Hit(term.entity, "restricted", term.text, _fmt(quantity), "value"))
        hits.extend(_pinned_values(numbers, texts, lexicon, {(h.entity, h.term) for h in hits}))
        hits.extend(_parts_pinned(texts, lexicon, {(h.entity, h.term) for h in hits}))
    if lexicon.dates:
        from vmem.gates.datewords import UnreadableDate, dates_in_words
        from vmem.gates.values import gregorian_years, machine_dates

        # a year said in words: "August, twenty twenty-six" reads "August, 20 26"
        texts = texts[:1] + [_SPOKEN_YEAR.sub(r"\1 \2\3", t) for t in texts[1:]]
        texts += [g for g in map(gregorian_years, texts) if g not in texts]  # "B.E. 2570" is 2027
        present_dates = {day for text in texts for day in dates_in(text)}
        years = {day.year for _, day in lexicon.dates}
        worded: dict[date, str] = {}
        for text in texts:
            try:
                found_days = dates_in_words(unicodedata.normalize("NFKC", text), years)
            except UnreadableDate as error:  # fail closed: what the parser could not read may pin a date
                hits.append(Hit("", "unreadable", error.phrase, error.phrase, str(error)))
                continue
            for day, how in found_days.items():
                worded.setdefault(day, how)
        for text in texts:
            for day, how in _dates_relative_to_dates(fold(text)).items():
                worded.setdefault(day, how)
        for day, how in machine_dates(folded, years).items():  # a Unix timestamp, a spreadsheet serial day
            worded.setdefault(day, how)
        for term, day in lexicon.dates:
            if day in present_dates:
                hits.append(Hit(term.entity, "restricted", term.text, day.isoformat(), "date"))
            elif day in worded:
                hits.append(Hit(term.entity, "restricted", term.text, day.isoformat(), f"date ({worded[day]})"))
    # the only customer of a kind, in words: the category floor's concern
    if lexicon.categories and _depth == 0:
        from vmem.gates.membership import unique_memberships

        for entity, described, phrase in unique_memberships(folded, lexicon.categories):
            hits.append(Hit(entity, "membership", " + ".join(described), phrase, "only one customer holds it"))
    # quoted spans from the evidence's episodes
    if lexicon.quotes:
        said = _quote_tokens(statement)
        for index in lexicon.quotes_sharing(set(_content(said)) | set(_content(said, uninflected=True))):
            entity, quote, quoted = lexicon.quotes[index]
            rule = _reuses(said, quoted)
            if rule:
                hits.append(Hit(entity, "quote", quote, quote, rule))
    if _depth < _DECODE_DEPTH:
        from vmem.gates.decode import decodings

        for decoding, decoded in decodings(statement):
            for hit in scan(decoded, lexicon, _depth + 1):
                hits.append(hit._replace(rule=decoding + ("" if hit.rule == "exact" else f", {hit.rule}")))
            if decoding in ("base64", "hex"):
                hits.extend(hit._replace(rule=f"{decoding}, the whole run") for hit in _whole_name(decoded, lexicon))
        if _depth == 0:
            hits.extend(_rot13_hits(folded, lexicon, by_squash, max_words))
    unique: dict[tuple[str, str, str], Hit] = {}
    for hit in hits:
        unique.setdefault((hit.entity, hit.kind, hit.term), hit)
    return list(unique.values())


def _whole_name(decoded: str, lexicon: Lexicon) -> list[Hit]:
    """A base64 or hex run that decodes to a name and nothing else: someone hid it, which is the cue a name made
    of common words needs ("U3VtbWl0IFJpZGdl" is "Summit Ridge", the first words of Summit Ridge Credit Union)."""
    key = "".join(tokens(decoded))
    if len(key) < 4:
        return []
    derived = lexicon.derived()
    term = lexicon.lookup()[0].get(_squash(tokens(decoded)))
    found = ([term] if term is not None and term.kind in ("name", "alias", "person") else []) + \
        list(derived.prefixes.get(key, ())) + list(derived.heads.get(key, ())) + list(lexicon.person_parts.get(key, ()))
    return [Hit(t.entity, t.kind, t.text, decoded.strip()) for t in found]


def _rot13_hits(folded: str, lexicon: Lexicon, by_squash: dict[str, Term], max_words: int) -> list[Hit]:
    """Names written in rot13 ("Xrfgery Servtug"). Every word is rot13 of some letters, so a decoded run counts
    only when it is a lexicon term whole, of five letters or more, that needs no cue, and the words as written
    are not all English ("gnat" is rot13 of "tang")."""
    from vmem.gates.decode import rot13

    starts = lexicon.first_words()
    turned = rot13(folded)
    lowered = [w.casefold() for w in _TOKEN.findall(turned)]
    derived = lexicon.derived()
    if not any(w in starts or w in lexicon.person_parts or w in derived.heads or w in derived.parts
               for w in lowered):
        return []  # the literal test first: most statements hold no word whose rot13 starts a name
    hits = []
    for hit in _name_hits(_words(turned), "rot13", by_squash, max_words):
        written = rot13(hit.found).split()
        if len("".join(tokens(hit.term))) >= 5 and not all(_ordinary(w) or w in _dictionary() for w in written):
            hits.append(hit._replace(found=" ".join(written)))
    heads = lexicon.derived().heads
    for word in set(lowered):
        written = rot13(word)
        if len(word) < 5 or _ordinary(written) or written in _dictionary():
            continue
        if len(word) >= 6 and word in lexicon.person_parts:
            hits += [Hit(p.entity, "person", p.text, written, "rot13") for p in lexicon.person_parts[word]]
        # a word of a longer name ("Pbeinaar" for Corvanne Biologics, "Bfgenaqre" for TKV Ostrander Energy): hiding
        # it is the cue a rare word needs
        for table in (heads, lexicon.derived().parts):
            if word in table:
                from vmem.gates.near import common

                if not common(word):
                    hits += [Hit(t.entity, t.kind, t.text, written, "rot13") for t in table[word]]
    return hits


_DIGIT_LOOKALIKES = str.maketrans("oOiIl", "00111")


# a code-like name: camelCase or PascalCase of two words or more, snake_case, or kebab-case in lower case
_CODE_NAME = lazy(r"(?<![\w-])(?:[A-Za-z][a-z]+(?:[A-Z][a-z]+)+|[A-Za-z]+(?:_[A-Za-z]+)+|[a-z]+(?:-[a-z]+)+)(?![\w-])")


def _code_name_hits(folded: str, lexicon: Lexicon) -> list[Hit]:
    """Words of a longer name written as an identifier: "saltmarshTransit", "copper_foods", "kettle-foods": the
    parts, joined, are the name's first words or two or more of its words in order (Derived.prefixes,
    subsequences). An identifier is itself the cue that ordinary words are a name; kebab-case, which English
    writes for compounds ("well-known"), needs a part that is no common word."""
    derived = lexicon.derived()
    if not (derived.prefixes or derived.subsequences) or not any(ch in folded for ch in "_-") and \
            not re.search(r"[a-z][A-Z]", folded):
        return []
    from vmem.gates.near import common

    hits = []
    for match in _CODE_NAME.finditer(folded):
        written = match.group(0)
        parts = [p.casefold() for p in re.findall(r"[A-Z]?[a-z]+", written)]
        key = "".join(parts)
        if "-" in written and all(common(p) for p in parts):
            continue
        for term in derived.prefixes.get(key, ()) + derived.subsequences.get(key, ()):
            hits.append(Hit(term.entity, term.kind, term.text, written, "identifier of the name's words"))
    return hits


def _identifier_key(part: str) -> str:
    """One part of an identifier as compared: letters standing for digits among digits read as digits (2O26),
    numbers by value (014 is 14), the rest case-folded."""
    part = part.casefold()
    if any(ch.isdigit() for ch in part):
        part = part.translate(_DIGIT_LOOKALIKES)
    return str(int(part)) if part.isdigit() else part


def _identifier_hits(folded: str, lexicon: Lexicon) -> list[Hit]:
    """A restricted identifier of three or more parts (SCC-RFP-2026-014) written with its parts in another order,
    other separators, a leading zero dropped or letters for digits: every part, within a window of the part count
    plus two words."""
    words = [_identifier_key(w) for w in _TOKEN.findall(folded)]
    hits = []
    for term in lexicon.terms:
        if term.kind != "restricted" or not _IDENTIFIER.fullmatch(term.text.strip()):
            continue
        parts = [_identifier_key(p) for p in re.split(r"[-_/.]", term.text.strip()) if p]
        if len(parts) < 3:
            continue
        needed, width = Counter(parts), len(parts) + 2
        for start in range(len(words)):
            if words[start] in needed and not needed - Counter(words[start:start + width]):
                hits.append(Hit(term.entity, "restricted", term.text, " ".join(words[start:start + width]),
                                "identifier parts"))
                break
    return hits


def _fmt(quantity: Quantity) -> str:
    text = f"{quantity.value:,.2f}".rstrip("0").rstrip(".")
    return text + ("%" if quantity.percent else "")


# Function words carry no content: a minimal paraphrase keeps the quote's other words and swaps these.
_FUNCTION_WORDS = frozenset("""
    a an the and or but if so to of in on at by for from with without into onto about as than then that this these
    those there here it its we us our ours you your they them their he she his her i me my be is are was were been
    being am do doe did have ha had will would shall should can could may might must not no nor any every all each
    which who whom whose what when where why how until before after while just even only also very much more most
    up out over again ever never anything nothing everything something one
""".split())
_QUOTE_CONTENT_SHARE = 0.7  # this share of a quote's content words, found in the statement, is a paraphrase of it
_QUOTE_CONTENT_MIN = 5  # quotes with fewer content words are matched by runs only


def _content(words: list[str], uninflected: bool = False) -> list[str]:
    """Content words, cut to six letters so inflections and derivations meet (automated / automatic); UNINFLECTED:
    their inflection off first (charting / chart, written / writing, jamming / jams)."""
    return [(_uninflected(w) if uninflected else w)[:6] for w in words if w not in _FUNCTION_WORDS and len(w) > 1]


# a quote retold with its words inflected otherwise shares this many content words at least (and the share above):
# five matched "Legal teams want DPA redlines before signing" to a quote about signing and redlining a DPA
_RETOLD_MIN = 6


_INFLECTIONS = ("ing", "ed", "en", "es", "s")


def _uninflected(word: str) -> str:
    """WORD without one inflectional ending, a doubled consonant before it made one: "jamming" and "jams" are jam,
    "written" and "writing" writ; the stem keeps three letters at least."""
    for ending in _INFLECTIONS:
        if ending == "s" and word.endswith(("ss", "us", "is")):
            continue  # "miss", "bus", "axis" end in an s of their own
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[:-len(ending)]
            if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]
            break
    return word


def _reuses(said: list[str], quoted: list[str]) -> str | None:
    """Which reuse rule a statement meets for one quote: a verbatim run, shared word triples, shared content words."""
    if not said or not quoted:
        return None
    said = _spelled_as(said, quoted)
    if len(quoted) < _QUOTE_RUN:
        needle = " ".join(quoted)
        return "verbatim quote" if f" {needle} " in f" {' '.join(said)} " else None
    longest, previous = 0, [0] * (len(quoted) + 1)
    for word in said:
        current = [0] * (len(quoted) + 1)
        for j, other in enumerate(quoted, 1):
            if word == other:
                current[j] = previous[j - 1] + 1
                longest = max(longest, current[j])
        previous = current
    if longest >= _QUOTE_RUN:
        return "verbatim run"
    triples = {tuple(quoted[i:i + 3]) for i in range(len(quoted) - 2)}
    shared = triples & {tuple(said[i:i + 3]) for i in range(len(said) - 2)}
    if triples and len(shared) / len(triples) >= _QUOTE_SHARE:
        return "shared word triples"
    content = set(_content(quoted))
    if len(content) >= _QUOTE_CONTENT_MIN and len(content & set(_content(said))) / len(content) >= _QUOTE_CONTENT_SHARE:
        return "content-word overlap"
    content = set(_content(quoted, uninflected=True))
    shared = content & set(_content(said, uninflected=True))
    if len(shared) >= _RETOLD_MIN and len(shared) / len(content) >= _QUOTE_CONTENT_SHARE:
        return "content-word overlap, inflections off"
    return None


def _spelled_as(said: list[str], quoted: list[str]) -> list[str]:
    """SAID with each misspelt word of the quote taken as the quote's (one slip in a word of four or more letters,
    two in one of eight or more: "scaner", "trak", "untill"), so a quote retyped with typos is still the quote."""
    vocabulary = set(quoted)
    out = []
    for word in said:
        if word not in vocabulary and len(word) >= 3:
            word = next((q for q in quoted if len(q) >= 4 and _within(word, q, 2 if len(q) >= 8 else 1)), word)
        out.append(word)
    return out


def _within(a: str, b: str, limit: int) -> bool:
    """Whether A becomes B in at most LIMIT single-letter edits (insert, delete, replace, swap of neighbours)."""
    if abs(len(a) - len(b)) > limit:
        return False
    previous2, previous = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if previous2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return False
        previous2, previous = previous, current
    return previous[-1] <= limit


class DeidResult(namedtuple("DeidResult", "passed hits")):
    """passed (bool), hits (a tuple of Hit)."""

    __slots__ = ()

    @property
    def reason(self) -> str | None:
        if self.passed:
            return None
        return "names a customer: " + "; ".join(hit.describe() for hit in self.hits[:5])

    @property
    def advice(self) -> str:
        return ("rephrase it without customer names, contacts, domains, quotes or exact amounts/dates, "
                "e.g. 'Healthcare customers ...'")


def check_statement(statement: str, lexicon: Lexicon) -> DeidResult:
    hits = scan(statement, lexicon)
    return DeidResult(not hits, tuple(hits))
