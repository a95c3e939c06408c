"""Selection and packing for sync (SPEC 9, 13): the trusted set, chosen by the rule recall uses, ranked and packed
into the token budget once, as a target-neutral Bundle that every target renders.

Mandatory claims are never dropped; approved claims and published knowledge are ranked by confidence x freshness
and packed, skipping what does not fit and packing smaller ones after. A rule carries its provenance (who
vouched for it and when, its confidence or support tier) so every target can print it.
"""

from __future__ import annotations

from vmem.targets.text import CHARS_PER_TOKEN, HEADER  # the text's cost is the targets' to say

_FIELDS = ("id", "kind", "status", "title", "statement", "scope", "paths")


class Bundle:  # plain classes: this module is on the hook's start-up path, and dataclasses imports inspect
    """MANDATORY rules (never dropped) and RANKED ones (packed, most trusted first), as plain dicts."""

    def __init__(self, mandatory: list[dict] | None = None, ranked: list[dict] | None = None,
                 dropped: list[str] | None = None, store_name: str = "", commit: str | None = None,
                 store_id: str | None = None) -> None:
        self.mandatory = mandatory if mandatory is not None else []
        self.ranked = ranked if ranked is not None else []
        self.dropped = dropped if dropped is not None else []
        self.store_name, self.commit, self.store_id = store_name, commit, store_id

    @property
    def items(self) -> list[str]:
        return [r["id"] for r in self.mandatory + self.ranked]

    def as_dict(self) -> dict:
        return {"mandatory": self.mandatory, "ranked": self.ranked, "dropped": self.dropped,
                "store_name": self.store_name, "commit": self.commit, "store_id": self.store_id}

    @classmethod
    def from_dict(cls, data: dict) -> "Bundle":
        return cls(data["mandatory"], data["ranked"], data["dropped"], data["store_name"], data["commit"],
                   data["store_id"])


def rule_of(item: dict, tiers: dict, at) -> dict:
    """What a target may print of ITEM: its text, scope, paths and provenance; never evidence or customers."""
    from vmem import confidence

    rule = {key: item.get(key) for key in _FIELDS}
    rule["scope"] = item.get("scope") or "org"
    rule["paths"] = list(item.get("paths") or [])
    if item["kind"] == "knowledge":
        rule["scope"] = "org"
        rule["tier"] = confidence.support_tier(item, tiers)
        vouched = item.get("published") or {}
    else:
        rule["confidence"] = round(confidence.effective_confidence(item, at), 2)
        vouched = item.get("review") or {}
    rule["by"], rule["at"] = vouched.get("by"), vouched.get("at")
    return rule


def select(items: list[dict], entity: str | None, audience: str, at) -> list[dict]:
    """The servable items this caller may see: exactly recall's rule (vmem.visibility), never a second copy."""
    from vmem.visibility import admits

    return [item for item in items if admits(item, entity, audience, False, at)]


def pack(items: list[dict], policy: dict, *, entity: str | None, audience: str, budget: int, store_name: str,
         commit: str | None, store_id: str | None = None) -> Bundle:
    from datetime import datetime, timezone

    from vmem import confidence
    from vmem.targets.text import entry

    at = datetime.now(timezone.utc)
    tiers = policy["knowledge"]["tiers"]
    bundle = Bundle(store_name=store_name, commit=commit, store_id=store_id)
    chosen = select(items, entity, audience, at)
    bundle.mandatory = [rule_of(i, tiers, at) for i in sorted((i for i in chosen if i["status"] == "mandatory"),
                                                               key=lambda i: i["id"])]
    ranked = sorted((i for i in chosen if i["status"] != "mandatory"),
                    key=lambda i: (-confidence.bundle_rank(i, at), i["id"]))
    used = len(HEADER) // CHARS_PER_TOKEN
    for item in ranked:
        if budget - used < 8:  # no entry is smaller than this: the rest cannot fit
            bundle.dropped.append(item["id"])
            continue
        if (len(item["statement"]) + len(item.get("title") or "")) // (CHARS_PER_TOKEN + 1) > budget - used:
            bundle.dropped.append(item["id"])  # cannot fit even before formatting
            continue
        rule = rule_of(item, tiers, at)
        cost = len(entry(rule)) // CHARS_PER_TOKEN + 1
        if used + cost > budget:
            bundle.dropped.append(item["id"])  # too big for what is left: smaller ones may still fit
            continue
        used += cost
        bundle.ranked.append(rule)
    return bundle
