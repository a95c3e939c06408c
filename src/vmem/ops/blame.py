"""Belief history: the supersession chain both ways, and every commit that touched each version."""

from __future__ import annotations

from datetime import datetime, timezone

from vmem import model
from vmem.errors import SchemaError
from vmem.store import blobs
from vmem.store import message as messages
from vmem.store.repo import Store, parse_blob


def chain(store: Store, item_id: str) -> list[str]:
    """Ids from the oldest version to the newest, following supersedes back and superseded_by forward."""
    snapshot = store.head()
    item_id = snapshot.resolve_id(item_id)
    item = snapshot.item(item_id)
    back, seen = [], {item_id}
    current = item
    while current.get("supersedes") and current["supersedes"] not in seen:
        seen.add(current["supersedes"])
        back.append(current["supersedes"])
        try:
            current = snapshot.item(current["supersedes"])
        except Exception:  # noqa: BLE001 - a dangling link ends the chain; vmem check reports it
            break
    forward, current = [], item
    while current.get("superseded_by") and current["superseded_by"] not in seen:
        seen.add(current["superseded_by"])
        forward.append(current["superseded_by"])
        try:
            current = snapshot.item(current["superseded_by"])
        except Exception:  # noqa: BLE001
            break
    return [*reversed(back), item_id, *forward]


def blame(store: Store, item_id: str) -> dict:
    ids = chain(store, item_id)
    paths = {model.item_path(version): version for version in ids}
    groups: list[list[dict]] = []  # one group per commit, newest first; chain order inside a group
    for commit, path, oid in store.history(list(paths)):
        version = paths[path]
        parsed = messages.parse(commit.message)
        statement = None
        if oid is not None:
            try:
                statement = parse_blob(model.kind_of(version), path, oid, blobs.read(store, oid))["statement"]
            except SchemaError:
                statement = None
        if not groups or groups[-1][0]["commit"] != str(commit.id):
            groups.append([])
        groups[-1].append({
            "commit": str(commit.id),
            "at": model.format_ts(datetime.fromtimestamp(commit.commit_time, timezone.utc)),
            "author": f"{commit.author.name} <{commit.author.email}>",
            "action": parsed.action if parsed else "git",
            "item": version,
            "statement": statement,
            "reason": parsed.reason if parsed else messages.one_line(commit.message.splitlines()[0]),
        })
    return {"chain": ids, "events": [event for group in reversed(groups) for event in group]}
