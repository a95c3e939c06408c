"""Proposals: a fact becomes a `proposed` claim; a learning becomes knowledge evidence (new or reinforcing)."""

from __future__ import annotations

from pathlib import Path

from vmem import model
from vmem.confidence import base_confidence
from vmem.errors import IllegalTransition, ItemNotFound, SchemaError, UsageError
from vmem.names import check_audience, check_category
from vmem.ops.common import expires_at, require_own_if_personal, widenings
from vmem.store.repo import Snapshot, Store
from vmem.text import canonicalize

LIVE_FOR_SUPERSEDE = model.OPEN["claim"]  # proposed or live: may be revised
REINFORCEABLE = model.OPEN["knowledge"]  # candidate, eligible or published: evidence may still be added


class Proposed:
    """What a proposal did. (A plain class: `dataclasses` imports `inspect`, ~10 ms of every write.)"""

    __slots__ = ("action", "item", "commit", "notes", "contradictions", "prior_rejections", "close", "near")

    def __init__(self, action: str, item: dict, commit: str | None = None, notes: list[str] | None = None) -> None:
        self.action = action  # created | repeated | reinforced | unchanged | previously_rejected | quarantined
        self.item, self.commit = item, commit
        self.notes: list[str] = [] if notes is None else notes
        self.contradictions: list[dict] = []  # open items of its kind it contradicts: {id, reason, rules, statement}
        # rejected claims it restates (rejected_near): {id, statement, reason, by, at, match, why}
        self.prior_rejections: list[dict] = []
        self.close: list[dict] = []  # open claims close to it that it does not repeat: {id, status, statement}
        self.near: list[dict] | None = None  # the near-twin items read for the repeat check (reused, not re-read)

    @property
    def exit_code(self) -> int:
        return 1 if self.action == "previously_rejected" else 0

    def data(self) -> dict:
        """What every face reports (`vmem propose --json`'s data; MCP's propose narrows it to its view)."""
        return {"action": self.action, "item": self.item, "commit": self.commit,
                "contradictions": self.contradictions, "prior_rejections": self.prior_rejections,
                "notes": self.notes}

    def __repr__(self) -> str:
        return f"Proposed({self.action!r}, {self.item.get('id')!r}, commit={self.commit!r}, notes={self.notes!r})"


def propose(store: Store, text: str, *, from_: str | None = None, categories: list[str] | None = None,
            episodes: list[str] | None = None, about: str | None = None, domain: str | None = None,
            title: str | None = None, klass: str | None = None, audience: str = "all", personal: bool = False,
            paths: list[str] | None = None, supersedes: str | None = None, as_: str | None = None,
            harvest: dict | None = None) -> Proposed:
    """`vmem propose` for every face: a fact, or with FROM_ (an entity) and CATEGORIES a learning; then the open
    items it contradicts (a warning for the reviewer, never a refusal: SPEC 14). Flags that belong to the other
    kind are usage errors, found before anything is read."""
    if from_:
        misplaced = [flag for flag, value in (("--about", about), ("--domain", domain), ("--title", title),
                                              ("--class", klass), ("--paths", paths),
                                              ("--supersedes", supersedes)) if value]
        if misplaced or personal or audience != "all":
            raise UsageError(f"{(misplaced or ['--personal/--audience'])[0]} applies to facts, not learnings",
                             "a learning takes --from ENTITY -c CATEGORY [--episode EP]")
        result = propose_learning(store, text, entity=from_, categories=categories or [], episodes=episodes,
                                  as_=as_)
    else:
        if episodes:
            raise UsageError("--episode needs --from ENTITY", "learnings cite episodes; facts do not")
        result = propose_claim(store, text, about=about, domain=domain, title=title, klass=klass,
                               audience=audience, personal=personal, paths=paths, categories=categories,
                               supersedes=supersedes, as_=as_, harvest=harvest)
    if result.action not in ("previously_rejected", "unchanged", "repeated"):
        result.contradictions = contradicted_by(store, result.item, result.notes, result.near)
    clashing = {c["id"] for c in result.contradictions}
    result.notes += [f"note: close to {c['id']} ({c['status']}), not merged: {c['statement'][:160]}"
                     for c in result.close if c["id"] not in clashing]  # a contradiction is worded once, below
    return result


