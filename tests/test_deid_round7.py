"""De-id, seventh round: a word in another script that no rule ties to a customer and that is no ordinary word of
that script's languages is held as a name the gate cannot compare. Random words of each script x random contexts,
and the ordinary words of those languages that must pass."""

from __future__ import annotations

import heapq
import math
from datetime import date, timedelta

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.deid import COMMON_ACRONYMS, build_lexicon, check_statement
from vmem.gates.near import zipf
from vmem.gates.skeleton import _frequencies, native, unreadable

LEXICON = build_lexicon([{"id": "c", "name": "Quorvanel Systems", "aliases": ["Quorvanel"],
                          "people": ["Idris Okonkwo"], "restricted": ["$4.2M"]}])

# letters of each script, enough to spell a made-up name
ALPHABETS = {
    "CYRILLIC": "абвгдежзиклмнопрстуфхцчшыэюя",
    "GREEK": "αβγδεζηθικλμνξοπρστυφχψω",
    "HEBREW": "אבגדהוזחטיכלמנסעפצקרשת",
    "ARABIC": "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "HANGUL": "가나다라마바사아자차카타파하고노도로모보소오조초",
    "KATAKANA": "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモラリルレロワン",
    "THAI": "กขคงจฉชซญดตถทธนบปผพฟภมยรลวศษสหอฮะาิีึืุู",
    "ARMENIAN": "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ",
    "DEVANAGARI": "कखगघचछजझटठडढतथदधनपफबभमयरलवशसह",
}
CONTEXTS = ["{w} wants nightly exports of every shipment.", "Onboarding at {w} went faster with templates.",
            "The reseller says {w} escalates over chat, not the portal.", "{w}: dashboards load too slowly."]


def caught(statement: str) -> bool:
    return not check_statement(statement, LEXICON).passed


def common(word: str, script: str) -> bool:
    return native(word, script) or any(run != word for run, _ in unreadable(word)) or not unreadable(word)


@settings(max_examples=60, deadline=None)
@given(script=st.sampled_from(sorted(ALPHABETS)), data=st.data(), context=st.sampled_from(CONTEXTS))
def test_a_made_up_word_in_another_script_is_held(script, data, context):
    word = data.draw(st.text(alphabet=ALPHABETS[script], min_size=5, max_size=9))
    assume(not common(word, script))
    result = check_statement(context.format(w=word), LEXICON)
    assert not result.passed
    assert any(h.kind == "unreadable" and h.found == word for h in result.hits)


def _ordinary(language: str, count: int) -> list[str]:
    table = _frequencies(language)
    words = heapq.nlargest(count, (w for w in table if len(w) >= 3 and w.isalpha()), key=table.get)
    return [w for w in words if math.log10(table[w] * 1e9) >= 4]


# drawn when the test runs, not when a worker collects this module (six languages' word lists: ~2 s)
ORDINARY = st.deferred(lambda: st.sampled_from([w for language in ("ru", "el", "he", "ar", "ko", "hi")
                                                for w in _ordinary(language, 40)]))
GREETINGS = ["Localise greetings such as {w} in the onboarding e-mails.", "Support tickets often contain «{w}».",
             "Search must fold {w} and its capitalised form together."]


@settings(max_examples=60, deadline=None)
@given(word=ORDINARY, context=st.sampled_from(GREETINGS))
def test_an_ordinary_word_of_another_language_passes(word, context):
    assert not caught(context.format(w=word))


@settings(max_examples=30, deadline=None)
@given(script=st.sampled_from(sorted(ALPHABETS)), data=st.data(), marks=st.sampled_from(["'{w}'", "\"{w}\"", "«{w}»",
                                                                                       "「{w}」"]))
def test_a_word_in_quotes_alone_is_talked_about_not_held_as_a_name(script, data, marks):
    word = data.draw(st.text(alphabet=ALPHABETS[script], min_size=5, max_size=9))
    assume(not common(word, script))
    hits = check_statement(f"Users write {marks.format(w=word)} in feedback; models treat it as neutral.", LEXICON).hits
    assert all(h.kind != "unreadable" for h in hits)


def test_japanese_reads_katakana_loanwords_whole_and_kana_and_ideograph_runs_as_words():
    assert not caught("Japanese buyers asked for アジャイル (agile) rollout plans.")
    assert not caught("ありがとうございます replies in Japanese tickets came with five-star ratings.")
    assert not caught("カタカナ text in the UI needs wide fonts.")
    # a made-up katakana name inside a Japanese sentence: the name is held, the sentence's own words are not
    hits = check_statement("ベルウェザー・フレイトの配車担当は、どの画面よりも紙のボードを信頼している。", LEXICON).hits
    assert {h.found for h in hits if h.kind == "unreadable"} == {"ベルウェザー", "フレイト"}


