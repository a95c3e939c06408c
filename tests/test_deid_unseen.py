"""De-id mechanisms for names and forms no probe set named: names respelt by sound (whole, split or spelt out by
syllables), any distinctive word of a longer name, initialisms of any run of a name's words, tickers, units and
shorthand of restricted amounts, category intersections in words. Random names x random variants, and the
ordinary text they must not catch."""

from __future__ import annotations

import re

import pytest

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.deid import build_lexicon, check_statement
from vmem.gates.near import common, respelt

SYLLABLES = ["kor", "van", "ta", "vis", "mel", "dra", "quin", "lo", "ber", "sten", "hal", "rin", "tho", "vel", "dor",
             "sa", "mon", "tre", "gal", "ny", "pha", "cel", "zo", "ruk"]
coined = st.lists(st.sampled_from(SYLLABLES), min_size=3, max_size=4).map(lambda s: "".join(s).capitalize()).filter(
    lambda w: len(w) >= 7 and not common(w) and not deid._ordinary(w) and w.casefold() not in deid._dictionary())
# how writers respell a sound: each pair rewrites one place in the name (never its first letter's sound away)
SOUNDS = [("c", "k"), ("k", "c"), ("qu", "kw"), ("ph", "f"), ("i", "ee"), ("y", "i"), ("o", "oh"), ("u", "oo"),
          ("ll", "l"), ("l", "ll"), ("r", "rr"), ("s", "z"), ("ai", "ay"), ("e", "a"), ("a", "e")]


def respell(word: str, picks: list[int]) -> str:
    low = word.lower()
    for pick in picks:
        options = [(a, b) for a, b in SOUNDS if a in low[1:]]
        if not options:
            break
        a, b = options[pick % len(options)]
        i = low.index(a, 1)
        low = low[:i] + b + low[i + len(a):]
    return low.capitalize()


@settings(max_examples=150, deadline=None)
@given(name=coined, picks=st.lists(st.integers(0, 50), min_size=1, max_size=2),
       shape=st.sampled_from(["whole", "split", "syllables"]))
def test_a_name_respelt_by_sound_whole_split_or_by_syllables_is_the_name(name, picks, shape):
    sounded = respell(name, picks)
    assume(sounded.casefold() != name.casefold() and not common(sounded))
    # the rewrites keep the sound: the respelt forms meet (the fitted threshold is the gate's, not this test's)
    assume(deid._stem(sounded.casefold()) != deid._stem(name.casefold()))
    half = len(sounded) // 2
    written = {"whole": sounded, "split": f"{sounded[:half]} {sounded[half:].capitalize()}",
               "syllables": "-".join(re.findall(r".{1,3}", sounded))}[shape]
    from vmem.gates.near import SOUND_ALIKE, sound_alike

    assume(sound_alike(sounded, name) >= SOUND_ALIKE)
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    result = check_statement(f"Dispatchers at {written} wanted status updates before noon.", lexicon)
    assert not result.passed, (written, name, respelt(written), respelt(name))


def test_respelt_forms_meet_for_how_a_sound_is_written():
    pairs = [("Kworvel", "Quorvell"), ("Fillipa", "Philippa"), ("Zara", "Sarah"), ("Oh-doo-ya", "Oduya")]
    assert all(respelt(a) == respelt(b) for a, b in pairs)


LEXICON = build_lexicon([
    {"id": "qv", "name": "Quorvell", "people": ["Ingrid Solheim"]},
    {"id": "tv", "name": "Tandem Vireo Bank", "aliases": ["Tandem Vireo"]},
    {"id": "po", "name": "Pryce & Oduya Maritime", "aliases": ["Pryce and Oduya"]},
    {"id": "va", "name": "Vantorre Avionics", "aliases": ["Vantorre"]},
    {"id": "vs", "name": "Valdeserra"},
])


@settings(deadline=None)
@given(st.sampled_from([
    "Kworvel's dispatchers adopted the new routing view.",
    "Van Torray Avionics treats certification evidence as a deliverable.",
    "Bal de Serra's field crews preferred SMS alerts.",
    "Tandum Veerio pushed back on any approval step.",
    "Price and Oh-doo-ya routed port documents through one inbox.",
]))
def test_sound_alikes_of_the_lexicon(statement):
    assert not check_statement(statement, LEXICON).passed, statement


