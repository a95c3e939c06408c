"""vmem recall: scoped hybrid retrieval (BM25 + cosine, relevance first, confidence as a bounded prior) that
says when it does not know.

Scope soundness comes first and is decided before any ranking: an entity scope sees live claims scoped to
that entity, live org claims visible to the audience, and published knowledge; nothing else, ever. Personal
items are never returned; superseded and expired ones only with --include-superseded (and then marked).
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from vmem import confidence, model
from vmem.errors import UsageError
from vmem.ops.scope import Scope, codes  # recall's vocabulary too: callers and tests say recall.Scope
from vmem.ops.asks import NONE
from vmem.ops.coverage import STOP_WORDS, query_words

if TYPE_CHECKING:  # a one-shot recall on a current index never opens the repository (recall_current)
    from vmem.store.repo import Store

DEPTH = 200  # candidates from each ranker before fusion
SHORTLIST = 50  # the most relevant candidates that the confidence prior and the exactness check look at
# Ranking and coverage constants, fitted by scripts/tune_recall.py on the `split: tune` questions of
# examples/eval/recall.yaml only (the held-out ones measure them; see docs/recall.md). The tune split alone would take a
# confidence weight of 0.2 (by one question); it is capped at 0.1 by design.
COSINE_WEIGHT = 0.5
CONFIDENCE_WEIGHT = 0.1  # reviewed 0.7 vs verified 0.95: a prior worth 0.025 of relevance
EXACT_BONUS = 1.0
EXACT_AMONG = 10  # near-exact statements are looked for among the 10 most relevant (and any with cosine >= 0.8)
NEAR_EXACT_WORDS = 5
NEAR_EXACT_JACCARD = 0.8
COVERED_COSINE = 0.60
PARTIAL_COSINE = 0.55
# with cosine >= PARTIAL_COSINE: this share of the question's content words. 0.6 before the near-miss tests (a
# customer or subject the hits never name: ops/asks.near_miss) guarded `covered`; refitted with them by
# `scripts/tune_recall.py STORE --coverage` on the tune halves of both labeled files (sum of per-label accuracy)
COVERED_TERMS = 0.4
# (the hand rules these thresholds were fitted for decided the label before the fitted table, ops/coverage.py;
# PARTIAL_COSINE and COVERED_TERMS still pick the hits the asks are read in, and the cosines the stale answer's bar)
STALE_LOOKED_AT = 5  # the closest no-longer-live items looked at for "we used to know"
STALE_AMONG = 10  # the coverage decision weighs the closest no-longer-live item if it is among the 10 closest
FEATURE_HITS = 10  # the hits the coverage decision reads (as many as the eval's -k it was fitted at), whatever -k asks
ASK_HITS = 3  # the live hits a covered answer rests on: what the question asks is looked for in them


def _mask(index, scope: Scope, include_stale: bool, now: float, columns: dict | None = None):
    """The same rule, vectorised over the index's columns (or COLUMNS, some of its rows')."""
    import numpy as np

    c = index.columns if columns is None else columns
    present = c["present"] == 1
    entity_code, group_code = codes(index, scope)
    audience_ok = (c["audience"] == 0) | (c["audience"] == group_code)
    scope_ok = (c["knowledge"] == 1) | (c["scope"] == 0) | (c["scope"] == entity_code)
    started = np.isnan(c["valid_from"]) | (c["valid_from"] <= now)
    not_ended = np.isnan(c["valid_to"]) | (c["valid_to"] > now)
    not_expired = np.isnan(c["expires"]) | (c["expires"] > now) | (c["knowledge"] == 1)
    live = (c["servable"] == 1) & started & not_ended & not_expired
    if index.lexicon_since is not None:  # the lexicon broke: hold back knowledge published since (SPEC 11)
        live = live & ~((c["knowledge"] == 1) & ~(c["published_seq"] < index.lexicon_since))
    if include_stale:
        expired_servable = (c["servable"] == 1) & ~not_expired
        live = live | (c["stale"] == 1) | expired_servable
    return present & live & audience_ok & scope_ok & (c["personal"] == 0)


def _visible(index, scope: Scope, include_stale: bool, now: float):
    """_mask's rule one row at a time, in plain Python, for a light index (a one-shot recall, no numpy): a function
    row -> whether the caller may be served it. Term by term the same as _mask (NaN: no bound), and a property test
    holds the two to it on random columns (tests/test_recall_fast.py)."""
    c = index.columns
    present, personal, servable, stale = c["present"], c["personal"], c["servable"], c["stale"]
    knowledge, scope_of, audience = c["knowledge"], c["scope"], c["audience"]
    valid_from, valid_to, expires, published = c["valid_from"], c["valid_to"], c["expires"], c["published_seq"]
    entity_code, group_code = codes(index, scope)
    since = index.lexicon_since

    def visible(row: int) -> bool:
        if present[row] != 1 or personal[row] != 0 or audience[row] not in (0, group_code):
            return False
        is_knowledge = knowledge[row] == 1
        if not (is_knowledge or scope_of[row] in (0, entity_code)):
            return False
        start, end, expiry = valid_from[row], valid_to[row], expires[row]
        not_expired = expiry != expiry or expiry > now or is_knowledge  # x != x: NaN, no bound
        live = (servable[row] == 1 and (start != start or start <= now) and (end != end or end > now)
                and not_expired)
        if since is not None and is_knowledge and not published[row] < since:
            live = False  # the lexicon broke: knowledge published since is held back (SPEC 11)
        if include_stale:
            live = live or stale[row] == 1 or (servable[row] == 1 and not not_expired)
        return live

    return visible


def _allowed(index, qv, who: Scope, include_stale: bool, now: float):
    """(the rows the caller may be served, their cosines to QV, every row's cosine or None when only the caller's
    blocks were multiplied)."""
    import numpy as np

    from vmem.index.local import dot

    blocks = None if include_stale else index.blocks(now)
    if blocks is None:
        product = dot(index.vectors, qv)  # every row, then mask: cheaper than gathering the allowed rows first
        rows = np.flatnonzero(_mask(index, who, include_stale, now))
        return rows, product[rows], product
    rows, values, columns = blocks.take(codes(index, who)[0], qv)
    keep = _mask(index, who, include_stale, now, columns)
    return rows[keep], values[keep], None


def _nearest(rows, values, depth: int):
    """Positions of the DEPTH highest VALUES, best first; equal values by row, so the set never depends on the
    order the rows were multiplied in."""
    import numpy as np

    if values.size > depth:
        edge = values[np.argpartition(-values, depth - 1)[depth - 1]]
        above = np.flatnonzero(values > edge)
        tied = np.flatnonzero(values == edge)
        best = np.concatenate([above, tied[np.argsort(rows[tied], kind="stable")][:depth - above.size]])
    else:
        best = np.arange(values.size)
    return best[np.lexsort((rows[best], -values[best]))]


def _nearest_visible(values: list[float], visible, depth: int) -> list[int]:
    """_nearest in plain Python over every row's VALUES: the rows of the DEPTH highest values among the VISIBLE
    ones, best first, equal values by row. One sort of every row (10k: ~3 ms; faster here than a heap or a
    widening threshold, as a fifth of the rows may be visible), the rule checked only until DEPTH are found."""
    best = []
    for row in sorted(range(len(values)), key=values.__getitem__, reverse=True):  # stable: equal values by row
        if visible(row):
            best.append(row)
            if len(best) == depth:
                break
    return best


def _ranked(index, qv, who: Scope, include_stale: bool, now: float):
    """(the DEPTH nearest rows WHO may be served, best first; row -> its cosine, or None if WHO may not be served
    it; every row's cosine, or None when only WHO's blocks were multiplied), vectorised with numpy."""
    import numpy as np

    rows, values, product = _allowed(index, qv, who, include_stale, now)
    if rows.size == 0:
        return [], None, product
    best = _nearest(rows, values, min(DEPTH, rows.size))
    position = np.full(len(index.order), -1, dtype=np.int64)  # row -> where it is in ROWS (-1: not allowed)
    position[rows] = np.arange(rows.size)

    def cosine(row: int) -> float | None:
        at = position[row]
        return float(values[at]) if at >= 0 else None

    return rows[best].tolist(), cosine, product


def _ranked_visible(index, qv, who: Scope, include_stale: bool, now: float):
    """_ranked for a light index, in plain Python: the same kernel's cosines, the same rule, the same order."""
    from vmem.index.local import products

    values = products(index.vectors, qv).tolist()
    visible = _visible(index, who, include_stale, now)

    def cosine(row: int) -> float | None:
        return values[row] if visible(row) else None

    return _nearest_visible(values, visible, DEPTH), cosine, values


