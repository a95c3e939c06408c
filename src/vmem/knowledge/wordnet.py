"""Synonyms from WordNet for the merge judge: two words align when one of their most frequent senses is the
same synset ("route" and "send", "rival" and "competitor"). Data: models/wordnet/ (scripts/build_wordnet.py)."""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def _synsets() -> dict[str, frozenset[int]]:
    """Normalised token (as the judge's parser writes it) -> ids of the synsets its words share with others."""
    from vmem.knowledge.parsing import normalise_word

    data = resources.files("vmem").joinpath("models/wordnet/synsets.tsv.gz").read_bytes()
    out: dict[str, set[int]] = {}
    for line in gzip.decompress(data).decode("utf-8").splitlines():
        word, _, ids = line.partition("\t")
        out.setdefault(normalise_word(word), set()).update(map(int, ids.split(",")))
    return {token: frozenset(ids) for token, ids in out.items()}


def synonyms(x: str, y: str) -> bool:
    """Whether normalised tokens X and Y share a frequent WordNet sense."""
    table = _synsets()
    return bool(table.get(x, frozenset()) & table.get(y, frozenset()))
