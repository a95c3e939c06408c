"""De-id, fourth round: names in any other script by their consonant skeleton, initialisms in lower case and
joined by "&", a longer name's words as an identifier, backwards or in the plural, small counts pinned by a
range or a product, a whole paid in parts, uniqueness said with a partitive or an acting verb, the lunisolar new
year; and the review's findings (three layers of base64, a linear scan of long text, a date parser that fails
closes the gate, a year-first holiday that hid an ISO week). Random names x random transforms, and the ordinary
text they must not catch."""

from __future__ import annotations

import base64
import time

import pytest

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.deid import build_lexicon, check_statement
from vmem.gates.near import common
from vmem.gates.skeleton import skeleton

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
syllable = st.tuples(st.sampled_from(CONSONANTS), st.sampled_from(VOWELS)).map("".join)


def coined_name(least: int = 4, most: int = 5):
    """A coined name: LEAST to MOST open syllables and a closing consonant ("Bolavintek"), no English word."""
    return st.tuples(st.lists(syllable, min_size=least, max_size=most), st.sampled_from("nrsktl")).map(
        lambda p: ("".join(p[0]) + p[1]).capitalize()).filter(
        lambda w: not common(w) and not deid._ordinary(w) and w.casefold() not in deid._dictionary())


coined = coined_name()

# letter-for-letter spellings of Latin sounds in three scripts that write vowels, and one that does not
CYRILLIC = dict(zip("abdefgiklmnoprstuvz", "абдефгиклмнопрстувз"))
GREEK = {**dict(zip("aefiklmnoprstvz", "αεφικλμνοπρστβζ")), "b": "μπ", "d": "ντ", "g": "γκ", "u": "ου"}
HEBREW = {**dict(zip("bdfgklmnprstvz", "בדפגקלמנפרסטוז")), "a": "", "e": "", "i": "י", "o": "ו", "u": "ו"}
# (as katakana writes foreign sounds: ti is ティ, tu トゥ, di ディ, zi ズィ, fa ファ, va ヴァ)
KATAKANA_ROWS = {"k": "カキクケコ", "g": "ガギグゲゴ", "s": "サシスセソ", "z": ["ザ", "ズィ", "ズ", "ゼ", "ゾ"],
                 "t": ["タ", "ティ", "トゥ", "テ", "ト"], "d": ["ダ", "ディ", "ドゥ", "デ", "ド"], "n": "ナニヌネノ", "p": "パピプペポ", "b": "バビブベボ", "m": "マミムメモ",
                 "r": "ラリルレロ", "l": "ラリルレロ", "": "アイウエオ",
                 "f": ["ファ", "フィ", "フ", "フェ", "フォ"], "v": ["ヴァ", "ヴィ", "ヴ", "ヴェ", "ヴォ"]}


def katakana(name: str) -> str:
    """NAME in katakana, a syllable to a kana, a closing consonant with the epenthetic u (o after t and d)."""
    low, out, n = name.casefold(), [], 0
    while n < len(low):
        consonant = low[n] if low[n] in CONSONANTS else ""
        vowel = low[n + len(consonant)] if n + len(consonant) < len(low) else ""
        if vowel in VOWELS and vowel:
            out.append(KATAKANA_ROWS[consonant]["aiueo".index(vowel)])  # a kana row is in a-i-u-e-o order
            n += len(consonant) + 1
        else:
            out.append(KATAKANA_ROWS[consonant][4 if consonant in "td" else 2])  # (to, do; else the u column)
            n += 1
    return "".join(out)


def written(name: str, script: str) -> str:
    if script == "katakana":
        return katakana(name)
    table = {"cyrillic": CYRILLIC, "greek": GREEK, "hebrew": HEBREW}[script]
    return "".join(table.get(ch, ch) for ch in name.casefold())