def contradicted_by(store: Store, item: dict, notes: list[str] | None = None,
                    near: list[dict] | None = None) -> list[dict]:
    """The open items ITEM contradicts, as its proposer may see them (never another person's personal items).
    NEAR: the near-twin items already read for this statement (the repeat check), judged instead of read again."""
    from vmem.ops.card import viewer_of
    from vmem.ops.contradictions import against, at_propose

    if near is not None:
        found = against(item, near, viewer_of(store))
    else:
        found = at_propose(store.head(), item, viewer_of(store), notes)
    return [{"id": p["b"] if p["a"] == item["id"] else p["a"], "reason": p["reason"], "rules": p["rules"],
             "statement": p["b_statement"] if p["a"] == item["id"] else p["a_statement"]} for p in found]


def propose_claim(
    store: Store,
    statement: str,
    *,
    about: str | None = None,
    domain: str | None = None,
    title: str | None = None,
    klass: str | None = None,
    audience: str = "all",
    personal: bool = False,
    paths: list[str] | None = None,
    categories: list[str] | None = None,
    supersedes: str | None = None,
    as_: str | None = None,
    harvest: dict | None = None,
) -> Proposed:
    """A proposed claim; HARVEST ({kind, session, quote}) when it comes from an agent session (vmem harvest). A
    statement that repeats an open claim in the same scope is not a second claim: see repeated_claim."""
    statement = valid_statement(statement)
    klass = klass or store.policy["claims"]["default_class"]
    if klass not in model.CLASSES:
        raise UsageError(f"unknown class {klass!r}", f"use one of: {', '.join(model.CLASSES)}")
    categories = [check_category(c) for c in categories or []]  # usage errors (exit 2), before any write
    check_audience(audience)
    if domain is not None:
        model.check_name_id(domain, "domain")
    if supersedes:
        supersedes = store.head().resolve_id(supersedes)
    author = store.identity()
    scope = f"entity:{about}" if about else "org"
    # before the lock: an external judge may be asked (SPEC 11: no lock is held while a judge runs)
    from vmem.ops.rejections import rejected_near, rejection

    near = rejected_near(store.head(), statement, scope, categories, viewer=author.email,
                         judge=store.policy["knowledge"]["judge"])
    notes_before: list[str] = []
    near_items: list[dict] | None = None
    if not supersedes and not personal:
        near_items = []
        same, close = repeated_claim(store, statement, scope, categories or [], author.email, read=near_items,
                                     notes=notes_before, audience=audience, paths=paths)
        if same is not None:
            repeated = _confirm_repeat(store, same, author.email, as_)
            if repeated is not None:
                return repeated
    else:
        close = []
    source = {"type": "analyst", "user": author.email, "episode": None}
    confidence = base_confidence("analyst")
    if harvest is not None:
        source = {**source, "type": "session_transcript", "kind": harvest["kind"], "session": harvest.get("session"),
                  "quote": harvest.get("quote")}
        confidence = base_confidence("session_transcript", harvest["kind"])
    with store.transaction("propose") as tx:
        _on_behalf_of(tx, as_)
        if about:
            tx.snapshot.entity(model.check_name_id(about))
        old = _check_supersedable(tx.snapshot, supersedes, author.email) if supersedes else None
        rejected = find_rejected_claim(tx.snapshot, canonicalize(statement), scope, viewer=author.email)
        if rejected is not None:
            reason = (rejected.get("review") or {}).get("reason") or "no reason recorded"
            refused = Proposed("previously_rejected", rejected, notes=[f"{rejected['id']} was rejected: {reason}"])
            refused.prior_rejections = [rejection(rejected, "canonical", "identical canonical statement")]
            return refused
        now = model.now()
        item = model.validate("claim", {
            "id": model.new_id("claim"),
            "kind": "claim",
            "title": " ".join(title.split()) if title else None,
            "statement": statement,
            "scope": f"entity:{about}" if about else "org",
            "class": klass,
            "domain": domain,
            "categories": categories or [],
            "paths": paths or [],
            "status": "proposed",
            "audience": audience,
            "personal": personal,
            "source": source,
            "confidence": confidence,
            "created_at": now,
            "valid_from": now,
            "expires_at": expires_at(store.policy, klass, now),
            "supersedes": supersedes,
        }, "the new claim")
        tx.message.items = [item["id"]]
        tx.message.summary = statement
        tx.message.supersedes = supersedes
        tx.write(item)
    widened = widenings(old, item) if old is not None else []
    notes = [f"warning: this revision reaches further than {supersedes}: {', '.join(widened)}; approving it will "
             "need --widen-scope (or propose it again with the old --about/--audience/--personal)"] if widened else []
    notes += [f"warning: a statement like this was rejected as {r['id']}: {r['reason'] or 'no reason recorded'}\n"
              f"  rejected: {r['statement'][:160]}\n  ({r['why']}; proposed anyway: the reviewer sees the "
              "rejection on its card)" for r in near]
    created = Proposed("created", item, tx.commit_id, notes + notes_before)
    created.prior_rejections = near
    created.near = near_items
    created.close = [{"id": c["id"], "status": c["status"], "statement": c["statement"]} for c in close]
    return created


