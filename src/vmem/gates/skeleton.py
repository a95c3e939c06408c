"""Names written in any other script, compared by the consonants a name keeps through the trip (pure; de-id's).

A name transliterated into katakana, Hangul, Greek, Cyrillic, Hebrew, Arabic or Devanagari and back (anyascii)
keeps its consonants in order and loses or gains vowels: katakana and Hangul add one after every consonant
(オルヴァンティス, "oruvuanteisu"), Hebrew and Arabic write few ("קווילמאר", "kvvylm'r"), Greek writes d as ντ and
b as μπ, Korean and Japanese have no l apart from r, no v apart from b, no f apart from p. The sound skeleton
here keeps only what survives all of them: consonants, with each of those pairs merged and every vowel, h and
glide dropped. It is loose by design, so it is asked only about name words that are no common English word, a
word alone needs five sounds, and a word that is ordinary in its own script's languages (wordfreq) is that word.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# rewrites applied in order to a lower-case Latin spelling: digraphs first, then one letter per merged sound
_DIGRAPHS = (("dzh", "g"), ("dz", "g"), ("tz", "g"), ("dj", "g"), ("kh", "h"), ("ch", "h"), ("sh", "s"), ("zh", "s"),
             ("ph", "f"), ("th", "t"), ("ck", "k"), ("qu", "kw"), ("x", "ks"))
# which sounds a script cannot tell apart, by how much it loses: katakana and Hangul lose the most (l/r, b/v,
# f/p, and Hangul's romanised g/k, d/t); an abjad writes h, l and r but not b, v, f and p apart (Hebrew bet is b
# or v, pe p or f; Arabic writes v as f and p as b);
# Cyrillic, Greek and Devanagari keep all but v/b/w (Greek beta, Cyrillic ve) and h (Greek has none)
_MERGES = {"loose": str.maketrans("jcqgdfvzl", "kkkktpbsr"), "abjad": str.maketrans("jcqfvp", "gkkbbb"),
           "spelled": str.maketrans("jcqv", "gkkb")}
_LEVELS = {"KATAKANA": "loose", "HIRAGANA": "loose", "HANGUL": "loose", "HEBREW": "abjad", "ARABIC": "abjad"}
_VOWELS = re.compile(r"[aeiouy]")
# a w before a vowel is a consonant (b/v in these scripts); elsewhere it closes a vowel ("Penhallow")
_GLIDE = re.compile(r"w(?=[aeiouy])")
# the name's r that closes a syllable: katakana and Hangul write it as a long vowel or not at all (ソルトマシ)
_CLOSING_R = re.compile(r"(?<=[aeiouy])r(?=[^aeiouy]|$)")
# a single word must have this many consonant sounds to be read as a name on its skeleton alone
ONE_WORD_SOUNDS = 5
# each word of a name of two or more words, matched side by side
MANY_WORD_SOUNDS = 3
# a written word at or above this Zipf frequency in a language of its script is that language's word (fitted on the
# sweep of eleven languages' words, where "ברוסטוק", "in Rostock", is 1.66 in Hebrew; a coined name is not listed)
NATIVE_ZIPF = 1.5

_SCRIPT_LANGUAGES = {"CYRILLIC": ("ru", "uk", "bg", "mk"), "GREEK": ("el",), "HEBREW": ("he",),
                     "ARABIC": ("ar", "fa", "ur"), "HANGUL": ("ko",), "KATAKANA": ("ja",), "HIRAGANA": ("ja",),
                     "CJK": ("ja", "zh"), "DEVANAGARI": ("hi",), "BENGALI": ("bn",), "TAMIL": ("ta",)}


def level(script: str | None) -> str:
    """How many sounds SCRIPT merges (see _MERGES); Latin text is compared as the spelled scripts are."""
    return _LEVELS.get(script or "", "spelled")


def skeleton(latin: str, merges: str = "loose") -> str:
    """The consonant sounds of a Latin spelling as a script of MERGES keeps them: "Olvantis" and "oruvuanteisu"
    are both r-b-n-t-s (loose), "Quillamar" and "kvvylm'r" k-b-l-m-r (abjad), "Dravenhall" and "Dravenchol"
    d-r-b-n-l (spelled)."""
    word = "".join(ch for ch in latin.casefold() if "a" <= ch <= "z")
    for digraph, sound in _DIGRAPHS:
        if merges != "abjad" or sound != "g":  # written without vowels, d-z is two sounds, not the affricate
            word = word.replace(digraph, sound)
    word = _GLIDE.sub("b", word).replace("w", "")
    if merges != "abjad":  # an abjad writes h; Greek has none, katakana writes it as a vowel's consonant
        word = word.replace("h", "")
    word = _VOWELS.sub("", word.translate(_MERGES[merges]))
    return re.sub(r"(.)\1+", r"\1", word)


def name_skeletons(word: str, merges: str = "loose") -> set[str]:
    """A name word's skeletons in a script of MERGES: as written and, in katakana and Hangul, with the r's that
    close a syllable dropped (up to three)."""
    word = word.casefold()
    places = [m.start() for m in _CLOSING_R.finditer(word)][:3] if merges == "loose" else []
    out = set()
    for mask in range(2 ** len(places)):
        drop = {p for bit, p in enumerate(places) if mask >> bit & 1}
        out.add(skeleton("".join(ch for i, ch in enumerate(word) if i not in drop), merges))
    return out


def script_of(word: str) -> str | None:
    """The script of WORD's first letter outside Latin, by its Unicode name ("KATAKANA", "HEBREW"), or None."""
    for ch in word:
        if ch.isalpha() and not ch.isascii():
            name = unicodedata.name(ch, "")
            if name.startswith(("LATIN", "MODIFIER")):
                continue
            if name.startswith("CJK"):
                return None  # ideographs write no sound of a foreign name
            return name.split(" ", 1)[0]
    return None


