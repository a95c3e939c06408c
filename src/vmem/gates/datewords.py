"""Dates written so that they pin a day without the usual formats (pure; the de-id gate's restricted dates).

ISO week dates (2026-W34-2) and weeks (2026-W34, "ISO week 34 of 2026": every day of it), day of the year ("day
230 of 2026"), Roman-numeral months (18.VIII.2026), the nth weekday of a month ("the third Tuesday of August
2026") or of a year ("the first Tuesday of 2027"), Chinese, Japanese and Korean dates (2026年8月18日), holidays
and days relative to them ("the Monday after Halloween 2026", "Cyber Monday 2026", "two days before Christmas
2026"), the lunisolar new year ("Tết 2027", "Chinese New Year 2026") and dates in other languages (dateparser,
loaded only for a date-like phrase whose year is one the caller asks about; a parser fault holds the statement).
A year must be written: "the Monday after Easter" pins nothing.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from datetime import date, datetime, timedelta

from vmem.lazyre import lazy

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december"]
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
             "5th": 5, "last": -1}
_COUNTS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10, "xi": 11,
          "xii": 12}


def _easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date | None:
    """The Nth WEEKDAY (0 = Monday) of MONTH; n = -1 is the last."""
    if n == -1:
        last = (date(year + month // 12, month % 12 + 1, 1)) - timedelta(days=1)
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    first = date(year, month, 1)
    day = first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    return day if day.month == month else None


def _new_moon(k: int) -> float:
    """Julian Ephemeris Day of new moon number K (0 = 6 January 2000), Meeus ch. 49, main periodic terms."""
    t = k / 1236.85
    jde = 2451550.09766 + 29.530588861 * k + 0.00015437 * t * t
    e = 1 - 0.002516 * t
    m = math.radians(2.5534 + 29.10535670 * k)
    mp = math.radians(201.5643 + 385.81693528 * k)
    f = math.radians(160.7108 + 390.67050284 * k)
    om = math.radians(124.7746 - 1.56375588 * k)
    jde += (-0.40720 * math.sin(mp) + 0.17241 * e * math.sin(m) + 0.01608 * math.sin(2 * mp)
            + 0.01039 * math.sin(2 * f) + 0.00739 * e * math.sin(mp - m) - 0.00514 * e * math.sin(mp + m)
            + 0.00208 * e * e * math.sin(2 * m) - 0.00111 * math.sin(mp - 2 * f) - 0.00057 * math.sin(mp + 2 * f)
            + 0.00056 * e * math.sin(2 * mp + m) - 0.00042 * math.sin(3 * mp) + 0.00042 * e * math.sin(m + 2 * f)
            + 0.00038 * e * math.sin(m - 2 * f) - 0.00024 * e * math.sin(2 * mp - m) - 0.00017 * math.sin(om))
    return jde

def _lunar_new_year(year: int, hours: int) -> date:
    """The first day of the lunisolar year: the day (at UTC+HOURS, the calendar's own time zone) of the first new
    moon on or after 21 January, which is the second after the winter solstice in all but the rare years with a
    leap eleventh or twelfth month. Checked against the published dates of 2015-2035."""
    start = date(year, 1, 21)
    k = math.floor((year + 20 / 365.25 - 2000) * 12.3685) - 1
    while True:
        jd = _new_moon(k)
        day = (datetime(2000, 1, 1, 12) + timedelta(days=jd - 2451545.0, hours=hours)).date()
        if day >= start:
            return day
        k += 1


def _thanksgiving(year: int) -> date:
    return _nth_weekday(year, 11, 3, 4)


# holidays by the rule that dates them: a fixed day, the nth weekday of a month, or days from Easter or
# Thanksgiving; names as English writers use them
_HOLIDAYS = {
    "new year's day": lambda y: date(y, 1, 1), "new year's eve": lambda y: date(y, 12, 31),
    "epiphany": lambda y: date(y, 1, 6), "valentine's day": lambda y: date(y, 2, 14),
    "st patrick's day": lambda y: date(y, 3, 17), "april fools' day": lambda y: date(y, 4, 1),
    "may day": lambda y: date(y, 5, 1), "juneteenth": lambda y: date(y, 6, 19), "canada day": lambda y: date(y, 7, 1),
    "independence day": lambda y: date(y, 7, 4), "bastille day": lambda y: date(y, 7, 14),
    "german unity day": lambda y: date(y, 10, 3), "halloween": lambda y: date(y, 10, 31),
    "all saints' day": lambda y: date(y, 11, 1), "guy fawkes night": lambda y: date(y, 11, 5),
    "bonfire night": lambda y: date(y, 11, 5), "veterans day": lambda y: date(y, 11, 11),
    "armistice day": lambda y: date(y, 11, 11), "remembrance day": lambda y: date(y, 11, 11),
    "christmas eve": lambda y: date(y, 12, 24), "christmas day": lambda y: date(y, 12, 25),
    "christmas": lambda y: date(y, 12, 25), "boxing day": lambda y: date(y, 12, 26),
    "martin luther king day": lambda y: _nth_weekday(y, 1, 0, 3), "mlk day": lambda y: _nth_weekday(y, 1, 0, 3),
    "presidents' day": lambda y: _nth_weekday(y, 2, 0, 3), "mother's day": lambda y: _nth_weekday(y, 5, 6, 2),
    "memorial day": lambda y: _nth_weekday(y, 5, 0, -1), "father's day": lambda y: _nth_weekday(y, 6, 6, 3),
    "labor day": lambda y: _nth_weekday(y, 9, 0, 1), "labour day": lambda y: _nth_weekday(y, 9, 0, 1),
    "columbus day": lambda y: _nth_weekday(y, 10, 0, 2),
    "indigenous peoples' day": lambda y: _nth_weekday(y, 10, 0, 2),
    "election day": lambda y: _nth_weekday(y, 11, 0, 1) + timedelta(days=1),
    "thanksgiving": _thanksgiving, "thanksgiving day": _thanksgiving,
    "black friday": lambda y: _thanksgiving(y) + timedelta(days=1),
    "cyber monday": lambda y: _thanksgiving(y) + timedelta(days=4),
    "early may bank holiday": lambda y: _nth_weekday(y, 5, 0, 1),
    "spring bank holiday": lambda y: _nth_weekday(y, 5, 0, -1),
    "summer bank holiday": lambda y: _nth_weekday(y, 8, 0, -1),
    "easter": _easter, "easter sunday": _easter, "good friday": lambda y: _easter(y) - timedelta(days=2),
    "maundy thursday": lambda y: _easter(y) - timedelta(days=3),
    "easter monday": lambda y: _easter(y) + timedelta(days=1),
    "ash wednesday": lambda y: _easter(y) - timedelta(days=46),
    "ascension day": lambda y: _easter(y) + timedelta(days=39), "pentecost": lambda y: _easter(y) + timedelta(days=49),
    "whit monday": lambda y: _easter(y) + timedelta(days=50),
    # the lunisolar new year, in the time zone of each calendar that keeps it (China, Vietnam, Korea)
    "lunar new year": lambda y: _lunar_new_year(y, 8), "chinese new year": lambda y: _lunar_new_year(y, 8),
    "spring festival": lambda y: _lunar_new_year(y, 8), "tet": lambda y: _lunar_new_year(y, 7),
    "tet nguyen dan": lambda y: _lunar_new_year(y, 7), "seollal": lambda y: _lunar_new_year(y, 9),
}
_HOLIDAY = "(?:" + "|".join(re.escape(h).replace("'", "'?") for h in sorted(_HOLIDAYS, key=len, reverse=True)) + ")"
_DAY_WORD = "(?:" + "|".join(_WEEKDAYS) + "|day|weekday|business day|working day)"
_RELATIVE = lazy(rf"\b(?:the\s+)?(?:(?P<n>\d{{1,2}}|one|a|two|three|four|five|six|seven|ten)\s+(?P<unit>days?|weeks?)"
                 rf"|(?P<wd>{_DAY_WORD}))\s+(?P<dir>before|after|following|preceding|prior to)\s+"
                 rf"(?P<hol>{_HOLIDAY})(?:\s+(?:in|of))?,?\s+(?P<y>\d{{4}})\b", re.I)
_HOLIDAY_YEAR = lazy(rf"\b(?P<hol>{_HOLIDAY})(?:\s+(?:in|of))?,?\s+(?P<y>\d{{4}})\b", re.I)
_NTH_WEEKDAY = lazy(r"\b(?:the\s+)?(?P<n>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+"
                    rf"(?P<wd>{'|'.join(_WEEKDAYS)})\s+(?:of|in)\s+(?P<m>{'|'.join(_MONTH_NAMES)}),?\s+"
                    r"(?P<y>\d{4})\b",
                    re.I)
# the nth weekday of a year: "the first Tuesday of 2027", "the last Friday in 2026"
_NTH_WEEKDAY_OF_YEAR = lazy(r"\b(?:the\s+)?(?P<n>first|second|third|last|1st|2nd|3rd)\s+"
                            rf"(?P<wd>{'|'.join(_WEEKDAYS)})\s+(?:of|in)\s+(?P<y>\d{{4}})\b", re.I)
# Chinese, Japanese and Korean dates: 2026年8月18日, 2026년 8월 18일
_CJK_DATE = lazy(r"(?P<y>\d{4})\s*[年년]\s*(?P<m>\d{1,2})\s*[月월]\s*(?P<d>\d{1,2})\s*[日일号]?")
_ISO_WEEK = lazy(r"\b(?P<y>\d{4})-?W(?P<w>\d{2})(?:-?(?P<d>[1-7]))?\b")
_WEEK_OF = lazy(r"\b(?:iso\s+|calendar\s+)?(?:week|wk|kw|kalenderwoche|semaine|semana|settimana)\s*(?:no\.?\s*)?"
                r"(?P<w>\d{1,2})\s*(?:of|in|,|/)?\s*(?P<y>\d{4})\b", re.I)
_DAY_OF_YEAR = lazy(r"\bday\s+(?P<n>\d{1,3})\s+(?:of|in)\s+(?P<y>\d{4})\b|\b(?P<n2>\d{1,3})(?:st|nd|rd|th)\s+day\s+"
                    r"(?:of|in)\s+(?P<y2>\d{4})\b", re.I)
_ROMAN_MONTH = lazy(r"\b(?P<d>\d{1,2})\s?[./ -]\s?(?P<m>I{1,3}|IV|VI{0,3}|IX|XI{0,2})\s?[./ -]\s?(?P<y>\d{4})\b")
# a letter of a month's name: a letter, or a combining sign of the scripts that write vowels with them (Devanagari to
# Sinhala, Thai, Lao, Myanmar, Khmer; Arabic's and Hebrew's points), which Python's \w leaves out ("अगस्त")
_LETTER = r"(?:[^\W\d_]|[\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u0900-\u0dff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff])"
# a day, a month word and a year in any language's order: "18 de agosto de 2026", "1. März 2027", "le 18 août 2026"
_FOREIGN = lazy(r"\b(?P<d>\d{1,2})(?:\.|º|°|er|e|o|a|st|nd|rd|th)?(?:\s+|[-/.])(?:de\s+|of\s+)?"
                rf"(?P<m>{_LETTER}{{3,12}})\.?,?(?:\s+|[-/.])(?:de\s+|del\s+)?(?P<y>\d{{4}})\b|"
                rf"\b(?P<m2>{_LETTER}{{3,12}})\.?(?:\s+|[-/.])(?P<d2>\d{{1,2}})(?:\.|º|st|nd|rd|th)?,?\s+(?:of\s+)?"
                r"(?P<y2>\d{4})\b|"
                # year first, as Hungarian, Lithuanian and East Asian writers order it: "2027. március 15.", "2026
                # m. rugsėjo 30 d." (the year's own word abbreviated after it)
                rf"\b(?P<y3>\d{{4}})\.?\s+(?:[^\W\d_]{{1,3}}\.\s+)?(?P<m3>{_LETTER}{{3,12}})\.?\s+(?P<d3>\d{{1,2}})\b\.?")
# an ISO date with its time ("2026-08-18T09:00Z"): the day is there, whatever the hour
_ISO_DATETIME = lazy(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?=[T ]\d{2}:?\d{2})")
_DATEPARSER_LANGUAGES = ["en", "es", "fr", "de", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs", "ro", "ca",
                         "tr", "id", "hu", "hr", "sk", "sl", "et", "lv", "lt",
                         # Cyrillic and Greek scripts, and more of Europe, Asia and Africa ("24 серпня 2026")
                         "ru", "uk", "be", "bg", "sr", "mk", "kk", "el", "vi", "ms", "tl", "sw", "mn", "hy", "ka",
                         "az", "uz", "sq", "is", "ga", "cy", "mt", "eu", "gl", "af",
                         # South and Southeast Asia, the Middle East and the Horn of Africa ("17 अगस्त 2026")
                         "hi", "bn", "mr", "ne", "gu", "pa", "ta", "te", "kn", "ml", "si", "th", "lo", "my", "km",
                         "ar", "fa", "ur", "he", "am"]


# words that stand between a day number and a year without being a month: no parser is asked about them
_NOT_MONTHS = frozenset("of and in on to the days day weeks week months years year from until till by".split())


def _safe(make, *args) -> date | None:
    try:
        return make(*args)
    except (ValueError, OverflowError, TypeError):
        return None


# Japanese era years (令和9年 is 2027): the era's first year in the Gregorian calendar
_ERAS = {"令和": 2019, "平成": 1989, "昭和": 1926, "大正": 1912, "明治": 1868}
_ERA_YEAR = lazy(r"(?P<era>令和|平成|昭和|大正|明治)\s*(?P<n>\d{1,2}|元)\s*年")
# a year written before a holiday's name, a country's word between them: "the 2026 US Election Day" is read
# "Election Day 2026"
_YEAR_FIRST = lazy(rf"\b(?:the\s+)?(?P<y>\d{{4}})\s+(?:[A-Z][\w.]*\s+)?(?P<hol>{_HOLIDAY})\b", re.I)
# languages whose numbers in words number-parser reads ("el catorce de octubre de 2026")
_NUMBER_WORD_LANGUAGES = ("es", "ru", "uk")


def _era_years(text: str) -> str:
    return _ERA_YEAR.sub(lambda m: f"{_ERAS[m.group('era')] + (1 if m.group('n') == '元' else int(m.group('n'))) - 1}年",
                         text)


def dates_in_words(text: str, years: set[int]) -> dict[date, str]:
    """The days TEXT pins in one of the forms above, each with the form's name; only dates in YEARS are looked
    for (the years of the restricted dates), so a text with none of them costs a year search."""
    found: dict[date, str] = {}
    if "年" in text:
        text = _era_years(text)
    # an ISO week's year may be the one before or after its days' (2026-W53-5 is 1 January 2027)
    if not years or not any(str(y + shift) in text for y in years for shift in (-1, 0, 1)):
        return found

    def put(day: date | None, how: str) -> None:
        if day is not None and day.year in years:
            found.setdefault(day, how)

    # the holiday forms read the year-first rewrite as well as the text; every other form reads the text as
    # written, so the rewrite never hides a week or a date beside the holiday ("ISO week 34 of 2026 Labor Day")
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)) \
        .replace("đ", "d").replace("Đ", "D")  # a holiday's name read without its accents ("Tết")
    holiday_texts = list(dict.fromkeys(
        [text, plain] + [_YEAR_FIRST.sub(lambda m: f"{m.group('hol')} {m.group('y')}", t) for t in (text, plain)]))

    for m in _ISO_WEEK.finditer(text):
        year, week = int(m.group("y")), int(m.group("w"))
        if m.group("d"):
            put(_safe(date.fromisocalendar, year, week, int(m.group("d"))), "ISO week date")
        else:
            for weekday in range(1, 8):
                put(_safe(date.fromisocalendar, year, week, weekday), "ISO week")
    for m in _WEEK_OF.finditer(text):
        for weekday in range(1, 8):
            put(_safe(date.fromisocalendar, int(m.group("y")), int(m.group("w")), weekday), "ISO week")
    for m in _DAY_OF_YEAR.finditer(text):
        n, year = int(m.group("n") or m.group("n2")), int(m.group("y") or m.group("y2"))
        if 1 <= n <= 366:
            put(_safe(lambda: date(year, 1, 1) + timedelta(days=n - 1)), "day of the year")
    for m in _ISO_DATETIME.finditer(text):
        put(_safe(date, int(m.group("y")), int(m.group("m")), int(m.group("d"))), "date with its time")
    for m in _ROMAN_MONTH.finditer(text):
        put(_safe(date, int(m.group("y")), _ROMAN[m.group("m").casefold()], int(m.group("d"))), "Roman-numeral month")
    for m in _NTH_WEEKDAY.finditer(text):
        put(_safe(_nth_weekday, int(m.group("y")), _MONTH_NAMES.index(m.group("m").casefold()) + 1,
                  _WEEKDAYS.index(m.group("wd").casefold()), _ORDINALS[m.group("n").casefold()]), "nth weekday")
    for m in _NTH_WEEKDAY_OF_YEAR.finditer(text):
        n, year = _ORDINALS[m.group("n").casefold()], int(m.group("y"))
        weekday = _WEEKDAYS.index(m.group("wd").casefold())
        put(_safe(_nth_weekday, year, 12, weekday, -1) if n == -1 else _safe(_nth_weekday, year, 1, weekday, n),
            "nth weekday of the year")
    for m in _CJK_DATE.finditer(text):
        put(_safe(date, int(m.group("y")), int(m.group("m")), int(m.group("d"))), "date in CJK form")
    for m in (m for holiday_text in holiday_texts for m in _RELATIVE.finditer(holiday_text)):
        anchor = _holiday(m.group("hol"), int(m.group("y")))
        if anchor is None:
            continue
        sign = -1 if m.group("dir").casefold() in ("before", "preceding", "prior to") else 1
        if m.group("n"):
            n = int(m.group("n")) if m.group("n").isdigit() else _COUNTS[m.group("n").casefold()]
            put(anchor + timedelta(days=sign * n * (7 if m.group("unit").casefold().startswith("week") else 1)),
                "days from a holiday")
        else:
            put(_step(anchor, m.group("wd").casefold(), sign), "day relative to a holiday")
    for m in (m for holiday_text in holiday_texts for m in _HOLIDAY_YEAR.finditer(holiday_text)):
        put(_holiday(m.group("hol"), int(m.group("y"))), "holiday")
    for day, how in world_holidays_in(text, years).items():
        put(day, how)
    foreign = list(_FOREIGN.finditer(text))
    if not foreign and not text.isascii() or re.search(r"\b(?:de|del)\s", text):
        # a day in another language's words: read them as digits first ("catorce de octubre de 2026")
        try:
            from number_parser import parse

            for language in _NUMBER_WORD_LANGUAGES:
                parsed = parse(text, language=language)
                if parsed != text:
                    foreign += list(_FOREIGN.finditer(parsed))
        except Exception:  # a parser fault must not open the gate: the text is still read as written
            pass
    for m in foreign:
        day, month, year = next((m.group(f"d{n}"), m.group(f"m{n}"), m.group(f"y{n}")) for n in ("", "2", "3")
                                if m.group(f"d{n}"))
        month = month.casefold()
        if int(year) not in years or month in _NOT_MONTHS:
            continue
        english = next((n for n, name in enumerate(_MONTH_NAMES, 1) if name.startswith(month[:3])
                        and name.startswith(month)), None)  # "18. August 2026": an English month in another order
        put(_safe(date, int(year), english, int(day)) if english else _parse_foreign(f"{day} {month} {year}"),
            "date in another order" if english else "date in another language")
    return found


# -- every country's holidays, by name, in each language the holidays package writes them --------------------

# a name that dates more than this many days across the world's countries in a year ("Independence Day", "National
# Day") names none of them unless the statement names its country too
_HOLIDAY_DAYS = 2
_HOLIDAY_WORDS = 12  # a holiday's name is at most this many words before (or after) its year
_NAME_KEY = re.compile(r"\([^)]*\)|[^\w\s]")


def _holiday_key(name: str) -> str:
    """A holiday's name folded for lookup: accents, apostrophes and a parenthesised note ("(observed)") off."""
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    return " ".join(_NAME_KEY.sub(" ", plain.replace("'", "").replace("\u2019", "")).casefold().split())


@functools.lru_cache(maxsize=4)
def _world_holidays(year: int) -> tuple[dict[str, frozenset], dict[str, frozenset]]:
    """Every country's public holidays in YEAR (the holidays package, in each of its languages): name -> (day,
    country) pairs, and every two or more first words of a longer name -> the same ("Hari Kemerdekaan" of "Hari
    Kemerdekaan Republik Indonesia"). Empty without the package (then only the built-in holidays are read)."""
    try:
        import holidays
        from holidays.registry import COUNTRIES
    except ImportError:
        return {}, {}
    names: dict[str, set] = {}
    prefixes: dict[str, set] = {}
    localized = holidays.list_localized_countries()
    countries = {info[1]: module.replace("_", " ") for module, info in COUNTRIES.items()}
    for code in sorted(set(holidays.list_supported_countries()) & countries.keys()):
        for language in (None, *localized.get(code, ())):
            try:
                table = holidays.country_holidays(code, years=year, language=language)
                days = list(table.items())
            except Exception:  # a country the package cannot date this year names no day
                continue
            for day, written in days:
                for name in written.split(";"):
                    key = _holiday_key(name)
                    if not key:
                        continue
                    names.setdefault(key, set()).add((day, countries[code]))
                    words = key.split()
                    for n in range(2, len(words)):
                        prefixes.setdefault(" ".join(words[:n]), set()).add((day, countries[code]))
    return ({k: frozenset(v) for k, v in names.items()}, {k: frozenset(v) for k, v in prefixes.items()})


_YEAR_WORD = lazy(r"(?<![\w.,-])(?P<y>\d{4})(?![\w-]|[.,]\d)")
_PHRASE_WORD = re.compile(r"[^\W_][\w'\u2019-]*")
_BEFORE_YEAR = frozenset({"in", "of", "on"})
_NOT_HOLIDAY = frozenset(_MONTH_NAMES + "fy q1 q2 q3 q4 h1 h2 cy since until by from".split())


def world_holidays_in(text: str, years: set[int]) -> dict[date, str]:
    """The days TEXT names as a country's holiday with its year ("Hari Kemerdekaan 2026", "Australia Day 2027",
    "2026 Nationaltag"): a name, or the first two or more words of one, that dates at most _HOLIDAY_DAYS days in
    the world that year, or more with its country named beside it."""
    found: dict[date, str] = {}
    lowered = _holiday_key(text)
    for m in _YEAR_WORD.finditer(text):
        year = int(m.group("y"))
        if year not in years:
            continue
        before = _PHRASE_WORD.findall(text[max(0, m.start() - 80):m.start()])[-_HOLIDAY_WORDS - 1:]
        while before and before[-1].casefold() in _BEFORE_YEAR:
            before.pop()
        after = _PHRASE_WORD.findall(text[m.end():m.end() + 80])[:_HOLIDAY_WORDS]
        # a name is written with a capital or in another script, next to its year: "go-live 2027", "in Q3 2026"
        # and "the March 2026 release" name no holiday
        def named(word: str) -> bool:
            return (word[:1].isupper() or not word.isascii()) and word.casefold() not in _NOT_HOLIDAY

        phrases = [before[-n:] for n in range(1, len(before) + 1)] if before and named(before[-1]) else []
        phrases += [after[:n] for n in range(1, len(after) + 1)] if after and named(after[0]) else []
        if not phrases:
            continue
        names, prefixes = _world_holidays(year)
        for phrase in phrases:
            key = _holiday_key(" ".join(phrase))
            days = names.get(key, frozenset()) | (prefixes.get(key, frozenset()) if len(phrase) >= 2 else frozenset())
            if not days:
                continue
            if len({day for day, _ in days}) > _HOLIDAY_DAYS:
                days = {(day, country) for day, country in days if re.search(rf"\b{re.escape(country)}", lowered)}
            for day, _ in days:
                if day.year in years:
                    found.setdefault(day, "a country's holiday")
    return found


def _holiday(name: str, year: int) -> date | None:
    key = re.sub(r"\s+", " ", name.casefold().replace("\u2019", "'"))
    rule = _HOLIDAYS.get(key) or next((r for h, r in _HOLIDAYS.items() if h.replace("'", "") == key.replace("'", "")),
                                      None)
    return _safe(rule, year) if rule else None


def _step(anchor: date, word: str, sign: int) -> date:
    """The day, weekday or business day before (SIGN -1) or after (+1) ANCHOR."""
    if word == "day":
        return anchor + timedelta(days=sign)
    day = anchor + timedelta(days=sign)
    if word in ("weekday", "business day", "working day"):
        while day.weekday() >= 5:
            day += timedelta(days=sign)
        return day
    target = _WEEKDAYS.index(word)
    while day.weekday() != target:
        day += timedelta(days=sign)
    return day


def calendar_word(word: str) -> bool:
    """Whether WORD is a month's or a weekday's name (or its abbreviation of three letters or more) in one of the
    languages dates are read in: "қаңтар", "серпня", "Αυγούστου" are ordinary words of a date, no one's name."""
    return word.casefold() in _calendar_words()


_MONTH_KEYS = "january february march april may june july august september october november december".split()
_WEEKDAY_KEYS = "monday tuesday wednesday thursday friday saturday sunday".split()


@functools.lru_cache(maxsize=1)
def _calendar_names() -> dict[str, dict[str, list[str]]]:
    """Language -> month and weekday key -> its names, as the installed date parser writes them (empty without it)."""
    try:
        from dateparser.languages.loader import default_loader
    except ImportError:
        return {}
    names = {}
    for language in _DATEPARSER_LANGUAGES:
        try:
            info = default_loader.get_locale(language).info
        except Exception:  # noqa: BLE001 - a language the installed parser lacks names nothing
            continue
        names[language] = {key: list(info.get(key, ())) for key in _MONTH_KEYS + _WEEKDAY_KEYS}
    return names


@functools.lru_cache(maxsize=1)
def _calendar_words() -> frozenset[str]:
    return frozenset(w.casefold() for by_key in _calendar_names().values() for words in by_key.values()
                     for w in words if len(w) >= 3)


def _script(word: str) -> str | None:
    """The script of WORD's first letter, as Unicode names it ("LATIN", "DEVANAGARI", "THAI")."""
    letter = next((ch for ch in word if ch.isalpha()), None)
    return (unicodedata.name(letter, "").split(" ")[0] or None) if letter else None


@functools.lru_cache(maxsize=1)
def _languages_by_script() -> dict[str, tuple[str, ...]]:
    """Script -> the languages whose month names the date parser writes in it (Serbian in two): a month word is
    tried in those alone. Every language tried costs each phrase the parser cannot read (~1 ms each)."""
    found: dict[str, list[str]] = {}
    for language, by_key in _calendar_names().items():
        for script in {_script(w) for key in _MONTH_KEYS for w in by_key[key]} - {None}:
            found.setdefault(script, []).append(language)
    return {script: tuple(languages) for script, languages in found.items()}


def _parse_foreign(phrase: str) -> date | None:
    """A day, month word and year in another language (dateparser, strict: all three parts), tried in the languages
    that write months in the month word's script (all of them for a script none does)."""
    try:
        import dateparser
    except ImportError:
        return None
    languages = _languages_by_script().get(_script(phrase)) or _DATEPARSER_LANGUAGES
    try:
        parsed = dateparser.parse(phrase, languages=list(languages),
                                  settings={"STRICT_PARSING": True, "REQUIRE_PARTS": ["day", "month", "year"]})
    except Exception as error:  # a parser fault must not open the gate: the statement is held, with the reason
        raise UnreadableDate(phrase, error) from error
    return parsed.date() if parsed else None


class UnreadableDate(Exception):
    """The date parser failed on PHRASE: the gate cannot tell whether it pins a restricted date, so it holds the
    statement (fails closed) and says why."""

    def __init__(self, phrase: str, error: Exception) -> None:
        super().__init__(f"the date parser failed on {phrase!r} ({type(error).__name__})")
        self.phrase = phrase
