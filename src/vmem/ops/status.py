"""`vmem status`: which store a command here acts on, its remote, ahead/behind, and what waits for delivery
(SPEC 15). Whatever waits is delivered first, so the answer is the state after trying."""

from __future__ import annotations

from pathlib import Path
from vmem.output import counted


def status(store, via: str | None = None) -> dict:
    from vmem.store.deliver import check, deliver, dropped, on_remote
    from vmem.store.remote import status as remote_status

    checked = check(store.root, store.git_dir)  # the remote asked first: a delivery is claimed only if it is there
    sent = deliver(store.root, store.git_dir)
    store.reread()  # a replay moves HEAD
    data = {"store": str(store.root), "via": via, "head": store.head().commit_id, **remote_status(store.root),
            "delivery": sent.as_dict(), "on_remote": on_remote(store.root, checked),
            "dropped": dropped(store.git_dir), "dropped_note": sent.dropped,
            "reviewers": list(store.attestation().policy["reviewers"])}  # none: a solo store (SPEC 12)
    from vmem.ops.harvest import pending_count, waiting_notice

    data["harvest_waiting"] = pending_count()
    data["harvest_note"] = waiting_notice(Path.cwd())
    return data


def lines(data: dict) -> list[str]:
    """The answer for people."""
    head = (data["head"] or "no commits")[:10]
    out = [f"store: {data['store']} at {head}" + (f" (from {data['via']})" if data["via"] else "")]
    if data.get("harvest_note"):
        out.append(data["harvest_note"])
    if not data.get("reviewers"):
        out.append("solo store: no reviewers, so anyone who can push may approve and publish (name them in "
                   "vmem.yaml's reviewers:)")
    if not data["remote"]:
        out.append("remote: none (the store's branch tracks no remote; nothing is delivered)")
        return out
    seen = data["on_remote"]
    asked = "checked just now" if seen["checked"] else f"as last fetched; not checked now: {seen['message']}"
    out.append(f"remote: {data['remote']} {data.get('url') or ''} ({data['branch']}): "
               f"{data['ahead']} ahead, {data['behind']} behind ({asked})")
    delivery, remote = data["delivery"], data["remote"]
    if seen["lost"]:
        out.append(f"{counted(seen['lost'], 'proposal')} this clone delivered to {seen['branch']} had gone from {remote} "
                   "(a teammate overwrote or deleted the branch); "
                   + ("delivered again" if not data["waiting"] else "not delivered again yet"))
    if data["waiting"]:
        out.append(f"waiting: {counted(data['waiting'], 'commit')} not on {remote}, not yet delivered"
                   + (f" ({delivery['message']}; {delivery['hint']})" if delivery.get("message") else ""))
    if seen["held"]:
        out.append(f"{counted(seen['held'], 'proposal')} on {remote} ({seen['branch']}; main is protected): a reviewer "
                   "merges them with vmem review")
    elif not data["waiting"]:
        out.append("everything is delivered")
    if data.get("dropped_note"):
        out.append(data["dropped_note"])
    return out