@settings(max_examples=120, deadline=None)
@given(name=coined, script=st.sampled_from(["cyrillic", "greek", "hebrew", "katakana"]))
def test_a_coined_name_in_another_script_is_read_by_its_consonant_skeleton(name, script):
    merges = {"hebrew": "abjad", "katakana": "loose"}.get(script, "spelled")
    assume(len(skeleton(name, merges)) >= 5)  # (the sounds the script keeps: Hebrew writes b and f alike)
    from vmem.gates.skeleton import native

    assume(not native(written(name, script), script.upper()))  # a random name may be a word there
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    statement = f"{written(name, script)} asked for alarms to be ranked by the critical sites downstream."
    assert not check_statement(statement, lexicon).passed, (name, statement)


@settings(max_examples=60, deadline=None)
@given(first=coined, second=coined, script=st.sampled_from(["cyrillic", "greek", "katakana"]))
def test_two_words_of_a_name_in_another_script_are_the_name(first, second, script):
    name = f"{first[:6]} {second[:6]} Holdings"
    assume(len(skeleton(first[:6])) >= 3 and len(skeleton(second[:6])) >= 3)
    from vmem.gates.skeleton import native

    spelt = [written(w[:6], script) for w in (first, second)]
    assume(not any(native(w, {"cyrillic": "CYRILLIC", "greek": "GREEK", "katakana": "KATAKANA"}[script])
                   for w in spelt))  # a random name may be a real word there ("немига")
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    statement = f"{written(first[:6], script)} {written(second[:6], script)} asked for exports per client."
    assert not check_statement(statement, lexicon).passed, (name, statement)


def test_ordinary_words_of_a_script_and_ideographs_are_not_names():
    # "транзит" (Russian: transit) has the skeleton of a name word, but is the language's own word; ideographs
    # write no sound of a foreign name
    lexicon = build_lexicon([{"id": "c1", "name": "Tranzitov Lines"}, {"id": "c2", "name": "Fujitaro"}])
    assert check_statement("Они обсуждали транзит грузов через порт.", lexicon).passed
    assert check_statement("富太郎 wanted exports.", lexicon).passed


@pytest.mark.parametrize("statement", [
    "Η Ντράβενχολ asked for per-clinic admins.",
    "Дравенхолл asked for per-clinic admins.",
    "דרבנהול asked for per-clinic admins.",
])
def test_a_name_with_an_h_and_a_v_in_three_scripts(statement):
    lexicon = build_lexicon([{"id": "c1", "name": "Dravenhall Systems", "aliases": ["Dravenhall"]}])
    assert not check_statement(statement, lexicon).passed


@settings(max_examples=80, deadline=None)
@given(words=st.lists(coined, min_size=3, max_size=3), cue=st.sampled_from(["At {} the", "{} asked", "with {}"]))
def test_an_initialism_with_dots_in_lower_case_is_the_initialism(words, cue):
    name = " ".join(words)
    assume(len({w[0] for w in words}) == 3)
    from vmem.gates.near import zipf

    letters = "".join(w[0] for w in words)
    assume(zipf(letters) < deid._ACRONYM_ZIPF and letters.upper() not in deid.COMMON_ACRONYMS)  # GDP, SMB
    letters = "".join(w[0] for w in words).casefold()
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    dotted = "".join(f"{ch}." for ch in letters)
    assert not check_statement(cue.format(dotted) + " rollout waited for a week of parallel records.",
                               lexicon).passed, (name, dotted)


def test_short_lower_case_abbreviations_pass():
    lexicon = build_lexicon([{"id": "c1", "name": "Edgar Gorvanti", "aliases": ["EG"]},
                             {"id": "c2", "name": "Ilvara Estrendi"}])
    assert check_statement("Use short forms, e.g. codes, i.e. not names.", lexicon).passed


@settings(max_examples=60, deadline=None)
@given(first=coined, second=coined, kind=st.sampled_from(["Solicitors", "Partners", "Logistics", "Foods"]))
def test_initials_joined_by_and_with_the_names_last_word(first, second, kind):
    lexicon = build_lexicon([{"id": "c1", "name": f"{first} and {second} {kind}",
                              "aliases": [f"{first} & {second}"]}])
    statement = f"The {first[0]}&{second[0]} {kind} pilot showed partners will log time."
    assert not check_statement(statement, lexicon).passed, statement


