"""Effective confidence and liveness, computed at read time for every consumer (SPEC 8, 9)."""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache

from vmem.model import SERVABLE, parse_ts

SOURCE_BASE = {
    "admin_mandate": 1.00, "definition": 0.90, "analyst": 0.50, "session_transcript": 0.50, "import": 0.50,
}
VERIFICATION_BASE = {"correction": 0.90, "confirmation": 0.60}
REVIEWED_BONUS = 0.20
CONFIRMED_BONUS = 0.20
EXTRA_VERIFIER_BONUS = 0.05
CORRECTED_FACTOR = 0.5
HALF_LIFE_MONTHS = 12.0
DAYS_PER_MONTH = 365.25 / 12


HARVESTED_BASE = {"correction": 0.90, "definition": 0.90, "confirmation": 0.60}  # vmem harvest's finds (SPEC 9, 16)


def base_confidence(source_type: str, verification_kind: str | None = None) -> float:
    if source_type == "user_verification":
        return VERIFICATION_BASE.get(verification_kind or "confirmation", 0.60)
    if source_type == "session_transcript" and verification_kind in HARVESTED_BASE:
        return HARVESTED_BASE[verification_kind]
    return SOURCE_BASE.get(source_type, 0.50)


def _age_days(since: str | None, at: datetime) -> float:
    if not since:
        return 0.0
    return max(0.0, (at - parse_ts(since)).total_seconds() / 86400)


def is_corrected(verifications: list[dict]) -> bool:
    """The newest verification is a correction: someone said this statement is wrong since anyone confirmed it."""
    if not verifications:
        return False
    newest = max(range(len(verifications)), key=lambda n: (verifications[n]["at"], n))  # same second: the later one
    return verifications[newest]["kind"] == "correction"


def reference_time(item: dict) -> str | None:
    """Age counts from the newest of creation, the last review and the last verification."""
    if item["kind"] == "knowledge":
        return item.get("last_reinforced")
    stamps = [item.get("created_at")]
    if item.get("review"):
        stamps.append(item["review"]["at"])
    stamps += [v["at"] for v in item.get("verifications") or []]
    return max(s for s in stamps if s)


def age_days(item: dict, at: datetime | None = None) -> float:
    return _age_days(reference_time(item), at or datetime.now(timezone.utc))


def effective_confidence(item: dict, at: datetime | None = None, age: float | None = None) -> float:
    """AGE: age_days(item, at) when the caller has it already."""
    at = at or datetime.now(timezone.utc)
    c = float(item.get("confidence") or 0.5)
    verifications = item.get("verifications") or []
    if item["kind"] == "knowledge":
        if item["status"] == "published":
            c += REVIEWED_BONUS
    corrected = False
    if item["kind"] != "knowledge":
        if item["status"] in SERVABLE["claim"] and item.get("review"):
            c += REVIEWED_BONUS
        corrected = is_corrected(verifications)
        confirmers = {v["user"] for v in verifications if v["kind"] == "confirmation"}
        if confirmers and not corrected:
            c += CONFIRMED_BONUS
            c += EXTRA_VERIFIER_BONUS * max(0, len(confirmers) - 1)
        if corrected:
            # SPEC 9: a correction is a 0.90 base for the *corrected* statement (proposed as its revision), and
            # evidence against this one: it loses the confirmation bonus and the verified floor, and halves
            c *= CORRECTED_FACTOR
    c *= 0.5 ** ((age_days(item, at) if age is None else age) / DAYS_PER_MONTH / HALF_LIFE_MONTHS)
    if item["status"] == "mandatory":
        c = max(c, 0.50)
    if verifications and not corrected:
        c = max(c, 0.40)
    return round(min(1.0, max(0.0, c)), 4)


@lru_cache(maxsize=8)
def _canonical(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _not_after(stamp: str, at: datetime) -> bool:
    """stamp <= at; vmem's canonical stamps compare as text (this runs for every item on every sync)."""
    if len(stamp) == 20 and stamp.endswith("Z"):
        return stamp <= _canonical(at)
    return parse_ts(stamp) <= at


def is_expired(item: dict, at: datetime | None = None) -> bool:
    at = at or datetime.now(timezone.utc)
    return bool(item.get("expires_at")) and _not_after(item["expires_at"], at)


def bundle_rank(item: dict, at: datetime | None = None) -> float:
    """What sync packs first: confidence x max(0, 1 - age_days / 365)."""
    at = at or datetime.now(timezone.utc)
    age = age_days(item, at)
    return effective_confidence(item, at, age) * max(0.0, 1 - age / 365)


def is_live(item: dict, at: datetime | None = None) -> bool:
    """Servable now: reviewed, inside its valid time, not expired (checked here, whatever the sweep recorded)."""
    at = at or datetime.now(timezone.utc)
    ok = item["status"] in SERVABLE[item["kind"]]
    if ok and item["kind"] != "knowledge" and is_expired(item, at):
        return False
    if ok and item.get("valid_from") and not _not_after(item["valid_from"], at):
        return False
    if ok and item.get("valid_to") and _not_after(item["valid_to"], at):
        return False
    return ok


def distinct_entities(item: dict) -> int:
    return len({e["entity"] for e in item.get("evidence") or []})


def support_tier(item: dict, tiers: dict) -> str | None:
    """What agents see instead of a count: emerging 3-4, established 5-9, extensive 10+."""
    if item["kind"] != "knowledge":
        return None
    n = distinct_entities(item)
    for name in ("extensive", "established", "emerging"):
        if n >= tiers[name]:
            return name
    return "insufficient"
