"""Name rules shared by the item model and `vmem sync`'s start-up path (which must not import vmem.model)."""

from __future__ import annotations

import re

from vmem.errors import InvalidId

NAME_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")  # entity, episode and group names


def scope(v: object) -> str:
    """'org' or 'entity:<id>'; ValueError otherwise."""
    if v == "org":
        return v
    if isinstance(v, str) and v.startswith("entity:") and NAME_ID.match(v[7:]):
        return v
    raise ValueError("expected org or entity:<id>")


def audience(v: object) -> str:
    """'all' or 'group:<name>'; ValueError otherwise."""
    if v == "all":
        return v
    if isinstance(v, str) and v.startswith("group:") and NAME_ID.match(v[6:]):
        return v
    raise ValueError("expected all or group:<name>")


def check_audience(value: str) -> str:
    try:
        return audience(value)
    except ValueError:
        raise InvalidId(f"invalid audience {value!r}", "use all or group:NAME") from None
