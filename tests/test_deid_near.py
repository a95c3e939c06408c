"""De-id: near-spellings and sound-alikes of name words that are not common English (edit distance, phonetic
codes), alone for a one-word name, word by word for a longer one; and the real words and other people's names
they must not catch."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.deid import build_lexicon, check_statement
from vmem.gates.near import common, edits_allowed

SYLLABLES = ["kor", "van", "ta", "vis", "mel", "dra", "quin", "lo", "ber", "sten", "hal", "rin", "tho", "vel"]
coined = st.lists(st.sampled_from(SYLLABLES), min_size=3, max_size=4).map(lambda s: "".join(s).capitalize()).filter(
    lambda w: len(w) >= 7 and not common(w) and not deid._ordinary(w) and w.casefold() not in deid._dictionary())


def typo(word: str, kind: str, at: int) -> str:
    """One slip inside the word (never its first letter): a letter dropped, doubled, changed, or two swapped."""
    i = 1 + at % (len(word) - 2)
    return {"drop": word[:i] + word[i + 1:], "double": word[:i] + word[i] + word[i:],
            "swap": word[:i] + word[i + 1] + word[i] + word[i + 2:],
            "change": word[:i] + ("x" if word[i] != "x" else "z") + word[i + 1:]}[kind]


SOUNDS = [("c", "k"), ("ph", "f"), ("i", "ee"), ("v", "f"), ("qu", "kw"), ("y", "i"), ("o", "oh")]


def respell(word: str) -> str | None:
    low = word.lower()
    for letters, sound in SOUNDS:
        if letters in low[1:]:
            i = low.index(letters, 1)
            return (low[:i] + sound + low[i + len(letters):]).capitalize()
    return None


@settings(max_examples=150, deadline=None)
@given(name=coined, kind=st.sampled_from(["drop", "double", "swap", "change"]), at=st.integers(0, 20),
       shape=st.sampled_from(["one word", "company", "contact"]))
def test_one_slip_in_a_name_word_is_still_the_name(name, kind, at, shape):
    slipped = typo(name, kind, at)
    assume(slipped.casefold() != name.casefold() and not common(slipped))
    lexicon = build_lexicon([{"id": "c1", "name": name if shape == "one word" else f"{name} Biologics",
                              "people": [f"Ilse {name}"] if shape == "contact" else []}])
    statement = {"one word": f"Store managers at {slipped} wanted offline mode.",
                 "company": f"Finance teams at {slipped} Biologics asked for invoicing.",
                 "contact": f"Ilse {slipped} pushed for a shorter validation cycle."}[shape]
    result = check_statement(statement, lexicon)
    assert any(h.rule == "near spelling" for h in result.hits), (statement, result.hits)


@settings(max_examples=100, deadline=None)
@given(name=coined)
def test_a_name_respelt_by_sound_is_still_the_name(name):
    sounded = respell(name)
    assume(sounded is not None and sounded.casefold() != name.casefold() and not common(sounded))
    lexicon = build_lexicon([{"id": "c1", "name": f"{name} Mobility"}])
    result = check_statement(f"{sounded} Mobility's dispatchers wanted status updates.", lexicon)
    assert not result.passed, (sounded, name)


def test_edits_allowed_grow_with_the_word():
    assert [edits_allowed(n) for n in (3, 4, 8, 9, 12)] == [0, 1, 1, 2, 2]


LEXICON = build_lexicon([
    {"id": "cb", "name": "Corvanne Biologics", "people": ["Ilse Vandersteen"]},
    {"id": "hq", "name": "Halvard & Quist Insurance", "aliases": ["Halvard and Quist"], "people": ["Saoirse Kealy"]},
    {"id": "ta", "name": "Tavisto Mobility", "people": ["Arjun Mehta"]},
    {"id": "ve", "name": "Velmora", "people": ["Bram Oosterhuis"]},
    {"id": "sa", "name": "Sankt Aurel Kliniken"},
    {"id": "hl", "name": "Harbor Lane Health"},
    {"id": "qm", "name": "Quintara Moda", "aliases": ["Quintara"]},
    {"id": "md", "name": "Meridale Capital", "aliases": ["Meridale"]},
    {"id": "co", "name": "Corvane Diagnostics", "aliases": ["Corvane"]},
    {"id": "ph", "name": "Pellucid Home Goods", "aliases": ["Pellucid Home"]},
])


@pytest.mark.parametrize("statement", [
    "Korvan Byologics asked for quarterly invoicing.", "Store managers at Vel Moura asked for stock counts.",
    "Claims staff at Halvarde and Kwist asked for bulk export.", "Zankt Owrel Kliniken asked for audit reports.",
    "Ilsa Fandersteen pushed for a shorter validation cycle.", "Seersha Keely raised data residency.",
    "Nurses at Harbour Lane Health wanted badge-tap login.", "Bram Oostrehuis asked for dashboards.",
    "Taveesto Mobility's dispatchers wanted updates.",
])
def test_near_spellings_and_sound_alikes_on_the_lexicon(statement):
    assert not check_statement(statement, LEXICON).passed, statement


@pytest.mark.parametrize("statement", [
    "Prospects in Tavistock asked for hybrid-work features.", "A teaching hospital in Vellore asked about forms.",
    "Claims teams named a Quest Diagnostics integration.", "Adoption sank after the price change.",
    "Biological sample tracking was the top request.", "Several retailers used Oosterhout as their hub.",
    "The film stars Lily Rabe and Anthony Quintal.", "He was replaced by Murtala Mohammed in 1975.",
    "The Briquet Griffon Vendeen has a bushy head.", "Egypt marks National Police Day on 25 January.",
    "Mehra agreed to act in the film.", "He was born in St. Gallen, Switzerland.",
])
def test_real_words_and_other_names_near_a_customer_pass(statement):
    result = check_statement(statement, LEXICON)
    assert result.passed, result.hits


@pytest.mark.parametrize("statement", [
    "コルヴァンヌ・バイオロジクス asked for quarterly invoicing.", "タヴィスト・モビリティ dispatchers wanted updates.",
    "ノースウィンド・オービタル insisted on air-gapped deployment.", "Κορβάν Μπαϊολότζικς asked for a validation pack.",
])
def test_a_name_of_several_words_in_katakana_or_greek_by_its_sounds(statement):
    lexicon = build_lexicon([{"id": "cb", "name": "Corvanne Biologics"}, {"id": "ta", "name": "Tavisto Mobility"},
                             {"id": "no", "name": "Northwind Orbital Systems", "aliases": ["Northwind Orbital"]}])
    result = check_statement(statement, lexicon)
    assert {h.rule for h in result.hits} >= {"transliteration (sound-alike)"}, result.hits


@pytest.mark.parametrize("statement", [
    "Japanese buyers asked for アジャイル (agile) rollout plans.", "ありがとうございます replies came with good ratings.",
    "Greek buyers wrote Ευχαριστώ πολύ after the demo.",
])
def test_ordinary_words_in_katakana_or_greek_pass(statement):
    lexicon = build_lexicon([{"id": "cb", "name": "Corvanne Biologics"}, {"id": "ta", "name": "Tavisto Mobility"}])
    assert check_statement(statement, lexicon).passed


def test_a_plural_of_a_name_word_is_left_to_the_exact_rules():
    # "Kestrels" is one letter from Kestrel; the plural is the word itself, and the bird is no customer
    lexicon = build_lexicon([{"id": "k", "name": "Kestrel Freight"}])
    assert check_statement("Kestrels nest on warehouse roofs, so drones need geofencing.", lexicon).passed


def test_by_sound_alone_a_word_must_also_look_like_the_name():
    # Metaphone and NYSIIS both hear the Czech town Karvina as Corvanne; it shares too few letters to be it
    lexicon = build_lexicon([{"id": "cb", "name": "Corvanne Biologics"}])
    assert check_statement("FC Bohemians 0 FC Karvina 2", lexicon).passed
    assert not check_statement("Korvan Byologics asked for invoicing.", lexicon).passed


def test_a_five_letter_surname_misspelt_counts_after_a_title():
    lexicon = build_lexicon([{"id": "hq", "name": "Halvard & Quist Insurance", "people": ["Saoirse Kealy"]}])
    assert not check_statement("Ms. Kealey said the renewal slips.", lexicon).passed
    assert check_statement("Ms Kelly said so.", lexicon).passed  # Kelly is a common name and word: someone else


# syllables with the sounds other scripts change (l, th, j, qu, an r closing a syllable), as katakana, Greek and
# Cyrillic write them
SCRIPT_SYLLABLES = {
    "vel": ("ヴェル", "βελ", "вел"), "mor": ("モー", "μορ", "мор"), "ka": ("カ", "κα", "ка"), "thi": ("ティ", "θι", "ти"),
    "jur": ("ユル", "γιουρ", "юр"), "quin": ("クイン", "κουιν", "квин"), "sten": ("ステン", "στεν", "стен"),
    "dor": ("ドー", "ντορ", "дор"), "lin": ("リン", "λιν", "лин"), "ra": ("ラ", "ρα", "ра"), "ko": ("コ", "κο", "ко"),
    "ta": ("タ", "τα", "та"), "mi": ("ミ", "μι", "ми"), "no": ("ノ", "νο", "но"), "gen": ("ゲン", "γκεν", "ген"),
}
script_word = st.lists(st.sampled_from(sorted(SCRIPT_SYLLABLES)), min_size=2, max_size=4)


def written_in(syllables: list[str], script: int) -> str:
    return "".join(SCRIPT_SYLLABLES[s][script] for s in syllables).capitalize()


@settings(max_examples=120, deadline=None)
@given(first=script_word, second=script_word, script=st.integers(0, 2), kind=st.sampled_from(["name", "person"]))
def test_a_name_of_two_words_in_another_script_by_its_sounds(first, second, script, kind):
    words = ["".join(first).capitalize(), "".join(second).capitalize()]
    assume(all(not common(w) and w.casefold() not in deid._dictionary() for w in words))
    assume(all(len(k) >= 2 for w in words for k in deid._script_keys(w, name=True)))
    entity = {"id": "c1", "name": " ".join(words)} if kind == "name" else \
        {"id": "c1", "name": "Zzyzx Holdings", "people": [" ".join(words)]}
    joiner = "・" if script == 0 else " "
    written = joiner.join(written_in(s, script) for s in (first, second))
    result = check_statement(f"{written} asked for bulk export.", build_lexicon([entity]))
    assert not result.passed, written


@settings(max_examples=120, deadline=None)
@given(syllables=script_word, script=st.integers(0, 2))
def test_a_one_word_name_of_four_sounds_in_another_script(syllables, script):
    name = "".join(syllables).capitalize()
    assume(not common(name) and name.casefold() not in deid._dictionary() and not deid._ordinary(name))
    assume(min(len(k) for k in deid._script_keys(name, name=True)) >= 4)
    written = written_in(syllables, script)
    result = check_statement(f"{written} store managers wanted offline mode.",
                             build_lexicon([{"id": "c1", "name": name}]))
    assert not result.passed, written


@settings(max_examples=30, deadline=None)
@given(first=script_word, second=script_word, lang=st.sampled_from(["ja", "el", "ru", "uk", "bg"]),
       at=st.integers(0, 400))
def test_ordinary_words_of_those_scripts_are_no_coined_name(first, second, lang, at):
    from wordfreq import top_n_list

    words = [w for w in top_n_list(lang, 3000) if not w.isascii()][at * 6:at * 6 + 6]
    name = "".join(first).capitalize() + " " + "".join(second).capitalize()
    lexicon = build_lexicon([{"id": "c1", "name": name, "aliases": ["".join(first + second).capitalize()]}])
    result = check_statement("Buyers said " + " ".join(words) + " about it.", lexicon)
    assert not [h for h in result.hits if h.rule == "transliteration (sound-alike)"], (words, result.hits)


@settings(max_examples=300, deadline=None)
@given(word=st.one_of(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC'é0-", min_size=1, max_size=12),
                      st.sampled_from(["harbor", "summit", "flask", "dana", "kestrel", "pellucid", "sana", "the",
                                       "Corvanne", "don't", "café", "covid19", "x"])))
def test_the_english_frequency_table_answers_as_wordfreq_does(word):
    """zipf reads plain words from a table derived from wordfreq's English list once per machine; every word,
    plain or not, gets wordfreq's own answer."""
    from wordfreq import zipf_frequency

    from vmem.gates.near import zipf

    assert zipf.__wrapped__(word) == zipf_frequency(word.casefold(), "en")