@settings(deadline=None)
@given(st.sampled_from([
    "The largest mosque, Al Farooq Masjid of Atlanta, is on 14th Street.",
    "Prospects in Tavistock and other London offices asked for hybrid work.",
    "The price and the quality of the vessels both mattered.",
    "A vireo sang while the bank teller counted.",
]))
def test_words_that_only_sound_near_a_name_pass(statement):
    assert check_statement(statement, LEXICON).passed, (statement, check_statement(statement, LEXICON).hits)


WORDS = ["Harbor", "Lantern", "Glass", "Orchard", "Summit", "Maple", "River", "Stone", "Bay", "Field"]
KINDS = ["Dental Group", "Learning Trust", "Health Network", "Energy", "Bank"]


@settings(max_examples=120, deadline=None)
@given(first=st.sampled_from(WORDS), rare=coined, kind=st.sampled_from(KINDS),
       form=st.sampled_from(["rare word", "initials", "dotted", "words"]))
def test_any_distinctive_word_initials_of_a_run_or_words_in_order_name_a_longer_name(first, rare, kind, form):
    """A name of a common word, a coined word and a kind: its coined word alone, its first words as initials with
    the rest written out, or its words in order with one left out, each where it stands as a name."""
    name = f"{first} {rare} {kind}"
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    written = {"rare word": f"{rare}'s", "initials": f"{first[0]}{rare[0]} {kind.split()[0]}",
               "dotted": f"{first[0]}.{rare[0]}. {kind.split()[0]}",
               "words": f"{first} {kind.split()[0]}'s"}[form]
    assume(written.split()[0].upper() not in deid.COMMON_ACRONYMS)
    # common words ending with the name's last word say its kind ("Harbor Energy"): not this form
    assume(form != "words" or len(kind.split()) > 1)
    result = check_statement(f"{written} staff asked for a shorter validation cycle.", lexicon)
    assert not result.passed, (name, written)


@settings(max_examples=60, deadline=None)
@given(first=st.sampled_from(WORDS), rare=coined, kind=st.sampled_from(KINDS))
def test_a_longer_names_kind_alone_or_beside_another_name_passes(first, rare, kind):
    lexicon = build_lexicon([{"id": "c1", "name": f"{first} {rare} {kind}"}])
    last = kind.split()[-1]
    for statement in [f"The {kind} said nothing new this quarter.", f"Pacific {kind} officials were not available.",
                      f"Mr {rare} of Hambrecht said the {last.lower()} would wait."]:
        assume(len(kind.split()) > 1 or "Pacific" not in statement)
        result = check_statement(statement, lexicon)
        assert result.passed or all(h.rule != "words of the name" for h in result.hits), (statement, result.hits)


# (the coined names and the ticker length filter out most draws; hypothesis's filtering health check failed the
# suite once on that alone)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(name=coined, cue=st.sampled_from(["ticker {}", "NASDAQ: {}", "({}) shares", "{} asked for exports"]))
def test_a_one_word_names_consonants_as_a_ticker_with_a_cue(name, cue):
    code = deid._ticker(name.casefold()).upper()
    assume(4 <= len(code) <= 5)
    lexicon = build_lexicon([{"id": "c1", "name": name}])
    assert not check_statement("Analysts followed " + cue.format(code) + " closely.", lexicon).passed, code


def test_a_code_like_a_ticker_without_a_cue_or_common_passes():
    lexicon = build_lexicon([{"id": "c1", "name": "Quorvell"}, {"id": "c2", "name": "Nasatic"}])
    assert check_statement("The QRVL column in the export is empty.", lexicon).passed
    assert check_statement("The NASA team launched a probe.", lexicon).passed


@settings(max_examples=80, deadline=None)
@given(hectares=st.integers(1000, 90000), unit=st.sampled_from([("acres", 2.4710538), ("km²", 0.01),
                                                                  ("square miles", 0.003861)]))
