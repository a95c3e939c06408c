"""Store policy (vmem.yaml): defaults, validation, and the values every command reads."""

from __future__ import annotations

import copy
from typing import Any

from vmem.errors import SchemaError

POLICY_FILE = "vmem.yaml"

DEFAULTS: dict[str, Any] = {
    "version": 1,
    "reviewers": [],
    "require_signed": False,
    "claims": {
        "ttl_days": {"factual": 90, "procedural": 180, "preference": 365, "contextual": 30},
        "default_class": "factual",
    },
    "knowledge": {
        "k_min": 3,
        "writers_min": 2,
        "category_floor": 3,
        "auto_publish": False,
        "default_audience": None,
        "auto_merge": True,
        "blocker": {"threshold": 0.5, "top_k": 20},
        "judge": {"command": None, "timeout_s": 30},
        "tiers": {"emerging": 3, "established": 5, "extensive": 10},
    },
    "sync": {"dir": ".claude/rules/vmem", "budget": 6000, "scope": None, "audience": "all"},
    "index": {"model": None},
}

_TYPES: dict[str, tuple[type, ...]] = {
    "version": (int,),
    "reviewers": (list,),
    "require_signed": (bool,),
    "claims.ttl_days.factual": (int,),
    "claims.ttl_days.procedural": (int,),
    "claims.ttl_days.preference": (int,),
    "claims.ttl_days.contextual": (int,),
    "claims.default_class": (str,),
    "knowledge.k_min": (int,),
    "knowledge.writers_min": (int,),
    "knowledge.category_floor": (int,),
    "knowledge.auto_publish": (bool,),
    "knowledge.default_audience": (str, type(None)),
    "knowledge.auto_merge": (bool,),
    "knowledge.blocker.threshold": (int, float),
    "knowledge.blocker.top_k": (int,),
    "knowledge.judge.command": (list, str, type(None)),
    "knowledge.judge.timeout_s": (int, float),
    "knowledge.tiers.emerging": (int,),
    "knowledge.tiers.established": (int,),
    "knowledge.tiers.extensive": (int,),
    "sync.dir": (str,),
    "sync.budget": (int,),
    "sync.scope": (str, type(None)),
    "sync.audience": (str,),
    "index.model": (str, type(None)),
}


def _merge(defaults: dict, given: dict, prefix: str, path: str, line_of) -> dict:
    out = copy.deepcopy(defaults)
    for key, value in given.items():
        dotted = f"{prefix}{key}"
        if key not in defaults:
            raise SchemaError(path, f"unknown policy key {dotted!r}", "remove it or check its spelling",
                              line=line_of(str(key)) if not prefix else None)
        if isinstance(defaults[key], dict):
            if value is None:
                continue
            if not isinstance(value, dict):
                raise SchemaError(path, f"{dotted} must be a mapping", f"see the default vmem.yaml for {dotted}")
            out[key] = _merge(defaults[key], value, dotted + ".", path, line_of)
        else:
            allowed = _TYPES[dotted]
            if isinstance(value, bool) and bool not in allowed or not isinstance(value, allowed):
                names = " or ".join("null" if t is type(None) else t.__name__ for t in allowed)
                raise SchemaError(path, f"{dotted} must be {names}, found {value!r}",
                                  f"correct {dotted} in vmem.yaml", line=line_of(str(key)) if not prefix else None)
            out[key] = value
    return out


def load_policy(data: Any, path: str = POLICY_FILE, line_of=lambda key: None) -> dict:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SchemaError(path, "expected a mapping of policy keys", "restore vmem.yaml from the store template")
    policy = _merge(DEFAULTS, data, "", path, line_of)
    if not all(isinstance(r, str) and "@" in r for r in policy["reviewers"]):
        raise SchemaError(path, "reviewers must be a list of e-mail addresses", "e.g. reviewers: [lee@example.com]")
    return policy


def k_min(policy: dict) -> int:
    """k below 3 allows membership inference, so it is clamped (SPEC 7)."""
    return max(3, int(policy["knowledge"]["k_min"]))
