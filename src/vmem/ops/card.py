"""Review cards: everything a reviewer needs to decide on one item, computed once for every face (the review
prompt, `vmem show`, `review --list --json` and the HTML report), and the viewer rule they all follow."""

from __future__ import annotations

import re
from pathlib import Path

from vmem import confidence, model
from vmem.errors import SchemaError, VmemError
from vmem.visibility import visible_to

ACTION_KEYS = {"approve": "a", "publish": "a", "mandate": "m", "reject": "r", "edit": "e", "skip": "s",
               "quit": "q"}


def viewer_of(store) -> str | None:
    """Who is looking (git's committer e-mail), or None when there is no identity: then nobody's personal items."""
    try:
        return store.identity().email
    except VmemError:
        return None


def is_reviewer(store, viewer: str | None) -> bool:
    from vmem.store.attest import is_reviewer as attested

    return viewer is not None and attested(store.attestation().policy, viewer)


def word_diff(old: str, new: str) -> list[list[str]]:
    """[op, text] runs, op '=', '-' or '+', word by word (what a revision changed)."""
    a, b = old.split(), new.split()
    out: list[list[str]] = []
    import difflib  # not at import: `vmem propose` imports this module for viewer_of

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(["=", " ".join(a[i1:i2])])
            continue
        if i2 > i1:
            out.append(["-", " ".join(a[i1:i2])])
        if j2 > j1:
            out.append(["+", " ".join(b[j1:j2])])
    return out




def legal_actions(item: dict, reviewer: bool) -> list[str]:
    """Only the actions this item's lifecycle allows (and governance only for a reviewer): model.ACTIONS'."""
    return model.card_actions(item, reviewer) + ["skip", "quit"]


def _quotes(snapshot, item: dict) -> list[dict]:
    out = []
    for evidence in item.get("evidence") or []:
        quotes: list[str] = []
        if evidence.get("episode"):
            try:
                quotes = list(snapshot.episode(evidence["entity"], evidence["episode"]).get("quotes") or [])
            except VmemError:
                quotes = []
        out.append({"entity": evidence["entity"], "writer": evidence["writer"], "episode": evidence.get("episode"),
                    "at": evidence.get("at"), "tier": evidence.get("tier"), "quotes": quotes})
    return out


def _prior_rejections(snapshot, item: dict, viewer: str | None = None) -> list[dict]:
    """Rejected items with the same canonical statement (a reviewer said no to this before); another person's
    personal claim is not named."""
    from vmem.text import canonicalize

    canonical = canonicalize(item["statement"])
    found = []
    if item["kind"] == "claim":
        from vmem.knowledge.canon import rejected_claims

        for path, (text, where) in sorted(rejected_claims(snapshot, Path(snapshot.repo.workdir)).items()):
            if text != canonical or path == model.item_path(item["id"]):
                continue
            try:
                old = snapshot.load_file("claim", path)
            except SchemaError:
                continue
            if old is not None and old["status"] == "rejected" and visible_to(old, viewer):
                found.append({"id": old["id"], "scope": where, "reason": (old.get("review") or {}).get("reason"),
                              "by": (old.get("review") or {}).get("by"), "at": (old.get("review") or {}).get("at")})
        if item["status"] in model.OPEN["claim"]:  # and what it restates in other words (the judge's floor)
            from vmem.ops.rejections import rejected_near

            found += [{"id": r["id"], "scope": item["scope"], "reason": r["reason"], "by": r["by"], "at": r["at"],
                       "statement": r["statement"], "match": r["match"]}
                      for r in rejected_near(snapshot, item["statement"], item["scope"], item.get("categories"),
                                             viewer=viewer, exclude=item["id"])]
    else:
        from vmem.knowledge.canon import candidates

        for path in candidates(snapshot, Path(snapshot.repo.workdir), canonical):
            try:
                old = snapshot.load_file("knowledge", path)
            except SchemaError:
                continue
            if old is not None and old["status"] == "rejected" and old["id"] != item["id"] \
                    and old.get("canonical") == canonical:
                found.append({"id": old["id"], "scope": None, "reason": (old.get("review") or {}).get("reason"),
                              "by": (old.get("review") or {}).get("by"), "at": (old.get("review") or {}).get("at")})
    return found


