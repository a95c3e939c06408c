"""Issue 30's de-id classes: surnames wherever they stand as a name, first names as distinct words, apostrophe
names, amounts in scientific and locale notations, letter-like symbols, spelling alphabets, names backwards,
katakana renderings, a first name with a role, and the cue a short or dictionary-word alias needs.

The probe files (tests/data/deid_h30, tests/data/deid_realtext) each have a dev part the rules were fitted on and
a holdout part measured once afterwards; the floors below hold both where they were measured.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.deid import build_lexicon, check_statement
from vmem.ops.eval_deid import evaluate_deid, lexicon_from_dir, read_cases

ROOT = Path(__file__).parent
DATA = ROOT / "data"
STORES = [ROOT.parent / "src" / "vmem" / "examples" / "store", DATA / "deid_redteam"]

# (cases, lexicon folders, least leaks caught, most false quarantines) as measured after the change
SETS = {
    "h30 dev (fitted)": (DATA / "deid_h30" / "cases_dev.jsonl", STORES + [DATA / "deid_h30"], 34, 0),
    "h30 holdout": (DATA / "deid_h30" / "cases_holdout.jsonl", STORES + [DATA / "deid_h30"], 32, 0),
    "real text dev (fitted)": (DATA / "deid_realtext" / "cases_dev.jsonl", STORES, 150, 0),
    "real text holdout": (DATA / "deid_realtext" / "cases_holdout.jsonl", STORES, 150, 0),
}


@pytest.mark.parametrize("name", list(SETS))
def test_probe_sets_hold_their_measured_floor(name):
    path, roots, caught, false = SETS[name]
    report = evaluate_deid(read_cases(path), lexicon_from_dir(*roots))
    print(f"\n{name}: {report['caught']}/{report['leaks']} caught, {report['false_quarantines']}/{report['clean']} "
          f"false; missed {report['missed']}, false {report['false']}")
    assert report["caught"] >= caught and report["false_quarantines"] <= false


def test_the_eval_command_scores_a_probe_set_through_the_console_script():
    result = subprocess.run([Path(sys.executable).parent / "vmem", "eval", "deid",
                             str(DATA / "deid_h30" / "cases_dev.jsonl"), "--lexicon", str(DATA / "deid_h30"),
                             "--json"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)["data"]
    assert data["false_quarantines"] == 0 and data["by_rule"]  # fixture customer only: its own probes caught
    assert data["caught"] >= 10


# -- generated names: letters that are no English word, so only the rule under test can fire --------------

SYLLABLES = ["ka", "ri", "to", "mo", "ne", "su", "no", "ta", "mi", "ko", "sa", "na", "te", "ro", "ma"]
KATAKANA = {"ka": "カ", "ri": "リ", "to": "ト", "mo": "モ", "ne": "ネ", "su": "ス", "no": "ノ", "ta": "タ", "mi": "ミ",
            "ko": "コ", "sa": "サ", "na": "ナ", "te": "テ", "ro": "ロ", "ma": "マ"}
coined = st.lists(st.sampled_from(SYLLABLES), min_size=4, max_size=5).map(lambda s: "".join(s)).filter(
    lambda w: not deid._ordinary(w) and w not in deid._dictionary())
FILLER = st.sampled_from(["Buyers in this segment want audit logs.", "Renewals slow down in the summer.",
                          "Procurement asked for SSO first.", ""])


def lexicon_for(alias: str, people=("Tobias Wren",), restricted=()):
    return build_lexicon([{"id": "c1", "name": f"{alias.capitalize()} Holdings", "aliases": [alias.capitalize()],
                           "people": list(people), "restricted": list(restricted)}])


def passes(statement: str, lexicon) -> bool:
    return check_statement(statement, lexicon).passed


@settings(max_examples=60, deadline=None)
@given(surname=coined, template=st.sampled_from([
    "We called {s}, who wanted a pilot.", "The owner ({s}) asked for reports.", "Budgets stalled after {s} and IT met.",
    "The deal fell through when {s} left.", "Reports go to {s}; the rest go to IT.", "{S} BLOCKS LOOM UPGRADE",
    "Ops leads, {s} among them, want a pilot.", "In 2019, {s} became the buyer."]), filler=FILLER)
def test_a_surname_standing_as_a_name_is_caught_wherever_it_stands(surname, template, filler):
    lexicon = lexicon_for("Zzyzxcorp", people=(f"Tobias {surname.capitalize()}",))
    statement = template.format(s=surname.capitalize(), S=surname.upper())
    assert not passes(f"{filler} {statement}".strip(), lexicon), statement


@settings(max_examples=60, deadline=None)
@given(surname=coined, other=st.sampled_from(["Paul", "Edward", "Maria", "Samuel", "Ingrid"]),
       template=st.sampled_from(["{o} {s} said audits come first.", "We met {o} {s}, who runs a bakery.",
                                 "The {s} flask keeps samples cold.", "{s} flasks keep samples cold.",
                                 "The {s} Business School opened a campus."]))
def test_another_persons_name_or_a_modifier_is_not_the_contact(surname, other, template):
    lexicon = lexicon_for("Zzyzxcorp", people=(f"Tobias {surname.capitalize()}",))
    assert passes(template.format(o=other, s=surname.capitalize()), lexicon)


@settings(max_examples=40, deadline=None)
@given(first=coined, second=coined, times=st.integers(1, 3))
def test_first_names_count_as_distinct_words_not_contacts(first, second, times):
    """Two contacts sharing a first name: that one name, however often written, is one word; two names are two."""
    if first == second:
        return
    a, b = first.capitalize(), second.capitalize()
    lexicon = lexicon_for("Zzyzxcorp", people=(f"{a} Wrenford", f"{a} Holloway", f"{b} Castell"))
    assert passes(" ".join([f"Ask around; {a} Karenina was the novel."] * times), lexicon)
    assert not passes(f"{a} and {b} both want weekly reports.", lexicon)
    assert not passes(f"{a} from the lab wants weekly reports.", lexicon)  # a first name with its role
    assert passes("Zed from the lab wants weekly reports.", lexicon)  # not a contact's first name


@settings(max_examples=30, deadline=None)
@given(first=st.sampled_from(["Neil", "Brien", "Hara", "Connor"]), cue=st.sampled_from(["said", "wants", "asked"]))
def test_an_apostrophe_name_is_one_word_not_an_initial_and_a_name(first, cue):
    lexicon = lexicon_for("Zzyzxcorp", people=(f"{first} Okonkwo",))
    assert passes(f"O'{first} {cue} the looms were late.", lexicon)
    assert passes(f"The O'{first} report came out in March.", lexicon)
    assert not passes(f"{first} {cue} the looms were late.", lexicon)


@settings(max_examples=60, deadline=None)
@given(mantissa=st.integers(11, 99), power=st.integers(3, 7), style=st.sampled_from(
    ["{m}e{p}", "{m}E+0{p}", "{m} x 10^{p}", "{m}×10**{p}"]))
def test_amounts_in_scientific_notation_are_values(mantissa, power, style):
    value = mantissa / 10 * 10 ** power
    lexicon = lexicon_for("Zzyzxcorp", restricted=[f"${value:,.0f} ARR"])
    written = style.format(m=f"{mantissa / 10:g}", p=power)
    assert not passes(f"An ARR of {written} dollars is typical.", lexicon), written
    # another value in the same notation, ten per cent or more away (a value within 2 % pins it: test_deid_values)
    other = style.format(m=f"{(mantissa + 10 if mantissa <= 89 else mantissa - 10) / 10:g}", p=power)
    assert passes(f"An ARR of {other} dollars is typical.", lexicon), other


@settings(max_examples=60, deadline=None)
@given(whole=st.integers(2, 99), scale=st.sampled_from([
    ("Tsd.", 1e3), ("TEUR", 1e3), ("k", 1e3), ("grand", 1e3), ("mil", 1e3), ("lakh", 1e5), ("crore", 1e7),
    ("Mio.", 1e6), ("mln", 1e6), ("Mrd.", 1e9), ("mil", 1e6)]), decimal_comma=st.booleans())
def test_amounts_with_a_locales_scale_abbreviation_are_values(whole, scale, decimal_comma):
    word, factor = scale
    value = (whole + 0.5) * factor
    lexicon = lexicon_for("Zzyzxcorp", restricted=[f"${value:,.0f} ARR"])
    number = f"{whole},5" if decimal_comma else f"{whole}.5"
    assert not passes(f"Their ARR is {number} {word} USD.", lexicon), (number, word)
    assert passes(f"Their ARR is {whole + 10},5 {word} USD.", lexicon)  # far from it (within 2 % pins it)


LETTERLIKE = {
    "regional indicator": lambda ch: chr(0x1F1E6 + ord(ch) - ord("a")),
    "negative squared": lambda ch: chr(0x1F170 + ord(ch) - ord("a")),
    "negative circled": lambda ch: chr(0x1F150 + ord(ch) - ord("a")),
    "parenthesized": lambda ch: chr(0x249C + ord(ch) - ord("a")),
    "circled": lambda ch: chr(0x24D0 + ord(ch) - ord("a")),
    "fullwidth": lambda ch: chr(0xFF41 + ord(ch) - ord("a")),
    "math bold": lambda ch: chr(0x1D41A + ord(ch) - ord("a")),
}


@settings(max_examples=60, deadline=None)
@given(name=coined, style=st.sampled_from(sorted(LETTERLIKE)), filler=FILLER)
def test_letter_like_symbols_read_as_their_letters(name, style, filler):
    lexicon = lexicon_for(name)
    drawn = "".join(LETTERLIKE[style](ch) for ch in name)
    assert not passes(f"{filler} {drawn} wants offline scanning.".strip(), lexicon), (style, drawn)


@settings(max_examples=40, deadline=None)
@given(name=coined, separator=st.sampled_from([" ", "-", ", "]), case=st.sampled_from([str.lower, str.title]))
def test_a_name_spelled_in_the_nato_alphabet_is_the_name(name, separator, case):
    codes = {v: k for k, v in deid._NATO.items() if k not in ("alpha", "juliett", "whisky", "x-ray")}
    spelled = separator.join(case(codes[ch]) for ch in name)
    assert not passes(f"Our contact at {spelled} wants a discount.", lexicon_for(name)), spelled


@settings(max_examples=40, deadline=None)
@given(name=coined, filler=FILLER)
def test_a_name_written_backwards_is_the_name(name, filler):
    lexicon = lexicon_for(name)
    assert not passes(f"{filler} {name.capitalize()[::-1]} signed the pilot.".strip(), lexicon)
    assert not passes(f"{'Holdings'[::-1]} {name.capitalize()[::-1]} signed the pilot.", lexicon)


@settings(max_examples=40, deadline=None)
@given(syllables=st.lists(st.sampled_from(SYLLABLES), min_size=4, max_size=5))
def test_a_name_in_katakana_is_the_name(syllables):
    name = "".join(syllables)
    if deid._ordinary(name) or name in deid._dictionary():
        return
    katakana = "".join(KATAKANA[s] for s in syllables)
    assert not passes(f"{katakana} wants offline scanning.", lexicon_for(name)), katakana


@settings(max_examples=60, deadline=None)
@given(alias=st.text(alphabet="BCDFGHJKLMNPQRSTVWXZ", min_size=2, max_size=3).filter(
    lambda a: a not in deid.COMMON_ACRONYMS),
       clean=st.sampled_from(["The {a} protocol is noisy in motion.", "Run the {a} test suite nightly.",
                              "Left-handed readings (LHR) and {a} sensors drift.", "{a} signals are noisy."]),
       leak=st.sampled_from(["{a} asked for a loom pilot.", "Our contact at {a} wants audit trails.",
                             "{a}'s buyers want returns data.", "Renewal talks with {a} stalled.",
                             "We lost {a} to a competitor."]))
def test_a_short_alias_needs_an_organisation_cue(alias, clean, leak):
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Weaving Mills", "aliases": [alias]}])
    assert passes(clean.format(a=alias), lexicon)
    assert not passes(leak.format(a=alias), lexicon)


@settings(max_examples=60, deadline=None)
@given(alias=st.text(alphabet="BCDFGHJKLMNPQRSTVWXZ", min_size=2, max_size=3).filter(
    lambda a: a not in deid.COMMON_ACRONYMS),
       verb=st.sampled_from(["froze", "broke", "forgot", "shook", "swore", "overran", "withheld", "drew", "stuck"]))
def test_an_irregular_past_tense_after_a_short_alias_is_the_organisation_acting(alias, verb):
    """"HHP froze all IT work" is the customer acting, as "HHP asked" is: English's irregular past tenses are a
    closed class and all count, not only the commonest (a miss of a blind set, where "froze" was not among them)."""
    lexicon = build_lexicon([{"id": "c1", "name": "Zzyzx Weaving Mills", "aliases": [alias]}])
    assert not passes(f"{alias} {verb} all IT work from June to September.", lexicon)
    assert passes(f"The {alias} protocol {verb} nothing.", lexicon)  # a word after it, not a verb: no cue


@settings(max_examples=40, deadline=None)
@given(word=st.sampled_from(["Harvest", "Summit", "Pioneer", "Anchor", "Orbit", "Crest"]),
       clean=st.sampled_from(["{w} season drives demand.", "After the {l}, mills slow down.",
                              "Teams plan around the {l}."]),
       leak=st.sampled_from(["{w} asked for a pilot.", "We lost {w} to a competitor.", "{w}'s team wants SSO.",
                             "Renewal talks with {w} stalled."]))
def test_a_dictionary_word_alias_needs_a_cue(word, clean, leak):
    assert word.casefold() in deid._dictionary()
    lexicon = build_lexicon([{"id": "c1", "name": f"{word} Weaving Mills", "aliases": [word]}])
    assert passes(clean.format(w=word, l=word.lower()), lexicon)
    assert not passes(leak.format(w=word), lexicon)


def test_without_its_dictionary_the_gate_fails_closed(monkeypatch):
    """The dictionary only relaxes: unreadable, every short or dictionary-word alias counts without a cue."""
    lexicon = build_lexicon([{"id": "c1", "name": "Harvest Weaving Mills", "aliases": ["Harvest", "HWM"]}])
    assert passes("Harvest season drives demand.", lexicon)
    monkeypatch.setattr(deid, "_dictionary", lambda: frozenset())
    assert not passes("Harvest season drives demand.", lexicon)
    assert passes("The HWM protocol is noisy.", lexicon)  # under four letters: still an abbreviation without a cue
