"""Retraction: drop one customer's or one episode's evidence everywhere, recount, and demote what falls below k."""

from __future__ import annotations

from dataclasses import dataclass, field

from vmem import model
from vmem.errors import UsageError
from vmem.policy import k_min
from vmem.store.repo import Store


@dataclass
class Forgotten:
    evidence_removed: int = 0
    invalidated: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    commit: str | None = None

    def as_dict(self) -> dict:
        return {"evidence_removed": self.evidence_removed, "invalidated": self.invalidated, "demoted": self.demoted}


def forget(store: Store, *, entity: str | None = None, episode: str | None = None, reason: str) -> Forgotten:
    if bool(entity) == bool(episode):
        raise UsageError("forget needs exactly one of --entity or --episode", "e.g. vmem forget --entity acme "
                         "--reason 'customer asked us to delete their data'")
    if not reason or not reason.strip():
        raise UsageError("forget needs a reason", "add --reason \"why this evidence is withdrawn\"")
    if entity:
        model.check_name_id(entity)
    else:
        model.check_name_id(episode, "episode")
    result = Forgotten()
    author = store.identity()
    with store.transaction("forget", reason=reason) as tx:
        tx.author = author
        k = k_min(store.policy)
        changed = []
        for loaded in tx.snapshot.files("knowledge"):
            item = loaded.item
            if item is None:
                continue
            kept = [e for e in item["evidence"] if not (e["entity"] == entity if entity else e["episode"] == episode)]
            if len(kept) == len(item["evidence"]):
                continue
            result.evidence_removed += len(item["evidence"]) - len(kept)
            item["evidence"] = kept
            support = len({e["entity"] for e in kept})
            if item["status"] == "published" and support < k:
                model.transition(item, "invalidated", by=author.email, action="invalidate",
                                 reason=f"support fell to {support} < {k} after forget: {reason.strip()}")
                result.invalidated.append(item["id"])
            elif item["status"] == "eligible" and support < k:
                model.transition(item, "candidate")
                result.demoted.append(item["id"])
            changed.append(item)
        target = f"entity {entity}" if entity else f"episode {episode}"
        tx.message.summary = (f"{target}: {result.evidence_removed} evidence removed, "
                              f"{len(result.invalidated)} invalidated, {len(result.demoted)} demoted")
        tx.message.items = [item["id"] for item in changed]
        for item in changed:
            tx.write(item)
    result.commit = tx.commit_id
    return result