@settings(max_examples=80, deadline=None)
@given(first=coined, middle=st.sampled_from(["Regional", "Kettle", "Northern", "Valley"]),
       last=st.sampled_from(["Transit", "Foods", "Energy", "Clinics"]),
       form=st.sampled_from(["camel", "pascal", "snake"]))
def test_a_longer_names_words_as_an_identifier(first, middle, last, form):
    lexicon = build_lexicon([{"id": "c1", "name": f"{first} {middle} {last} Authority"}])
    ident = {"camel": first.casefold() + last, "pascal": first + last,
             "snake": f"{first.casefold()}_{last.casefold()}"}[form]
    assert not check_statement(f"The {ident} tenant asked for route changes.", lexicon).passed, ident


def test_common_words_joined_by_a_hyphen_are_no_identifier():
    lexicon = build_lexicon([{"id": "c1", "name": "Copper Kettle Foods"}])
    assert check_statement("The kettle-foods aisle and copper-foods pans sold out.", lexicon).passed


@settings(max_examples=60, deadline=None)
@given(name=coined)
def test_a_name_in_s_in_the_plural_and_a_head_word_backwards(name):
    plural = build_lexicon([{"id": "c1", "name": name + "is"}])
    assert not check_statement(f"The {name}ises of this world want household views.", plural).passed
    longer = build_lexicon([{"id": "c1", "name": f"{name} Regional Transit"}])
    assert not check_statement(f"{name[::-1].casefold()} depots asked for rider alerts.", longer).passed


def test_first_and_last_word_of_a_common_word_name_with_a_cue():
    lexicon = build_lexicon([{"id": "c1", "name": "Copper Kettle Foods"}])
    assert not check_statement("Copper Foods' line leads wanted batch records.", lexicon).passed
    assert check_statement("Kettle Foods are on sale this week.", lexicon).passed  # the kind's words alone


def test_w_is_read_as_v_in_a_near_spelling():
    lexicon = build_lexicon([{"id": "c1", "name": "Sosnowka Textiles", "aliases": ["Sosnowka"]}])
    assert not check_statement("Sosnuvka's shift planners kept a paper copy.", lexicon).passed


@settings(max_examples=80, deadline=None)
@given(count=st.integers(14, 99), unit=st.sampled_from(["plants", "substations", "depots", "clinics"]))
def test_a_small_count_inside_a_narrow_range_is_pinned(count, unit):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "restricted": [f"{count} {unit}"]}])
    assert not check_statement(f"A firm running {count - 1} to {count + 1} {unit} wanted alerts.", lexicon).passed
    assert check_statement(f"A firm running {count // 2} to {count * 2} {unit} wanted alerts.", lexicon).passed


@settings(max_examples=80, deadline=None)
@given(a=st.integers(2, 9), b=st.integers(2, 9), unit=st.sampled_from(["substations", "depots", "clinics"]))
def test_a_small_count_as_a_product_with_each_is_pinned(a, b, unit):
    assume(a * b >= 10)
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "restricted": [f"{a * b} {unit}"]}])
    assert not check_statement(f"An operator with {a} {unit} in each of {b} regions wanted alerts.",
                               lexicon).passed
    assert check_statement(f"An operator with {a} {unit} and {b} regions wanted alerts.", lexicon).passed


@settings(max_examples=60, deadline=None)
@given(part=st.integers(20, 900).map(lambda n: n * 1000), parts=st.sampled_from([2, 3, 4]),
       word=st.sampled_from(["instalments", "installments", "tranches", "payments"]))
def test_a_whole_paid_in_parts_is_pinned(part, parts, word):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "restricted": [f"${part * parts:,}"]}])
    said = {2: "two", 3: "three", 4: "four"}[parts]
    assert not check_statement(f"A programme paid in {said} {word} of ${part:,} covered tooling.", lexicon).passed


def membership_lexicon():
    return build_lexicon([
        {"id": "c1", "name": "Zzyzx One", "categories": ["industry:energy", "segment:enterprise", "region:emea"]},
        {"id": "c2", "name": "Zzyzx Two", "categories": ["industry:public_sector", "segment:enterprise",
                                                          "region:north_america"]},
        {"id": "c3", "name": "Zzyzx Three", "categories": ["industry:telecom", "segment:enterprise",
                                                            "region:apac"]},
        {"id": "c4", "name": "Zzyzx Four", "categories": ["industry:retail", "segment:smb", "region:apac"]}])


