"""Store policy (vmem.yaml): defaults, validation, and the values every command reads."""

from __future__ import annotations

import copy
import re

from vmem import names
from vmem.errors import SchemaError
from vmem.lazyre import lazy

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Any, Callable

POLICY_FILE = "vmem.yaml"

DEFAULTS: dict[str, Any] = {
    "version": 1,
    "reviewers": [],
    "require_signed": False,
    "signing_keys": {},  # reviewer e-mail -> keys allowed to sign for them (checked by _signing_keys, not _merge)
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
        "judge": {"command": None, "adapter": None, "model": None, "timeout_s": 30},
        "tiers": {"emerging": 3, "established": 5, "extensive": 10},
    },
    "sync": {"dir": ".claude/rules/vmem", "budget": 6000, "scope": None, "audience": "all"},
    "index": {"model": None},
    # vmem harvest: an LLM tool (a judge adapter) that drafts a candidate's statement from the exchange
    "harvest": {"adapter": None, "model": None, "command": None, "timeout_s": 60},
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
    "knowledge.judge.adapter": (str, type(None)),
    "knowledge.judge.model": (str, type(None)),
    "knowledge.judge.timeout_s": (int, float),
    "knowledge.tiers.emerging": (int,),
    "knowledge.tiers.established": (int,),
    "knowledge.tiers.extensive": (int,),
    "sync.dir": (str,),
    "sync.budget": (int,),
    "sync.scope": (str, type(None)),
    "sync.audience": (str,),
    "index.model": (str, type(None)),
    "harvest.adapter": (str, type(None)),
    "harvest.model": (str, type(None)),
    "harvest.command": (list, str, type(None)),
    "harvest.timeout_s": (int, float),
}


# -- ranges: each returns what is wrong with a well-typed value, or None -------------------------------------------

MAX_JUDGE_TIMEOUT_S = 3600  # an hour per pair is already a hung judge, not a slow one


def _at_least(low: int) -> Callable[[Any], str | None]:
    return lambda v: None if v >= low else f"must be at least {low}"


def _name_rule(rule: Callable[[Any], str], expected: str) -> Callable[[Any], str | None]:
    def run(v: Any) -> str | None:
        if v is None:
            return None
        try:
            rule(v)
        except ValueError:
            return f"must be {expected}"
        return None
    return run


def _timeout(v: float) -> str | None:
    if not v > 0:  # NaN too
        return "must be more than 0 seconds"
    return None if v <= MAX_JUDGE_TIMEOUT_S else f"must be at most {MAX_JUDGE_TIMEOUT_S} seconds"


def _relative_dir(v: str) -> str | None:
    # sync resolves it against the project; whether it stays inside the project is decided there, on real paths
    if v and not v.startswith(("/", "\\")) and v.isprintable():  # isprintable: no NUL, no control characters
        return None
    return "must be a relative path (inside the project), without NUL or control characters"


_RANGES: dict[str, Callable[[Any], str | None]] = {
    **{f"claims.ttl_days.{c}": _at_least(1) for c in names.CLASSES},
    "claims.default_class": lambda v: None if v in names.CLASSES else f"must be one of: {', '.join(names.CLASSES)}",
    "knowledge.k_min": _at_least(1),
    "knowledge.writers_min": _at_least(1),
    "knowledge.category_floor": _at_least(0),
    "knowledge.default_audience": _name_rule(names.audience, "all or group:<name> (or null)"),
    "knowledge.blocker.threshold": lambda v: None if 0 <= v <= 1 else "must be between 0 and 1",
    "knowledge.blocker.top_k": _at_least(1),
    "knowledge.judge.timeout_s": _timeout,
    **{f"knowledge.tiers.{t}": _at_least(1) for t in ("emerging", "established", "extensive")},
    "sync.dir": _relative_dir,
    "sync.budget": _at_least(0),
    "sync.scope": _name_rule(names.scope, "org or entity:<id> (or null)"),
    "sync.audience": _name_rule(names.audience, "all or group:<name>"),
}
# one address, nothing around it: no display name, no whitespace or newline, exactly one @
_EMAIL = lazy(r"[^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+\Z")


def _default(dotted: str) -> Any:
    value: Any = DEFAULTS
    for part in dotted.split("."):
        value = value[part]
    return value


