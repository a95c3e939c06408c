"""De-id mechanisms for names and forms no probe set named: names respelt by sound (whole, split or spelt out by
syllables), any distinctive word of a longer name, initialisms of any run of a name's words, tickers, units and
shorthand of restricted amounts, category intersections in words. Random names x random variants, and the
ordinary text they must not catch."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
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
