"""Name rules shared by the item model and `vmem sync`'s start-up path (which must not import vmem.model).

Every rule is a full match (`\\Z`, never `$`, which also matches before a trailing newline): a name that passes
can become part of a path or a file and be read back as the same name.
"""

from __future__ import annotations

import re

from vmem.errors import InvalidId

NAME_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")  # entity, episode, group and domain names; .match is full
CLASSES = ("factual", "procedural", "preference", "contextual")  # claim classes (here so the policy needs no model)

# facet:value. The facet is a lowercase word; the value is free text without whitespace, control or format
# characters and without '/' (so no category can ever name a path). Every category in the examples, the
# benchmark generator and the tests fits: industry:healthcare, stage:security_review, metric:churn_rate, ...
_CATEGORY = re.compile(r"[a-z][a-z0-9_-]{0,63}:[^\s/]+\Z")
CATEGORY_HINT = "use -c facet:value, e.g. -c industry:healthcare"


def scope(v: object) -> str:
    """'org' or 'entity:<id>'; ValueError otherwise."""
    if v == "org":
        return v
    if isinstance(v, str) and v.startswith("entity:") and NAME_ID.match(v, 7):
        return v
    raise ValueError("expected org or entity:<id>")


def audience(v: object) -> str:
    """'all' or 'group:<name>'; ValueError otherwise."""
    if v == "all":
        return v
    if isinstance(v, str) and v.startswith("group:") and NAME_ID.match(v, 6):
        return v
    raise ValueError("expected all or group:<name>")


def is_category(v: object) -> bool:
    # isprintable: no control (Cc), format (Cf, e.g. bidi overrides), separator or unassigned characters
    return isinstance(v, str) and _CATEGORY.match(v) is not None and v.isprintable()


def category(v: object) -> str:
    """'facet:value'; ValueError otherwise."""
    if is_category(v):
        return v  # type: ignore[return-value]
    raise ValueError(f"{v!r} is not facet:value (a lowercase facet, ':', a value without spaces or '/', "
                     "e.g. industry:healthcare)")


def check_audience(value: str) -> str:
    try:
        return audience(value)
    except ValueError:
        raise InvalidId(f"invalid audience {value!r}", "use all or group:NAME") from None


def check_category(value: str) -> str:
    if not is_category(value):
        raise InvalidId(f"invalid category {value!r}", CATEGORY_HINT)
    return value