def repeated_claim(store: Store, statement: str, scope: str, categories: list[str], viewer: str | None,
                   ask_judge: bool = True, read: list[dict] | None = None, notes: list[str] | None = None,
                   audience: str = "all", paths: list[str] | None = None) -> tuple[dict | None, list[dict]]:
    """(the open claim in SCOPE that STATEMENT repeats, the close ones it does not): the same canonical statement
    (numbers and number words read as the merge cascade reads them) or every content word aligned with no decisive
    difference (the deterministic merge judge), else the policy's judge (asked about at most NEAR_JUDGED pairs the
    floor leaves open) says the same. Close: at least half the words shared, no merge. Another person's personal
    claim is never named."""
    from vmem.knowledge.judge import floor, judge_command
    from vmem.ops.contradictions import near_open, words
    from vmem.ops.rejections import NEAR_JUDGED

    snapshot = store.head()
    if snapshot.commit is None:
        return None, []
    probe = {"kind": "claim", "statement": statement, "scope": scope, "categories": categories}
    mine = words(statement)
    judge = store.policy["knowledge"]["judge"] or {}
    command = judge.get("command") if ask_judge else None
    if isinstance(command, str):
        import shlex

        command = shlex.split(command)
    asked, close = 0, []
    others = near_open(snapshot, probe, notes)
    if read is not None:
        read.extend(others)
    for other in others:
        if other["status"] not in LIVE_FOR_SUPERSEDE or other["scope"] != scope:
            continue
        if other.get("personal") or other.get("audience", "all") != audience or \
                sorted(other.get("paths") or []) != sorted(paths or []):
            continue  # another reach (someone's own note, a group, some files): not the same claim for the team
        verdict, _ = floor(statement, other["statement"], categories, list(other.get("categories") or []), 1.0)
        if verdict is None and command and asked < NEAR_JUDGED:
            asked += 1
            verdict = judge_command(command, {"statement": statement, "categories": categories},
                                    {"statement": other["statement"], "categories": other.get("categories") or []},
                                    judge.get("timeout_s", 30))
        if verdict is not None and verdict.same:
            return other, []
        theirs = words(other["statement"])
        if mine and len(mine & theirs) * 2 >= max(len(mine), len(theirs)):
            close.append(other)
    return None, close[:3]


def _confirm_repeat(store: Store, same: dict, writer: str, as_: str | None) -> Proposed | None:
    """A proposal that repeats SAME: the writer's confirmation of it (a `verify` commit), or nothing when the
    writer proposed it or has confirmed it already. None when SAME is no longer open (then propose as new)."""
    proposer = (same.get("source") or {}).get("user") or ""
    said = f"repeats {same['id']} ({same['status']})"
    if proposer.casefold() == writer.casefold() or any(
            v["user"].casefold() == writer.casefold() for v in same.get("verifications") or []):
        whose = "you proposed it" if proposer.casefold() == writer.casefold() else "your confirmation is recorded"
        return Proposed("unchanged", same, notes=[f"{said}: nothing written ({whose})"])
    with store.transaction("verify") as tx:
        _on_behalf_of(tx, as_)
        item = tx.snapshot.load_file("claim", model.item_path(same["id"]))
        if item is None or item["status"] not in LIVE_FOR_SUPERSEDE:
            return None
        item["verifications"].append({"user": writer, "kind": "confirmation", "at": model.now()})
        tx.message.items = [item["id"]]
        tx.message.summary = f"confirmation: {item['statement']}"
        tx.write(item)
    return Proposed("repeated", model.normalize_item(item), tx.commit_id,
                    [f"{said}: recorded as your confirmation of it, not a second claim"])


