"""Inspecting items: one item with what every consumer computes from it, or a filtered list."""

from __future__ import annotations

from dataclasses import dataclass

from vmem import confidence, model
from vmem.errors import SchemaError, UsageError
from vmem.store.repo import Store


def computed(item: dict, policy: dict, state=None) -> dict:
    """What every consumer sees at this moment: with STATE (the attestation), the status history attests."""
    path = model.item_path(item["id"])
    attested = state.status_of(path) if state is not None else item["status"]
    served = {**item, "status": attested or "unattested"}
    live = confidence.is_live(served) and (state is None or state.servable(path, item["kind"]))
    out = {
        "effective_confidence": confidence.effective_confidence(served),
        "live": live,
        "support_tier": confidence.support_tier(item, policy["knowledge"]["tiers"]),
        "age_days": round(confidence.age_days(item), 2),
        "attested_status": attested,
    }
    found = state.unattested.get(path) if state is not None else None
    if found:
        out["unattested"] = {"status": found[0], "commit": found[1]}
    edit = state.altered.get(path) if state is not None else None
    if edit:
        out["unattested_edit"] = {"commit": edit, "served_blob": state.served_blob(path, None)}
    return out


def show(store: Store, item_id: str) -> dict:
    snapshot = store.head()
    item = snapshot.item(snapshot.resolve_id(item_id))
    return {**item, "computed": computed(item, store.policy, store.attestation(snapshot))}


@dataclass
class Listing:
    items: list[dict]
    errors: list[SchemaError]


def list_items(store: Store, kind: str | None = None, status: str | None = None) -> Listing:
    kinds = ("claim", "knowledge") if kind is None else (kind,)
    if kind not in (None, "claim", "knowledge"):
        raise UsageError(f"unknown kind {kind!r}", "use --kind claim or --kind knowledge")
    statuses = set(model.CLAIM_STATUSES) | set(model.KNOWLEDGE_STATUSES)
    if status is not None and status not in statuses:
        raise UsageError(f"unknown status {status!r}", f"use one of: {', '.join(sorted(statuses))}")
    items, errors = [], []
    for loaded in store.head().items(kinds):
        if loaded.error is not None:
            errors.append(loaded.error)
        elif status is None or loaded.item["status"] == status:
            items.append(loaded.item)
    items.sort(key=lambda i: (i.get("created_at") or i.get("first_seen") or "", i["id"]))
    return Listing(items, errors)
