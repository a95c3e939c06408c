"""Who may see an item (SPEC 8): the one scope, audience and liveness rule that sync, recall and the MCP server
share. Kept free of heavy imports: the pre-session hook builds its bundle through it."""

from __future__ import annotations


def admits(item: dict, entity: str | None, audience: str, include_stale: bool = False, at=None) -> bool:
    """ITEM, as history attests it, may be served to a caller in ENTITY's scope (None: org only) and AUDIENCE.

    Live reviewed claims scoped to the org or to ENTITY and visible to AUDIENCE; live published knowledge
    visible to AUDIENCE; never personal items; superseded or expired ones only with INCLUDE_STALE."""
    from vmem import confidence, model  # here, not at the top: a warm sync never ranks, so never imports vmem.model

    if item.get("personal"):
        return False
    if item["kind"] == "knowledge":
        if item["status"] in model.STALE and include_stale:
            return item.get("audience") in ("all", audience)
        return confidence.is_live(item, at) and item.get("audience") in ("all", audience)
    if item.get("audience", "all") not in ("all", audience):
        return False
    if item["scope"] != "org" and (entity is None or item["scope"] != f"entity:{entity}"):
        return False
    if confidence.is_live(item, at):
        return True
    stale = item["status"] in model.STALE or (
        item["status"] in model.SERVABLE["claim"] and confidence.is_expired(item, at))
    return include_stale and stale