def suggestions_of(item: dict, lookup, suggested_by: dict[str, list[dict]] | None = None) -> list[dict]:
    """What the card says ITEM may be the same as: its own suggestions and those naming it (SUGGESTED_BY), each
    other side still an open learning, never a pair a reviewer called not the same or already merged. LOOKUP: id ->
    item (attested status) or None."""
    if item["kind"] != "knowledge" or item["status"] not in model.OPEN["knowledge"]:
        return []
    apart = {d["id"] for d in item.get("distinct") or []}
    found: dict[str, float] = {}
    cosines: dict[str, float | None] = {}
    for row in list(item.get("suggestions") or []) + list((suggested_by or {}).get(item["id"], [])):
        if row["id"] not in apart and row["id"] != item["id"]:
            found[row["id"]] = max(found.get(row["id"], 0.0), row["score"])
            if row.get("cosine") is not None:
                cosines[row["id"]] = max(cosines.get(row["id"]) or 0.0, row["cosine"])
    out = []
    for other_id, score in sorted(found.items(), key=lambda kv: (-kv[1], kv[0])):
        other = lookup(other_id)
        if other is None or other["status"] not in model.OPEN["knowledge"] or item["id"] in {
                d["id"] for d in other.get("distinct") or []}:
            continue
        if item["status"] == "published" and other["status"] == "published":
            continue  # neither can be absorbed: a revision, not a merge
        out.append({"id": other_id, "statement": other["statement"], "status": other["status"], "score": score,
                    "cosine": cosines.get(other_id), "categories": list(other.get("categories") or []),
                    "diff": word_diff(item["statement"], other["statement"])})
    return out


def related_of(item: dict, lookup) -> list[dict]:
    """What the card shows as related to ITEM, never as the same: the neighbours consolidation found that a
    detector calls different, each with the detector's words for what differs ("different numbers 3 weeks vs 3
    months"), the other side still an open learning (a quarantined one's words are never quoted). LOOKUP: id ->
    item (attested status) or None."""
    if item["kind"] != "knowledge" or item["status"] not in model.IN_REVIEW["knowledge"] + model.OPEN["knowledge"]:
        return []
    out = []
    for row in item.get("related") or []:
        other = lookup(row["id"]) if row["id"] != item["id"] else None
        if other is None or other["status"] not in model.OPEN["knowledge"]:
            continue
        out.append({"id": row["id"], "differs": row["differs"], "status": other["status"],
                    "statement": other["statement"]})
    return out


