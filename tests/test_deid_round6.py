"""De-id, sixth round: a listed code (a rare alias of three or more capitals, or a word in capitals inside a listed
name) as an organisation stands, with its people acting after it, as a ticket key or inside a slug; a region
named by its own adjective when a wider region shares the word. Random codes and names x random contexts, and
the ordinary text they must not catch."""

from __future__ import annotations

from datetime import date

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.deid import COMMON_ACRONYMS, build_lexicon, check_statement
from vmem.gates.near import zipf

LETTERS = "BCDFGHJKLMNPQRSTVWXZ"
codes = st.text(alphabet=LETTERS, min_size=3, max_size=3).filter(
    lambda c: c not in COMMON_ACRONYMS and zipf(c.casefold()) < deid._ACRONYM_ZIPF
    and c.casefold() not in deid._dictionary())


def caught(statement: str, lex: deid.Lexicon) -> bool:
    return not check_statement(statement, lex).passed


def with_alias(code: str) -> deid.Lexicon:
    return build_lexicon([{"id": "c", "name": "Quorvanel Systems", "aliases": [code]}])


def inside_name(code: str) -> deid.Lexicon:
    return build_lexicon([{"id": "c", "name": f"Quorvanel {code} Logistics", "aliases": [f"{code} Logistics"]}])


# -- a listed code -------------------------------------------------------------------------------

PEOPLE = ["underwriters asked", "brokers wanted", "planners said", "auditors insisted", "nurses told us"]
SUBJECT = ["{c} wants photos compressed on the device.", "{c} asked for a bulk import.",
           "{c}-1187: the deviation form is the top request.", "We met {c} last week."]
THINGS = ["Upgrade the {c} firmware before the audit.", "Run the {c} test suite nightly.",
          "{c} signals are noisy in motion.", "An {c} statement said that it would wait.",
          "The {c} rotation is thin this season."]


@settings(max_examples=30, deadline=None)
@given(code=codes, people=st.sampled_from(PEOPLE), listed=st.sampled_from([with_alias, inside_name]))
def test_a_listed_code_with_its_people_acting_after_it_is_caught(code, people, listed):
    assert caught(f"{code} {people} before renewal season.", listed(code))


@settings(max_examples=30, deadline=None)
@given(code=codes, form=st.sampled_from(SUBJECT), listed=st.sampled_from([with_alias, inside_name]))
def test_a_listed_code_as_an_organisation_stands_is_caught(code, form, listed):
    assert caught(form.format(c=code), listed(code))


@settings(max_examples=30, deadline=None)
@given(code=codes, form=st.sampled_from(THINGS), listed=st.sampled_from([with_alias, inside_name]))
def test_a_listed_code_modifying_a_thing_passes(code, form, listed):
    assert not caught(form.format(c=code), listed(code))


@settings(max_examples=30, deadline=None)
@given(code=codes, other=codes, slug=st.sampled_from(["feature/{c}-roster-export", "github.com/team/{c}-onboarding",
                                                     "fix/{c}_sso-timeout"]))
def test_a_listed_code_in_a_slug_is_caught_and_another_passes(code, other, slug):
    assume(other != code)
    lex = with_alias(code)
    assert caught(f"Learned on {slug.format(c=code.lower())}: exports need a week column.", lex)
    assert not caught(f"Learned on {slug.format(c=other.lower())}: exports need a week column.", lex)


def test_a_listed_code_being_defined_or_in_a_headline_or_in_lower_case_prose_passes():
    lex = with_alias("HFU")
    assert not caught("High-frequency updates (HFU) asked for more bandwidth.", lex)
    assert not caught("HFU UNDERWRITERS ASKED FOR MORE", lex)
    assert not caught("the hfu underwriters asked for more", lex)


def test_a_derived_initialism_keeps_its_cues():
    lex = build_lexicon([{"id": "c", "name": "Harbour Finch Underwriting"}])
    assert not caught("HFU underwriters asked for a bulk import.", lex)  # not listed: _ORG_PEOPLE as before


# -- a region by its own adjective ---------------------------------------------------------------

REGIONS = {"africa": "African", "europe": "European", "asia": "Asian", "oceania": "Oceanian"}


@settings(max_examples=30, deadline=None)
@given(region=st.sampled_from(sorted(REGIONS)), marker=st.sampled_from(["our single", "the only", "our lone",
                                                                        "our sole"]),
       noun=st.sampled_from(["customer", "client", "company", "account"]), others=st.integers(1, 4))
def test_the_only_customer_of_a_region_by_its_adjective_is_caught(region, marker, noun, others):
    entities = [{"id": "one", "name": "Quorvanel", "categories": [f"region:{region}"]}] + [
        {"id": f"e{i}", "name": f"Tavrel{i}", "categories": ["region:emea"]} for i in range(others)]
    lex = build_lexicon(entities)
    assert caught(f"{marker.capitalize()} {REGIONS[region]} {noun} needs a USSD fallback.", lex)
    entities[0]["categories"] = ["region:emea"]  # now one of several
    assert not caught(f"{marker.capitalize()} {REGIONS[region]} {noun} needs a USSD fallback.",
                      build_lexicon(entities))


# -- a contact by the shape of a chat line or with a role ----------------------------------------

SYLLABLES = st.tuples(st.sampled_from("bdfgklmnprstvz"), st.sampled_from("aeiou")).map("".join)
coined = st.lists(SYLLABLES, min_size=3, max_size=4).map(lambda p: "".join(p).capitalize()).filter(
    lambda w: zipf(w.casefold()) < 1.0 and not deid._ordinary(w) and w.casefold() not in deid._dictionary())