def propose_learning(
    store: Store,
    statement: str,
    *,
    entity: str,
    categories: list[str],
    episodes: list[str] | None = None,
    tier: int = 2,
    as_: str | None = None,
) -> Proposed:
    statement = valid_statement(statement)
    model.check_name_id(entity)
    episodes = [model.check_name_id(e, "episode") for e in episodes or []]
    if not categories:
        raise UsageError("a learning needs at least one category", "add -c FACET:VALUE, e.g. -c industry:healthcare")
    categories = [check_category(c) for c in categories]
    author = store.identity()
    canonical = canonicalize(statement)
    with store.transaction("propose") as tx:
        _on_behalf_of(tx, as_)
        result = _learning(tx, statement, canonical, entity, categories, episodes, tier, author.email)
    result.commit = tx.commit_id
    return result


def _on_behalf_of(tx, as_: str | None) -> None:
    """`propose --as` (scripted imports): the analyst is the commit's author and named in a Vmem-On-Behalf-Of
    trailer; the writer vmem records and every gate counts is still the committer, so one person is one writer."""
    if not as_:
        return
    from vmem.store.repo import parse_person

    name, email = parse_person(as_)
    tx.author = tx.store.signature(name, email)
    tx.message.extra["On-Behalf-Of"] = f"{name} <{email}>"


def _learning(tx, statement, canonical, entity, categories, episodes, tier, writer) -> Proposed:
    tx.snapshot.entity(entity)
    for episode in episodes:
        tx.snapshot.episode(entity, episode)
    now = model.now()
    evidence = [{"entity": entity, "writer": writer, "episode": ep, "at": now, "tier": tier}
                for ep in episodes or [None]]
    match = find_canonical(tx.snapshot, canonical)
    if match is not None and match["status"] == "rejected":
        reason = (match.get("review") or {}).get("reason") or "no reason recorded"
        return Proposed("previously_rejected", match, notes=[f"{match['id']} was rejected: {reason}"])
    if match is not None:
        known = {(e["entity"], e["writer"], e["episode"]) for e in match["evidence"]}
        fresh = [e for e in evidence if (e["entity"], e["writer"], e["episode"]) not in known]
        if not fresh:
            return Proposed("unchanged", match, notes=["this evidence is already recorded"])
        match["evidence"] += fresh
        match["categories"] += [c for c in categories if c not in match["categories"]]
        match["last_reinforced"] = now
        notes = _regate(tx, match, fresh)
        tx.message.action = "reinforce"
        tx.message.items = [match["id"]]
        tx.message.summary = match["statement"]
        tx.write(match)
        return Proposed("reinforced", match, notes=notes)
    from vmem.gates.publish import screen

    screened = screen(statement, tx.snapshot)
    item = model.validate("knowledge", {
        "id": model.new_id("knowledge"),
        "kind": "knowledge",
        "statement": statement,
        "canonical": canonical,
        "categories": list(dict.fromkeys(categories)),
        "status": "candidate" if screened.passed else "quarantined",
        "evidence": evidence,
        "gate": None if screened.passed else {"passed": False, "checks": {"deid": False}, "reason": screened.reason,
                                              "at": now},
        "first_seen": now,
        "last_reinforced": now,
        "valid_from": now,
    }, "the new knowledge item")
    tx.message.items = [item["id"]]
    tx.message.summary = statement
    if not screened.passed:
        tx.message.reason = screened.reason
        tx.write(item)
        way_out = f'then reword it, keeping its evidence: vmem supersede {item["id"]} "..."'
        return Proposed("quarantined", item, notes=[screened.reason, screened.advice, way_out])
    tx.write(item)
    return Proposed("created", item)


