"""Small helpers shared by the domain operations."""

from __future__ import annotations

from datetime import timedelta

from vmem import model
from vmem.errors import NotAllowed
from vmem.store.repo import Store


def expires_at(policy: dict, klass: str, created: str) -> str:
    days = policy["claims"]["ttl_days"][klass]
    return model.format_ts(model.parse_ts(created) + timedelta(days=days))


def require_reviewer(store: Store, email: str, action: str, hint: str | None = None) -> None:
    """Governance actions are for the reviewers named in vmem.yaml (anyone, when the list is empty)."""
    reviewers = [r.casefold() for r in store.policy["reviewers"]]
    if reviewers and email.casefold() not in reviewers:
        raise NotAllowed(f"{email} is not a reviewer of this store; only reviewers may {action}",
                         hint or "ask a reviewer listed under reviewers: in vmem.yaml")