def recall(store: Store, query: str, *, scope: str | None = None, audience: str | None = None,
           as_of: str | None = None, include_superseded: bool = False, k: int = 5, embed=None,
           progress=None) -> dict:
    query = (query or "").strip()
    if not query:
        raise UsageError("the query is empty", 'ask something: vmem recall "how is ARR defined"')
    if k < 1:
        raise UsageError("-k must be at least 1", "e.g. -k 5")
    who = Scope.parse(scope, audience)
    if not as_of:
        who.check_entity(store.head())  # as of a date: the past tree, in _recall_as_of
    from vmem.embed import embedder

    embed = embed or embedder(store.policy, store.root)
    if as_of:
        return _recall_as_of(store, query, who, as_of, include_superseded, k, embed)
    from vmem.index.local import LocalIndex

    index = LocalIndex.open(store, embed, model_id=str(embed.path), progress=progress)
    return search(index, query, who, include_superseded, k, embed)


def recall_current(root: Path, query: str, *, scope: str | None = None, audience: str | None = None,
                   k: int = 5) -> dict | None:
    """recall() for a one-shot process, without numpy: HEAD read from .git, the index read without pygit2 (and
    caught up on a git-read store when a small change behind HEAD, as right after a commit), the entity checked with
    one `git ls-tree`. None whenever that cannot be decided so simply (no index, a big change, a model other than
    the bundled one, an unknown entity): the caller takes recall()."""
    from vmem.embed import bundled_model_dir, embedder, model_dir
    from vmem.index.local import LocalIndex, recorded
    from vmem.store import committed
    from vmem.store.served import head_commit

    query = (query or "").strip()
    if not query or k < 1:
        return None
    commit = head_commit(root)
    info = recorded(root)
    # the index records the model that its commit's vmem.yaml chose; only the bundled one is known without reading
    # it (and a light catch-up checks that HEAD's still chooses it)
    if commit is None or info is None or info.get("model") != str(bundled_model_dir()):
        return None
    who = Scope.parse(scope, audience)
    if who.entity is not None and not committed.has_file(root, model.entity_path(who.entity)):
        return None
    embed, store = embedder(), None
    if info["commit"] != commit:  # behind (right after a commit): caught up on a git-read store, if HEAD's
        from vmem.store.repo import Store  # vmem.yaml still chooses the bundled model

        store = Store.open(root, lite=True)
        if model_dir(store.policy, root) != bundled_model_dir():
            return None
    index = LocalIndex.open_current(root, commit, info["model"], store, embed)
    if index is None:
        return None
    qv = embed.query(query, light=True)  # None: this question needs the tokenizers library
    if qv is None or (index.order and len(qv) != index._dims):
        return None
    return search(index, query, who, False, k, embed, qv)


