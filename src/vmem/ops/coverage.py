"""Recall's coverage as measured features of a question and its hits (issue 44): what `scripts/fit_coverage.py`
fits a multinomial logistic regression on and measures file by file.

Every feature is read from what recall already has for a question: the ranked live hits (cosine, normalised
BM25, the share of topic words, confidence, a near-exact match), the closest item that is no longer live, how many
items in review are close, and the asks (ops/asks.py): parts, details, qualifiers, codes, the subject and the
customer a question names, each as asked / left open by the three closest live hits. Plain Python over a handful
of short strings: deterministic, microseconds to a millisecond.
"""

from __future__ import annotations

import re

from vmem.ops import asks as A

NAMES = (
    "cos1", "cos_max3", "gap12", "lex1", "terms1", "named1", "named3", "conf1", "exact1", "close_hits",
    "parts", "parts_open", "sides_open", "details", "details_open", "phrases_open", "qualifiers", "qualifiers_open",
    "codes", "codes_open", "customer_open", "subject_open", "count_open",
    "stale_best", "stale_over_live", "awaiting", "words", "topic_words", "scoped", "names_customer", "historical",
    "yes_no",
)
MEANINGS = {  # each feature in a few words (the weights table's comments)
    "cos1": "cosine of the first live hit", "cos_max3": "best cosine of the first three",
    "gap12": "first cosine minus the second", "lex1": "first hit's BM25 / the best BM25",
    "terms1": "share of topic words the first hit holds", "named1": "the same, a typo allowed",
    "named3": "share the first three name, a typo allowed", "conf1": "first hit's effective confidence",
    "exact1": "first hit near-exact", "close_hits": "hits with cosine >= 0.5, of 5",
    "parts": "parts asked beyond one", "parts_open": "share of parts no hit answers",
    "sides_open": "'X and Y' with one side unanswered", "details": "details asked (how long, which table...)",
    "details_open": "details asked, none stated", "phrases_open": "'which FX rate table': narrowing unnamed",
    "qualifiers": "qualifiers asked (worst case, segment...)", "qualifiers_open": "qualifiers asked, not stated",
    "codes": "codes named (P4, CSAT)", "codes_open": "codes no hit names",
    "customer_open": "customer named, no hit on it",
    "subject_open": "the question's subject, no hit names it", "count_open": "'how many X', no count of X",
    "stale_best": "cosine of the closest item no longer live", "stale_over_live": "how far it is above the first live",
    "awaiting": "items in review this close (up to 3)", "words": "words in the question",
    "topic_words": "its words less a customer's name", "scoped": "asked in a customer's scope",
    "names_customer": "names a customer", "historical": "asks about the past", "yes_no": "a yes/no question",
}
TYPO_LETTERS = 5  # a topic word this long may be matched with a typo: one edit in 5-9 letters, two from 10
TYPO_SIMILARITY = 0.8
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|should|has|have|will|would)\b", re.I)
_STEM = 6  # recall's term share: a form sharing the first six letters counts


STOP_WORDS = frozenset("""a an the and or but of to in on at by for with from as is are was were be been it its this
that these those do does did how what which who whom when where why can could should would may might must will
shall we our us i my me you your they their them he she his her there here than then so if not no any all each
""".split())
_WORD = re.compile(r"\w+")


def query_words(text: str) -> list[str]:
    """Lower-case words with a plural -s dropped (not -ss): enough to compare a question with a statement."""
    return [w[:-1] if len(w) > 3 and w[-1] == "s" and w[-2] != "s" else w for w in _WORD.findall(text.lower())]


def _similar(word: str, candidates: list[str]) -> bool:
    """Whether WORD is one of CANDIDATES up to a typo: normalised Levenshtein similarity >= TYPO_SIMILARITY (as
    rapidfuzz's Levenshtein.normalized_similarity, which a test holds this to), lengths at most two apart. Plain
    Python with an early exit: a one-shot recall does not import rapidfuzz (~20 ms) for a few short words."""
    for c in candidates:
        longer = max(len(c), len(word))
        allowed = int(longer * (1 - TYPO_SIMILARITY) + 1e-9)  # 1 edit in 5-9 letters, 2 in 10-14
        if abs(len(c) - len(word)) <= min(2, allowed) and _distance_at_most(word, c, allowed):
            return True
    return False


