"""Merge suggestions (SPEC 7.1 step 5): for a statement, the nearest same-category statements the judge did not
refuse for a decisive reason, ranked for a reviewer who decides with one key.

A pair is *refused* when the detectors find a decisive difference where they can see one: a category conflict
always; a number, negation, direction, role, artifact, before/after, modality or cause difference when the two
statements align word for word (the detectors compare aligned words: on a reworded pair their finding says the
words differ, not that the meanings do, so it is no reason to hide the pair from a reviewer). Word order and
unaligned words never refuse: those are exactly the pairs a reviewer is asked about.

Ranking: W_COSINE x embedding cosine + (1 - W_COSINE) x lexical overlap, where lexical overlap is the mean of an
idf-weighted word Jaccard and a word-bigram Jaccard (so reordered word salad ranks below a rewording). The weights
were chosen on the "fit" half of the dev pairs and of PAWS dev (a fixed hash split of pair ids, `split_of`), and
`vmem eval merge` reports the other half apart from it.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable

    import numpy as np

W_COSINE = 0.5  # fitted on the fit half (0.3-1.0 all reached recall@3 >= 0.9 there; 0.5 kept the best recall@1 mix)
W_BIGRAM = 0.5  # share of the bigram Jaccard in the lexical overlap (fit half: PAWS recall@1 0.40 -> 0.58)
SHOWN = 3  # suggestions recorded per item: what a reviewer reads on one card
NEAREST = 30  # nearest by cosine that are scored; a suggestion further away than that is not one
# detectors whose finding, on aligned statements, says the two are not the same
DECISIVE = frozenset({"number", "negation", "direction", "role", "agent", "artifact", "temporal", "modality",
                      "causal"})
ORDER = frozenset({"order"})  # the same words in another order: decisive only when nothing else differs
_WORD = re.compile(r"\w+")


def split_of(pair_id: str) -> str:
    """The fixed half a labeled pair belongs to: "fit" (weights were chosen on it) or "report" (never looked at)."""
    return "fit" if hashlib.sha256(pair_id.encode("utf-8")).digest()[0] % 2 == 0 else "report"


def refusal(a: str, b: str, categories_a: list[str], categories_b: list[str]) -> str | None:
    """The decisive reason A and B are not the same, or None when a reviewer may be asked: a category conflict, a
    decisive finding on statements that align word for word, or one that explains every word they do not share
    (a number or unit, a negation, a direction, the order of roles: detectors.clear_differences)."""
    from vmem.knowledge.detectors import category_conflict, clear_differences, named_differences

    conflict = category_conflict(categories_a, categories_b)
    if conflict:
        return conflict
    found = named_differences(a, b, categories_a, categories_b)
    if any(name == "unaligned" for name, _ in found):
        clear = clear_differences(a, b, categories_a, categories_b, DECISIVE | ORDER)
        return clear[0][1] if clear else None
    return next((reason for name, reason in found if name in DECISIVE), None)


class Ranker:
    """Suggestions among POOL (statements and their categories), given unit-length embedding rows VECTORS."""

    def __init__(self, statements: list[str], categories: list[list[str]], vectors: np.ndarray) -> None:
        from vmem.text import canonicalize

        self.statements, self.categories, self.vectors = statements, [set(c) for c in categories], vectors
        words = [_WORD.findall(canonicalize(s)) for s in statements]
        self._words = [frozenset(w) for w in words]
        self._bigrams = [frozenset(zip(w, w[1:])) for w in words]
        df = Counter(word for seen in self._words for word in seen)
        n = len(statements)
        self._idf = {word: math.log((n + 1) / (count + 0.5)) for word, count in df.items()}

    def lexical(self, i: int, j: int) -> float:
        a, b = self._words[i], self._words[j]
        union = sum(self._idf[w] for w in a | b)
        words = sum(self._idf[w] for w in a & b) / union if union else 0.0
        ba, bb = self._bigrams[i], self._bigrams[j]
        bigrams = len(ba & bb) / len(ba | bb) if ba or bb else 0.0
        return (1 - W_BIGRAM) * words + W_BIGRAM * bigrams

    def suggest(self, i: int, *, k: int = SHOWN, threshold: float = 0.5, among: Callable[[int], bool] | None = None,
                skip: Iterable[int] = ()) -> list[tuple[int, float, float]]:
        """Up to K (row, score, cosine) for row I, best first: rows AMONG allows, not in SKIP, with a category in
        common, cosine at or above THRESHOLD (the blocker's), and no decisive difference."""
        return self.suggest_row(i, self.vectors @ self.vectors[i], k=k, threshold=threshold, among=among, skip=skip)

    def cosines(self, rows: list[int], block: int = 256):
        """(row, its cosines to every statement) for ROWS, one matrix product per BLOCK of rows."""
        for start in range(0, len(rows), block):
            chunk = rows[start:start + block]
            yield from zip(chunk, self.vectors[chunk] @ self.vectors.T)

    def suggest_row(self, i: int, row, *, k: int = SHOWN, threshold: float = 0.5,
                    among: Callable[[int], bool] | None = None, skip: Iterable[int] = (),
                    related: list[tuple[int, str]] | None = None) -> list[tuple[int, float, float]]:
        """suggest, given ROW: the cosines of row I to every statement (a copy is changed). RELATED, when given,
        receives (row, the detector's reason) for each neighbour ranked above the last suggestion that a detector
        refused (at most K): related, never the same."""
        import numpy as np

        row = np.array(row, copy=True)
        row[i] = -2.0
        for j in skip:
            row[j] = -2.0
        near = min(NEAREST, len(row) - 1)
        if near <= 0:
            return []
        top = np.argpartition(-row, near - 1)[:near] if near < len(row) else np.arange(len(row))
        scored = []
        for j in top.tolist():
            cosine = float(row[j])
            if cosine < threshold or not self.categories[i] & self.categories[j] or (among and not among(j)):
                continue
            scored.append((W_COSINE * cosine + (1 - W_COSINE) * self.lexical(i, j), j, cosine))
        scored.sort(key=lambda s: (-s[0], s[1]))
        out: list[tuple[int, float, float]] = []
        for score, j, cosine in scored:
            why = refusal(self.statements[i], self.statements[j], sorted(self.categories[i]),
                          sorted(self.categories[j]))
            if why:
                if related is not None and len(related) < k:
                    related.append((j, why))
                continue
            out.append((j, max(0.0, min(1.0, round(score, 4))), cosine))
            if len(out) >= k:
                break
        return out
