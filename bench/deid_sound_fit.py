"""Fit the sound-alike threshold (vmem.gates.near.SOUND_ALIKE) on names nobody wrote: random pseudo-names, their
random respellings by sound, other pseudo-names and rare English words (wordfreq, Zipf 1-3).

    python bench/deid_sound_fit.py [SEED]

Prints, per threshold, the share of respellings caught and the share of unrelated pairs that pass (a statement's
word is compared with every name word of the lexicon, so the unrelated rate must be near zero). No probe set's
customer is read.
"""

from __future__ import annotations

import random
import re
import sys

from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from vmem.gates.near import consonants_agree, respelt

ONSETS = "b c d f g h j k l m n p r s t v w z br cr dr fr gr kr pr tr bl cl fl gl pl sl st sk sp th sh ch qu".split()
VOWELS = "a e i o u a e i o ai ea ou ie".split()
CODAS = ["", "", "", "n", "r", "l", "s", "t", "nd", "rn", "lt", "rk", "ll", "ss", "x", "m", "ck"]
# sound-preserving rewrites a writer may make (each applied at random to one place it fits)
REWRITES = [("c", "k"), ("k", "c"), ("ck", "k"), ("k", "ck"), ("qu", "kw"), ("kw", "qu"), ("ph", "f"), ("f", "ph"),
            ("s", "z"), ("z", "s"), ("ee", "i"), ("i", "ee"), ("i", "y"), ("y", "i"), ("ea", "ee"), ("oo", "u"),
            ("u", "oo"), ("ou", "oo"), ("o", "oh"), ("ai", "ay"), ("ay", "ai"), ("ll", "l"), ("l", "ll"),
            ("rr", "r"), ("r", "rr"), ("ss", "s"), ("s", "ss"), ("tt", "t"), ("t", "tt"), ("e", "a"), ("a", "e"),
            ("u", "o"), ("x", "ks"), ("ks", "x"), ("ce", "se"), ("ci", "si")]


def pseudo_name(rng: random.Random) -> str:
    while True:
        word = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(rng.randint(2, 3)))
        if rng.random() < 0.3:
            word += "e"
        if 5 <= len(word) <= 11:
            return word


def respell(word: str, rng: random.Random, edits: int) -> str:
    out = word
    for _ in range(edits):
        options = [(a, b) for a, b in REWRITES if a in out]
        if not options:
            break
        a, b = rng.choice(options)
        places = [m.start() for m in re.finditer(re.escape(a), out)]
        at = rng.choice(places)
        out = out[:at] + b + out[at + len(a):]
    return out


def passing(pairs: list[tuple[str, str]], threshold: float) -> int:
    left = [respelt(a) for a, _ in pairs]
    right = [respelt(b) for _, b in pairs]
    n = 0
    for a, b in zip(left, right):
        if a and b and Levenshtein.normalized_similarity(a, b) >= threshold - 1e-9 and \
                consonants_agree(a, b):
            n += 1
    return n


def main(seed: int) -> None:
    from wordfreq import top_n_list, zipf_frequency

    rng = random.Random(seed)
    names = [pseudo_name(rng) for _ in range(2000)]
    respellings = [(respell(n, rng, rng.randint(1, 3)), n) for n in names]
    respellings = [(a, b) for a, b in respellings if a != b]
    others = [(names[i], names[j]) for i, j in ((rng.randrange(len(names)), rng.randrange(len(names)))
                                                   for _ in range(200000)) if i != j]
    rare = [w for w in top_n_list("en", 200000) if w.isalpha() and w.isascii() and 5 <= len(w) <= 11
            and 1.0 <= zipf_frequency(w, "en") < 3.0][:20000]
    # every rare word against every name: only the pairs alike enough in their respelt forms are checked further
    close = cdist([respelt(w) for w in rare], [respelt(n) for n in names], scorer=Levenshtein.normalized_similarity,
                  score_cutoff=0.6)
    rare_pairs = [(rare[i], names[j]) for i, j in zip(*close.nonzero())]
    total_rare = len(rare) * len(names)
    print(f"{len(respellings)} respellings, {len(others)} unrelated name pairs, {total_rare} rare-word x name pairs")
    for threshold in (0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        caught = passing(respellings, threshold)
        wrong = passing(others, threshold)
        wrong_rare = passing(rare_pairs, threshold)
        print(f"{threshold:.2f}: respellings {caught / len(respellings):.3f}; unrelated names "
              f"{wrong / len(others):.2e}; rare words {wrong_rare / total_rare:.2e} ({wrong_rare} pairs)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