def test_every_plain_word_of_the_list_is_in_the_table_with_its_frequency():
    import random

    from wordfreq import get_frequency_dict, zipf_frequency

    from vmem.gates.near import _english, zipf

    plain = sorted(w for w in get_frequency_dict("en") if w.isascii() and w.isalpha())
    table = _english()
    assert table is not None and table.execute("SELECT count(*) FROM words").fetchone()[0] == len(plain) > 250_000
    for word in random.Random(7).sample(plain, 5_000):
        assert zipf.__wrapped__(word) == zipf_frequency(word, "en") > 0, word


def test_a_process_that_reads_a_word_frequency_from_the_table_imports_no_wordfreq():
    import subprocess
    import sys

    script = ("import sys\nfrom vmem.gates.near import zipf\nprint(zipf('harbor'), zipf('Kestrel'), "
              "'wordfreq' in sys.modules)")
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert first.stdout.split()[:2] == again.stdout.split()[:2] == ["4.15", "2.47"]
    assert again.stdout.split()[2] == "False"


def test_a_damaged_word_table_is_set_aside_and_wordfreq_answers(tmp_path):
    """The table is a cache: a file that is not one (a crash, a full disk, a hand) costs time, never an answer."""
    import subprocess
    import sys

    import os

    script = "from vmem.gates.near import zipf\nprint(zipf('harbor'), zipf('kestrel'))"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "own")}  # not the table the other tests share
    subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    (table,) = (tmp_path / "own" / "vmem" / "words").iterdir()
    table.write_bytes(b"not a database" * 100)
    damaged = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert damaged.returncode == 0 and damaged.stdout.split() == ["4.15", "2.47"], damaged.stderr
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    assert again.stdout.split() == ["4.15", "2.47"] and table.is_file() and table.stat().st_size > 1_000_000


def test_a_word_table_damaged_under_a_running_process_gives_way_to_wordfreq(tmp_path, monkeypatch):
    import sqlite3

    from vmem.gates import near

    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database" * 100)
    monkeypatch.setattr(near, "_english", lambda: sqlite3.connect(str(bad)))
    assert near.zipf.__wrapped__("harbor") == 4.15 and near.zipf.__wrapped__("kestrel") == 2.47