def search(index, query: str, who: Scope, include_stale: bool, k: int, embed, qv=None) -> dict:
    """The answer from an open index: numpy over a long-lived one, plain Python over a light one (a one-shot
    process); both take the question's vector from embed.query (or QV, computed by it) and the cosines from one
    kernel, so they give the same answer."""
    now = time.time()
    if not index.order:
        return {"coverage": "uncovered", "coverage_reason": None, "missing": [], "stale": [], "results": [],
                "awaiting_review": 0}
    qv = embed.query(query) if qv is None else qv
    ranked, cosine, product = (_ranked_visible if index.light else _ranked)(index, qv, who, include_stale, now)
    if not ranked:
        from vmem.ops.pending import awaiting_review

        return {"coverage": "uncovered", "coverage_reason": None, "missing": [], "stale": [], "results": [],
                "awaiting_review": awaiting_review(index, qv, who, product)}
    vector_rank = [index.order[r] for r in ranked]
    known = known_customers(index)
    lexical = [(i, s) for i, s in index.bm25(_named_in_full(query, known), DEPTH)
               if i in index.rows and cosine(index.rows[i]) is not None]
    candidates = set(vector_rank) | {i for i, _ in lexical}
    cosine_of = {i: cosine(index.rows[i]) for i in candidates}
    from vmem.ops.pending import awaiting_review

    # what the coverage decision weighs besides the hits: items in review this close, the closest one no longer live
    waiting = awaiting_review(index, qv, who, product)
    live_top = ranked if not include_stale else (_ranked_visible if index.light else _ranked)(
        index, qv, who, False, now)[0]
    result = _fuse(index.items, vector_rank, lexical, cosine_of, k, at=datetime.fromtimestamp(now, timezone.utc),
                   stale_ok=include_stale, query=query, entity_names=known, awaiting=waiting,
                   stale_best=_stale_best(index, qv, who, now, live_top, product))
    # say so when the answer exists but is still unreviewed (issue 13); asked only when nothing reviewed answers
    result["awaiting_review"] = waiting if result["coverage"] == "uncovered" else None
    result["stale"] = []
    from vmem.ops.asks import HISTORICAL

    historical = bool(HISTORICAL.search(query))  # "before pricing v3, how long …": the past may be the answer
    if (result["coverage"] != "covered" or historical) and not include_stale:
        _used_to_know(index, qv, who, now, result, historical)
    return result


