"""Item kinds, their schemas, ids, paths, and the one table of legal status transitions."""

from __future__ import annotations

import os
import re
from collections import namedtuple
from datetime import datetime, timezone

from vmem.errors import IllegalTransition, InvalidId, SchemaError, UsageError
from vmem.lazyre import lazy
from vmem.names import CLASSES, NAME_ID, audience, category, scope

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Any, Callable

# -- ids and paths ------------------------------------------------------------------

ITEM_ID = re.compile(r"[ck]-[0-9a-f]{12}\Z")  # a full match even with .match: no trailing newline
# A unique prefix stands for the whole id, like git's short SHAs: at least 4 of the 12 hex digits.
ITEM_PREFIX = lazy(r"[ck]-[0-9a-f]{4,11}\Z")
PREFIX = {"claim": "c", "knowledge": "k"}
KIND_OF_PREFIX = {"c": "claim", "k": "knowledge"}
ITEM_DIRS = {"claim": "claims", "knowledge": "knowledge"}


def new_id(kind: str) -> str:
    return f"{PREFIX[kind]}-{os.urandom(6).hex()}"


def check_item_id(value: str) -> str:
    """Validate an item id before it can become part of a path."""
    if not isinstance(value, str) or not ITEM_ID.fullmatch(value):
        raise InvalidId(
            f"invalid item id {value!r}",
            "ids look like c-7b1e0d9c4a22 (claim) or k-3f1a9c2e0b11 (knowledge), or a unique prefix of at least "
            "4 hex digits (c-7b1e); see: vmem list",
        )
    return value


def check_name_id(value: str, what: str = "entity") -> str:
    if not isinstance(value, str) or not NAME_ID.fullmatch(value):
        raise InvalidId(
            f"invalid {what} id {value!r}",
            f"{what} ids are 1-64 characters of a-z, 0-9, '_' and '-', starting with a letter or digit",
        )
    return value