@pytest.mark.parametrize("statement, leak", [
    ("Our only energy utility asked for alarms to be ranked.", True),  # it acts: its noun names a customer
    ("Our only energy requirement was uptime.", False),
    ("The one public transit authority among our accounts wanted complaints tied to routes.", True),
    ("Of our enterprise accounts, the only one in Asia-Pacific wanted hourly reconciliation.", True),
    ("Of our accounts, the only one in Asia-Pacific rule is data residency.", False),  # two hold APAC
])
def test_uniqueness_with_a_partitive_an_acting_noun_or_a_categorys_first_word(statement, leak):
    assert check_statement(statement, membership_lexicon()).passed is not leak, statement


@pytest.mark.parametrize("year, day", [(2026, "2026-02-17"), (2027, "2027-02-06"), (2028, "2028-01-26")])
def test_the_lunisolar_new_year_pins_its_day(year, day):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "restricted": [f"{day} launch"]}])
    for name in ("Tết", "Chinese New Year", "Lunar New Year"):
        assert not check_statement(f"The launch was timed for {name} {year} top-ups.", lexicon).passed, name
    assert check_statement(f"The launch was timed for Tết {year + 1} top-ups.", lexicon).passed


# review findings

def test_base64_three_layers_deep_is_decoded():
    lexicon = build_lexicon([{"id": "c1", "name": "Brixolde"}])
    hidden = "Brixolde"
    for _ in range(3):
        hidden = base64.b64encode(hidden.encode()).decode()
    assert not check_statement(f"Ask the team about {hidden} before Friday.", lexicon).passed


def test_the_near_spelling_scan_of_a_long_text_is_linear():
    # regression: every word looked through every joined pair of words (1.7 s for "A " * 4000)
    lexicon = build_lexicon([{"id": "c1", "name": "Quillamar Seguros", "people": ["Renata Albuquerque"]}])
    started = time.perf_counter()
    check_statement("A " * 8000, lexicon)
    assert time.perf_counter() - started < 2.0


def test_a_date_parser_fault_holds_the_statement(monkeypatch):
    import dateparser

    def broken(*args, **kwargs):
        raise RuntimeError("parser bug")

    monkeypatch.setattr(dateparser, "parse", broken)
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "restricted": ["2026-08-18 go-live"]}])
    result = check_statement("Die Umstellung am 18 Agosto 2026 lief gut.", lexicon)
    assert not result.passed
    assert "date parser failed" in result.reason


def test_a_year_first_holiday_does_not_hide_an_iso_week():
    # regression: "2026 Labor Day" was rewritten "Labor Day 2026" in the text every form read, so "week 34 of
    # 2026" beside it was no longer a week
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "restricted": ["2026-08-18 go-live"]}])
    assert not check_statement("Go-live in ISO week 34 of 2026 Labor Day weekend excluded.", lexicon).passed


def test_a_contacts_given_name_as_a_common_acronym_in_capitals_passes():
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "people": ["Nguyen Thi Lan"]}])
    assert check_statement("Branch offices on a flat LAN need the agent to find printers.", lexicon).passed
    assert not check_statement("Lan said the alarms were noisy.", lexicon).passed


@settings(max_examples=60, deadline=None)
@given(verb=st.sampled_from([("jams", "jamming"), ("misses", "missed"), ("writes", "written"), ("charts", "charting")]),
       noun=st.sampled_from(["pebble", "millwheel", "postcard", "ferry"]))
def test_a_quote_retold_with_its_words_inflected_otherwise_is_the_quote(verb, noun):
    said, retold = verb
    quote = f"A bus that {said} its slot is a {noun} that sinks the whole harbour schedule."
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx"}], [{"entity": "c1", "quotes": [quote]}])
    statement = f"One {retold} bus slot was compared to a {noun} sinking the whole harbour schedule."
    assert not check_statement(statement, lexicon).passed, statement
    assert check_statement(f"Bus slots matter for the {noun} schedule.", lexicon).passed