def _stale_best(index, qv, who: Scope, now: float, live_top: list[int], product) -> float:
    """The cosine of the closest item the caller's scope holds that is no longer live (superseded, expired), when
    it is among the STALE_AMONG closest of the live ones and it (0.0 otherwise): a feature of the coverage decision.
    LIVE_TOP: the live rows, best first; PRODUCT: every row's cosine, when the caller has it (a light index)."""
    if index.light:
        live, held = _visible(index, who, False, now), _visible(index, who, True, now)
        ranked_live = [(product[row], row) for row in live_top[:STALE_AMONG]]
        edge = ranked_live[-1][0] if len(ranked_live) == STALE_AMONG else float("-inf")
        stale = [(v, row) for row, v in enumerate(product) if v >= edge and held(row) and not live(row)]
    else:
        import numpy as np

        rows, values, _ = _allowed(index, qv, who, True, now)
        alive = _mask(index, who, False, now)[rows]
        stale = list(zip(values[~alive].tolist(), rows[~alive].tolist()))
        order = np.lexsort((rows[alive], -values[alive]))[:STALE_AMONG]
        ranked_live = list(zip(values[alive][order].tolist(), rows[alive][order].tolist()))
    if not stale:
        return 0.0
    value, row = min(stale, key=lambda s: (-s[0], s[1]))  # the closest; equal cosines by row, as _nearest orders
    ahead = sum(1 for v, r in ranked_live if v > value or (v == value and r < row))
    return float(value) if ahead < STALE_AMONG else 0.0


def _used_to_know(index, qv, who: Scope, now: float, result: dict, historical: bool = False) -> None:
    """"We used to know": when nothing live answers well (or the question asks about the past), the items no
    longer live (superseded, expired) that answered better than any live one (for a question about the past: that
    answer it at all), named with why they are not served -- never their words (SPEC 8)."""
    ranked, cosine, _ = (_ranked_visible if index.light else _ranked)(index, qv, who, True, now)
    live_best = max((r["cosine"] for r in result["results"] if not r.get("stale")), default=0.0)
    bar = PARTIAL_COSINE if historical else COVERED_COSINE
    at = datetime.fromtimestamp(now, timezone.utc)
    for row in ranked[:STALE_LOOKED_AT]:
        value = cosine(row)
        if value is None or value < bar or (value <= live_best and not historical):
            break
        item = index.items[index.order[row]]
        if item["status"] not in model.STALE and confidence.is_live(item, at):
            continue  # live: already weighed
        why = (f"superseded by {item['superseded_by']}" if item.get("superseded_by") else
               f"expired on {str(item['expires_at'])[:10]}" if item.get("expires_at") and not confidence.is_live(
                   item, at) and item["status"] in model.SERVABLE[item["kind"]] else f"{item['status']}")
        result["stale"].append({"id": item["id"], "kind": item["kind"], "status": item["status"], "why": why,
                                "cosine": round(value, 4)})
    if result["stale"] and result["coverage"] != "covered":  # (the label is the coverage decision's: kept)
        first = result["stale"][0]
        said = result.get("coverage_reason") if result.get("missing") else None  # what the asks found open stays said
        result["coverage_reason"] = (f"the answer the store had is not live: {first['id']} ({first['why']})"
                                     + (f"; {len(result['stale']) - 1} more" if len(result["stale"]) > 1 else "")
                                     + (f"; {said}" if said else ""))
        if not result["missing"]:
            result["missing"] = [f"what {first['id']} said ({first['why']})"]