def card(store, item: dict, *, snapshot=None, viewer: str | None = None, reviewer: bool = False,
         contradictions: list[dict] | dict[str, list[dict]] | None = None, quarantined_evidence: bool = True,
         suggestions: list[dict] | None = None, vocabulary: set[str] | None = None) -> dict:
    """The card for ITEM (its status as history attests it). CONTRADICTIONS: precomputed open pairs naming it
    (else they are looked up for this item alone). Quarantined items show their evidence quotes only with
    QUARANTINED_EVIDENCE (they name a customer). VOCABULARY: the store's known words (known_vocabulary), else
    read for this card alone."""
    snapshot = snapshot or store.head()
    knowledge = item["kind"] == "knowledge"
    source = item.get("source") or {}
    evidence = item.get("evidence") or []
    out = {
        "id": item["id"], "kind": item["kind"], "status": item["status"], "statement": item["statement"],
        "title": item.get("title"), "scope": item.get("scope") if not knowledge else None,
        "categories": list(item.get("categories") or []), "domain": item.get("domain"), "class": item.get("class"),
        "audience": item.get("audience"), "paths": list(item.get("paths") or []),
        "personal": bool(item.get("personal")),
        "proposer": source.get("user") if not knowledge else (evidence[0]["writer"] if evidence else None),
        # a harvested claim: what the person told the agent, in which session (vmem harvest, SPEC 16)
        "harvested": ({"kind": source.get("kind"), "session": source.get("session"), "quote": source.get("quote")}
                      if not knowledge and source.get("type") == "session_transcript" else None),
        "created_at": item.get("created_at") or item.get("first_seen"),
        "age_days": round(confidence.age_days(item), 1),
        "expires_at": item.get("expires_at"),
        "effective_confidence": confidence.effective_confidence(item),
        # the review --list contract (SPEC 6); support counted as the gates count it
        **support(store, snapshot, item),
        "evidence_count": len(evidence),
        "merges": [{"from": m["from"], "judge": m["judge"], "reason": m.get("reason"), "at": m.get("at")}
                   for m in item.get("merges") or []],
        "gate": _gate(item.get("gate")),
        "source": source.get("user") if not knowledge else None,
        "verifications": [dict(v) for v in item.get("verifications") or []],
        "review": dict(item["review"]) if item.get("review") else None,
        # the last change of its words by someone other than its writer: {commit, by}, or None
        "edited_by": _edited(store, snapshot, item),
    }
    if knowledge:
        shown = quarantined_evidence or item["status"] != "quarantined"
        out["evidence"] = _quotes(snapshot, item) if shown else []
        out["evidence_hidden"] = not shown
        out["unknown_words"] = unknown_words(snapshot, item, vocabulary)
    out["supersedes"] = None
    if item.get("supersedes"):
        try:
            old = snapshot.item(item["supersedes"])
            out["supersedes"] = {"id": old["id"], "status": old["status"], "statement": old["statement"],
                                 "diff": word_diff(old["statement"], item["statement"])}
            if _named_a_customer(old):  # a quarantined learning reworded: its words are not quoted on the new card
                out["supersedes"].update(statement=None, diff=[["=", HIDDEN_WORDING]])
        except VmemError:
            out["supersedes"] = {"id": item["supersedes"], "status": None, "statement": None, "diff": []}
    out["superseded_by"] = item.get("superseded_by")
    out["prior_rejections"] = _prior_rejections(snapshot, item, viewer)
    from vmem.ops.contradictions import other_side

    if contradictions is None:
        from vmem.ops.contradictions import at_propose

        contradictions = at_propose(snapshot, item, viewer) if item["status"] in model.OPEN[item["kind"]] else []
    mine = contradictions.get(item["id"], []) if isinstance(contradictions, dict) else contradictions
    out["contradictions"] = [other_side(pair, item["id"]) for pair in mine if item["id"] in (pair["a"], pair["b"])]
    out["actions"] = legal_actions(item, reviewer)
    def lookup(other_id: str) -> dict | None:
        try:
            other = snapshot.item(other_id)
        except VmemError:
            return None
        return {**other, "status": store.attestation(snapshot).status_of(model.item_path(other_id)) or "unattested"}

    if suggestions is None and knowledge:
        suggestions = suggestions_of(item, lookup)
    out["suggestions"] = suggestions or []
    out["suggestion_actions"] = ["merge", "distinct"] if reviewer and out["suggestions"] else []
    # related, never the same: no merge key goes with these
    out["related"] = related_of(item, lookup) if knowledge and item.get("related") else []
    return out


def known_vocabulary(snapshot) -> set[str]:
    """The words a learning may use without a reviewer looking twice: the store's category vocabulary (every
    customer's categories, and the words people use for common ones) and the words of its published learnings."""
    from vmem.gates.membership import category_vocabulary

    categories = {c for entity in snapshot.entities().values() for c in entity.get("categories") or []}
    known = category_vocabulary(categories)
    for loaded in snapshot.files("knowledge"):
        if loaded.item is not None and loaded.item.get("status") == "published":
            known.update(re.findall(r"[^\W\d_]+", loaded.item["statement"].casefold()))
    return known