def test_a_script_with_no_word_list_is_held_and_a_word_tied_to_a_customer_is_not_held_twice():
    assert caught("เพนนาคอตต์ dropped shapefiles for GeoJSON.")  # Thai: no word list here
    assert caught("Սելմալոմ wants a ten-year audit trail.")  # Armenian
    hits = check_statement("Кворванел wants nightly exports.", LEXICON).hits
    assert hits and "unreadable" not in {h.kind for h in hits}  # the skeleton named it; no second, vaguer hold


def test_the_hold_says_what_it_is():
    hits = check_statement("Кивихарью wants nightly torque logs.", LEXICON).hits
    assert [h.describe() for h in hits] == [
        "text the gate could not read 'Кивихарью' (rule: a cyrillic word that is no ordinary word: a name the gate "
        "cannot compare)"]


# -- a contact's rare name, cue or none ---------------------------------------------------------------------------

SYLLABLES = ["tha", "nde", "ka", "goi", "koe", "txe", "mwe", "rro", "zsu", "vik", "ndlo", "qua"]
rare_names = st.lists(st.sampled_from(SYLLABLES), min_size=3, max_size=4).map(lambda p: "".join(p).capitalize())


def with_contact(first: str, last: str) -> deid.Lexicon:
    return build_lexicon([{"id": "c", "name": "Quorvanel Systems", "people": [f"{first} {last}"]}])


SPEAKING = ["{n} on Teams: the hospital network blocks outbound traffic.", "<{n}> we need EU hosting or no deal.",
            "From the Slack thread, {n}: installers were offline all day.", "{n} (their head of QA) wants grades.",
            "Per {n}, sync windows must run overnight.", "{n} on the dispatch team wants bigger tap targets."]


@settings(max_examples=40, deadline=None)
@given(first=rare_names, last=rare_names, which=st.booleans(), form=st.sampled_from(SPEAKING))
def test_a_contacts_rare_name_alone_is_caught_wherever_it_stands_as_a_name(first, last, which, form):
    assume(deid._rare_name((first if which else last).casefold()))
    assert caught_by(form.format(n=first if which else last), with_contact(first, last))


@settings(max_examples=40, deadline=None)
@given(last=rare_names, form=st.sampled_from(["The {n} flask keeps samples cold.", "{n} sana, one buyer wrote.",
                                               "Fair-{l} champions vanish after kickoff."]))
def test_a_rare_name_modifying_a_word_or_in_a_foreign_phrase_passes(last, form):
    assert not caught_by(form.format(n=last, l=last.casefold()), with_contact("Idris", last))


def test_a_contacts_common_name_alone_still_needs_its_cue():
    lexicon = with_contact("Terrence", "Banks")
    assert not caught_by("Terrence on the dispatch team wants bigger tap targets.", lexicon)
    hits = check_statement("Banks on the dispatch team want bigger tap targets.", lexicon).hits
    assert all(h.rule != "a contact's rare name" for h in hits)


def caught_by(statement: str, lexicon: deid.Lexicon) -> bool:
    return not check_statement(statement, lexicon).passed


# -- a name inside an identifier, a name with its words reordered ------------------------------------------------

coined = st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=3).map(lambda p: "".join(p).capitalize())


@settings(max_examples=40, deadline=None)
@given(first=coined, second=coined, shape=st.sampled_from(["{a}{b}CommissionJob", "{a}{b}2026", "{al}_{bl}_v2",
                                                            "load{a}{b}Daily"]))
def test_a_name_run_together_in_an_identifier_is_caught(first, second, shape):
    assume(first != second)
    lexicon = build_lexicon([{"id": "c", "name": f"{first} {second} Takaful", "aliases": [f"{first} {second}"]}])
    written = shape.format(a=first, b=second, al=first.casefold(), bl=second.casefold())
    assert caught_by(f"The {written} job times out at month-end; shard it by agency.", lexicon), written


@settings(max_examples=20, deadline=None)
@given(identifier=st.sampled_from(["PowerBI", "HTTPServer", "iPhone15", "SQL2019", "snake_case_name", "getUserById"]))
def test_ordinary_identifiers_pass(identifier):
    lexicon = build_lexicon([{"id": "c", "name": "Quorvanel Systems", "aliases": ["Quorvanel"]}])
    assert not caught_by(f"Rename {identifier} before the release.", lexicon)