def _named_in_full(query: str, known: Mapping[str, list[str]]) -> str:
    """QUERY with the name of each customer it calls by something else ("MRDL", "F&S") after it, for the lexical
    search: the items say "Meridale Capital"."""
    from vmem.ops.asks import customers

    full = [known[name][0] for name, called in customers(query, known).items() if known[name] and
            called.lower() not in known[name][0].lower()]
    return " ".join([query, *full])


def known_customers(index) -> dict[str, list[str]]:
    """Each customer of INDEX's store (entities/ at its commit, and any scope its items use) with its name and
    aliases: how a question may name it."""
    return {name: index.entity_aliases.get(name, []) for name in sorted({*index.entity_names, *index.entity_aliases})}


def _fuse(items: dict, vector_rank: list[str], lexical: list[tuple[str, float]], cosine_of: dict, k: int,
          at: datetime, stale_ok: bool, query: str = "", entity_names: Mapping[str, list[str]] = NONE, awaiting: int = 0,
          stale_best: float = 0.0) -> dict:
    """Relevance first; confidence only as a bounded prior; an exact or near-exact statement first.

    relevance = COSINE_WEIGHT * cosine + (1 - COSINE_WEIGHT) * bm25 / best bm25 of the query, both measured, not
    ranks (rank fusion flattens a clear lexical winner into a near-tie that any trust weight then decides).
    score = relevance + CONFIDENCE_WEIGHT * effective confidence (+ EXACT_BONUS for a near-exact statement), so
    confidence decides between answers within about CONFIDENCE_WEIGHT * 0.5 of each other and never buries a
    clearly better one.

    The coverage label is the fitted table's (ops/coverage.py: features of the question, its hits, AWAITING items
    in review this close, STALE_BEST the closest one no longer live, SCOPED to a customer); what is missing is read
    from what the question asks (ops/asks.py), and said in words."""
    top = max((score for _, score in lexical), default=0.0) or 1.0
    lex = {item_id: score / top for item_id, score in lexical}
    relevance = {i: COSINE_WEIGHT * cosine_of.get(i, 0.0) + (1 - COSINE_WEIGHT) * lex.get(i, 0.0)
                 for i in set(vector_rank) | set(lex)}
    ranked = sorted(relevance, key=lambda i: (-relevance[i], i))[:max(SHORTLIST, 4 * k)]
    # the prior adds at most CONFIDENCE_WEIGHT: nothing less relevant than the k-th by more than that can overtake
    # it, unless it is a near-exact statement (looked for among the first EXACT_AMONG and the very close)
    # (counted to FEATURE_HITS at least: the coverage decision reads as many, and the first k stay the same)
    floor = relevance[ranked[min(max(k, FEATURE_HITS), len(ranked)) - 1]] - CONFIDENCE_WEIGHT if ranked else 0.0
    shortlist = [i for n, i in enumerate(ranked) if n < EXACT_AMONG or relevance[i] >= floor
                 or cosine_of.get(i, 0.0) >= 0.8]
    words = query_words(query)
    # a customer's name says where the question is asked about, not what: it is no topic word ("who owns the renewal
    # at Ashgrove" shares no topic with a claim on Ashgrove's fiscal year)
    from vmem.ops.asks import customers

    named = {w for name, called in customers(query, entity_names).items()
             for w in [*name.split("-"), *query_words(called)]}
    topic = [w for w in words if w not in named]
    scored = []
    for n, item_id in enumerate(shortlist):
        item = items[item_id]
        conf = confidence.effective_confidence(item, at)
        # a near-exact statement is among the most relevant, or at least very close in meaning
        exact = (n < EXACT_AMONG or cosine_of.get(item_id, 0.0) >= 0.8) and _near_exact(words, item)
        scored.append((relevance[item_id] + CONFIDENCE_WEIGHT * conf + (EXACT_BONUS if exact else 0.0), conf,
                       exact, item_id))
    scored.sort(key=lambda s: (-s[0], s[3]))
    results = []
    for score, conf, exact, item_id in scored[:max(k, FEATURE_HITS)]:  # the decision reads as many, whatever k
        item = items[item_id]
        row = {"id": item_id, "kind": item["kind"], "title": item.get("title"), "statement": item["statement"],
               "scope": item.get("scope") or "org", "status": item["status"], "score": round(score, 5),
               "confidence": conf, "cosine": round(cosine_of.get(item_id, 0.0), 4),
               "lexical": round(lex.get(item_id, 0.0), 4), "terms": round(_term_share(topic, item), 4)}
        if exact:
            row["exact"] = True
        if item["kind"] == "knowledge":
            row["scope"] = "org"
            row["support_tier"] = confidence.support_tier(item, {"emerging": 3, "established": 5, "extensive": 10})
        if stale_ok and (item["status"] in model.STALE or not confidence.is_live(item, at)):
            row["stale"] = True
        results.append(row)
    live = [r for r in results if not r.get("stale")]
    if not live:
        return {"coverage": "uncovered", "coverage_reason": None, "missing": [], "results": results[:k]}
    from vmem.ops import coverage as learned
    from vmem.ops.asks import assess

    label = learned.label(learned.features(query, live, stale_best=stale_best, awaiting=awaiting,
                                           entity_names=entity_names))
    # what the question asks that the closest on-topic live answers leave open (or the subject, customer or code
    # they miss: `elsewhere`), in words; the label above decides whether that makes the answer partial or none
    on_topic = [r for r in live[:ASK_HITS] if r["cosine"] >= PARTIAL_COSINE or r.get("terms", 0.0) >= COVERED_TERMS]
    missing, reason, gap = assess(query, on_topic or live[:1], entity_names)
    if label == "covered" and gap == "elsewhere":
        # the answers are about another customer, code or subject than the one asked: however close their words,
        # that is a veto, never a weight (the table weighs it; a strong cosine must not outvote it)
        label = "uncovered"
    elif label == "covered" and gap == "side":
        # a part, or one of two things asked together, that no live answer holds: whatever the weights say, the
        # question is answered in part
        label = "partial"
    elif label == "covered":
        missing, reason = [], None
    elif label == "partial" and not missing:
        reason = "the closest live answer is related to the question, not close enough to answer it"
    elif label == "partial" and gap == "elsewhere":  # a code or subject no hit names, the rest answered: that part
        # is open
        reason = "the live answers leave part of the question open: " + "; ".join(missing)
    elif label == "uncovered" and missing and gap != "elsewhere":
        reason = "nothing live answers it well enough; open: " + "; ".join(missing)
    return {"coverage": label, "coverage_reason": reason, "missing": missing, "results": results[:k]}




