"""The human gate for knowledge: publish re-runs every gate; reject is remembered."""

from __future__ import annotations

from dataclasses import dataclass

from vmem import model
from vmem.confidence import support_tier
from vmem.errors import GateFailed, UsageError
from vmem.gates.publish import load_inputs, run_gates
from vmem.names import check_audience
from vmem.ops.common import require_attested, require_reviewer
from vmem.store.repo import Store


@dataclass
class Reviewed:
    action: str
    item: dict
    commit: str | None
    contradictions: list[dict] | None = None  # after publish: the open items it contradicts now

    def data(self) -> dict:
        """What `vmem publish --json` reports."""
        data = {"action": self.action, "item": self.item, "commit": self.commit}
        if self.contradictions is not None:
            data["contradictions"] = self.contradictions
        return data


def publish(store: Store, item_id: str, *, audience: str | None = None, k_min: int | None = None) -> Reviewed:
    item_id = store.head().resolve_id(item_id)
    if model.kind_of(item_id) != "knowledge":
        raise UsageError(f"{item_id} is a claim; publish is for knowledge", f"approve a claim with: vmem approve {item_id}")
    if audience is not None:
        check_audience(audience)
    author = store.identity()
    require_reviewer(store, author.email, "publish knowledge")
    with store.transaction("publish", reason=None) as tx:
        tx.author = author
        item = tx.snapshot.item(item_id)
        require_attested(store, tx.snapshot, item)
        model.check_transition(item, "published")
        state = store.attestation(tx.snapshot)  # only the evidence history vouches for counts (SPEC 12)
        vouched = {**item, "evidence": state.attested_evidence(model.item_path(item_id), item)}
        gate = run_gates(vouched, load_inputs(tx.snapshot), store.policy, k_min)
        if not gate["passed"]:
            raise GateFailed(f"{item_id} does not pass the publish gates: {gate['reason']}",
                             "nothing was published; see the item with: vmem show " + item_id)
        now = model.now()
        model.transition(item, "published", by=author.email, action="publish", at=now, gate=gate,
                         audience=audience or store.policy["knowledge"]["default_audience"] or "all",
                         published={"by": author.email, "at": now})
        tier = support_tier(item, store.policy["knowledge"]["tiers"])
        tx.message.items = [item_id]
        tx.message.summary = item["statement"]
        tx.message.extra = {"Audience": item["audience"], "Support-Tier": tier}
        tx.write(item)
    from vmem.ops.card import viewer_of
    from vmem.ops.contradictions import open_with

    item = model.normalize_item(item)  # checked again now that it is live, as approve does (SPEC 14)
    return Reviewed("published", item, tx.commit_id, open_with(store, item, viewer_of(store)))


def reject(store: Store, item_id: str, *, reason: str) -> Reviewed:
    item_id = store.head().resolve_id(item_id)
    if not reason or not reason.strip():
        raise UsageError("a rejection needs a reason", "add --reason \"why this is not true or not useful\"")
    author = store.identity()
    require_reviewer(store, author.email, "reject items")
    with store.transaction("reject", reason=reason) as tx:
        tx.author = author
        item = tx.snapshot.item(item_id)
        require_attested(store, tx.snapshot, item)
        model.transition(item, "rejected", by=author.email, action="reject", reason=reason.strip())
        tx.message.items = [item_id]
        tx.message.summary = item["statement"]
        tx.write(item)
    return Reviewed("rejected", model.normalize_item(item), tx.commit_id)
