"""Recall's coverage as measured features of a question and its hits (issue 44): what `scripts/fit_coverage.py`
fits a multinomial logistic regression on and measures file by file.

Every feature is read from what recall already has for a question: the first live hits (cosine, its lead over the
second, the share of topic words, confidence), the closest item that is no longer live, how many items in review are
close, and the asks (ops/asks.py, read after the context a question opens with): its parts, and the details,
qualifiers, codes, subject and customer it asks for that the three closest live hits leave open. The features kept
are the ones that held up leave-one-file-out (scripts/fit_coverage.py). Plain Python over a
handful of short strings: deterministic, microseconds to a millisecond.
"""

from __future__ import annotations

import re
from typing import Mapping

from vmem.ops import asks as A

NAMES = (
    "cos1", "gap12", "terms1", "conf1", "parts", "details_open", "phrases_open", "qualifiers_open", "codes_open",
    "customer_open", "subject_open", "count_open", "stale_best", "awaiting", "historical",
)
MEANINGS = {  # each feature in a few words (the weights table's comments)
    "cos1": "cosine of the first live hit", "gap12": "first cosine minus the second",
    "terms1": "share of topic words the first hit holds", "conf1": "first hit's effective confidence",
    "parts": "parts asked beyond one", "details_open": "details asked (how long, which table...), none stated",
    "phrases_open": "'which FX rate table': narrowing unnamed", "qualifiers_open": "qualifiers asked, not stated",
    "codes_open": "codes no hit names", "customer_open": "customer named, no hit on it",
    "subject_open": "the question's subject, no hit names it", "count_open": "'how many X', no count of X",
    "stale_best": "cosine of the closest item no longer live", "awaiting": "items in review this close (up to 3)",
    "historical": "asks about the past",
}
STOP_WORDS = frozenset("""a an the and or but of to in on at by for with from as is are was were be been it its this
that these those do does did how what which who whom when where why can could should would may might must will
shall we our us i my me you your they their them he she his her there here than then so if not no any all each
""".split())
_WORD = re.compile(r"\w+")


def query_words(text: str) -> list[str]:
    """Lower-case words with a plural -s dropped (not -ss): enough to compare a question with a statement."""
    return [w[:-1] if len(w) > 3 and w[-1] == "s" and w[-2] != "s" else w for w in _WORD.findall(text.lower())]


def ask_counts(question: str, hits: list[dict], entity_names: Mapping[str, list[str]] = A.NONE) -> dict:
    """What the question asks and how much of it the live HITS leave open, as counts (assess's tests, one by one)."""
    asks = A.read(question)
    texts = [" ".join(filter(None, [h.get("title"), h["statement"]])) for h in hits]
    hit_words = [A.words(t) for t in texts]
    out = {"parts": len(asks.parts) - 1, "details_open": 0, "phrases_open": 0, "qualifiers_open": 0,
           "codes_open": 0, "customer_open": 0, "subject_open": 0, "count_open": 0}
    for counted_noun in A.HOW_MANY.findall(question.lower()):
        noun = A.noun_counted(*counted_noun)
        out["count_open"] += bool(noun and "duration" not in asks.details and not A.count_stated(noun, texts))
    out["codes_open"] = sum(not any(A.names_code(c, t) for t in texts)
                            for c in A.asked_codes(question, entity_names))
    for kind, _ in A.part_gaps(question, asks, texts, hit_words):
        out[f"{kind}s_open"] += 1  # details_open, phrases_open, qualifiers_open
    out["customer_open"] = len(A.customers_unanswered(question, hits, texts, entity_names))
    out["subject_open"] = int(A.subject_unnamed(question, texts) is not None)
    return out


def features(question: str, live: list[dict], *, stale_best: float = 0.0, awaiting: int = 0,
             entity_names: Mapping[str, list[str]] = A.NONE, hits: int = 3) -> list[float]:
    """The feature vector (in the order of NAMES) of QUESTION and its ranked LIVE hits (recall's result rows),
    STALE_BEST the cosine of the closest item no longer live (0.0: none), AWAITING how many items in review are
    close."""
    top = live[:hits]
    cos = [r["cosine"] for r in live]
    cos1 = cos[0] if cos else 0.0
    counts = ask_counts(question, top, entity_names) if top else {}
    values = {
        "cos1": cos1, "gap12": cos1 - (cos[1] if len(cos) > 1 else 0.0),
        "terms1": live[0].get("terms", 0.0) if live else 0.0, "conf1": live[0]["confidence"] if live else 0.0,
        **{k: float(v) for k, v in counts.items()},
        "stale_best": stale_best, "awaiting": float(min(awaiting, 3)),
        "historical": float(bool(A.HISTORICAL.search(question))),
    }
    return [float(values.get(n, 0.0)) for n in NAMES]


def label(x: list[float]) -> str:
    """The label the fitted table (ops/coverage_table.py, refitted by scripts/fit_coverage.py) gives feature vector
    X: the largest of the three linear scores over the standardised features (a multinomial logistic regression's
    most probable label)."""
    from vmem.ops.coverage_table import BIAS, LABELS, TABLE

    scores = list(BIAS)
    for name, value in zip(NAMES, x):
        mean, std, *weights = TABLE[name]
        z = (value - mean) / std
        for n, w in enumerate(weights):
            scores[n] += w * z
    return LABELS[max(range(len(LABELS)), key=scores.__getitem__)]