def check_text(value: str, what: str) -> str:
    """VALUE, text some face was given (an argument, a JSON string), if it is valid Unicode; else a usage error
    naming WHAT. A byte that is not UTF-8 reaches Python as a lone surrogate (argv's surrogateescape, a JSON
    "\\udcff" escape), which YAML and git would then carry into a file nobody can read back."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = value[exc.start:exc.end]
        if all("\udc80" <= ch <= "\udcff" for ch in bad):  # surrogateescape: the bytes as they came
            shown = "the bytes " + "".join(f"\\x{ord(ch) - 0xDC00:02x}" for ch in bad)
        else:
            shown = "a lone surrogate " + " ".join(f"U+{ord(ch):04X}" for ch in bad)
        raise UsageError(f"{what} is not valid UTF-8 ({shown} at character {exc.start + 1})",
                         "give it as UTF-8 text: check the encoding of the terminal, script or file it came "
                         "from") from None
    return value


def kind_of(item_id: str) -> str:
    return KIND_OF_PREFIX[check_item_id(item_id)[0]]


def item_path(item_id: str) -> str:
    """Sharded path of an item: c-7b1e0d9c4a22 -> claims/7b/c-7b1e0d9c4a22.yaml."""
    kind = kind_of(item_id)
    return f"{ITEM_DIRS[kind]}/{item_id[2:4]}/{item_id}.yaml"


def entity_path(entity_id: str) -> str:
    return f"entities/{check_name_id(entity_id)}.yaml"


def episode_path(entity_id: str, episode_id: str) -> str:
    return f"episodes/{check_name_id(entity_id)}/{check_name_id(episode_id, 'episode')}.yaml"


# -- time ---------------------------------------------------------------------------

_TS = lazy(r"^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$")


def now() -> str:
    return format_ts(datetime.now(timezone.utc))


def format_ts(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_ts(value: Any) -> datetime:
    """Parse an ISO-8601 timestamp or date (as written by people) into an aware UTC datetime."""
    if isinstance(value, str) and len(value) == 20 and value[10] == "T" and value[19] == "Z":
        try:  # vmem's own canonical form: the C parser reads its "Z" as UTC (0.2 us; ~1.7 with a replace())
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if not isinstance(value, str) or not _TS.match(value.strip()):
        raise ValueError(f"not a timestamp: {value!r}")
    text = value.strip().replace("z", "Z").replace(" ", "T", 1)
    if len(text) == 10:
        text += "T00:00:00"
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


CANONICAL_TS = re.compile(r"[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def normalize_ts(value: Any) -> str:
    if isinstance(value, str) and CANONICAL_TS.fullmatch(value):
        try:  # already canonical (every item carries several): a valid date is returned as it is
            datetime.fromisoformat(value[:19])
            return value
        except ValueError:
            pass
    return format_ts(parse_ts(value))


# -- statuses and transitions ---------------------------------------------------------

CLAIM_STATUSES = ("proposed", "approved", "mandatory", "rejected", "revoked", "superseded", "expired")
KNOWLEDGE_STATUSES = (
    "candidate", "quarantined", "eligible", "merged", "rejected", "published", "invalidated", "superseded",
)

TRANSITIONS: dict[str, dict[str, frozenset[str]]] = {
    "claim": {
        "proposed": frozenset({"approved", "mandatory", "rejected", "superseded", "expired"}),
        "approved": frozenset({"mandatory", "revoked", "superseded", "expired"}),
        "mandatory": frozenset({"approved", "revoked", "superseded", "expired"}),
        "rejected": frozenset(),
        "revoked": frozenset(),
        "superseded": frozenset(),
        "expired": frozenset(),
    },
    "knowledge": {
        # superseded: reworded by `vmem supersede` (the new words carry its evidence, every gate run again)
        "candidate": frozenset({"quarantined", "eligible", "merged", "rejected", "superseded"}),
        "quarantined": frozenset({"candidate", "superseded"}),
        "eligible": frozenset({"published", "rejected", "candidate"}),
        "published": frozenset({"invalidated", "superseded"}),
        "merged": frozenset({"candidate"}),  # a reviewer's unmerge: the pair was not the same after all
        "rejected": frozenset(),
        "invalidated": frozenset(),
        "superseded": frozenset(),
    },
}

_TRANSITION_HINTS = {
    ("knowledge", "published", "rejected"): "a published item cannot be rejected; retract it with: vmem forget",
}

# Status families: every rule that names a group of statuses names one of these (a status such as "rejected" or
# "superseded" belongs to both kinds, so most are per kind). What may follow what is TRANSITIONS' alone.
SERVABLE = {"claim": ("approved", "mandatory"), "knowledge": ("published",)}  # reviewed: served while live (SPEC 8)
OPEN = {"claim": ("proposed",) + SERVABLE["claim"],  # proposed or live: may contradict, be merged into, expire
        "knowledge": ("candidate", "eligible") + SERVABLE["knowledge"]}
AWAITING = tuple(s for kind in OPEN for s in OPEN[kind] if s not in SERVABLE[kind])  # open, not yet served
IN_REVIEW = {"claim": ("proposed",), "knowledge": ("candidate", "quarantined", "eligible")}  # still editable
QUEUED = ("proposed", "eligible")  # what the review queue lists: a reviewer's decision is next
STALE = ("superseded", "expired")  # replaced or past their time: served only to a caller who asks for them
ENDS_VALIDITY = ("revoked", "superseded", "invalidated")  # a belief withdrawn: its valid time ends (valid_to)


# -- who may take which action: the one table ------------------------------------------------------------------


class Action(namedtuple("Action", "name sets who changes key")):
    """One vmem action (its commits' Vmem-Action). SETS: the statuses it may give an item (within TRANSITIONS);
    WHO: "reviewer" (only a reviewer takes it), "anyone", or "reviewer-for-reviewed" (anyone, but a reviewer when
    it sets a served status: a supersession in place); CHANGES: "content" when it may change what agents are
    served (statement, scope, audience, ...) of a reviewed item, "status" when only the status and its records;
    KEY: the review card's action for it (None: not taken from a card)."""

    __slots__ = ()


ROUTINE_STATUSES = ("superseded", "expired", "quarantined", "eligible", "candidate", "merged", "invalidated",
                     "proposed")
ACTIONS: dict[str, Action] = {a.name: a for a in (
    Action("propose", ("proposed", "quarantined"), "anyone", "status", None),
    # eligible: a learning reworded enters eligible when every gate passes at once
    Action("supersede", ("proposed", "superseded", "approved", "mandatory", "eligible"), "reviewer-for-reviewed",
           "status", None),
    Action("approve", ("approved", "superseded"), "reviewer", "content", "approve"),
    Action("mandate", ("mandatory", "approved", "superseded"), "reviewer", "content", "mandate"),
    Action("publish", ("published",), "reviewer", "content", "publish"),
    Action("reject", ("rejected",), "reviewer", "status", "reject"),
    Action("revoke", ("revoked",), "reviewer", "status", None),
    Action("import", ("approved", "mandatory", "published") + ROUTINE_STATUSES, "reviewer", "content", None),
    Action("merge", ("quarantined", "eligible", "merged"), "reviewer", "status", None),
    Action("unmerge", ("candidate", "invalidated"), "reviewer", "status", None),
    Action("distinct", (), "reviewer", "status", None),
    Action("consolidate", ("expired", "quarantined", "eligible", "candidate", "merged"), "anyone", "status", None),
    Action("reinforce", ("eligible", "candidate"), "anyone", "status", None),  # evidence added: gates re-run
    Action("edit", ("candidate",), "anyone", "status", "edit"),
    Action("forget", ("candidate", "invalidated"), "anyone", "status", None),
    Action("expire", ("expired",), "anyone", "status", None),
)}
GOVERNED_STATUSES = ("approved", "mandatory", "revoked", "rejected", "published")  # set only by a reviewer
# a reviewer's decisions: one by anyone else is reported as refused (an import grants nothing unless a reviewer's,
# but it also adds customers and episodes, which anyone may: not reported)
REVIEWER_ACTIONS = tuple(a.name for a in ACTIONS.values() if a.who == "reviewer" and a.name != "import")


def setters(status: str, reviewer: bool | None = None) -> tuple[str, ...]:
    """The actions that may set STATUS; REVIEWER: only those a reviewer takes for it (True)."""
    return tuple(a.name for a in ACTIONS.values() if status in a.sets
                 and (reviewer is None or (a.who != "anyone") == reviewer))


def card_actions(item: dict, reviewer: bool) -> list[str]:
    """What the review card offers for ITEM: the governance actions its lifecycle allows (for a reviewer) and an
    edit while it is still in review, from ACTIONS and TRANSITIONS."""
    moves = TRANSITIONS[item["kind"]].get(item["status"], frozenset())
    out = []
    if reviewer:
        out += [a.key for a in ACTIONS.values() if a.key and a.who == "reviewer" and a.sets[0] in moves]
    if item["status"] in IN_REVIEW[item["kind"]]:
        out += [a.key for a in ACTIONS.values() if a.key and a.who == "anyone"]
    return out


def check_transition(item: dict, target: str) -> None:
    """Refuse a status change that the lifecycle table does not allow."""
    kind, current = item["kind"], item["status"]
    if target not in TRANSITIONS[kind].get(current, frozenset()):
        allowed = sorted(TRANSITIONS[kind].get(current, frozenset()))
        hint = _TRANSITION_HINTS.get((kind, current, target)) or (
            f"from {current} a {kind} may become: {', '.join(allowed)}" if allowed
            else f"{current} is final for a {kind}; propose a new item instead"
        )
        raise IllegalTransition(f"{item['id']} is {current}; it cannot become {target}", hint)


def transition(item: dict, target: str, *, by: str | None = None, action: str | None = None,
               reason: str | None = None, at: str | None = None, **fields: Any) -> dict:
    """The one status write: refuse what the lifecycle table does not allow, else set the status (in place) with
    its bookkeeping: valid_to when a belief is withdrawn (ENDS_VALIDITY), the review record when someone decided
    it (BY, ACTION, REASON), and FIELDS (superseded_by, merged_into, published, ...). AT defaults to now."""
    check_transition(item, target)
    if at is None and (by is not None or target in ENDS_VALIDITY):
        at = now()
    item["status"] = target
    if target in ENDS_VALIDITY:
        item["valid_to"] = at
    if by is not None:
        item["review"] = {"by": by, "at": at, "action": action, "reason": reason}
    item.update(fields)
    return item


# -- schemas ----------------------------------------------------------------------------


class Field(namedtuple("Field", "name check required default fix", defaults=(False, None, ""))):
    """name; check: returns the normalised value or raises ValueError; required; default; fix. Not a dataclass:
    `vmem sync` imports this module and dataclasses costs ~15 ms."""

    __slots__ = ()


def check_str(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ValueError("expected text")
    return str(v)


def check_nonempty(v: Any) -> str:
    s = check_str(v).strip()
    if not s:
        raise ValueError("must not be empty")
    return s


def _opt(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def run(v: Any) -> Any:
        return None if v is None else check(v)
    run.optional = check  # the shape a reader may compile the layout from (store/layout.py)
    return run


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("expected true or false")
    return v


def _number01(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
        raise ValueError("expected a number between 0 and 1")
    return round(float(v), 4)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError("expected an integer")
    return v


def check_ts(v: Any) -> str:
    return normalize_ts(v)


def _list(check: Callable[[Any], Any]) -> Callable[[Any], list]:
    def run(v: Any) -> list:
        if v is None:
            return []
        if not isinstance(v, list):
            raise ValueError("expected a list")
        return [check(x) for x in v]
    run.each = check
    return run


def _one_of(*choices: str) -> Callable[[Any], str]:
    def run(v: Any) -> str:
        if v not in choices:
            raise ValueError(f"expected one of: {', '.join(choices)}")
        return v
    return run


def check_item_ref(v: Any) -> str:
    if not isinstance(v, str) or not ITEM_ID.fullmatch(v):
        raise ValueError("expected an item id like c-7b1e0d9c4a22")
    return v


def _name(v: Any) -> str:
    if not isinstance(v, str) or not NAME_ID.fullmatch(v):
        raise ValueError("expected an id of a-z, 0-9, '_' and '-'")
    return v


_scope = scope


_audience = audience


_category = category
_CATEGORY_FIX = "write each category as facet:value, e.g. industry:healthcare"


def _record(fields: tuple[Field, ...]) -> Callable[[Any], dict]:
    known = {f.name for f in fields}

    def run(v: Any) -> dict:
        if not isinstance(v, dict):
            raise ValueError(f"expected a mapping with keys: {', '.join(f.name for f in fields)}")
        unknown = set(v) - known
        if unknown:
            raise ValueError(f"unknown key {sorted(map(str, unknown))[0]!r}")
        out = {}
        for f in fields:
            if f.name not in v or v[f.name] is None:
                if f.required:
                    raise ValueError(f"missing key {f.name!r}")
                out[f.name] = f.default() if callable(f.default) else f.default
            else:
                out[f.name] = f.check(v[f.name])
        return out
    run.fields = fields
    return run


SOURCE = (
    Field("type", _one_of("analyst", "admin_mandate", "user_verification", "definition", "session_transcript", "import"),
          default="analyst"),
    Field("user", _opt(check_str)),
    Field("episode", _opt(_name)),
    # a harvested claim (session_transcript): what kind of find it was, the session and the person's words
    Field("kind", _opt(_one_of("correction", "definition", "confirmation"))),
    Field("session", _opt(check_str)),
    Field("quote", _opt(check_str)),
)
VERIFICATION = (
    Field("user", check_nonempty, required=True),
    Field("kind", _one_of("confirmation", "correction"), required=True),
    Field("at", check_ts, required=True),
)
REVIEW = (
    Field("by", check_nonempty, required=True),
    Field("at", check_ts, required=True),
    Field("action", check_nonempty, required=True),
    Field("reason", _opt(check_str)),
)
EVIDENCE = (
    Field("entity", _name, required=True),
    Field("writer", check_nonempty, required=True),
    Field("episode", _opt(_name)),
    Field("at", check_ts, required=True),
    Field("tier", _int, default=2),
)
MERGE = (
    Field("from", check_item_ref, required=True),
    Field("judge", _one_of("canonical", "deterministic", "command", "reviewer"), required=True),
    Field("reason", _opt(check_str)),
    Field("at", check_ts, required=True),
)
GATE_CHECKS = tuple(Field(n, _bool) for n in ("deid", "k_support", "writers", "category_floor"))
GATE = (
    Field("passed", _bool, required=True),
    Field("checks", _record(GATE_CHECKS), default=dict),
    Field("reason", _opt(check_str)),
    Field("at", check_ts, required=True),
)
PUBLISHED = (Field("by", check_nonempty, required=True), Field("at", check_ts, required=True))
# consolidation's merge suggestions (advisory: only a reviewer's merge acts on one) and reviewers' "not the same"
# score: the rank (half embedding cosine, half word overlap, knowledge.suggest); cosine: the embedding cosine alone
SUGGESTION = (Field("id", check_item_ref, required=True), Field("score", _number01, required=True),
              Field("cosine", _opt(_number01)))
# neighbours consolidation found but a detector calls different ("different numbers 3 weeks vs 3 months"): shown
# on the card as related, never offered as a merge
RELATED = (Field("id", check_item_ref, required=True), Field("differs", check_nonempty, required=True))
DISTINCT = (
    Field("id", check_item_ref, required=True),
    Field("by", check_nonempty, required=True),
    Field("at", check_ts, required=True),
    Field("reason", _opt(check_str)),
)

SCHEMAS: dict[str, tuple[Field, ...]] = {
    "claim": (
        Field("id", check_item_ref, required=True),
        Field("kind", _one_of("claim"), required=True),
        Field("title", _opt(check_str)),
        Field("statement", check_nonempty, required=True, fix="write the fact in one or two sentences"),
        Field("scope", _scope, default="org"),
        Field("class", _one_of(*CLASSES), default="factual"),
        Field("domain", _opt(_name)),
        Field("categories", _list(_category), default=list, fix=_CATEGORY_FIX),
        Field("paths", _list(check_nonempty), default=list),
        Field("status", _one_of(*CLAIM_STATUSES), required=True),
        Field("audience", _audience, default="all"),
        Field("personal", _bool, default=False),
        Field("source", _record(SOURCE), default=lambda: {"type": "analyst", "user": None, "episode": None}),
        Field("confidence", _number01, default=0.5),
        Field("verifications", _list(_record(VERIFICATION)), default=list),
        Field("created_at", check_ts, required=True),
        Field("valid_from", _opt(check_ts)),
        Field("valid_to", _opt(check_ts)),
        Field("expires_at", _opt(check_ts)),
        Field("supersedes", _opt(check_item_ref)),
        Field("superseded_by", _opt(check_item_ref)),
        Field("review", _opt(_record(REVIEW))),
    ),
    "knowledge": (
        Field("id", check_item_ref, required=True),
        Field("kind", _one_of("knowledge"), required=True),
        Field("statement", check_nonempty, required=True, fix="write the generalization in one sentence"),
        Field("canonical", check_str, required=True),
        Field("categories", _list(_category), default=list, fix=_CATEGORY_FIX),
        Field("status", _one_of(*KNOWLEDGE_STATUSES), required=True),
        Field("evidence", _list(_record(EVIDENCE)), default=list),
        Field("merges", _list(_record(MERGE)), default=list),
        Field("gate", _opt(_record(GATE))),
        Field("audience", _opt(_audience)),
        Field("published", _opt(_record(PUBLISHED))),
        Field("first_seen", check_ts, required=True),
        Field("last_reinforced", check_ts, required=True),
        Field("valid_from", _opt(check_ts)),
        Field("valid_to", _opt(check_ts)),
        Field("supersedes", _opt(check_item_ref)),
        Field("superseded_by", _opt(check_item_ref)),
        Field("merged_into", _opt(check_item_ref)),
        Field("review", _opt(_record(REVIEW))),
        Field("suggestions", _opt(_list(_record(SUGGESTION)))),  # null: not screened for suggestions yet
        Field("related", _list(_record(RELATED)), default=list),
        Field("distinct", _list(_record(DISTINCT)), default=list),
    ),
    "entity": (
        Field("id", _name, required=True),
        Field("name", check_nonempty, required=True, fix="the customer's canonical name"),
        Field("aliases", _list(check_nonempty), default=list),
        Field("domains", _list(check_nonempty), default=list),
        Field("people", _list(check_nonempty), default=list),
        Field("categories", _list(_category), default=list, fix=_CATEGORY_FIX),
        Field("restricted", _list(check_nonempty), default=list),
    ),
    "episode": (
        Field("id", _name, required=True),
        Field("entity", _name, required=True),
        Field("kind", _one_of("call", "email", "note", "session"), default="note"),
        Field("at", _opt(check_ts)),
        Field("ref", _opt(check_str)),
        Field("quotes", _list(check_nonempty), default=list),
    ),
}

def validate(kind: str, data: Any, path: str, line_of: Callable[[str], int | None] = lambda key: None) -> dict:
    """Check one parsed file against its schema; return it with defaults filled in, keys in order."""
    fields = SCHEMAS[kind]
    if not isinstance(data, dict):
        raise SchemaError(path, f"expected a {kind} (a YAML mapping), found {type(data).__name__}",
                          f"see the {kind} layout in the store README")
    known = {f.name for f in fields}
    for key in data:
        if key not in known:
            raise SchemaError(path, f"unknown field {key!r}", f"remove it or check its spelling; {kind} fields: "
                              + ", ".join(f.name for f in fields), line=line_of(str(key)))
    out: dict[str, Any] = {}
    for f in fields:
        value = data.get(f.name)
        if value is None:
            if f.required:
                raise SchemaError(path, f"missing field {f.name!r}", f.fix or f"add {f.name}: to the file")
            out[f.name] = f.default() if callable(f.default) else f.default
            continue
        try:
            out[f.name] = f.check(value)
        except (ValueError, ArithmeticError) as exc:  # ArithmeticError: a date beyond year 1 or 9999, say
            raise SchemaError(path, f"field {f.name!r}: {exc}", f.fix or f"correct {f.name}: in the file",
                              line=line_of(f.name)) from None
    return out


def normalize_item(item: dict) -> dict:
    """Validate an in-memory item built by vmem itself (a bug if it fails)."""
    return validate(item["kind"], item, item.get("id", "<new item>"))