def _merge(defaults: dict, given: dict, prefix: str, path: str, line_of) -> dict:
    out = copy.deepcopy(defaults)
    for key, value in given.items():
        dotted = f"{prefix}{key}"
        if key not in defaults:
            raise SchemaError(path, f"unknown policy key {dotted!r}", "remove it from vmem.yaml or check its spelling",
                              line=line_of(dotted))
        if isinstance(defaults[key], dict):
            if value is None:
                continue
            if not isinstance(value, dict):
                raise SchemaError(path, f"{dotted} must be a mapping", f"see the default vmem.yaml for {dotted}",
                                  line=line_of(dotted))
            out[key] = _merge(defaults[key], value, dotted + ".", path, line_of)
        else:
            allowed = _TYPES[dotted]
            if isinstance(value, bool) and bool not in allowed or not isinstance(value, allowed):
                types = " or ".join("null" if t is type(None) else t.__name__ for t in allowed)
                raise SchemaError(path, f"{dotted} must be {types}, found {value!r}",
                                  f"correct {dotted} in vmem.yaml", line=line_of(dotted))
            problem = _RANGES[dotted](value) if dotted in _RANGES else None
            if problem:
                raise SchemaError(path, f"{dotted} {problem}, found {value!r}",
                                  f"correct {dotted} in vmem.yaml (default: {_default(dotted)!r})",
                                  line=line_of(dotted))
            out[key] = value
    return out


def _check_tiers(tiers: dict, path: str, line_of) -> None:
    order = ("emerging", "established", "extensive")
    for lower, upper in zip(order, order[1:]):
        if not tiers[lower] < tiers[upper]:
            shown = ", ".join(f"{t} {tiers[t]}" for t in order)
            raise SchemaError(path, f"knowledge.tiers must increase ({shown})",
                              "correct knowledge.tiers in vmem.yaml, e.g. emerging: 3, established: 5, extensive: 10",
                              line=line_of(f"knowledge.tiers.{upper}") or line_of(f"knowledge.tiers.{lower}")
                              or line_of("knowledge.tiers"))


# -- signing_keys: which keys may sign for which reviewer (SPEC 12, git's allowed-signers idea) --------------------

SSH_KEY_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
                 "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com")
_HEX = frozenset("0123456789ABCDEF")


def signing_key(text: Any) -> str | None:
    """The canonical form of one signing_keys entry, or None when it is neither kind: an ssh public key line as
    `TYPE BASE64` (its comment dropped), or an OpenPGP or x509 fingerprint as upper-case hex without spaces (40
    digits, or 64 for OpenPGP v5/v6; a key id is too short to pin a key)."""
    if not isinstance(text, str) or not text.isprintable():
        return None
    parts = text.split()
    if parts and parts[0] in SSH_KEY_TYPES:
        import base64
        import binascii

        try:
            blob = base64.b64decode(parts[1], validate=True) if len(parts) > 1 else b""
        except (binascii.Error, ValueError):
            return None
        name = parts[0].encode("ascii")
        # the blob names its own type first (RFC 4253: a uint32 length, then the name)
        if blob[:4] != len(name).to_bytes(4, "big") or blob[4:4 + len(name)] != name or len(blob) <= 4 + len(name):
            return None
        return f"{parts[0]} {parts[1]}"
    digits = "".join(parts).upper()
    if len(digits) in (40, 64) and _HEX.issuperset(digits):
        return digits
    return None


def _signing_keys(given: Any, path: str, line_of) -> dict[str, list[str]]:
    """signing_keys as a mapping of e-mail address to canonical keys (a free-form mapping: _merge cannot check it)."""
    hint = ("list each reviewer's keys in vmem.yaml, e.g. signing_keys: {rita@example.com: [\"ssh-ed25519 AAAA... "
            "rita@laptop\", \"<40-hex OpenPGP fingerprint>\"]}")
    line = line_of("signing_keys")
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise SchemaError(path, "signing_keys must be a mapping of e-mail addresses to lists of keys, found a "
                                f"{type(given).__name__}", hint, line=line)
    out: dict[str, list[str]] = {}
    for email, keys in given.items():
        if not (isinstance(email, str) and _EMAIL.match(email) and email.isprintable()):
            raise SchemaError(path, f"signing_keys: {email!r} is not an e-mail address", hint, line=line)
        if keys is None:
            keys = []
        if not isinstance(keys, list):
            raise SchemaError(path, f"signing_keys: {email} must be a list of keys, found a {type(keys).__name__}",
                              hint, line=line)
        listed = out.setdefault(email.casefold(), [])  # reviewers match e-mails case-insensitively too
        for key in keys:
            found = signing_key(key)
            if found is None:
                raise SchemaError(path, f"signing_keys: {email}: {key!r} is neither an ssh public key line nor a "
                                        "full OpenPGP/x509 fingerprint (40 or 64 hex digits)", hint, line=line)
            if found not in listed:
                listed.append(found)
    return out