@settings(max_examples=40, deadline=None)
@given(first=coined, second=coined, joint=st.sampled_from([" ", " & ", " and "]))
def test_a_name_with_its_words_reordered_is_caught(first, second, joint):
    assume(first != second)
    lexicon = build_lexicon([{"id": "c", "name": f"{first} & {second} Architects", "aliases": [f"{first} and {second}"]}])
    assert caught_by(f"{second}{joint}{first}'s partners review every permission change.", lexicon)


def test_reordered_ordinary_words_in_lower_case_pass():
    lexicon = build_lexicon([{"id": "c", "name": "Song Lam Pharmaceutical", "aliases": ["Song Lam"]}])
    assert caught_by("Lam Song pharmacies count stock in boxes.", lexicon)
    assert not caught_by("A lam song is sung at the harvest festival.", lexicon)


# -- a small restricted count with its unit a few words on ---------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(count=st.integers(min_value=5, max_value=99), unit=st.sampled_from(["clinics", "turbines", "depots", "stores"]),
       shape=st.sampled_from(["All {n} of their {u} run one roster.", "The fleet is {n} wind {u}.",
                              "They run {n} regional {u} now."]))
def test_a_small_count_with_its_unit_a_few_words_on_is_caught(count, unit, shape):
    lexicon = build_lexicon([{"id": "c", "name": "Quorvanel Systems", "restricted": [f"{count} {unit}"]}])
    assert caught_by(shape.format(n=count, u=unit), lexicon)
    assert not caught_by(f"In {count} regions, {unit} close early.", lexicon)
    assert not caught_by(f"All {count + 1} of their {unit} run one roster.", lexicon)


# -- a restricted date as the day or week before or after another --------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(day=st.dates(min_value=date(2026, 1, 10), max_value=date(2027, 12, 20)),
       shift=st.sampled_from([("the day before", 1), ("the day after", -1), ("the week after", -7)]))
def test_the_day_or_week_beside_a_written_date_pins_it(day, shift):
    words, delta = shift
    lexicon = build_lexicon([{"id": "c", "name": "Quorvanel Systems", "restricted": [f"{day.isoformat()} cutover"]}])
    anchor = day + timedelta(days=delta)
    assert caught_by(f"The cutover on {words} {anchor.day} {anchor:%B %Y} needed a freeze.", lexicon)
    assert not caught_by(f"The days before {anchor.day} {anchor:%B %Y} were busy.", lexicon)


# -- precision: a code modifying a noun, a count's head noun, a common surname starting a sentence, a phrase --------

@settings(max_examples=30, deadline=None)
@given(code=st.text(alphabet="BCDFGHJKLMNPQRSTVWXZ", min_size=3, max_size=3).filter(
    lambda c: c not in COMMON_ACRONYMS and zipf(c.casefold()) < deid._ACRONYM_ZIPF),  # (a common acronym is no name)
       noun=st.sampled_from(["walls", "streams", "headsets", "scanners", "dashboards"]),
       before=st.sampled_from(["with", "on", "at", "from"]))
def test_a_listed_code_modifying_a_noun_passes_whatever_stands_before_it(code, noun, before):
    lexicon = build_lexicon([{"id": "c", "name": "Quorvanel Systems", "aliases": [code]}])
    assert not caught_by(f"Warehouses {before} {code} {noun} want confirmations pushed in real time.", lexicon)
    if before != "on":  # ("on" is no organisation cue)
        assert caught_by(f"The renewal {before} {code}, signed in May, needs review.", lexicon)
    assert caught_by(f"We met {code} last week.", lexicon)


@settings(max_examples=30, deadline=None)
@given(count=st.integers(min_value=120, max_value=990), kind=st.sampled_from(["wind", "offshore", "rooftop"]))
def test_a_restricted_count_is_of_its_head_noun_not_its_modifier(count, kind):
    lexicon = build_lexicon([{"id": "c", "name": "Quorvanel Systems", "restricted": [f"{count} {kind} turbines"]}])
    assert caught_by(f"The fleet is {count} turbines.", lexicon)
    assert not caught_by(f"Farms above {count} MW of {kind} need curtailment forecasts.", lexicon)


@settings(max_examples=30, deadline=None)
@given(surname=st.sampled_from(["Price", "Banks", "Marsh", "Baker", "Walker", "Mason"]),
       first=st.sampled_from(["Gethin", "Terrence", "Calvin", "Ayodele"]))