def test_a_restricted_area_in_another_unit_is_pinned(hectares, unit):
    word, factor = unit
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Co-op", "restricted": [f"{hectares:,} hectares"]}])
    assert not check_statement(f"Growers farming about {hectares * factor:,.1f} {word} wanted alerts.",
                               lexicon).passed
    assert check_statement(f"Growers farming about {hectares * factor * 1.3:,.1f} {word} wanted alerts.",
                           lexicon).passed


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(["Quetzalli", "Kesher Zahav", "Virvelaine", "Tavrelune"]), keep=st.sampled_from([0, 4, 5]))
def test_a_name_before_account_is_a_customer_named(name, keep):
    """"The Quetz account confirmed", "For the Zahav account": a word before "account" stands where an
    organisation does, as it does before "team" or "ops", whether the name is whole, clipped or a later word."""
    lexicon = build_lexicon([{"id": "c1", "name": f"{name} Holdings"}])
    word = name.split()[-1] if " " in name else name[:keep] if keep else name
    assume(not common(word.casefold()))
    result = check_statement(f"The {word} account confirmed that store-level annotations matter.", lexicon)
    assert not result.passed, (word, result.hits)


@settings(max_examples=60, deadline=None)
@given(first=st.sampled_from(["Lagi", "Joy", "Tigran", "Nino", "Aminu"]),
       form=st.sampled_from(["<{}>", "[09:14] <{}>", "@{}:", "{}>", "<@{}>", "slack #learnings> {}:",
                             "#ops-notes> @{}:"]), lower=st.booleans())
def test_a_contacts_first_name_as_a_chat_clients_speaker_is_the_contact(first, form, lower):
    """"<lagi> hatchery audit is on 12 May": a chat client writes its speakers' nicks this way, lower case and all;
    a tag or a comparison is no speaker ("<b>bold</b>", "x > y")."""
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Aquaculture", "people": [f"{first} Tuimavave"]}])
    nick = first.lower() if lower else first
    statement = form.format(nick) + " fish farms want audit exports, so build an audit export."
    assert not check_statement(statement, lexicon).passed, statement
    for clean in ("Use <b>bold</b> for headings in exports.", "When x > y in a cohort, flag the account.",
                  "slack #learnings> note: fish farms want audit exports."):
        assert check_statement(clean, lexicon).passed, clean


@settings(max_examples=40, deadline=None)
@given(base=st.integers(100, 5000), dozen=st.sampled_from([("a dozen", 12), ("half a dozen", 6), ("two dozen", 24)]))
def test_a_dozen_is_a_number_in_a_whole_stated_as_parts(base, dozen):
    """"300 field agents plus a dozen in the call centre" is 312 agents: "a dozen" and "half a dozen" are numbers
    as "twelve" is."""
    words, value = dozen
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Insurance", "restricted": [f"{base + value:,} agents"]}])
    assert not check_statement(f"An insurer with {base:,} field agents plus {words} in the call centre wanted SSO.",
                               lexicon).passed
    other = base * 3 + 1000  # (no half, double or sum of it near the restricted count)
    assert check_statement(f"An insurer with {other:,} field agents plus {words} in the call centre wanted SSO.",
                           lexicon).passed


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(["Sandaeliya", "Nyeredzi", "Quetzalli", "Aqsunqar", "Virvelaine", "Dzintarkrasts"]),
       keep=st.integers(4, 6), marker=st.sampled_from(["...", "\u2026", "- "]))
def test_a_name_cut_short_with_an_ellipsis_or_a_dangling_hyphen_is_the_name(name, keep, marker):
    """"Sandae... (the hospital group)", "Nyered- wallet team": the writer cut the name and said so; the first
    four letters or more of a name word English does not write are the name. An English word cut the same way is
    not ("Inter- and intra-day", "Pre- and post-sales")."""
    lexicon = build_lexicon([{"id": "c1", "name": f"{name} Holdings"}])
    cut = name[:keep]
    from vmem.gates.near import zipf

    assume(not common(cut.casefold()) and zipf(cut.casefold()) < 2.0)  # ("Sand...", "Sanda..." are words English has)
    result = check_statement(f"{cut}{marker} wallet team: agents move cash by hand in rural areas.", lexicon)
    assert not result.passed and "name cut short" in {h.rule for h in result.hits}, (cut, marker, result.hits)
    for clean in ("Inter- and intra-day swings matter to treasury teams.", "Pre- and post-sales teams disagree."):
        assert check_statement(clean, build_lexicon([{"id": "c2", "name": "Interlaken Holdings"},
                                                     {"id": "c3", "name": "Prevoria Group"}])).passed, clean


