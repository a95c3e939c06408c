"""Supersession: a new version of a belief and the old one marked superseded, in one commit."""

from __future__ import annotations


from vmem import model
from vmem.confidence import base_confidence
from vmem.errors import IllegalTransition, UsageError
from vmem.ops.common import expires_at, require_attested, require_own_if_personal, require_reviewer
from vmem.ops.propose import valid_statement
from vmem.store.repo import Store
from vmem.output import counted

GOVERNED = model.SERVABLE["claim"]  # a reviewed claim: only a reviewer replaces it in place
REWORDABLE = ("quarantined", "candidate")  # learnings an analyst rewords: nobody has decided on them yet


class Superseded:
    """What a supersession did. ACTION: "superseded", or "quarantined" when the new words of a learning still fail
    a gate that quarantines (as `vmem propose` says of a quarantined learning); NOTES: what the faces print."""

    __slots__ = ("item", "previous", "commit", "action", "notes")

    def __init__(self, item: dict, previous: dict, commit: str | None, action: str = "superseded",
                 notes: list[str] | None = None) -> None:
        self.item, self.previous, self.commit = item, previous, commit
        self.action = action
        self.notes: list[str] = [] if notes is None else notes

    def __repr__(self) -> str:
        return f"Superseded({self.item.get('id')!r}, previous={self.previous.get('id')!r}, commit={self.commit!r})"


def supersede(store: Store, item_id: str, statement: str, *, reason: str | None = None,
              title: str | None = None) -> Superseded:
    item_id = store.head().resolve_id(item_id)
    statement = valid_statement(statement)
    author = store.identity()
    with store.transaction("supersede", reason=reason) as tx:
        tx.author = author
        old = require_own_if_personal(tx.snapshot.item(item_id), author.email, item_id)
        require_attested(store, tx.snapshot, old)
        if old["kind"] == "knowledge":
            if title:
                raise UsageError("--title applies to facts, not learnings", "a learning is its statement alone")
            new, action, notes = _reword(store, tx, old, statement)
        else:
            new, action, notes = _revise(store, old, statement, reason, title, author.email), "superseded", []
        tx.message.items = [new["id"], item_id]
        tx.message.subject_item = new["id"]
        tx.message.summary = statement
        tx.message.supersedes = item_id
        tx.write(new)
        tx.write(old)
    return Superseded(model.normalize_item(new), model.normalize_item(old), tx.commit_id, action, notes)


def _revise(store: Store, old: dict, statement: str, reason: str | None, title: str | None, author: str) -> dict:
    """A claim's new version (OLD superseded in place): a proposal revised, or a reviewed claim replaced by a
    reviewer, the new one inheriting its status so that agents never lose the belief in between (SPEC 5)."""
    item_id = old["id"]
    model.check_transition(old, "superseded")
    if old["status"] in GOVERNED:
        require_reviewer(store, author, f"supersede an {old['status']} claim",
                         f"propose a revision instead: vmem propose TEXT --supersedes {item_id}")
    now = model.now()
    new = dict(old)
    new.update({
        "id": model.new_id("claim"),
        "title": " ".join(title.split()) if title else old["title"],
        "statement": statement,
        "status": old["status"] if old["status"] in GOVERNED else "proposed",
        "source": {"type": "analyst", "user": author, "episode": None},
        "confidence": base_confidence("analyst"),  # the reviser's words: an analyst's base, whatever the old one had
        "verifications": [],
        "created_at": now,
        "valid_from": now,
        "valid_to": None,
        "expires_at": expires_at(store.policy, old["class"], now),
        "supersedes": item_id,
        "superseded_by": None,
        "review": ({"by": author, "at": now, "action": "supersede", "reason": reason}
                   if old["status"] in GOVERNED else None),
    })
    model.transition(old, "superseded", at=now, superseded_by=new["id"])
    return new


