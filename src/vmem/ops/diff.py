"""`vmem diff [SINCE [UNTIL]]`: the belief diff — what the team started and stopped believing between two points
of history: what became live, what stopped (superseded and by what, revoked, expired, invalidated, rejected), what
was published, edited or re-scoped, by whom and why. Derived from attested history (SPEC 12): two attestations
compared item by item, so a hand edit shows up in `check`, never here as a change."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from vmem import model
from vmem.errors import ItemNotFound, UsageError

DEFAULT_SINCE = "7 days ago"
HINT = "give dates (2026-11-01, 'yesterday', '2 weeks ago') or git revisions (a commit id, HEAD~5, a tag)"
LIVE_CHANGE = {"approved": "approved", "mandatory": "mandated", "published": "published"}
STOP_CHANGE = {"superseded": "superseded", "revoked": "revoked", "expired": "expired", "invalidated": "invalidated",
               "rejected": "rejected"}
SCOPE_FIELDS = ("scope", "audience", "paths", "personal")


def _point(store, text: str, what: str):
    """(snapshot or None before the store's first commit, moment) for a date, phrase or git revision."""
    from vmem.ops.when import moment
    from vmem.store import history

    text = (text or "").strip()
    if not text:
        raise UsageError(f"{what} is empty", HINT)
    at = moment(text)
    if at is not None:
        if at > datetime.now(timezone.utc) + timedelta(minutes=1):
            raise UsageError(f"{what} {text!r} is in the future", HINT)
        try:
            return store.as_of(at), at
        except ItemNotFound:
            return None, at  # before the store began: nothing was believed yet
    snapshot = history.snapshot_named(store, text)
    if snapshot is None:
        raise UsageError(f"{what} {text!r} is neither a date nor a revision of this store", HINT)
    return snapshot, datetime.fromtimestamp(snapshot.commit.commit_time, timezone.utc)


def diff(store, since: str | None = None, until: str | None = None, viewer: str | None = None) -> dict:
    """Every item whose attested belief differs between SINCE (default: 7 days ago) and UNTIL (default: now), one
    change each, oldest first. VIEWER: who asks (another person's personal items are left out)."""
    from vmem.visibility import visible_to

    before, start = _point(store, since or DEFAULT_SINCE, "SINCE")
    after, end = _point(store, until or "now", "UNTIL")
    if end < start:
        raise UsageError("UNTIL is earlier than SINCE", "give the earlier point first: vmem diff SINCE UNTIL")
    old = store.attestation(before) if before is not None else None
    new = store.attestation(after) if after is not None else None
    for state in (old, new):
        if state is not None:
            state.preload()
    paths = set()
    for snapshot, state in ((before, old), (after, new)):
        if snapshot is not None:
            paths |= {p for p, _ in snapshot.walk("claims")} | {p for p, _ in snapshot.walk("knowledge")}
            paths |= set(state.dropped)
    changes = []
    for path in sorted(p for p in paths if p.endswith(".yaml")):
        row = _change(store, path, old, new, before, after, start, end)
        if row is not None and visible_to(row.pop("_item"), viewer):
            changes.append(row)
    changes.sort(key=lambda r: (r["at"] or "", r["id"]))
    return {"since": model.format_ts(start), "until": model.format_ts(end),
            "since_commit": before.commit_id if before is not None else None,
            "until_commit": after.commit_id if after is not None else None, "changes": changes}


def _served(state, snapshot, path: str) -> dict | None:
    """PATH's item as the attestation STATE serves it (the reviewed version), or None."""
    from vmem.errors import SchemaError
    from vmem.store import blobs
    from vmem.store.changes import Change
    from vmem.store.parse import parse_blob

    if state is None or snapshot is None:
        return None
    entry = snapshot.blob(path)
    oid = state.serve(path, Change(entry[0], 0o100644) if entry else None)
    if oid is None:
        return None
    kind = "claim" if path.startswith("claims/") else "knowledge"
    try:
        return parse_blob(kind, path, oid, blobs.read(snapshot, oid))
    except SchemaError:
        return None


def _live(item: dict | None, status: str | None, at: datetime) -> bool:
    from vmem import confidence

    return item is not None and status in model.SERVABLE[item["kind"]] and confidence.is_live(
        {**item, "status": status}, at)


def _change(store, path, old, new, before, after, start, end) -> dict | None:
    was = old.status_of(path) if old is not None else None
    now = new.status_of(path) if new is not None else None
    kind = "claim" if path.startswith("claims/") else "knowledge"
    then_served = set(model.SERVABLE[kind])
    if was == now and was not in then_served:
        return None  # nothing served on either side, and no status moved: proposals come and go in review
    same_content = was == now and (old.served.get(path) or [None, None])[1] == (new.served.get(path) or [None, None])[1]
    if same_content and was not in then_served:
        return None
    item_then, item_now = _served(old, before, path), _served(new, after, path)
    item = item_now or item_then
    if item is None:
        return None
    live_then, live_now = _live(item_then, was, start), _live(item_now, now, end)
    change = None
    if now in LIVE_CHANGE and (not live_then or was != now) and live_now:
        change = LIVE_CHANGE[now]
    elif live_then and now in STOP_CHANGE:
        change = STOP_CHANGE[now]
    elif now in STOP_CHANGE and was != now and now == "rejected":
        change = "rejected"  # a proposal turned down
    elif live_then and not live_now and now == was:
        change = "expired"  # its time ran out; no sweep need have recorded it
    elif live_then and live_now and not same_content:
        moved = [f for f in SCOPE_FIELDS if item_then.get(f) != item_now.get(f)]
        change = "re-scoped" if moved else "edited"
    if change is None:
        return None
    by, at, reason = _who(store, new, path, item, change)
    if change == "superseded" and item.get("superseded_by"):
        reason = f"superseded by {item['superseded_by']}" + (f": {reason}" if reason else "")
    return {"id": item["id"], "kind": kind, "change": change, "from_status": was, "to_status": now,
            "statement": item["statement"], "by": by, "at": at, "reason": reason, "_item": item}


def _who(store, state, path: str, item: dict, change: str) -> tuple[str | None, str | None, str | None]:
    """(who decided, when, why): the reviewer's decision history attests, else the commit that changed the status
    (a sweep, a consolidation); an expiry by time is the clock's."""
    from vmem.store import history
    from vmem.store.message import parse

    if change == "expired" and item.get("expires_at"):
        return None, item["expires_at"], "past expires_at"
    decided = state.decider.get(path) if state is not None else None
    if decided is None:
        review = item.get("review") or {}
        return review.get("by"), review.get("at"), review.get("reason")
    stamp = model.format_ts(datetime.fromtimestamp(decided[2], timezone.utc))
    message = history.message_of(store, decided[0])
    parsed = parse(message) if message else None
    return decided[1], stamp, parsed.reason if parsed else None


GROUPS = (("became live", ("approved", "mandated", "published")),
          ("stopped", ("superseded", "revoked", "expired", "invalidated", "rejected")),
          ("changed", ("edited", "re-scoped")))


def lines(data: dict) -> list[str]:
    """The answer for people: grouped by change, one line each."""
    out = [f"beliefs from {data['since']} to {data['until']}"]
    for title, kinds in GROUPS:
        rows = [r for r in data["changes"] if r["change"] in kinds]
        if not rows:
            continue
        out.append(f"{title} ({len(rows)}):")
        for r in rows:
            who = ", ".join(x for x in (r["by"], (r["at"] or "")[:10]) if x)
            out.append(f"  {r['change']} {r['id']}: {r['statement']}" + (f" ({who})" if who else "")
                       + (f" -- {r['reason']}" if r["reason"] else ""))
    if not data["changes"]:
        out.append("no change in what agents are served")
    return out