def unknown_words(snapshot, item: dict, vocabulary: set[str] | None = None) -> list[str]:
    """A learning's words that are neither English, nor category vocabulary, nor the store's published vocabulary
    ("Corvanne" when no rule fired): shown on its card, so the human gate sees what the de-id gate may not know."""
    from vmem.gates.near import unknown_words as unknown

    known = vocabulary if vocabulary is not None else known_vocabulary(snapshot)
    return unknown(item["statement"], known | {c.split(":", 1)[-1] for c in item.get("categories") or []})


def support(store, snapshot, item: dict) -> dict:
    """ITEM's support_tier, distinct_entities (customers) and writers, counted as the publish gates count them:
    over the evidence history vouches for, writers case-folded; so a card or the report's gates page never says
    "0 customers" beside a gate reason that found one. Claims: None for each."""
    if item["kind"] != "knowledge":
        return {"support_tier": None, "distinct_entities": None, "writers": None}
    counted = snapshot.counted_entities()  # a customer no reviewer added or approved is no support (SPEC 7.2)
    vouched = [e for e in store.attestation(snapshot).attested_evidence(model.item_path(item["id"]), item)
               if e["entity"] in counted]
    return {"support_tier": confidence.support_tier({**item, "evidence": vouched}, store.policy["knowledge"]["tiers"]),
            "distinct_entities": len({e["entity"] for e in vouched}),
            "writers": len({e["writer"].casefold() for e in vouched})}


def _edited(store, snapshot, item: dict) -> dict | None:
    found = store.attestation(snapshot).edited.get(model.item_path(item["id"]))
    return {"commit": found[0], "by": found[1]} if found else None


def _gate(gate: dict | None) -> dict | None:
    if not gate:
        return None
    return {"passed": bool(gate.get("passed")), "checks": dict(gate.get("checks") or {}),
            "reason": gate.get("reason"), "at": gate.get("at")}


def queue_cards(store, status: str | None = None, *, viewer: str | None = None) -> list[dict]:
    """The review queue as cards: proposed claims and eligible knowledge whose status history attests, oldest
    first; another person's personal claims are not in your queue."""
    from vmem.ops.contradictions import by_item, scan

    statuses = (status,) if status else model.QUEUED
    snapshot = store.head()
    state = store.attestation(snapshot)
    state.preload()
    every, queued, maybe = [], [], []
    for loaded in snapshot.items():
        if loaded.item is None:
            continue
        item = {**loaded.item, "status": state.status_of(loaded.path) or "unattested"}
        every.append(item)
        if item["status"] != loaded.item["status"] or not visible_to(item, viewer):
            continue
        if loaded.item["status"] in statuses:
            queued.append(item)
        elif item["kind"] == "knowledge" and item["status"] == "candidate" and status in (None, "candidate"):
            maybe.append(item)  # a candidate is the reviewer's only when it may be the same as another
    by_id = {item["id"]: item for item in every}
    suggested_by: dict[str, list[dict]] = {}
    for item in every:
        if item["kind"] == "knowledge" and item["status"] in model.OPEN["knowledge"]:
            for row in item.get("suggestions") or []:
                suggested_by.setdefault(row["id"], []).append({"id": item["id"], "score": row["score"],
                                                              "cosine": row.get("cosine")})
    found = {item["id"]: suggestions_of(item, by_id.get, suggested_by) for item in queued + maybe}
    queued += [item for item in maybe if found[item["id"]]]
    queued.sort(key=lambda i: (i.get("created_at") or i.get("first_seen") or "", i["id"]))
    pairs = by_item(scan(every, viewer)) if queued else {}
    reviewer = is_reviewer(store, viewer)
    vocabulary = known_vocabulary(snapshot) if any(item["kind"] == "knowledge" for item in queued) else None
    cards = [card(store, item, snapshot=snapshot, viewer=viewer, reviewer=reviewer, contradictions=pairs,
                  suggestions=found[item["id"]], vocabulary=vocabulary) for item in queued]
    return [withheld(c) if c["status"] == "quarantined" else c for c in cards]