@settings(max_examples=60, deadline=None)
@given(megawatts=st.integers(5, 99), unit=st.sampled_from([("kW", 1e3), ("GW", 1e-3), ("kilowatts", 1e3)]),
       energy=st.booleans())
def test_a_restricted_power_or_energy_in_another_prefix_is_pinned(megawatts, unit, energy):
    """"22,000 kW" is 22 MW (and "22,000 kWh" 22 MWh): a metric prefix on a watt or a watt-hour is the same
    measure, even for a value under 100; another value is not."""
    word, factor = unit
    if energy:
        word = word[0] + "Wh" if len(word) == 2 else "kWh"  # (only the symbols say energy)
    restricted = f"{megawatts} MW{'h' if energy else ''}"
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Solar", "restricted": [restricted]}])
    assert not check_statement(f"A {megawatts * factor:,g} {word} portfolio bills itself.", lexicon).passed
    assert check_statement(f"A {megawatts * factor * 1.3:,g} {word} portfolio bills itself.", lexicon).passed


@settings(max_examples=60, deadline=None)
@given(thousands=st.integers(150, 9000), word=st.sampled_from(["Half of", "half of", "Twice"]))
def test_a_restricted_amount_as_a_fraction_or_multiple_either_way_round_is_pinned(thousands, word):
    """Half of a stated figure, or twice it, pins a restricted amount either way round: "half of a $4.4M
    programme was ours" for $2.2M, as "half was $1.1M" did."""
    value = thousands * 1000
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Health", "restricted": [f"${value:,}"]}])
    stated = value * 2 if word.lower().startswith("half") else value / 2
    assert not check_statement(f"{word} a ${stated:,.0f} programme went to clinical support.", lexicon).passed


@settings(max_examples=60, deadline=None)
@given(industry=st.sampled_from([("agriculture", "agricultural"), ("banking", "bank"), ("education", "educational"),
                                 ("energy", "energy")]),
       form=st.sampled_from(["Our lone {} customer", "The {} customer", "The one {} customer we serve"]))
def test_a_category_in_another_form_or_a_definite_description_names_the_one_holder(industry, form):
    value, word = industry
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx One", "categories": [f"industry:{value}"]},
                             {"id": "c2", "name": "Zzyzx Two", "categories": ["industry:retail"]}])
    statement = form.format(word) + " asked for SMS alerts."
    assert not check_statement(statement, lexicon).passed, statement
    two = build_lexicon([{"id": f"c{n}", "name": f"Zzyzx {n}", "categories": [f"industry:{value}"]} for n in (1, 2)])
    assert check_statement(statement, two).passed, statement


def test_an_intersection_or_a_difference_of_kinds_names_the_one_customer():
    lexicon = build_lexicon([
        {"id": f"c{n}", "name": f"Zzyzx {n}", "categories": cats} for n, cats in enumerate([
            ["industry:logistics", "segment:enterprise", "region:emea"],
            ["industry:logistics", "segment:enterprise", "region:emea"],
            ["industry:logistics", "segment:smb", "region:emea"],
            ["industry:education", "segment:mid_market", "region:emea"],
            ["industry:healthcare", "segment:mid_market", "region:north_america"]])])
    assert not check_statement("The mid-market customer we have in EMEA asked for autosave.", lexicon).passed
    assert not check_statement("The only logistics customer that is not an enterprise account wanted alerts.",
                               lexicon).passed
    assert check_statement("The logistics customer in EMEA asked for exports.", lexicon).passed  # three
    assert check_statement("The customer asked for exports.", lexicon).passed