@functools.lru_cache(maxsize=16)
def _frequencies(language: str) -> dict[str, float]:
    try:
        from wordfreq import get_frequency_dict

        return get_frequency_dict(language)
    except (ImportError, LookupError, OSError, ValueError):
        return {}


# letters Hebrew and Arabic write before a word as part of it: "in", "and", "the", "to", "from", "as", "that"
# (ב ה ו כ ל מ ש; و ف ب ك ل and the article ال)
_PREFIXES = {"HEBREW": "\u05d1\u05d4\u05d5\u05db\u05dc\u05de\u05e9", "ARABIC": "\u0648\u0641\u0628\u0643\u0644\u0627"}


def native(word: str, script: str) -> bool:
    """Whether WORD is an ordinary word of a language written in SCRIPT (Zipf NATIVE_ZIPF or more in wordfreq):
    "транзит" is Russian for transit, not the name's word; in Hebrew and Arabic also after one or two prefix
    letters, four letters left at least ("ברוסטוק" is "in Rostock"). Without wordfreq no word is (the gate matches more)."""
    import math

    low = word.casefold()
    forms = [low]
    prefixes = _PREFIXES.get(script, "")
    while prefixes and len(forms) <= 2 and forms[-1][:1] in prefixes and len(forms[-1]) > 4:
        forms.append(forms[-1][1:])
    for language in _SCRIPT_LANGUAGES.get(script, ()):
        table = _frequencies(language)
        for form in forms:
            frequency = table.get(form, 0.0)
            if frequency and math.log10(frequency * 1e9) >= NATIVE_ZIPF:
                return True
    return False


# scripts written without spaces between words: a run of their letters is read as a sequence of words
_UNSPACED = ("HIRAGANA", "CJK")
# each word of an unspaced run must be this common (Zipf) for the run to be ordinary text: fragments of two or three
# characters are common at any level, so the bar is a word's, not a syllable's (set a priori, not fitted)
_SEGMENT_ZIPF = 3.0
_SEGMENT_LONGEST = 12


def _script_runs(text: str) -> list[tuple[str, str]]:
    """The runs of TEXT's letters (with their combining marks) written in one script other than Latin, with it."""
    runs: list[tuple[str, str]] = []
    current, script = "", None
    for ch in text:
        if ch.isalpha() or unicodedata.category(ch).startswith("M") and current:
            name = unicodedata.name(ch, "") if ch.isalpha() else ""
            # a combining mark and the long-vowel mark (ー) belong to the run they follow
            this = script if not name or name.startswith("KATAKANA-HIRAGANA") else None if name.startswith(
                ("LATIN", "MODIFIER")) or ch.isascii() else "CJK" if name.startswith("CJK") else name.split(" ", 1)[0]
        else:
            this = None
        if this != script and current:
            runs.append((current, script))
            current = ""
        script = this
        if this is not None:
            current += ch
    if current and script:
        runs.append((current, script))
    return runs


def _segments(run: str, languages: tuple[str, ...]) -> bool:
    """Whether RUN splits into words of one of LANGUAGES each at Zipf _SEGMENT_ZIPF or more."""
    import math

    for language in languages:
        table = _frequencies(language)
        if not table:
            continue
        reach = [True] + [False] * len(run)
        for start in range(len(run)):
            if reach[start]:
                for end in range(start + 1, min(len(run), start + _SEGMENT_LONGEST) + 1):
                    frequency = table.get(run[start:end], 0.0)
                    if frequency and math.log10(frequency * 1e9) >= _SEGMENT_ZIPF:
                        reach[end] = True
        if reach[-1]:
            return True
    return False


# one word alone inside quotation marks
_MENTIONED = re.compile(r"['\"\u2018\u201c\u00ab\u201e\u300c\u300e]\s*([^\W\d_][^\s'\"\u2019\u201d\u00bb\u300d\u300f]*)\s*"
                        r"['\"\u2019\u201d\u00bb\u201c\u300d\u300f]")


def unreadable(text: str) -> list[tuple[str, str]]:
    """The words of TEXT in another script that are no ordinary word of any language it writes, with the script:
    a name the skeleton could not tie to a customer ("เพนนาคอตต์", "Кивихарью", "니오타") is still a name,
    and a learning for agents has no need of one. Spaced scripts are read word by word (native); katakana
    whole, as Japanese writes a loanword; hiragana and ideographs as runs that must split into common words.
    A script with no word list here (Thai, Armenian, Georgian...) has no ordinary words: each of its runs is held,
    but for a month's or weekday's name the date parser knows."""
    from vmem.gates.datewords import calendar_word

    out = []
    text = unicodedata.normalize("NFKC", text)
    mentioned = {m.group(1) for m in _MENTIONED.finditer(text)}
    for run, script in _script_runs(text):
        if sum(ch.isalpha() for ch in run) < 2:
            continue  # one letter (พ.ศ., the Buddhist era's abbreviation) spells no name
        if run in mentioned:
            continue  # a word in quotes, alone, is a word being talked about: "users write '감사합니다'"
        languages = _SCRIPT_LANGUAGES.get(script, ())
        if script in _UNSPACED:
            if not _segments(run, languages):
                out.append((run, script))
        elif (not languages or not native(run, script)) and not calendar_word(run):
            out.append((run, script))  # (a month's or weekday's name is a date's word: "4 қаңтар 2026")
    return out
