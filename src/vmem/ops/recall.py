"""vmem recall: scoped hybrid retrieval (BM25 + cosine, fused, weighted by confidence) that says when it
does not know.

Scope soundness comes first and is decided before any ranking: an entity scope sees live claims scoped to
that entity, live org claims visible to the audience, and published knowledge; nothing else, ever. Personal
items are never returned; superseded and expired ones only with --include-superseded (and then marked).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone

from vmem import confidence, model
from vmem.errors import ItemNotFound, UsageError
from vmem.names import check_audience
from vmem.store.repo import Store

RRF_K = 60
DEPTH = 200  # candidates from each ranker before fusion
# Coverage thresholds on the best live hit's cosine, calibrated by grid search on examples/eval/recall.yaml
# (66 queries; see README): partial answers are barely separable from full ones by similarity alone.
COVERED_COSINE = 0.60
PARTIAL_COSINE = 0.58
COVERED_CONFIDENCE = 0.30


@dataclass
class Scope:
    entity: str | None
    audience: str

    @classmethod
    def parse(cls, scope: str | None, audience: str | None) -> "Scope":
        entity = None
        if scope not in (None, "", "org"):
            if not scope.startswith("entity:"):
                raise UsageError(f"invalid scope {scope!r}", "use --scope entity:ID (or leave it out for org)")
            entity = model.check_name_id(scope[7:])
        return cls(entity, check_audience(audience or "all"))

    def check_entity(self, snapshot) -> None:
        """An entity scope names an entity of the tree searched: a typo is an error, not an empty answer."""
        if self.entity is not None and snapshot.blob(model.entity_path(self.entity)) is None:
            raise ItemNotFound(f"no entity {self.entity!r} in this store",
                               "check the spelling against entities/, or leave out --scope for org-wide results")

    def admits(self, item: dict, include_stale: bool = False, at: datetime | None = None) -> bool:
        """The one rule (SPEC 8), for an item read from any tree."""
        if item.get("personal"):
            return False
        if item["kind"] == "knowledge":
            if item["status"] == "superseded" and include_stale:
                return item.get("audience") in ("all", self.audience)
            return confidence.is_live(item, at) and item.get("audience") in ("all", self.audience)
        if item.get("audience", "all") not in ("all", self.audience):
            return False
        if item["scope"] != "org" and item["scope"] != f"entity:{self.entity}":
            return False
        if confidence.is_live(item, at):
            return True
        stale = item["status"] in ("superseded", "expired") or (
            item["status"] in ("approved", "mandatory") and confidence.is_expired(item, at))
        return include_stale and stale


def _mask(index, scope: Scope, include_stale: bool, now: float):
    """The same rule, vectorised over the index's columns."""
    import numpy as np

    c = index.columns
    present = c["present"] == 1
    entity_code = index.entity_names.index(scope.entity) + 1 if scope.entity in index.entity_names else -2
    group = scope.audience[6:] if scope.audience.startswith("group:") else None
    group_code = index.group_names.index(group) + 1 if group in index.group_names else -2
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


def search(index, query: str, who: Scope, include_stale: bool, k: int, embed) -> dict:
    import numpy as np

    now = time.time()
    if not index.order:
        return {"coverage": "uncovered", "results": []}
    mask = _mask(index, who, include_stale, now)
    allowed = np.flatnonzero(mask)
    if allowed.size == 0:
        return {"coverage": "uncovered", "results": []}
    qv = embed([query])[0]
    cosines = index.vectors @ qv  # every row (BLAS), then mask: cheaper than gathering the allowed rows first
    cosines[~mask] = -np.inf
    depth = min(DEPTH, allowed.size)
    best = np.argpartition(-cosines, depth - 1)[:depth] if cosines.size > depth else np.arange(cosines.size)
    best = best[np.argsort(-cosines[best])]
    vector_rank = [index.order[b] for b in best if mask[b]]
    lexical = [(i, s) for i, s in index.bm25(query, DEPTH) if i in index.rows and mask[index.rows[i]]]
    candidates = set(vector_rank) | {i for i, _ in lexical}
    cosine_of = {i: float(index.vectors[index.rows[i]] @ qv) for i in candidates}  # only what may be shown
    return _fuse(index.items, vector_rank, lexical, cosine_of, k, at=datetime.fromtimestamp(now, timezone.utc),
                 stale_ok=include_stale)