def test_a_common_surname_starting_a_sentence_needs_a_role(surname, first):
    lexicon = with_contact(first, surname)
    assert not caught_by(f"{surname} is the first objection mid-market buyers raise.", lexicon)
    assert not caught_by(f"Their {surname.casefold()}' files must match the format.", lexicon)
    assert caught_by(f"{surname}, their practice manager, approves changes.", lexicon)
    assert caught_by(f"{surname} from the grid-ops team pushed for alerts.", lexicon)


def test_a_name_of_ordinary_words_in_lower_case_is_the_phrase_and_in_an_identifier_the_name():
    lexicon = build_lexicon([{"id": "c", "name": "Steady State Energy", "aliases": ["Steady State"]}])
    assert not caught_by("Grid operators want systems back to steady state within minutes.", lexicon)
    assert caught_by("Steady State wants turbine alerts over weekly reports.", lexicon)
    assert caught_by("The steady_state_energy__turbine_alerts model shows what utilities want.", lexicon)


# -- membership: "our X customer", a count of a kind, a category's hyphenated word -----------------------------------

def with_categories(held: dict[str, list[str]]) -> deid.Lexicon:
    return build_lexicon([{"id": e, "name": f"Quor{e.capitalize()} Systems", "categories": c}
                          for e, c in held.items()])


STORE = {"a": ["industry:logistics", "region:emea"], "b": ["industry:healthcare", "region:amer"],
         "c": ["industry:healthcare", "region:amer"], "d": ["industry:retail", "region:emea"],
         "e": ["industry:retail", "region:emea"], "f": ["industry:retail", "region:apac"],
         "g": ["segment:cooperative", "region:apac"]}


@settings(max_examples=30, deadline=None)
@given(form=st.sampled_from(["Our {k} customer wants ETA webhooks.", "The {k} customer we serve asked for webhooks.",
                             "Our {k} client pays per piece."]),
       kind=st.sampled_from(["freight", "logistics", "co-operative", "cooperative"]))
def test_a_singular_description_of_a_one_member_kind_is_caught(form, kind):
    assert caught_by(form.format(k=kind), with_categories(STORE))


@settings(max_examples=30, deadline=None)
@given(form=st.sampled_from(["Both of our {k} customers route lab results per clinic.",
                             "Our two {k} customers ask for SOC 2 first.", "All two of our {k} clients renewed."]),
       kind=st.sampled_from(["healthcare", "North American", "Americas"]))
def test_a_count_that_is_how_many_hold_a_kind_names_them(form, kind):
    result = check_statement(form.format(k=kind), with_categories(STORE))
    assert {h.entity for h in result.hits if h.kind == "membership"} == {"b", "c"}


def test_a_kind_held_by_more_or_a_count_that_differs_or_a_customer_base_passes():
    lexicon = with_categories(STORE)
    assert not caught_by("Our retail customer wants ETA webhooks.", lexicon)  # three hold retail
    assert caught_by("Our two retail customers in EMEA renewed early.", lexicon)  # two hold both: they are named
    assert not caught_by("Both of our retail customers asked for webhooks.", lexicon)
    assert not caught_by("Our logistics customer base keeps growing.", lexicon)
    assert not caught_by("Our customer wants ETA webhooks.", lexicon)


# -- digits of any script -----------------------------------------------------------------------------------------

ZEROS = {"devanagari": 0x966, "arabic-indic": 0x660, "bengali": 0x9E6, "thai": 0xE50, "extended arabic": 0x6F0}


@settings(max_examples=40, deadline=None)
@given(day=st.dates(min_value=date(2026, 1, 1), max_value=date(2027, 12, 31)), script=st.sampled_from(sorted(ZEROS)))
def test_a_restricted_date_in_the_digits_of_another_script_is_caught(day, script):
    lexicon = build_lexicon([{"id": "c", "name": "Quorvanel Systems", "restricted": [f"{day.isoformat()} cutover"]}])
    written = f"{day:%d/%m/%Y}".translate({ord(str(n)): chr(ZEROS[script] + n) for n in range(10)})
    assert caught_by(f"Cutovers like the one on {written} need a paper fallback.", lexicon), written
    other = (day + timedelta(days=9)).strftime("%d/%m/%Y").translate({ord(str(n)): chr(ZEROS[script] + n)
                                                                      for n in range(10)})
    assert not caught_by(f"Cutovers like the one on {other} need a paper fallback.", lexicon)
