"""Who may see an item (SPEC 8, 11): the one scope, audience, liveness and personal rule that sync, recall, the MCP
server and every face that shows items to a person share. Kept free of heavy imports (vmem.model included, until a
caller ranks): the pre-session hook builds its bundle through it."""

from __future__ import annotations

from functools import cache


def visible_to(item: dict, viewer: str | None) -> bool:
    """A person (VIEWER's e-mail; None: nobody known) may see ITEM in a queue, a card, a warning, a listing or a
    report: another person's personal item never."""
    return not item.get("personal") or (viewer is not None and (item.get("source") or {}).get("user") == viewer)


def held_back(kind: str, published_seq: int | None, lexicon_since: int | None) -> bool:
    """While the lexicon is incomplete (LEXICON_SINCE: the point in history from which; None: it reads), knowledge
    published at or after that point, or at a point history does not tell (PUBLISHED_SEQ None), is not served."""
    return kind == "knowledge" and lexicon_since is not None and not (
        published_seq is not None and published_seq < lexicon_since)


@cache
def _ranking():
    """vmem.confidence and vmem.model, imported on the first call, not at the top: a warm sync never ranks, so
    never imports vmem.model (and a sync that ranks asks per item: one import statement each cost ~2 ms at 10k)."""
    from vmem import confidence, model

    return confidence, model


def admits(item: dict, entity: str | None, audience: str, include_stale: bool = False, at=None) -> bool:
    """ITEM, as history attests it, may be served to a caller in ENTITY's scope (None: org only) and AUDIENCE.

    Live reviewed claims scoped to the org or to ENTITY and visible to AUDIENCE; live published knowledge
    visible to AUDIENCE; never personal items; superseded or expired ones only with INCLUDE_STALE."""
    confidence, model = _ranking()

    if not visible_to(item, None):  # an agent is nobody's person
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
