"""The phrase table is applied only to texts that can hold a phrase: the pre-check must never skip a text the
table's regex would change (the regex itself is compiled only when needed, ~20 ms of a proposal's judge)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.knowledge.parsing import _PHRASE_KEYS, _PHRASE_RULES, _phrase_pattern, _phrases

ORACLE = re.compile("|".join(f"(?P<p{i}>{_phrase_pattern(p)})" for i, (p, _) in enumerate(_PHRASE_RULES)))
PHRASE_WORDS = sorted({w for p, _ in _PHRASE_RULES for w in p.split()})


def oracle(text: str) -> str:
    return ORACLE.sub(lambda m: " " + _PHRASE_RULES[int(m.lastgroup[1:])][1] + " ", text)


def test_every_phrase_word_is_a_plain_word_so_the_pre_check_applies():
    assert _PHRASE_KEYS is not None


def test_every_phrase_of_the_table_and_its_plurals_is_rewritten():
    for phrase, _ in _PHRASE_RULES:
        for form in (phrase, phrase + "s", phrase + "es", phrase.replace(" ", "-"), f"the {phrase}, then"):
            assert _phrases(form) == oracle(form), form


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PHRASE_WORDS), st.sampled_from(["the", "a", "soc", "x1", "é", "données"]),
                          st.from_regex(r"[a-z]{1,6}", fullmatch=True)), min_size=1, max_size=12),
       st.lists(st.sampled_from([" ", "-", " - ", "  ", "_", ".", ", ", "/", "\t", "s ", "es "]), min_size=12,
                max_size=12))
def test_the_pre_check_never_skips_a_text_the_table_would_change(words, separators):
    text = "".join(w + s for w, s in zip(words, separators))
    assert _phrases(text) == oracle(text)