def load_policy(data: Any, path: str = POLICY_FILE, line_of=lambda key: None) -> dict:
    """DEFAULTS overlaid with vmem.yaml, every value type- and range-checked; SchemaError names key and line."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SchemaError(path, "expected a mapping of policy keys", "restore vmem.yaml from the store template")
    policy = _merge(DEFAULTS, {k: v for k, v in data.items() if k != "signing_keys"}, "", path, line_of)
    policy["signing_keys"] = _signing_keys(data.get("signing_keys"), path, line_of)
    for reviewer in policy["reviewers"]:
        if not (isinstance(reviewer, str) and _EMAIL.match(reviewer) and reviewer.isprintable()):
            raise SchemaError(path, f"reviewers: {reviewer!r} is not an e-mail address",
                              "list bare git e-mail addresses in vmem.yaml, e.g. reviewers: [lee@example.com]",
                              line=line_of("reviewers"))
    _check_tiers(policy["knowledge"]["tiers"], path, line_of)
    _resolve_judge(policy["knowledge"]["judge"], path, line_of)
    return policy


# Ready judge adapters (vmem.knowledge.adapters runs them): name -> (the tool's usual program, whether the tool needs
# a model named). An adapter is stored as the command [ADAPTER_MARK, name, model or "", *program], which
# vmem.knowledge.judge.judge_command runs in-process: one field, knowledge.judge.command, for every reader.
JUDGE_ADAPTERS: dict[str, tuple[str, bool]] = {
    "llm": ("llm", False),
    "ollama": ("ollama", True),
    "claude": ("claude", False),
    "gemini": ("gemini", False),
    "openai": ("openai", True),
}
ADAPTER_MARK = "vmem:adapter"


def adapter_command(adapter: str, model: str | None, program: list[str] | str | None) -> list[str]:
    """The command the policy stores for ADAPTER; ValueError says what cannot work."""
    if adapter not in JUDGE_ADAPTERS:
        raise ValueError(f"knowledge.judge.adapter must be one of: {', '.join(JUDGE_ADAPTERS)}, found {adapter!r}")
    default, needs_model = JUDGE_ADAPTERS[adapter]
    if needs_model and not model:
        raise ValueError(f"the {adapter} adapter needs knowledge.judge.model (the model the tool runs)")
    if isinstance(program, str):
        import shlex

        program = shlex.split(program)
    return [ADAPTER_MARK, adapter, model or "", *(program or [default])]


def _resolve_judge(judge: dict, path: str, line_of) -> None:
    """A ready adapter (knowledge.judge.adapter) becomes the command every reader runs; with an adapter, `command`
    names the tool's program (default: the tool's usual name)."""
    command = judge["command"]
    if judge["adapter"] is None:
        if judge["model"] is not None:
            raise SchemaError(path, "knowledge.judge.model is set without knowledge.judge.adapter",
                              "add adapter: llm | ollama | claude | gemini | openai, or remove model",
                              line=line_of("knowledge.judge.model"))
        return
    if isinstance(command, list) and command[:1] == [ADAPTER_MARK]:
        return  # resolved already (a policy read back from the attestation cache)
    try:
        judge["command"] = adapter_command(judge["adapter"], judge["model"], command)
    except ValueError as exc:
        raise SchemaError(path, str(exc), "correct knowledge.judge in vmem.yaml, e.g. "
                                          "judge: {adapter: ollama, model: llama3.1:8b}",
                          line=line_of("knowledge.judge.adapter")) from None


def k_min(policy: dict) -> int:
    """k below 3 allows membership inference, so it is clamped (SPEC 7)."""
    return max(3, int(policy["knowledge"]["k_min"]))
