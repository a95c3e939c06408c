"""Whether a word is common English (word frequencies), and how near two name words are in spelling and sound.

Pure functions over strings; the libraries behind them load on first use, only when the de-id gate has a
candidate to ask about (a word near a customer's name), never for a statement with none.
"""

from __future__ import annotations

import functools
from pathlib import Path

# A word at or above this Zipf frequency (wordfreq: 3 is once per million words) is common English: "harbor",
# "summit", "flask", "dana" are; "kestrel" (2.5), "pellucid" (1.6) and made-up names (0) are not.
COMMON_ZIPF = 3.0


@functools.lru_cache(maxsize=4096)
def zipf(word: str) -> float:
    """The word's Zipf frequency in English (wordfreq); 0.0 when wordfreq is missing: then no word is common and
    the gate matches more, never less. A word of plain letters a-z is one token to wordfreq's English tokenizer, so
    its frequency is its entry in the English list: read from a table derived from that list once per machine
    (_english), without importing wordfreq (~260 ms) or loading its list (~190 ms) in every process that asks."""
    import sqlite3

    low = word.casefold()
    table = _english() if low.isascii() and low.isalpha() else None
    if table is not None:
        try:
            found = table.execute("SELECT zipf FROM words WHERE word = ?", (low,)).fetchone()
            return found[0] if found else 0.0
        except sqlite3.Error:  # the file was damaged under this process: wordfreq answers
            pass
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        return 0.0
    return zipf_frequency(low, "en")


@functools.lru_cache(maxsize=1)
def _english():
    """A SQLite table word -> Zipf frequency of wordfreq's English list (its plain words), in the user
    cache directory, keyed by the list file's size and time; made on first use (~1.6 s). None without wordfreq or a
    usable cache directory, or when the table cannot be read: zipf then asks wordfreq itself."""
    import importlib.util
    import math
    import os
    import sqlite3

    from vmem.store.cache import cache_home

    try:
        spec = importlib.util.find_spec("wordfreq")
        source = Path(spec.origin).parent / "data" / "large_en.msgpack.gz"
        stat = source.stat()
    except (AttributeError, TypeError, ValueError, OSError):
        return None
    path = cache_home() / "words" / f"en-{stat.st_size}-{stat.st_mtime_ns}.sqlite"
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        if not path.is_file():
            from wordfreq import get_frequency_dict

            path.parent.mkdir(parents=True, exist_ok=True)
            made = sqlite3.connect(str(temporary))
            made.execute("CREATE TABLE words (word TEXT PRIMARY KEY, zipf REAL) WITHOUT ROWID")
            made.executemany("INSERT INTO words VALUES (?, ?)", (
                (w, round(math.log10(f * 1e9), 2)) for w, f in get_frequency_dict("en").items()
                if f > 0 and w.isascii() and w.isalpha()))
            made.commit()
            made.close()
            os.replace(temporary, path)
        table = sqlite3.connect(str(path), check_same_thread=False)  # (a URI would need the path quoted)
        table.execute("SELECT zipf FROM words WHERE word = 'the'").fetchone()
        return table
    except (ImportError, OSError, sqlite3.Error):  # a damaged table is made again by the next process
        for leftover in (temporary, path):  # (a table cut short while being made is not left behind either)
            try:
                leftover.unlink()
            except OSError:
                pass
        return None


def common(word: str) -> bool:
    return zipf(word) >= COMMON_ZIPF


# Edits a near-spelling may differ by, by the length of the name word: one (a letter dropped, doubled, changed or
# two swapped) from four letters, two from nine. Fitted on the fit probes (tests/data/deid_classes/fit.jsonl) and
# CoNLL-2003's training split: two edits on eight letters matched other names ("Quintal" for Quintara).
def edits_allowed(length: int) -> int:
    return 0 if length < 4 else 1 if length < 9 else 2


def near_spellings(word: str, choices: list[str]) -> list[str]:
    """The CHOICES WORD is a near-spelling of: within edits_allowed of the choice's length, counting a swap of two
    neighbours as one edit (optimal string alignment, rapidfuzz)."""
    from rapidfuzz.distance import OSA
    from rapidfuzz.process import extract

    found = extract(word, choices, scorer=OSA.distance, score_cutoff=2, limit=None)
    return [choice for choice, distance, _ in found if 0 < distance <= edits_allowed(len(choice))]


def sound_keys(word: str) -> set[str]:
    """Phonetic codes of a word (jellyfish): Metaphone of three or more sounds, NYSIIS of four or more letters.
    Words sound alike when two codes agree ("Korvan" / "Corvanne", "Taveesto" / "Tavisto"); one alone is
    too loose on real names (Metaphone hears "Griffon" as Corvane)."""
    import jellyfish

    keys = set()
    metaphone = jellyfish.metaphone(word)
    if len(metaphone) >= 3:
        keys.add("m:" + metaphone)
    nysiis = jellyfish.nysiis(word)
    if len(nysiis) >= 4:
        keys.add("n:" + nysiis)
    return keys