def _distance_at_most(a: str, b: str, bound: int) -> bool:
    """Whether the Levenshtein distance of A and B is at most BOUND (rows of the table, stopped once every cell of a
    row exceeds it)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        if min(current) > bound:
            return False
        previous = current
    return previous[-1] <= bound


def named_share(topic: list[str], texts: list[str]) -> float:
    """The share of the question's TOPIC words that TEXTS (together) name: the word, a form sharing its first six
    letters, or for a word of five letters or more the word with a typo ("reconcilation")."""
    content = list(dict.fromkeys(w for w in topic if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())))
    if not content:
        return 0.0
    found = set(query_words(" ".join(texts)))
    stems = {w[:_STEM] for w in found if len(w) >= _STEM}
    long_words = [w for w in found if len(w) >= TYPO_LETTERS]
    named = 0
    for w in content:
        if w in found or (len(w) >= _STEM and w[:_STEM] in stems):
            named += 1
        elif len(w) >= TYPO_LETTERS and _similar(w, long_words):
            named += 1
    return named / len(content)


def ask_counts(question: str, hits: list[dict], entity_names: list[str] = ()) -> dict:
    """What the question asks and how much of it the live HITS leave open, as counts (assess's tests, one by one)."""
    asks = A.read(question)
    texts = [" ".join(filter(None, [h.get("title"), h["statement"]])) for h in hits]
    hit_words = [A.words(t) for t in texts]
    out = {"parts": len(asks.parts) - 1, "parts_open": 0.0, "sides_open": 0, "details": 0, "details_open": 0,
           "phrases_open": 0, "qualifiers": 0, "qualifiers_open": 0, "codes": 0, "codes_open": 0,
           "customer_open": 0, "subject_open": 0, "count_open": 0}
    if len(asks.parts) > 1:
        open_parts = [p for p, w in zip(asks.parts, asks.part_words) if not any(A.answered_part(w, h)
                                                                                 for h in hit_words)]
        out["parts_open"] = len(open_parts) / len(asks.parts)
    for left, right in A.COORDINATED.findall(question.lower()):
        sides = [A.words(left), A.words(right)]
        if all(sides):
            held = [any(A.stems(side) & A.stems(w) for w in hit_words) for side in sides]
            out["sides_open"] += held.count(True) == 1
    for counted_noun in A.HOW_MANY.findall(question.lower()):
        noun = A.noun_counted(*counted_noun)
        if noun and "duration" not in asks.details:
            counted = re.compile(rf"(?:\d[\d.,]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|"
                                 rf"thirty|hundred))\s*(?:[a-z-]+\s+){{0,2}}{re.escape(noun[:5])}", re.I)
            out["count_open"] += not any(counted.search(t) for t in texts)
    codes = list(dict.fromkeys(A.ASKED_CODE.findall(question)))
    out["codes"] = len(codes)
    out["codes_open"] = sum(not any(A.names_code(c, t) for t in texts) for c in codes)
    for part, part_words in zip(asks.parts, asks.part_words):
        on_part = [t for t, w in zip(texts, hit_words) if A.answered_part(part_words, w)] or texts
        asked = A.read(part + "?") if len(asks.parts) > 1 else asks
        out["details"] += len(asked.details)
        out["details_open"] += sum(not any(A.states_detail(d, t, question) for t in on_part) for d in asked.details)
        out["phrases_open"] += sum(not any(A.stems(m) & A.stems(A.loose_words(t)) for t in on_part)
                                   for _, _, m in A.asked_phrases(part))
        out["qualifiers"] += len(asked.qualifiers)
        out["qualifiers_open"] += len(A.qualifiers_open(part, asked.qualifiers, on_part))
    for name in A.customers(question, list(entity_names)):
        first = name.split("-")[0]
        out["customer_open"] += not any(h.get("scope") == f"entity:{name}" or re.search(
            rf"(?<![\w-]){re.escape(first)}(?![\w-])", t, re.I) for h, t in zip(hits, texts))
    about, whole = A.subject_of(question) or (None, False)
    if about and about.split()[-1] not in {c.lower() for c in codes} and not A.names(about, texts, whole):
        out["subject_open"] = 1
    return out


def features(question: str, live: list[dict], *, stale_best: float = 0.0, awaiting: int = 0,
             scoped: bool = False, entity_names: list[str] = (), hits: int = 3) -> list[float]:
    """The feature vector (in the order of NAMES) of QUESTION and its ranked LIVE hits (recall's result rows),
    STALE_BEST the cosine of the closest item no longer live (0.0: none), AWAITING how many items in review are
    close, SCOPED whether it is asked in a customer's scope."""
    top = live[:hits]
    cos = [r["cosine"] for r in live]
    cos1 = cos[0] if cos else 0.0
    named = {w for name in A.customers(question, list(entity_names)) for w in name.split("-")}
    topic = [w for w in query_words(question) if w not in named]
    texts = [" ".join(filter(None, [r.get("title"), r["statement"]])) for r in top]
    counts = ask_counts(question, top, entity_names) if top else {k: 0 for k in NAMES[10:23]}
    values = {
        "cos1": cos1, "cos_max3": max(cos[:hits], default=0.0),
        "gap12": cos1 - (cos[1] if len(cos) > 1 else 0.0), "lex1": live[0]["lexical"] if live else 0.0,
        "terms1": live[0].get("terms", 0.0) if live else 0.0,
        "named1": named_share(topic, texts[:1]) if top else 0.0, "named3": named_share(topic, texts) if top else 0.0,
        "conf1": live[0]["confidence"] if live else 0.0, "exact1": float(bool(live and live[0].get("exact"))),
        "close_hits": min(sum(c >= 0.5 for c in cos), 5) / 5,
        **{k: float(v) for k, v in counts.items()},
        "stale_best": stale_best, "stale_over_live": max(0.0, stale_best - cos1),
        "awaiting": float(min(awaiting, 3)), "words": float(len(query_words(question))),
        "topic_words": float(len(topic)), "scoped": float(scoped), "names_customer": float(bool(named)),
        "historical": float(bool(A.HISTORICAL.search(question))), "yes_no": float(bool(_YES_NO.match(question))),
    }
    return [float(values[n]) for n in NAMES]


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