def _fuse(items: dict, vector_rank: list[str], lexical: list[tuple[str, float]], cosine_of: dict, k: int,
          at: datetime, stale_ok: bool) -> dict:
    fused: dict[str, float] = {}
    for rank, item_id in enumerate(vector_rank):
        fused[item_id] = fused.get(item_id, 0.0) + 1 / (RRF_K + rank + 1)
    for rank, (item_id, _) in enumerate(lexical):
        fused[item_id] = fused.get(item_id, 0.0) + 1 / (RRF_K + rank + 1)
    scored = []
    # confidence weights lie in [0.5, 1]: only the best fused candidates can end in the top k
    shortlist = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:max(50, 4 * k)]
    for item_id, score in shortlist:
        item = items[item_id]
        conf = confidence.effective_confidence(item, at)
        scored.append((score * (0.5 + 0.5 * conf), conf, item_id))
    scored.sort(key=lambda s: (-s[0], s[2]))
    results = []
    for score, conf, item_id in scored[:k]:
        item = items[item_id]
        row = {"id": item_id, "kind": item["kind"], "title": item.get("title"), "statement": item["statement"],
               "scope": item.get("scope") or "org", "status": item["status"], "score": round(score, 5),
               "confidence": conf, "cosine": round(cosine_of.get(item_id, 0.0), 4)}
        if item["kind"] == "knowledge":
            row["scope"] = "org"
            row["support_tier"] = confidence.support_tier(item, {"emerging": 3, "established": 5, "extensive": 10})
        if stale_ok and (item["status"] in ("superseded", "expired") or not confidence.is_live(item, at)):
            row["stale"] = True
        results.append(row)
    return {"coverage": classify(results), "results": results}


def classify(results: list[dict]) -> str:
    """covered: a strong, confident hit; partial: relevant but weak or unconfident; uncovered: nothing reliable."""
    live = [r for r in results if not r.get("stale")]
    if not live:
        return "uncovered"
    best = max(live, key=lambda r: r["cosine"])
    if best["cosine"] >= COVERED_COSINE and best["confidence"] >= COVERED_CONFIDENCE:
        return "covered"
    if best["cosine"] >= PARTIAL_COSINE:
        return "partial"
    return "uncovered"


def _recall_as_of(store: Store, query: str, who: Scope, when: str, include_stale: bool, k: int, embed) -> dict:
    """The store as it was: the tree at the last commit before WHEN, and the items valid at WHEN."""
    import re

    import numpy as np

    try:
        at = model.parse_ts(when)
    except ValueError:
        raise UsageError(f"--as-of {when!r} is not a date or timestamp", "e.g. --as-of 2026-11-01") from None
    snapshot = store.as_of(at)
    who.check_entity(snapshot)
    state = store.attestation(snapshot)
    items = {}
    for loaded in snapshot.items():
        if loaded.item is None or model.item_path(loaded.item["id"]) != loaded.path:
            continue
        served = state.served_blob(loaded.path, loaded.oid)
        if served != loaded.oid:  # a hand edit of a reviewed text: the reviewed version is the one served
            from vmem.store.parse import parse_blob

            loaded = type(loaded)(loaded.path, served, parse_blob(loaded.item["kind"], loaded.path, served,
                                                                  store.repo[served].data))
        item = {**loaded.item, "status": state.status_of(loaded.path) or "unattested"}  # as history attests it
        if item["status"] == "published" and not state.servable(loaded.path, "knowledge"):
            continue
        if who.admits(item, include_stale, at):
            items[item["id"]] = item
    if not items:
        return {"coverage": "uncovered", "results": [], "commit": snapshot.commit_id}
    ids = sorted(items)
    from vmem.index.local import _meta, _text

    metas = {i: _meta(items[i]) for i in ids}
    vectors = embed([_text(metas[i]) for i in ids])
    cosines = vectors @ embed([query])[0]
    order = np.argsort(-cosines)[:DEPTH]
    words = set(re.findall(r"\w+", query.lower()))
    overlap = sorted(((len(words & set(re.findall(r"\w+", _text(metas[i]).lower()))), i) for i in ids),
                     key=lambda x: (-x[0], x[1]))
    lexical = [(i, float(n)) for n, i in overlap if n > 0][:DEPTH]
    result = _fuse(metas, [ids[r] for r in order], lexical, {ids[r]: float(cosines[r]) for r in range(len(ids))},
                   k, at=at, stale_ok=include_stale)
    result["commit"] = snapshot.commit_id
    return result