def similarity(a: str, b: str) -> float:
    """1 - edit distance / the longer length (rapidfuzz's normalised Levenshtein similarity)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.normalized_similarity(a, b)


# a word this rare in English is shown on a learning's review card ("Corvanne", "Tavisto", "SRCU"): a word no rule
# read as a name may still be one, and the reviewer is the last gate
UNKNOWN_ZIPF = 2.0


def unknown_words(statement: str, known: set[str]) -> list[str]:
    """The words of STATEMENT (three letters or more, as written, once each) that are neither English (Zipf
    frequency below UNKNOWN_ZIPF) nor in KNOWN (lower case: the store's category vocabulary and its published
    learnings' words)."""
    import re

    out, seen = [], set()
    for word in re.findall(r"[^\W\d_]{3,}", statement):
        low = word.casefold()
        if low in seen or low in known:
            continue
        seen.add(low)
        if zipf(low) < UNKNOWN_ZIPF:
            out.append(word)
    return out


# How English writers respell a name by its sound, as rewrites to one spelling per sound (applied in order): "Kworvel"
# and "Quorvell" are both kworvel, "Van Torray" and "Vantorre" vantor, "Oh-doo-ya" and "Oduya" oduya, "Pryce" and
# "Price" pris. The vowels are folded to five, a doubled letter to one, a silent closing e dropped.
_RESPELLINGS = (
    (r"^kn", "n"), (r"^wr", "r"), (r"^ps", "s"), (r"mb$", "m"), (r"ph", "f"), (r"^gh", "g"), (r"gh", ""),
    (r"qu", "kw"), (r"ck", "k"), (r"q", "k"), (r"x", "ks"), (r"c(?=[eiy])", "s"), (r"c(?!h)", "k"), (r"z", "s"),
    (r"dg(?=[eiy])", "j"), (r"sch", "sk"), (r"tion", "shun"), (r"(?<=[aeiou])h", ""), (r"(?<=.)h(?![aeiouy])", ""),
    (r"(?<=[aeiou])w(?![aeiou])", "u"),
    (r"ee|ea|ie|ey$|(?<=.)y(?![aeiou])|ii", "i"), (r"oo|ou|ew", "u"), (r"oa|ow$", "o"), (r"ai|ay(?![aeiou])|ei|ey(?![aeiou])", "e"),
    (r"(.)\1+", r"\1"), (r"(?<=[^aeiou][^aeiou])e$|(?<=[aeiou][^aeiou])e$", ""), (r"(?<=[^aeiou])re$", "r"),
    (r"(?<=[^aeiou])er$", "r"), (r"(?<=.)y(?=[aeiou])", "y"),
)


@functools.lru_cache(maxsize=8192)
def respelt(word: str) -> str:
    """WORD in one spelling per sound (_RESPELLINGS): two respellings of a name by its sound meet here."""
    out = "".join(ch for ch in word.casefold() if "a" <= ch <= "z")
    for pattern, replacement in _respellings():
        out = pattern.sub(replacement, out)
    return out


@functools.cache
def _respellings() -> list:
    import re

    return [(re.compile(pattern), replacement) for pattern, replacement in _RESPELLINGS]


# Two words sound alike when their respelt forms are this alike (normalised edit similarity) and their consonants
# agree; fitted on random pseudo-names against their random respellings and against other pseudo-names and rare
# English words (bench/deid_sound_fit.py), never on a probe set's customers
SOUND_ALIKE = 0.8


def sound_alike(word: str, name: str) -> float:
    """How alike WORD and NAME sound (0..1): the similarity of their respelt forms when their consonants agree
    (consonants_agree), else 0."""
    from rapidfuzz.distance import Levenshtein

    a, b = respelt(word), respelt(name)
    if not a or not b:
        return 0.0
    if not consonants_agree(a, b):
        return 0.0
    return Levenshtein.normalized_similarity(a, b)


def _consonants(word: str) -> str:
    import re

    return word[:1] + re.sub(r"[aeiouyhw]", "", word[1:])


def consonants_agree(a: str, b: str) -> bool:
    """Whether two respelt forms have as many consonant sounds, in order, all but one the same: a respelling by
    sound changes a vowel or how a consonant is written, not how many there are ("Farooq" has one more than
    Farrow, "Tavistock" one more than Tavisto)."""
    skel_a, skel_b = _consonants(a), _consonants(b)
    return len(skel_a) == len(skel_b) and sum(x != y for x, y in zip(skel_a, skel_b)) <= 1
