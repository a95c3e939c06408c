"""Supersession: a new version of a belief and the old one marked superseded, in one commit."""

from __future__ import annotations


from vmem import model
from vmem.errors import IllegalTransition
from vmem.ops.common import expires_at, require_attested, require_own_if_personal, require_reviewer
from vmem.ops.propose import _statement
from vmem.store.repo import Store

GOVERNED = model.SERVABLE["claim"]  # a reviewed claim: only a reviewer replaces it in place


class Superseded:
    __slots__ = ("item", "previous", "commit")

    def __init__(self, item: dict, previous: dict, commit: str | None) -> None:
        self.item, self.previous, self.commit = item, previous, commit

    def __repr__(self) -> str:
        return f"Superseded({self.item.get('id')!r}, previous={self.previous.get('id')!r}, commit={self.commit!r})"


def supersede(store: Store, item_id: str, statement: str, *, reason: str | None = None,
              title: str | None = None) -> Superseded:
    item_id = store.head().resolve_id(item_id)
    statement = _statement(statement)
    author = store.identity()
    with store.transaction("supersede", reason=reason) as tx:
        tx.author = author
        old = require_own_if_personal(tx.snapshot.item(item_id), author.email, item_id)
        if old["kind"] == "knowledge":
            raise IllegalTransition(
                f"{item_id} is a knowledge item; superseding knowledge re-runs the publish gates",
                "propose the new learning with: vmem propose TEXT --from ENTITY -c CATEGORY",
            )
        require_attested(store, tx.snapshot, old)
        model.check_transition(old, "superseded")
        if old["status"] in GOVERNED:
            require_reviewer(store, author.email, f"supersede an {old['status']} claim",
                             f"propose a revision instead: vmem propose TEXT --supersedes {item_id}")
        now = model.now()
        new = dict(old)
        new.update({
            "id": model.new_id("claim"),
            "title": " ".join(title.split()) if title else old["title"],
            "statement": statement,
            "status": old["status"] if old["status"] in GOVERNED else "proposed",
            "source": {"type": "analyst", "user": author.email, "episode": None},
            "verifications": [],
            "created_at": now,
            "valid_from": now,
            "valid_to": None,
            "expires_at": expires_at(store.policy, old["class"], now),
            "supersedes": item_id,
            "superseded_by": None,
            "review": ({"by": author.email, "at": now, "action": "supersede", "reason": reason}
                       if old["status"] in GOVERNED else None),
        })
        model.transition(old, "superseded", at=now, superseded_by=new["id"])
        tx.message.items = [new["id"], item_id]
        tx.message.subject_item = new["id"]
        tx.message.summary = statement
        tx.message.supersedes = item_id
        tx.write(new)
        tx.write(old)
    return Superseded(model.normalize_item(new), model.normalize_item(old), tx.commit_id)