def _regate(tx, match: dict, fresh: list[dict]) -> list[str]:
    """A reinforced learning still awaiting a decision is gated again at once (SPEC 7.2), counting the evidence
    history vouches for plus this writer's own: eligible the moment its evidence meets every gate, so its card, its
    JSON and `publish` agree. A merge by judgment stays the consolidation's."""
    if match["status"] not in ("candidate", "eligible"):
        return []
    from vmem.gates.publish import GateInputs, run_gates, screen, status_after_gates

    state = tx.store.attestation(tx.snapshot)
    vouched = state.attested_evidence(model.item_path(match["id"]), match)
    vouched += [e for e in fresh if e not in vouched]  # this commit's own: its writer is the committer
    gate = run_gates({**match, "evidence": vouched}, GateInputs({}, {}, counted=tx.snapshot.counted_entities()),
                     tx.store.policy, screened=screen(match["statement"], tx.snapshot))
    target = status_after_gates(gate)
    if target == "quarantined":
        target = "candidate"  # a category below the floor: the consolidation quarantines it, with its reason
    was = match["status"]
    if target != was:
        model.transition(match, target)
    match["gate"] = gate
    if target == "eligible" and was != "eligible":
        return [f"{match['id']} meets every gate now: a reviewer may publish it (vmem publish {match['id']})"]
    if target == "candidate" and was == "eligible":
        return [f"{match['id']} no longer meets every gate ({gate['reason']}); it is a candidate again"]
    return []


def find_canonical(snapshot: Snapshot, canonical: str) -> dict | None:
    """The knowledge item with this canonical statement (following merges to the survivor), if any."""
    from vmem.knowledge.canon import candidates

    hit = None
    for path in candidates(snapshot, Path(snapshot.repo.workdir), canonical):
        item = _load_or_none(snapshot, path)
        if item is not None and item["canonical"] == canonical and (hit is None or _rank(item) < _rank(hit)):
            hit = item
    seen = set()
    while hit is not None and hit["status"] == "merged" and hit.get("merged_into") and hit["id"] not in seen:
        seen.add(hit["id"])
        try:
            hit = snapshot.item(hit["merged_into"])
        except (ItemNotFound, SchemaError, UsageError):
            hit = None
    if hit is None or hit["status"] not in REINFORCEABLE + ("rejected",):
        return None
    import copy
    return copy.deepcopy(hit)


def find_rejected_claim(snapshot: Snapshot, canonical: str, scope: str, viewer: str | None = None) -> dict | None:
    """The rejected claim in SCOPE with this canonical statement, if any: a rejection is remembered. Another
    person's personal claim is theirs alone: its rejection neither blocks VIEWER nor tells them it exists."""
    from vmem.knowledge.canon import rejected_claims

    for path, (text, where) in sorted(rejected_claims(snapshot, Path(snapshot.repo.workdir)).items()):
        if text == canonical and where == scope:
            try:
                item = snapshot.load_file("claim", path)
            except SchemaError:
                continue
            if item is not None and item["status"] == "rejected":
                if item.get("personal") and (item.get("source") or {}).get("user") != viewer:
                    continue
                return item
    return None


def _load_or_none(snapshot: Snapshot, path: str) -> dict | None:
    try:
        return snapshot.load_file("knowledge", path)
    except SchemaError:
        return None  # a broken file matches nothing; vmem check reports it


def _rank(item: dict) -> int:
    order = ("published", "eligible", "candidate", "rejected", "merged")
    return order.index(item["status"]) if item["status"] in order else len(order)


def _check_supersedable(snapshot: Snapshot, item_id: str, viewer: str | None) -> dict:
    old = require_own_if_personal(snapshot.item(item_id), viewer, item_id)  # never a way into another's memory
    if old["kind"] != "claim" or old["status"] not in LIVE_FOR_SUPERSEDE:
        raise IllegalTransition(f"{item_id} is {old['status']}; it cannot be superseded",
                                "only proposed, approved or mandatory claims can be revised")
    return old


def valid_statement(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise UsageError("the statement is empty", "write the fact or learning in quotes: vmem propose \"...\"")
    if len(text) > 4000:
        raise UsageError(f"the statement is {len(text)} characters; the limit is 4000",
                         "one item holds one belief; split it into several proposals")
    return text