def contact(first: str, surname: str) -> deid.Lexicon:
    return build_lexicon([{"id": "c", "name": "Quorvanel Systems", "people": [f"{first} {surname}"]}])


@settings(max_examples=30, deadline=None)
@given(first=coined, surname=coined, shape=st.sampled_from(["[14:02] {n}: alarms at the gate again.",
                                                           "> {n}: consent is per family group here.",
                                                           "{n}: the roster must export per ward.",
                                                           "(09:15) {n}: the feed drops at the border."]))
def test_a_contact_as_a_chat_speaker_is_caught(first, surname, shape):
    assume(first != surname)
    lex = contact(first, surname)
    assert caught(shape.format(n=first), lex)
    assert not caught(shape.format(n="The team"), lex)


@settings(max_examples=30, deadline=None)
@given(first=coined, surname=coined, role=st.sampled_from(["{n} (CMIO) is pushing for single sign-on.",
                                                          "{n}, dispatch lead, says drivers ignore the app.",
                                                          "{n} (claims manager) is pushing for bulk import."]))
def test_a_contact_surname_with_a_role_is_caught(first, surname, role):
    assume(first != surname)
    assert caught(role.format(n=surname), contact(first, surname))


def test_a_first_name_mid_sentence_before_a_colon_and_a_word_with_a_note_pass():
    lex = contact("Grace", "Dewar")
    assert not caught("We allow a grace period: ten minutes at the gate.", lex)
    assert not caught("Dewar flasks (see below) keep the samples cold.", lex)


# -- a name's ordinary words joined in a slug ----------------------------------------------------

ORDINARY = ["harbour", "finch", "river", "stone", "maple", "bridge", "north", "field"]


@settings(max_examples=30, deadline=None)
@given(pair=st.lists(st.sampled_from(ORDINARY), min_size=2, max_size=2, unique=True),
       shape=st.sampled_from(["github.com/cs-team/{a}-{b}-onboarding README says brokers want it.",
                              "Merged feature/{a}_{b}-export today.", "See wiki/{a}-{b}/faq for the steps."]))
def test_a_run_together_name_of_ordinary_words_in_a_slug_is_caught_and_in_prose_passes(pair, shape):
    a, b = pair
    lex = build_lexicon([{"id": "c", "name": f"{a}{b}".capitalize(), "domains": [f"{a}{b}.example"]}])
    assert caught(shape.format(a=a, b=b), lex)
    assert not caught(f"The {a} {b} was quiet today.", lex)  # two ordinary words in prose, as before
    assert not caught(f"A {a}-{b} view of the quay.", lex)  # hyphenated, no slash: no slug


# -- Korean number units, Buddhist-era years -----------------------------------------------------

KOREAN = {"천": 10**3, "만": 10**4, "억": 10**8}


@settings(max_examples=30, deadline=None)
@given(n=st.integers(12, 980), unit=st.sampled_from(sorted(KOREAN)), other=st.integers(1, 9))
def test_an_amount_in_korean_units_is_caught_and_another_passes(n, unit, other):
    lex = build_lexicon([{"id": "c", "name": "Quorvanel", "restricted": [f"₩{n * KOREAN[unit]:,}"]}])
    assert caught(f"The QA budget is {n}{unit} 원 over two fiscal years.", lex)
    assert not caught(f"The QA budget is {n + other}{unit} 원 over two fiscal years.", lex)


@settings(max_examples=30, deadline=None)
@given(day=st.dates(min_value=date(2026, 1, 1),
                    max_value=date(2028, 12, 31)),
       shape=st.sampled_from(["{d} {m} B.E. {y}", "{d} {m} {y} BE", "{d} {m} พ.ศ. {y}"]))
def test_a_buddhist_era_year_is_its_gregorian_year(day, shape):
    lex = build_lexicon([{"id": "c", "name": "Quorvanel", "restricted": [f"{day.isoformat()} cutover"]}])
    month = day.strftime("%B")
    assert caught(f"Cutover is {shape.format(d=day.day, m=month, y=day.year + 543)}, after the holiday.", lex)
    assert not caught(f"Cutover is {shape.format(d=day.day, m=month, y=day.year + 542)}, after the holiday.", lex)


# -- a rare name clipped ------------------------------------------------------------------------

long_coined = st.lists(SYLLABLES, min_size=4, max_size=5).map(lambda p: "".join(p).capitalize()).filter(
    lambda w: zipf(w.casefold()) < 1.0 and not deid._ordinary(w) and w.casefold() not in deid._dictionary())


@settings(max_examples=30, deadline=None)
@given(name=long_coined, size=st.sampled_from([4, 5]),
       shape=st.sampled_from(["{c}'s control room wants alerts inside SCADA.", "{c} ops said the feed drops.",
                              "We met {c} procurement last week.", "{c} engineers asked for a bulk import."]))
def test_a_rare_name_clipped_with_an_organisation_cue_is_caught(name, size, shape):
    clip = name[:size]
    assume(zipf(clip.casefold()) < deid._KNOWN_ZIPF and not deid._ordinary(clip)
           and clip.casefold() not in deid._dictionary())
    lex = build_lexicon([{"id": "c", "name": f"{name} Energy"}])
    assert caught(shape.format(c=clip), lex)


def test_a_clipped_common_name_or_a_clip_without_a_cue_passes():
    assert not caught("Bell's control room wants alerts.", build_lexicon([{"id": "c", "name": "Bellwether"}]))
    lex = build_lexicon([{"id": "c", "name": "Virvelaine"}])
    assert not caught("The virve setting is off.", lex)
    assert not caught("VIRVE OPS SAID IT", lex)
