"""Numbers as machines and other countries write them (pure; the de-id gate's restricted amounts, counts and dates).

A restricted value leaks in any of its written forms, not only the ones people type: a currency's code, symbol or
own name ("KES 42,000,000" is "42 million shillings"), a price in its minor unit ("amount_cents: 86000000" is
$860,000), a date as a Unix timestamp in seconds or milliseconds or an Excel serial day number, a headcount under
any noun for the people a firm employs ("640 employees", "640 staff", "880 glassworkers"), and a whole stated as
the sum or difference of two parts ("1,000 owned trucks plus 400 subcontracted ones").
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from vmem.lazyre import lazy

# ISO 4217 codes of the currencies in common use, and the symbols and names people write them with (accents off,
# as the gate folds text). Names that are everyday English words ("won", "real", "rand", "dong") and
# abbreviations that are units too ("ft" is feet, "kr" a prefix) are left out: a code or symbol says money.
CURRENCY_CODES = frozenset("""
    usd eur gbp jpy chf cad aud nzd cny rmb hkd sgd twd krw inr idr myr php thb vnd pkr bdt lkr npr kes ugx tzs
    ngn ghs zar egp mad tnd etb xof xaf huf czk pln sek nok dkk isk ron bgn rsd uah rub try ils aed sar qar kwd
    bhd omr jod brl mxn ars clp cop pen uyu
