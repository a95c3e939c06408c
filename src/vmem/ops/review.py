"""The review queue: proposed claims and eligible knowledge with what a reviewer needs, and the edit action."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from vmem import confidence, model
from vmem.errors import SchemaError, UsageError, VmemError
from vmem.store import codec
from vmem.store.repo import Store
from vmem.text import canonicalize

EDITABLE = {"claim": ("title", "statement", "class", "domain", "categories", "paths"),
            "knowledge": ("statement", "categories")}


def entry(item: dict, policy: dict) -> dict:
    """One queue row (SPEC 6: review --list)."""
    evidence = item.get("evidence") or []
    return {
        "id": item["id"], "kind": item["kind"], "status": item["status"], "statement": item["statement"],
        "support_tier": confidence.support_tier(item, policy["knowledge"]["tiers"]),
        "distinct_entities": confidence.distinct_entities(item) if item["kind"] == "knowledge" else None,
        "writers": len({e["writer"] for e in evidence}) if item["kind"] == "knowledge" else None,
        "evidence_count": len(evidence),
        "merges": [{"from": m["from"], "judge": m["judge"], "reason": m["reason"]} for m in item.get("merges") or []],
        "gate": item.get("gate"),
        "age_days": round(confidence.age_days(item), 1),
        "source": (item.get("source") or {}).get("user") if item["kind"] == "claim" else None,
    }


def queue(store: Store, status: str | None = None) -> list[dict]:
    statuses = (status,) if status else model.QUEUED
    snapshot = store.head()
    state = store.attestation(snapshot)
    state.preload()
    # an item whose file status history does not attest (a hand edit) is not reviewable: check --governance
    items = [loaded.item for loaded in snapshot.items() if loaded.item and loaded.item["status"] in statuses
             and state.status_of(loaded.path) == loaded.item["status"]]
    items.sort(key=lambda i: (i.get("created_at") or i.get("first_seen") or "", i["id"]))
    return [entry(item, store.policy) for item in items]


def _editable(store: Store, item_id: str, editor: str | None) -> tuple[list[str], str, dict]:
    """The editor command (no shell), the whole id and the item, if it is still in review; else a usage error."""
    command = shlex.split(editor or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
    snapshot = store.head()
    item_id = snapshot.resolve_id(item_id)
    item = snapshot.item(item_id)
    if item["status"] not in model.IN_REVIEW[item["kind"]]:
        raise UsageError(f"{item_id} is {item['status']}; only items still in review can be edited",
                         f"propose the change as a revision: vmem propose TEXT --supersedes {item_id}")
    return command, item_id, item


def _commit_edit(store: Store, item_id: str, item: dict, changes: dict) -> dict:
    """One commit applying CHANGES to ITEM as it was when the editor opened (refused if it moved meanwhile); an
    edited learning is screened again and goes back to candidate."""
    author = store.identity()
    with store.transaction("edit", items=[item_id]) as tx:
        tx.author = author
        current = tx.snapshot.item(item_id)
        if current != item:
            raise VmemError(f"{item_id} changed while you were editing; nothing written", "run the edit again")
        current.update(changes)
        if current["kind"] == "knowledge":
            from vmem.gates.publish import screen

            current["canonical"] = canonicalize(current["statement"])
            current["suggestions"] = None  # other words, other neighbours: screened again by the next consolidate
            current["related"] = []
            screened = screen(current["statement"], tx.snapshot)
            if not screened.passed:
                raise SchemaError(f"{item_id} (edited)", f"the edit still identifies a customer: {screened.reason}",
                                  screened.advice)
            current["gate"] = {"passed": False, "checks": {"deid": True}, "reason": "edited; run vmem consolidate",
                               "at": model.now()}
            if current["status"] in ("quarantined", "eligible"):
                model.transition(current, "candidate")
        tx.message.summary = current["statement"]
        tx.message.reason = f"edited {', '.join(changes)}"
        tx.write(current)
    return model.normalize_item(current)


def _run_editor(command: list[str], path: Path, timeout_s: float) -> None:
    """Run the editor on PATH (no shell); any failure is an error and nothing changes."""
    try:
        done = subprocess.run([*command, str(path)], timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise VmemError(f"the editor did not run ({exc}); nothing changed", "set $EDITOR to an editor command")
    if done.returncode != 0:
        raise VmemError(f"the editor exited with status {done.returncode}; nothing changed",
                        "save and quit normally to keep an edit")


def edit(store: Store, item_id: str, *, editor: str | None = None,
         timeout_s: float = 3600) -> dict:
    """Open the item in $EDITOR (no shell); validate the result; knowledge re-runs the de-id gate. One commit."""
    command, item_id, item = _editable(store, item_id, editor)
    with tempfile.TemporaryDirectory(prefix="vmem-edit-") as tmp:
        path = Path(tmp) / f"{item_id}.yaml"
        path.write_text(codec.dump(item))
        _run_editor(command, path, timeout_s)
        edited = model.validate(item["kind"], codec.load(path.read_bytes(), f"{item_id} (edited)"), f"{item_id} (edited)")
    changed = [k for k in edited if edited[k] != item[k]]
    illegal = [k for k in changed if k not in EDITABLE[item["kind"]]]
    if illegal:
        raise UsageError(f"the edit changed {illegal[0]!r}, which review edits may not change; nothing changed",
                         f"edit only: {', '.join(EDITABLE[item['kind']])}")
    if not changed:
        return item
    return _commit_edit(store, item_id, item, {key: edited[key] for key in changed})


def edit_statement(store: Store, item_id: str, *, editor: str | None = None, timeout_s: float = 3600) -> dict:
    """Review's [e]dit: the statement alone in $EDITOR (status changes go through actions, never an edit).
    Lines starting with '#' are instructions and dropped; an empty result or a failing editor changes nothing."""
    command, item_id, item = _editable(store, item_id, editor)
    with tempfile.TemporaryDirectory(prefix="vmem-edit-") as tmp:
        path = Path(tmp) / f"{item_id}.txt"
        path.write_text(f"{item['statement']}\n# Edit the statement of {item_id} above. Lines starting with '#' are "
                        "dropped.\n# Status changes are review actions ([a], [m], [r]), not edits.\n")
        _run_editor(command, path, timeout_s)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UsageError("the edited statement is not UTF-8; nothing changed", "save the file as UTF-8") from None
    statement = " ".join(line for line in text.splitlines() if not line.lstrip().startswith("#")).strip()
    statement = " ".join(statement.split())
    if not statement:
        raise UsageError("the edited statement is empty; nothing changed", "write the statement, or skip the item")
    if statement == item["statement"]:
        return item
    edited = model.validate(item["kind"], {**item, "statement": statement}, f"{item_id} (edited)")
    return _commit_edit(store, item_id, item, {"statement": edited["statement"]})


def take_in_proposals(store: Store) -> list[str]:
    """A reviewer's `vmem review` on a clone of a protected main (SPEC 15): every clone's proposals branch
    (vmem/proposals/<writer>/<clone>) is fetched, and each that only adds or edits items still in review is merged
    into main, and main is pushed, before the queue is read. For
    anyone else, and for a clone that tracks no remote, nothing. The lines to show."""
    from vmem.ops.card import is_reviewer, viewer_of
    from vmem.store.deliver import integrate

    if not is_reviewer(store, viewer_of(store)):
        return []
    rows = integrate(store.root, store.git_dir)
    store.reread()  # git moved HEAD: the queue is read from the merged state
    return [f"{row['branch'] or 'proposals'}: {row['message']}" for row in rows
            if row["branch"] is None or row["message"] != "already merged"]
