"""The assisted merge path (SPEC 7.1 step 5): a reviewer's merge of two learnings, its undo, "not the same", and the
labeled pairs those decisions leave in history.

Suggestions are advisory: consolidation records them on the items, and anyone can edit a file, so nothing here
trusts one. A merge is a reviewer's attested commit (`Vmem-Action: merge`) on two learnings whose statuses history
attests; it moves evidence only between them, so a forged suggestion can at most show a reviewer a wrong pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vmem import model
from vmem.errors import NotAllowed, UsageError
from vmem.ops.common import require_attested, require_reviewer
from vmem.store.repo import Store

MERGEABLE = ("candidate", "eligible")  # may be absorbed
INTO = model.OPEN["knowledge"]  # may absorb (a published learning gains support)


@dataclass
class Decision:
    action: str  # merged | unmerged | distinct
    item: dict  # the item the reviewer named first (after the action)
    other: dict  # the other side
    commit: str | None
    survivor: str | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"action": self.action, "item": self.item, "other": self.other, "survivor": self.survivor,
                "commit": self.commit, "notes": self.notes}


def _pair(store: Store, snapshot, a: str, b: str) -> tuple[dict, dict]:
    a, b = snapshot.resolve_id(a), snapshot.resolve_id(b)
    for item_id in (a, b):
        if model.kind_of(item_id) != "knowledge":
            raise UsageError(f"{item_id} is a claim; merges and 'not the same' are for learnings (k-…)",
                             "a claim that replaces another is a revision: vmem propose TEXT --supersedes ID")
    if a == b:
        raise UsageError(f"{a} is the same item twice", "name two different learnings (vmem review --list shows each one's suggestions)")
    first, second = snapshot.item(a), snapshot.item(b)
    require_attested(store, snapshot, first)
    require_attested(store, snapshot, second)
    return first, second


def _drop_links(item: dict, other_id: str) -> None:
    item["suggestions"] = [s for s in item.get("suggestions") or [] if s["id"] != other_id] \
        if item.get("suggestions") is not None else None


def _regate(store: Store, snapshot, item: dict, evidence: list[dict]) -> list[str]:
    """Support recounted on ITEM's vouched EVIDENCE; its status follows the gates as consolidation's would (an
    open learning), or a published one that falls below k is invalidated. Notes to show."""
    from vmem.gates.publish import load_inputs, run_gates, status_after_gates

    gate = run_gates({**item, "evidence": evidence}, load_inputs(snapshot), store.policy)
    if item["status"] == "published":
        if gate["checks"].get("k_support", True):
            return []
        model.transition(item, "invalidated", reason="support fell below k after an unmerge")
        return [f"{item['id']} invalidated: {gate['reason']}"]
    target = status_after_gates(gate)
    item["gate"] = gate
    if target == item["status"]:
        return []
    if item["status"] == "eligible" and target == "quarantined":
        model.transition(item, "candidate")
    model.transition(item, target)
    return [f"{item['id']} is {target} now" + (f": {gate['reason']}" if gate["reason"] else "")]


def merge(store: Store, item_id: str, other_id: str, *, reason: str | None = None) -> Decision:
    """A reviewer says ITEM and OTHER say the same: the higher-ranked (published, eligible, then the older) keeps
    its id and takes the other's evidence and categories; the other becomes `merged` with `merged_into`; support
    is recounted on the evidence history vouches for. One attested commit; `vmem unmerge` undoes it."""
    from vmem.ops.consolidate import absorb_into, survivor_order

    author = store.identity()
    require_reviewer(store, author.email, "merge learnings",
                     "mark the pair for a reviewer instead: it stays on the review card as a suggestion")
    with store.transaction("merge") as tx:
        tx.author = author
        first, second = _pair(store, tx.snapshot, item_id, other_id)
        for item in (first, second):
            if item["status"] not in INTO:
                raise NotAllowed(f"{item['id']} is {item['status']}; only open learnings ({', '.join(INTO)}) merge",
                                 "see it with: vmem show " + item["id"])
        survivor, absorbed = sorted((first, second), key=survivor_order)
        if absorbed["status"] not in MERGEABLE:
            raise NotAllowed(f"{first['id']} and {second['id']} are both published; a published learning is not "
                             "absorbed", f"retire one as a revision of the other: vmem supersede {absorbed['id']} …")
        state = store.attestation(tx.snapshot)
        evidence = {model.item_path(i["id"]): state.attested_evidence(model.item_path(i["id"]), i)
                    for i in (survivor, absorbed)}
        now = model.now()
        why = " ".join((reason or "").split()) or None
        if absorbed["status"] == "eligible":
            model.transition(absorbed, "candidate")  # eligible -> merged in one step: candidate in between
        absorb_into(survivor, absorbed, "reviewer", f"merged by reviewer {author.email}" + (f": {why}" if why else ""),
                now)
        for a, b in ((survivor, absorbed), (absorbed, survivor)):
            _drop_links(a, b["id"])
            a["distinct"] = [d for d in a.get("distinct") or [] if d["id"] != b["id"]]  # the newer decision
        vouched = evidence[model.item_path(survivor["id"])] + [
            e for e in evidence[model.item_path(absorbed["id"])] if e not in evidence[model.item_path(survivor["id"])]]
        notes = _regate(store, tx.snapshot, survivor, vouched)
        tx.message.items = [absorbed["id"], survivor["id"]]
        tx.message.subject_item = absorbed["id"]
        tx.message.summary = f"same as {survivor['id']}: {absorbed['statement']}"
        tx.message.reason = why
        tx.message.extra = {"Merged-Into": survivor["id"]}
        tx.message.body = notes
        tx.write(absorbed)
        tx.write(survivor)
    named = absorbed if absorbed["id"] == first["id"] else survivor
    other = survivor if named is absorbed else absorbed
    return Decision("merged", model.normalize_item(named), model.normalize_item(other), tx.commit_id,
                    survivor=survivor["id"], notes=notes)


def _before_merge(store: Store, survivor_id: str, absorbed_id: str) -> dict | None:
    """SURVIVOR as it was just before the commit that merged ABSORBED into it (None if history does not show it)."""
    from vmem.store.history import snapshot_named

    path = model.item_path(survivor_id)
    for commit, _, oid in store.history([path]):
        if oid is None or not commit.parents:
            continue
        after = snapshot_named(store, str(commit.id))
        before = snapshot_named(store, str(commit.parents[0].id))
        try:
            now_has = any(m["from"] == absorbed_id for m in after.item(survivor_id)["merges"])
            had = before.item(survivor_id)
        except Exception:  # noqa: BLE001 - an unreadable or absent version: not the merge we look for
            continue
        if now_has and not any(m["from"] == absorbed_id for m in had["merges"]):
            return had
    return None


def _source(snapshot, item_id: str) -> dict | None:
    try:
        return snapshot.item(item_id)
    except Exception:  # noqa: BLE001 - a source that is gone or unreadable: nothing of it to keep apart
        return None


def unmerge(store: Store, item_id: str, *, reason: str) -> Decision:
    """Undo a merge (a reviewer's or the cascade's): ITEM, now `merged`, is a candidate again with its own
    evidence; the item it was merged into gives back the evidence only ITEM brought (history shows what it had
    before) and is gated again; the pair is remembered as not the same. One attested commit."""
    from vmem.store.attest import evidence_key

    if not reason or not reason.strip():
        raise UsageError("an unmerge needs a reason", 'add --reason "why these two are not the same"')
    author = store.identity()
    require_reviewer(store, author.email, "undo merges")
    with store.transaction("unmerge", reason=reason) as tx:
        tx.author = author
        absorbed_id = tx.snapshot.resolve_id(item_id)
        absorbed = tx.snapshot.item(absorbed_id)
        if absorbed["kind"] != "knowledge" or absorbed["status"] != "merged" or not absorbed.get("merged_into"):
            raise NotAllowed(f"{absorbed_id} is {absorbed['status']}, not a merged learning; nothing to undo",
                             "unmerge names the learning that was absorbed (its merged_into is the other)")
        absorbed, survivor = _pair(store, tx.snapshot, absorbed_id, absorbed["merged_into"])
        if not any(m["from"] == absorbed_id for m in survivor["merges"]):
            raise NotAllowed(f"{survivor['id']} does not record a merge from {absorbed_id}; nothing to undo",
                             "see both with: vmem show ID")
        before = _before_merge(store, survivor["id"], absorbed_id)
        others = [_source(tx.snapshot, m["from"]) for m in survivor["merges"] if m["from"] != absorbed_id]
        others = [o for o in others if o is not None]
        kept = {evidence_key(e) for e in (before or {}).get("evidence") or []}
        kept |= {evidence_key(e) for o in others for e in o["evidence"]}  # what other merges brought stays
        brought = {evidence_key(e) for e in absorbed["evidence"]} - kept
        survivor["evidence"] = [e for e in survivor["evidence"] if evidence_key(e) not in brought]
        if before is not None:
            own = set(before["categories"]) | {c for o in others for c in o["categories"]}
            survivor["categories"] = [c for c in survivor["categories"] if c in own]
        survivor["merges"] = [m for m in survivor["merges"] if m["from"] != absorbed_id]
        model.transition(absorbed, "candidate", merged_into=None)
        absorbed["suggestions"] = None  # screened again next run (the remembered "not the same" keeps this pair out)
        now = model.now()
        why = " ".join(reason.split())
        for a, b in ((absorbed, survivor), (survivor, absorbed)):
            _drop_links(a, b["id"])
            a["distinct"] = [d for d in a.get("distinct") or [] if d["id"] != b["id"]] + [
                {"id": b["id"], "by": author.email, "at": now, "reason": why}]
        state = store.attestation(tx.snapshot)
        vouched = [e for e in state.attested_evidence(model.item_path(survivor["id"]), survivor)
                   if evidence_key(e) not in brought]
        notes = _regate(store, tx.snapshot, survivor, vouched)
        absorbed["gate"] = None
        tx.message.items = [absorbed_id, survivor["id"]]
        tx.message.subject_item = absorbed_id
        tx.message.summary = f"not the same as {survivor['id']}: {absorbed['statement']}"
        tx.message.body = notes
        tx.write(absorbed)
        tx.write(survivor)
    return Decision("unmerged", model.normalize_item(absorbed), model.normalize_item(survivor), tx.commit_id,
                    survivor=None, notes=notes)


def distinct(store: Store, item_id: str, other_id: str, *, reason: str | None = None) -> Decision:
    """A reviewer says ITEM and OTHER are not the same: recorded on both (`distinct`), never suggested again."""
    author = store.identity()
    require_reviewer(store, author.email, "decide merge suggestions")
    with store.transaction("distinct") as tx:
        tx.author = author
        first, second = _pair(store, tx.snapshot, item_id, other_id)
        if first.get("merged_into") == second["id"] or second.get("merged_into") == first["id"]:
            merged = first if first.get("merged_into") == second["id"] else second
            raise NotAllowed(f"{merged['id']} is merged into {merged['merged_into']}",
                             f"undo the merge instead: vmem unmerge {merged['id']} --reason …")
        now = model.now()
        why = " ".join((reason or "").split()) or None
        for a, b in ((first, second), (second, first)):
            _drop_links(a, b["id"])
            a["distinct"] = [d for d in a.get("distinct") or [] if d["id"] != b["id"]] + [
                {"id": b["id"], "by": author.email, "at": now, "reason": why}]
        tx.message.items = [first["id"], second["id"]]
        tx.message.subject_item = first["id"]
        tx.message.summary = f"not the same as {second['id']}: {first['statement']}"
        tx.message.reason = why
        tx.write(first)
        tx.write(second)
    return Decision("distinct", model.normalize_item(first), model.normalize_item(second), tx.commit_id)


def history_labels(store: Store) -> list[dict]:
    """Labeled pairs from reviewers' decisions in attested history, newest decision per pair: a merge is a
    positive, "not the same" (and an unmerge) a negative; each as `vmem eval merge` reads a pair, statements and
    categories as they were at the decision. A decision history does not attest (not a reviewer's, or unsigned
    where signatures are required) is no label."""
    from vmem.store.history import commits
    from vmem.store.message import parse

    refused = {row[0] for row in store.attestation().refused}
    seen: set[frozenset] = set()
    out: list[dict] = []
    for commit in commits(store):
        message = parse(commit.message)
        if message is None or message.action not in ("merge", "unmerge", "distinct") or len(message.items) != 2:
            continue
        if str(commit.id) in refused:
            continue
        key = frozenset(message.items)
        if key in seen:
            continue
        seen.add(key)
        from vmem.store.repo import Snapshot

        snapshot = Snapshot(store.full().repo, commit)
        try:
            a, b = (snapshot.item(i) for i in message.items)
        except Exception:  # noqa: BLE001 - an item file unreadable at that commit: no label from it
            continue
        label = 1 if message.action == "merge" else 0
        out.append({"id": f"{message.items[0]}~{message.items[1]}", "a": a["statement"], "b": b["statement"],
                    "categories_a": list(a["categories"]), "categories_b": list(b["categories"]), "label": label,
                    "kind": "reviewer_merge" if label else "reviewer_not_same",
                    "note": f"{message.action} {str(commit.id)[:10]} by {commit.committer.email}"})
    return out