""".split())
CURRENCY_NAMES = (
    "dollars?|euros?|pounds?|sterling|yen|yuan|renminbi|rupees?|rupiahs?|ringgits?|baht|shillings?|naira|"
    "forints?|korun[ay]?|zlot(?:y|ys|ych|e)|kronor|kroner|krona|krone|francs?|pesos?|reais|liras?|shekels?|"
    "dirhams?|riyals?|rubles?|roubles?|hryvnias?|dinars?|cedis?|euro")
CURRENCY_SIGNS = "[$€£¥₹₩₽₺₪₫฿₱₦₴₸₡₲₵]"
# local abbreviations written before or after the figure: Rp 85 miliar, 145 Kc (Kč folded), 4 zl, KSh 42m, R$ 5
CURRENCY_ABBREVIATIONS = "rp|kc|zl|ksh|tsh|ush|r\\$|a\\$|c\\$|nz\\$|hk\\$|s\\$|us\\$|nt\\$|rs\\.?|lei"
_CODES = "|".join(sorted(CURRENCY_CODES))
CURRENCY = lazy(rf"{CURRENCY_SIGNS}|\b(?:{_CODES}|{CURRENCY_NAMES})\b|(?<![\w$])(?:{CURRENCY_ABBREVIATIONS})(?![\w$])",
                re.I)
# a currency written just before the figure: "Rp 85", "KES 42,000,000", "HUF 3.2bn"
_CURRENCY_BEFORE = lazy(rf"(?:{CURRENCY_SIGNS}|\b(?:{_CODES})|(?<![\w$])(?:{CURRENCY_ABBREVIATIONS}))\.?\s?$", re.I)


def currency_before(text: str) -> bool:
    """Whether TEXT (what stands before a number) ends with a currency code, sign or local abbreviation."""
    return bool(_CURRENCY_BEFORE.search(text[-8:]))


# The minor unit of a currency (a hundredth of it), as a word or the last part of a field name ("amount_cents",
# "priceInCents", "total_minor"): the figure beside it is a hundredth of the amount
MINOR_UNITS = frozenset("cent cents pence penny pennies paise kopek kopeks kopecks centimes centavos centimos groszy "
                        "grosze minor".split())

# Nouns for the people a firm employs, and the heads of compound nouns that make one ("glassworkers",
# "warehouse staff"): a restricted headcount under one of them is the same count under any other
HEADCOUNT_NOUNS = frozenset("employee employees staff staffer staffers people person persons worker workers "
                            "workforce personnel headcount fte ftes colleague colleagues hire hires "
                            "employe".split())
_HEADCOUNT_HEADS = ("worker", "workers", "staff", "staffer", "staffers", "employee", "employees", "people",
                    "folk", "folks")


def headcount(words: frozenset[str]) -> bool:
    """Whether WORDS (stems around a number, or a restricted count's unit) hold a noun for a firm's people."""
    return any(w in HEADCOUNT_NOUNS or len(w) > 6 and w.endswith(_HEADCOUNT_HEADS) for w in words)


# -- dates in machine forms ------------------------------------------------------------------

_EPOCH = lazy(r"(?<![\d.,])(\d{10}|\d{13}|\d{16})(?![\d.,]\d)")
_EXCEL = lazy(r"(?<![\d.,$€£¥-])([3-7]\d{4})(?:\.\d+)?(?![\d,]|\.\d)")
# a spreadsheet serial is a date only when the text says it is a date or a sheet's cell
_EXCEL_CUE = lazy(r"\b(?:excel|serial|spreadsheet|sheet|cell|xlsx?|csv|date|dated|day|deadline|due|renewal|"
                  r"launch|go-?live|cutover|expir\w*)\b", re.I)
_EXCEL_EPOCH = date(1899, 12, 30)  # serial 1 is 1900-01-01 in Excel's 1900 system (its 1900-02-29 included)
# an astronomer's day count, named: a Julian day number ("JDN 2461321", "JD 2461320.5") or a modified one ("MJD 61320")
_JULIAN = lazy(r"\b(?:(MJD|modified julian (?:day|date)(?: number)?)|JDN?|julian (?:day|date)(?: number)?)"
               r"[\s:=#]{0,3}(\d{5,7})(\.\d+)?(?!\d)", re.I)
_JD_ORDINAL = 1_721_425  # JDN 1,721,426 is 1 January of year 1 (proleptic Gregorian), date ordinal 1
_MJD_EPOCH = date(1858, 11, 17)  # MJD 0
# day, month and year run together: 15032027 (both day-month orders, fail closed; ISO's 20270315 is read elsewhere)
_COMPACT_DMY = lazy(r"(?<!\d)(0[1-9]|[12]\d|3[01])(0[1-9]|1[0-2])((?:19|20)\d{2})(?!\d)")


# a Thai Buddhist-era year (B.E. 2570, พ.ศ. 2570, 2570 BE) is the Gregorian year plus 543; so is a year of those
# centuries right after a word in Thai, Lao or Khmer script, whose calendars count from the Buddha ("9 มีนาคม 2569")
_BUDDHIST_SCRIPT = "\u0e00-\u0eff\u1780-\u17ff"
_BUDDHIST_ERA = lazy(r"(?:\bB\.\s?E\.|\bBE\b|พ\.\s?ศ\.)\s?(2[45]\d\d)\b|\b(2[45]\d\d)\s?(?:B\.\s?E\.|BE\b)"
                     rf"|(?<=[{_BUDDHIST_SCRIPT}]\s)(2[45]\d\d)\b")
_IN_BUDDHIST_SCRIPT = lazy(rf"[{_BUDDHIST_SCRIPT}]")
BUDDHIST_ERA_OFFSET = 543


def gregorian_years(text: str) -> str:
    """TEXT with each Buddhist-era year written as its Gregorian year ("20 May B.E. 2570" -> "20 May 2027")."""
    if "E" not in text and "ศ" not in text and not _IN_BUDDHIST_SCRIPT.search(text):
        return text
    return _BUDDHIST_ERA.sub(lambda m: str(int(m.group(1) or m.group(2) or m.group(3)) - BUDDHIST_ERA_OFFSET), text)


def machine_dates(text: str, years: set[int]) -> dict[date, str]:
    """The days TEXT writes as a Unix timestamp (seconds, milliseconds or microseconds, UTC), a spreadsheet serial
    day number with a cue that it is a date, a Julian day number, or a compact day-month-year; only days in YEARS
    are kept."""
    found: dict[date, str] = {}
    if not any(ch.isdigit() for ch in text):
        return found
    for match in _EPOCH.finditer(text):
        digits = match.group(1)
        seconds = int(digits) / 10 ** (len(digits) - 10)
        try:
            day = datetime.fromtimestamp(seconds, tz=timezone.utc).date()
        except (OverflowError, OSError, ValueError):
            continue
        if day.year in years:
            found.setdefault(day, "Unix timestamp")
    if _EXCEL_CUE.search(text):
        for match in _EXCEL.finditer(text):
            day = _EXCEL_EPOCH + timedelta(days=int(match.group(1)))
            if day.year in years:
                found.setdefault(day, "spreadsheet serial date")
    for match in _JULIAN.finditer(text):
        number = int(match.group(2))
        late = not match.group(1) and float(match.group(3) or 0) >= 0.5  # a Julian day begins at noon
        try:
            day = _MJD_EPOCH + timedelta(days=number) if match.group(1) else \
                date.fromordinal(number - _JD_ORDINAL + late)
        except (OverflowError, ValueError):
            continue
        if day.year in years:
            found.setdefault(day, "Julian day number")
    for match in _COMPACT_DMY.finditer(text):
        a, b, year = int(match.group(1)), int(match.group(2)), int(match.group(3))
        for month, day in ((b, a), (a, b)):
            try:
                when = date(year, month, day)
            except ValueError:
                continue
            if when.year in years:
                found.setdefault(when, "compact date")
    return found


# -- a whole stated as two parts --------------------------------------------------------------

# what joins two parts of a whole: "1,000 owned trucks plus 400 subcontracted ones", "$600k and another $260k";
# or one taken from another: "1,500 trucks less 100 in repair"
_PLUS = lazy(r"\b(?:plus|and|with|as well as|along with|together with|alongside|on top of|besides|added to|"
             r"in addition to|another|more)\b|\+|&", re.I)
_MINUS = lazy(r"\b(?:minus|less|fewer|without|excluding|except|net of|after)\b|(?<![\w-])-(?=\s)|−", re.I)
PART_GAP = 80  # the parts of one whole stand within this many characters of each other


def parts(spans: list[tuple[int, int, float]], text: str) -> list[tuple[float, str, int, int]]:
    """Sums and differences of two numbers next to each other in TEXT (SPANS: start, end, value, in order) that
    a joining word sets up as parts of one whole: (value, "sum" | "difference", start, end)."""
    out = []
    for (s1, e1, a), (s2, e2, b) in zip(spans, spans[1:]):
        between = text[e1:s2]
        if s2 - e1 > PART_GAP or a <= 0 or b <= 0 or re.search(r"[.;!?](?:\s|$)", between):
            continue
        if _PLUS.search(between):
            out.append((a + b, "sum", s1, e2))
        if _MINUS.search(between) and a != b:
            out.append((abs(a - b), "difference", s1, e2))
    return out