# What stands in for a quarantined learning's words on a listed card: the report's wording (ops/report.py)
HIDDEN_STATEMENT = "(statement hidden: it may name a customer)"
HIDDEN_REASON = "(details hidden: they may name a customer)"
HIDDEN_WORDING = "(the wording is hidden: it may name a customer)"


def _named_a_customer(item: dict) -> bool:
    """Did a learning's words fail de-identification (quarantined, or superseded or rejected after that)?"""
    checks = (item.get("gate") or {}).get("checks") or {}
    return item["kind"] == "knowledge" and (item["status"] == "quarantined" or checks.get("deid") is False)


_GATE_FAILED = {"k_support": "too few customers", "writers": "too few writers",
                "category_floor": "a category below the floor"}


def withheld(card: dict) -> dict:
    """A quarantined learning's CARD as a list shows it (`vmem review --status quarantined`): nothing of its words
    or of what they may quote (statement, title, evidence and its customers, merge, rejection and contradiction
    reasons, a revision's diff); the gate says which checks failed in kinds ("names a customer"), never the words
    they found, and the hint gives the way out that keeps its evidence."""
    out = dict(card)
    gate = card.get("gate") or {}
    checks = gate.get("checks") or {}
    found = []
    if checks.get("deid") is False:
        reason = gate.get("reason") or ""
        found.append(next((kind for kind in ("names a customer", "lexicon incomplete") if reason.startswith(kind)),
                          "fails de-identification"))
    found += [label for name, label in _GATE_FAILED.items() if checks.get(name) is False]
    out.update(statement=HIDDEN_STATEMENT, title=None, evidence=[], evidence_hidden=True, unknown_words=[],
               merges=[{**m, "reason": HIDDEN_REASON} for m in card.get("merges") or []],
               prior_rejections=[{**r, "reason": HIDDEN_REASON, **({"statement": None} if "statement" in r else {})}
                                 for r in card.get("prior_rejections") or []],
               contradictions=[{**o, "statement": HIDDEN_STATEMENT, "reason": HIDDEN_REASON}
                               for o in card.get("contradictions") or []],
               related=[{**r, "differs": HIDDEN_REASON} for r in card.get("related") or []])
    if gate:
        out["gate"] = {**gate, "reason": "; ".join(found) or (HIDDEN_REASON if gate.get("reason") else None)}
    if card.get("review") and card["review"].get("reason"):
        out["review"] = {**card["review"], "reason": HIDDEN_REASON}
    if card.get("supersedes"):
        out["supersedes"] = {**card["supersedes"], "statement": None, "diff": [["=", HIDDEN_WORDING]]}
    out["hint"] = (f'rephrase it: vmem supersede {card["id"]} "..." (the new words keep its evidence; every gate '
                   "runs again)" if checks.get("deid") is not True else
                   "it waits until more customers hold its categories; vmem consolidate releases it then")
    return out


def show_card(store, item_id: str) -> dict:
    """`vmem show ID`: the stored item plus computed values plus its card; another person's personal item is
    refused as if it were absent (the CLI never shows it)."""
    from vmem.errors import ItemNotFound
    from vmem.ops.show import show

    data = show(store, item_id)
    viewer = viewer_of(store)
    if not visible_to(data, viewer):  # as if absent: not even its existence is another person's business
        raise ItemNotFound(f"no item {item_id} in this store", "list items with: vmem list")
    attested = {**{k: v for k, v in data.items() if k != "computed"},
                "status": data["computed"].get("attested_status") or data["status"]}
    data["card"] = card(store, attested, viewer=viewer, reviewer=is_reviewer(store, viewer))
    return data

