"""Resolving a contradiction: retire one side in favour of the other, through the governed commands (a reviewer's
approve of one side offers it). Apart from ops/contradictions.py, which finds the pairs: the commands it calls
(govern, publish) check contradictions themselves once a claim is live, and a finder that imported them back
would close a circle."""

from __future__ import annotations

from vmem import model
from vmem.ops.contradictions import resolutions


def resolve(store, keep_id: str, other_id: str, how: str) -> dict:
    """Retire OTHER in favour of KEEP: `supersede` (one commit links both), or `revoke` (revoke a live claim,
    reject a proposal). Returns {"action", "item", "commit"}."""
    from vmem.errors import NotAllowed, UsageError
    from vmem.ops.common import require_reviewer

    snapshot = store.head()
    keep, other = snapshot.item(keep_id), snapshot.item(other_id)
    legal = resolutions(keep, other)
    if how not in legal:
        raise NotAllowed(f"{other_id} is {other['status']}; it cannot be {how}d in favour of {keep_id}",
                         f"possible: {', '.join(legal) or 'nothing (resolve it by hand)'}")
    reason = f"contradicted by {keep_id}"
    if how == "revoke":
        if other["status"] in model.SERVABLE["claim"]:
            from vmem.ops.govern import set_status

            done = set_status(store, other_id, "revoked", reason=reason)
            return {"action": "revoked", "item": done.item, "commit": done.commit}
        from vmem.ops.publish import reject

        done = reject(store, other_id, reason=reason)
        return {"action": "rejected", "item": done.item, "commit": getattr(done, "commit", None)}
    author = store.identity()
    require_reviewer(store, author.email, "supersede a contradicted item")
    with store.transaction("supersede", items=[other_id, keep_id], supersedes=other_id, reason=reason) as tx:
        tx.author = author
        keep, other = tx.snapshot.item(keep_id), tx.snapshot.item(other_id)
        if keep.get("supersedes"):
            raise UsageError(f"{keep_id} already revises {keep['supersedes']}",
                             f"revoke the other item instead: vmem revoke {other_id} --reason …")
        model.transition(other, "superseded", superseded_by=keep_id)
        keep["supersedes"] = other_id
        tx.message.summary = keep["statement"]
        tx.write(other)
        tx.write(keep)
    return {"action": "superseded", "item": model.normalize_item(other), "commit": tx.commit_id}
