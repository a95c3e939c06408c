"""`vmem status`: which store a command here acts on, its remote, ahead/behind, and what waits for delivery
(SPEC 15). Whatever waits is delivered first, so the answer is the state after trying."""

from __future__ import annotations


def status(store, via: str | None = None) -> dict:
    from vmem.store.deliver import deliver
    from vmem.store.remote import status as remote_status

    sent = deliver(store.root, store.git_dir)
    store.reread()  # a replay moves HEAD
    data = {"store": str(store.root), "via": via, "head": store.head().commit_id, **remote_status(store.root),
            "delivery": sent.as_dict()}
    return data


def lines(data: dict) -> list[str]:
    """The answer for people."""
    head = (data["head"] or "no commits")[:10]
    out = [f"store: {data['store']} at {head}" + (f" (from {data['via']})" if data["via"] else "")]
    if not data["remote"]:
        out.append("remote: none (the store's branch tracks no remote; nothing is delivered)")
        return out
    out.append(f"remote: {data['remote']} {data.get('url') or ''} ({data['branch']}): "
               f"{data['ahead']} ahead, {data['behind']} behind (as last fetched)")
    delivery = data["delivery"]
    if data["waiting"]:
        out.append(f"waiting: {data['waiting']} commit{'s' if data['waiting'] != 1 else ''} not yet delivered"
                   + (f" ({delivery['message']}; {delivery['hint']})" if delivery.get("message") else ""))
    elif delivery["state"] == "branch" or data["ahead"]:
        out.append(f"{data['ahead']} commit{'s' if data['ahead'] != 1 else ''} on {data['proposals']} (main is "
                   "protected): a reviewer merges them with vmem review")
    else:
        out.append("everything is delivered")
    return out