def _near_exact(words: list[str], item: dict) -> bool:
    """The query is the statement (or one of its clauses) nearly word for word: at least five words, and either
    a run of the statement or its words with at most a fifth changed either way."""
    if len(words) < NEAR_EXACT_WORDS:
        return False
    statement = query_words(item["statement"])
    joined, run = " " + " ".join(statement) + " ", " " + " ".join(words) + " "
    if run in joined or joined in run:
        return True
    q, s = set(words), set(statement)
    return len(q & s) / len(q | s) >= NEAR_EXACT_JACCARD


def _term_share(words: list[str], item: dict) -> float:
    """The share of the query's content words that the item's title, statement or categories contain (as the word or
    a form of it)."""
    content = {w for w in words if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())}  # (a possessive's s is none)
    if not content:
        return 0.0
    text = set(query_words(" ".join(filter(None, [item.get("title"), item["statement"],
                                             " ".join(item.get("categories") or [])]))))
    # a word counts when the text holds a form of it sharing its first six letters ("deduplicating", "deduplicate"),
    # or a word it abbreviates ("dash" and "dashboard", "acct" and "account")
    from vmem.ops.asks import abbreviates

    stems = {w[:6] for w in text if len(w) >= 6}
    return sum(w in text or (len(w) >= 6 and w[:6] in stems) or any(abbreviates(w, t) for t in text)
               for w in content) / len(content)


def _dropped(snapshot, state) -> list:
    """Reviewed items a commit without a reviewer removed from SNAPSHOT's tree, as the versions history attests:
    they are served still (SPEC 12)."""
    from types import SimpleNamespace

    from vmem.errors import SchemaError
    from vmem.store import blobs
    from vmem.store.parse import parse_blob

    out = []
    for path in sorted(state.dropped):
        oid = state.serve(path, None)
        kind = "claim" if path.startswith("claims/") else "knowledge"
        try:
            item = parse_blob(kind, path, oid, blobs.read(snapshot, oid)) if oid else None
        except SchemaError:
            item = None
        out.append(SimpleNamespace(path=path, oid=oid, item=item))
    return out