def _reword(store: Store, tx, old: dict, statement: str) -> tuple[dict, str, list[str]]:
    """SPEC 6: a quarantined or candidate learning reworded: a new learning with the new words and OLD's categories
    and evidence, every publish gate run at once (de-id on the new words with the screening lexicon, as propose
    does; support, writers and the category floor over the evidence history vouches for, as consolidate counts
    it), and OLD superseded. Anyone may: nobody has decided on either yet. (new item, action, notes)"""
    from vmem.gates.publish import GateInputs, run_gates, screen, status_after_gates
    from vmem.ops.propose import find_canonical
    from vmem.text import canonicalize

    item_id = old["id"]
    if old["status"] not in REWORDABLE:
        later = old.get("superseded_by") or old.get("merged_into")
        raise IllegalTransition(f"{item_id} is {old['status']}; only a quarantined or candidate learning is "
                                "reworded with supersede", f"its words live on in {later}: vmem show {later}"
                                if later else _NOT_REWORDABLE.get(old["status"], _FINAL))
    canonical = canonicalize(statement)
    twin = find_canonical(tx.snapshot, canonical)  # another learning that says this already
    if twin is not None and twin["id"] == item_id:
        twin = None
    if twin is not None and twin["status"] == "rejected":  # as propose refuses it
        why = (twin.get("review") or {}).get("reason") or "no reason recorded"
        raise IllegalTransition(f"{twin['id']} says this and was rejected: {why}; nothing written",
                                f"reword it otherwise: vmem supersede {item_id} \"...\"")
    now = model.now()
    new = model.validate("knowledge", {
        "id": model.new_id("knowledge"),
        "kind": "knowledge",
        "statement": statement,
        "canonical": canonical,
        "categories": list(old["categories"]),
        "status": "candidate",
        "evidence": [dict(e) for e in old["evidence"]],  # the same observations, in other words
        "first_seen": old["first_seen"],
        "last_reinforced": old["last_reinforced"],
        "valid_from": now,
        "supersedes": item_id,
    }, "the reworded learning")
    # what the gates count: the evidence history vouches for on OLD, which this commit moves (SPEC 12), and the
    # customers a reviewer counted; the de-id verdict comes from the store's cached lexicon
    vouched = store.attestation(tx.snapshot).attested_evidence(model.item_path(item_id), old)
    screened = screen(statement, tx.snapshot)
    gate = run_gates({**new, "evidence": vouched}, GateInputs({}, {}, counted=tx.snapshot.counted_entities()),
                     store.policy, screened=screened)
    target = status_after_gates(gate)
    if target == "eligible" and twin is not None:
        target = "candidate"  # the words are TWIN's: consolidate's canonical merge joins their support first
    new.update(gate=gate, status=target)
    model.transition(old, "superseded", at=now, superseded_by=new["id"])
    if target == "quarantined" and not tx.message.reason:
        tx.message.reason = gate["reason"]  # as propose records a quarantine
    moved = len(new["evidence"])
    notes = [f"{item_id} is now superseded; its evidence ({counted(moved, 'entry')}) moved with "
             "the new words"]
    if target == "quarantined" and not screened.passed:
        return new, "quarantined", notes + [gate["reason"], screened.advice,
                                            f'rephrase it: vmem supersede {new["id"]} "..."']
    if target == "quarantined":  # the category floor: other words cannot help, more customers in it can
        return new, "quarantined", notes + [gate["reason"], "it waits until more customers hold its categories; "
                                            "vmem consolidate releases it then"]
    if twin is not None:
        notes.append(f"{twin['id']} ({twin['status']}) says the same: the next vmem consolidate merges them")
    elif target == "eligible":
        notes.append(f"it meets every gate: a reviewer may publish it (vmem publish {new['id']})")
    if gate["reason"]:
        notes.append(f"a candidate until support grows: {gate['reason']}")
    return new, "superseded", notes


_FINAL = "propose the learning anew: vmem propose TEXT --from ENTITY -c CATEGORY"
_NOT_REWORDABLE = {
    "eligible": "it awaits a reviewer's decision; its words can still be edited there: vmem review",
    "published": "a published learning is replaced through review: propose the new wording (vmem propose TEXT "
                 "--from ENTITY -c CATEGORY), and a reviewer publishes it",
}
