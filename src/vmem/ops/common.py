"""Small helpers shared by the domain operations."""

from __future__ import annotations

from datetime import timedelta

from vmem import model
from vmem.errors import NotAllowed
from vmem.store.repo import Store


def require_own_if_personal(item: dict, viewer: str | None, shown: str) -> dict:
    """ITEM, unless it is another person's personal item: then as if absent (SPEC 8), for every command that
    would show, revise or take it over."""
    if item.get("personal") and (viewer is None or (item.get("source") or {}).get("user") != viewer):
        from vmem.errors import ItemNotFound

        raise ItemNotFound(f"no item {shown} in this store", "list items with: vmem list")
    return item


def expires_at(policy: dict, klass: str, created: str) -> str:
    days = policy["claims"]["ttl_days"][klass]
    return model.format_ts(model.parse_ts(created) + timedelta(days=days))


def widenings(old: dict, new: dict) -> list[str]:
    """How a revision NEW reaches further than OLD, the claim it replaces: another scope or audience where OLD had
    a narrow one, or no longer personal. Empty when it reaches no one OLD did not."""
    found = []
    for field, open_to_all in (("scope", "org"), ("audience", "all")):
        if old[field] != open_to_all and new[field] != old[field]:
            found.append(f"{field} {old[field]} -> {new[field]}")
    if old["personal"] and not new["personal"]:
        found.append("personal true -> false")
    return found


def require_reviewer(store: Store, email: str, action: str, hint: str | None = None) -> None:
    """Governance actions are for the reviewers of the policy that history attests (anyone, while the list is
    empty): a name added to vmem.yaml by someone who is not a reviewer does not count (SPEC 12)."""
    from vmem.store.attest import is_reviewer

    if not is_reviewer(store.attestation().policy, email):
        raise NotAllowed(f"{email} is not a reviewer of this store; only reviewers may {action}",
                         hint or "ask a reviewer listed under reviewers: in vmem.yaml")


def require_attested(store: Store, snapshot, item: dict) -> None:
    """Refuse to act on an item whose status in its file is not the one history attests (a hand edit)."""
    state = store.attestation(snapshot)
    path = model.item_path(item["id"])
    found, attested, edit = state.unattested.get(path), state.status_of(path), state.altered.get(path)
    if found is None and attested == item["status"]:
        if not edit:
            return
        raise NotAllowed(f"{item['id']} was edited by hand (commit {edit[:10]}) after it was reviewed; agents are "
                         "still served the reviewed text", f"revert the edit (git revert {edit[:10]}), then propose "
                         f"the change as a revision: vmem propose TEXT --supersedes {item['id']}")
    commit = found[1][:10] if found else "an earlier commit"
    if found and found[2:] == ["edited"]:
        raise NotAllowed(f"{item['id']}'s statement was changed by commit {commit} after its support was counted; "
                         "it is a candidate again", "count its support anew: vmem consolidate")
    raise NotAllowed(f"{item['id']} says status {item['status']}, but history attests {attested or 'no status'} "
                     f"(set by {commit} without a reviewer's vmem commit)",
                     f"restore it (git revert {commit}, or set status: {attested or 'proposed'} and commit); "
                     "see: vmem check --governance")