def _recall_as_of(store: Store, query: str, who: Scope, when: str, include_stale: bool, k: int, embed) -> dict:
    """The store as it was: the tree at the last commit before WHEN, and the items valid at WHEN."""
    import numpy as np

    from vmem.ops.when import as_of  # a commit id, an ISO date or a relative phrase (issue 13)

    from vmem.errors import BeforeHistory

    try:
        snapshot, at = as_of(store, when)
    except BeforeHistory as exc:  # an answer, not a failure: the store did not know anything yet
        return {"coverage": "uncovered", "coverage_reason": f"the store began at {exc.first}, after {when}: "
                "nothing was known then", "missing": [], "stale": [], "results": [], "commit": None,
                "awaiting_review": None}
    who.check_entity(snapshot)
    state = store.attestation(snapshot)
    items, waiting = {}, []
    from vmem.store import blobs
    from vmem.store.parse import parse_blob

    for loaded in [*snapshot.items(), *_dropped(snapshot, state)]:
        if loaded.item is None or model.item_path(loaded.item["id"]) != loaded.path:
            continue
        if state.status_of(loaded.path) in model.AWAITING and _in_review(loaded.item, who):
            waiting.append(loaded.item)
        served = state.served_blob(loaded.path, loaded.oid)
        if served != loaded.oid:  # a hand edit of a reviewed text: the reviewed version is the one served
            loaded = type(loaded)(loaded.path, served, parse_blob(loaded.item["kind"], loaded.path, served,
                                                                  blobs.read(snapshot, served)))
        item = {**state.as_served(loaded.path, loaded.item),
                "status": state.status_of(loaded.path) or "unattested"}  # as history attests it
        if item["status"] == "published" and not state.servable(loaded.path, "knowledge"):
            continue
        if who.admits(item, include_stale, at):
            items[item["id"]] = item
    from vmem.index.local import item_meta, item_text

    if not items:
        return {"coverage": "uncovered", "coverage_reason": None, "missing": [], "stale": [], "results": [],
                "commit": snapshot.commit_id, "awaiting_review": _waiting_then(waiting, query, embed)}
    ids = sorted(items)

    metas = {i: item_meta(items[i]) for i in ids}
    vectors = embed([item_text(metas[i]) for i in ids])
    cosines = vectors @ np.frombuffer(embed.query(query), dtype=np.float32)
    order = np.argsort(-cosines)[:DEPTH]
    words = set(re.findall(r"\w+", query.lower()))
    overlap = sorted(((len(words & set(re.findall(r"\w+", item_text(metas[i]).lower()))), i) for i in ids),
                     key=lambda x: (-x[0], x[1]))
    lexical = [(i, float(n)) for n, i in overlap if n > 0][:DEPTH]
    entity_names = {entity_id: [entity["name"], *(entity.get("aliases") or [])]
                    for entity_id, entity in sorted(snapshot.entities().items())}
    then_waiting = _waiting_then(waiting, query, embed)
    result = _fuse(metas, [ids[r] for r in order], lexical, {ids[r]: float(cosines[r]) for r in range(len(ids))},
                   k, at=at, stale_ok=include_stale, query=query, entity_names=entity_names, awaiting=then_waiting)
    result["commit"] = snapshot.commit_id
    result["stale"] = []  # (--as-of reads the past as it was: what was live then answers)
    # the same key as today's answer: how many items then in review would have answered, asked only when uncovered
    result["awaiting_review"] = then_waiting if result["coverage"] == "uncovered" else None
    return result


def _in_review(item: dict, who: Scope) -> bool:
    """In WHO's scope and audience and not personal: the rule ops/pending.py applies to the index's columns, for an
    item read from a past tree."""
    audience = item.get("audience")
    return (not item.get("personal") and audience in (None, "all", who.audience)
            and (item["kind"] == "knowledge" or item.get("scope") in ("org", f"entity:{who.entity}")))


def _waiting_then(waiting: list[dict], query: str, embed) -> int:
    """How many of WAITING (in review at the time asked about) are as close to QUERY as recall counts today."""
    if not waiting:
        return 0
    import numpy as np

    from vmem.index.local import item_meta, item_text
    from vmem.ops.pending import MATCH_COSINE

    vectors = embed([item_text(item_meta(item)) for item in waiting])
    cosines = vectors @ np.frombuffer(embed.query(query), dtype=np.float32)
    return int(np.count_nonzero(cosines >= MATCH_COSINE))