@pytest.mark.parametrize("statement, day", [
    ("A go-live set for 令和9年4月12日 needed records migrated.", "2027-04-12"),
    ("A freeze starting el catorce de octubre de 2026 blocked changes.", "2026-10-14"),
    ("A pilot starting the Monday after the 2026 US Election Day needed roles.", "2026-11-09"),
    ("Groups running three and a half dozen clinics asked for roles.", None),
])
def test_dates_in_an_era_in_spanish_words_or_year_first_and_dozens(statement, day):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx", "restricted": [
        "2027-04-12 go-live", "2026-10-14 freeze", "2026-11-09 pilot", "42 clinics"]}])
    assert not check_statement(statement, lexicon).passed, statement


def test_real_words_near_the_new_forms_pass():
    lexicon = build_lexicon([
        {"id": "kz", "name": "Kazeyama Seimitsu", "aliases": ["Kazeyama"]},
        {"id": "jb", "name": "Jordanian Arab Socialist Baath Party"},
        {"id": "vd", "name": "Valdeserra Coop", "restricted": ["12,400 hectares"]}])
    for statement in ["8. Ukyo Katayama (Japan) Tyrrell 1:40.227",  # a y before a vowel is a consonant
                      "Streets in Karak, a bastion of Baath socialism, were patrolled.",  # a later word needs a cue
                      "The 122 kilometre third stage ran between Almere and Doetinchem.",  # a length, not km²
                      "Stansted is about 30 miles (48 km) north-east of London."]:
        result = check_statement(statement, lexicon)
        assert result.passed, (statement, result.hits)


# -- other scripts through what a reader does not see; a long name does not stall the gate --------------------

SCRIPTED = build_lexicon([{"id": "vm", "name": "Velmora"}, {"id": "cb", "name": "Corvanne Biologics"}])
INVISIBLE = ["\u200b", "\u00ad", "\u2060", "\u200c", "\ufeff"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["ヴェルモーラ renewed early.", "コルヴァンヌ・バイオロジクス asked for a validation pack.",
                        "Κορβάν Μπαϊολότζικς asked for a validation pack."]),
       st.lists(st.tuples(st.integers(1, 12), st.sampled_from(INVISIBLE)), max_size=3))
def test_a_name_in_another_script_is_read_through_invisible_characters(statement, inserts):
    for at, ch in sorted(inserts, reverse=True):  # inside the name's letters
        at = min(at, statement.index(" ") - 1)
        statement = statement[:at] + ch + statement[at:]
    assert not check_statement(statement, SCRIPTED).passed, statement


def test_half_width_katakana_and_a_stray_accent_are_read_as_the_name():
    for statement in ("ｳﾞｪﾙﾓｰﾗ renewed early.", "Κορβ\u0301άν Μπαϊολότζικς asked for a validation pack."):
        assert not check_statement(statement, SCRIPTED).passed, statement


def test_a_long_pasted_name_makes_a_bounded_number_of_derived_forms():
    subsequences: dict = {}
    mixed: dict = {}
    words = [f"word{chr(97 + n)}" for n in range(30)]

    def put(table, key, term):
        table.setdefault(key, []).append(term)

    deid._subsequences_and_mixed(words, object(), put, subsequences, mixed)
    assert len(subsequences) < 2 ** deid._NAME_WORDS_DERIVED
    assert sum(len(table) for table in mixed.values()) < 2 ** (deid._NAME_WORDS_DERIVED + 1)


def test_a_ticker_needs_its_cue_beside_it_and_never_comes_from_a_common_word():
    lexicon = build_lexicon([{"id": "m", "name": "Mosaic"}, {"id": "d", "name": "Delta"}, {"id": "q", "name": "Quorvell"}])
    for clean in ("Customers on MSC plans share one login per seat.", "DLT pipelines share a cluster at night.",
                  "Keep the QRVL export off; shares of the budget go to support."):
        assert check_statement(clean, lexicon).passed, clean
    for leak in ("The ticker QRVL fell after the call.", "QRVL shares dropped on the news."):
        assert not check_statement(leak, lexicon).passed, leak
