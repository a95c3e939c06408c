"""The four publish gates (SPEC 7.2), deterministic and fail-closed: de-id, k-support, writers, category floor."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from collections import namedtuple

from vmem import model
from vmem.gates.deid import Lexicon, build_lexicon, check_statement
from vmem.policy import k_min as policy_k_min
from vmem.output import counted


class GateInputs:
    """What the gates read from the store: every entity (lexicon, category sizes) and the episodes by entity."""

    __slots__ = ("entities", "episodes", "problems", "kept", "counted", "_cache")

    def __init__(self, entities: dict[str, dict], episodes: dict[str, list[dict]],
                 problems: tuple[tuple[str, str], ...] = (), kept: tuple[list, list] = ([], []),
                 counted: dict[str, dict] | None = None) -> None:
        self.entities, self.episodes = entities, episodes
        # the customers a reviewer added or approved, as they wrote them: what k and the category floor count
        # (None: every entity, for a lexicon read from a folder)
        self.counted = entities if counted is None else counted
        self.problems = problems  # lexicon files that cannot be read: the de-id gate fails closed
        # entity and episode versions removed or replaced without a reviewer: in the lexicon, never in the counts
        self.kept = kept
        self._cache: dict = {}

    def lexicon(self, item: dict) -> Lexicon:
        """Every entity's terms and every episode's quotes: a customer's words proposed --from another customer
        (or with no evidence of theirs at all) are still that customer's words."""
        if "base" not in self._cache:
            episodes = [ep for entity in sorted(self.episodes) for ep in self.episodes[entity]]
            self._cache["base"] = build_lexicon(list(self.entities.values()) + self.kept[0], episodes + self.kept[1])
        return self._cache["base"]

    def category_sizes(self) -> tuple[Counter, set[str]]:
        sizes = Counter(c for entity in self.counted.values() for c in set(entity.get("categories") or []))
        facets = {c.split(":", 1)[0] for c in sizes}
        return sizes, facets


class LexiconIncomplete(namedtuple("LexiconIncomplete", "path problem passed", defaults=(False,))):
    """The de-id verdict while a customer or episode file cannot be read: nothing passes (SPEC 11)."""

    __slots__ = ()

    @property
    def reason(self) -> str:
        return f"lexicon incomplete: {self.path} ({self.problem})"

    @property
    def advice(self) -> str:
        return f"fix {self.path} and commit it (vmem check shows every problem); then run vmem consolidate again"


def load_inputs(snapshot) -> GateInputs:
    episodes: dict[str, list[dict]] = {}
    for loaded in snapshot.files("episode"):
        if loaded.item is not None:
            episodes.setdefault(loaded.item["entity"], []).append(loaded.item)
    # the kept versions change only with the entities/ and episodes/ trees, which key the screening cache
    return GateInputs(snapshot.entities(), episodes, tuple(snapshot.lexicon_problems()), snapshot.kept_lexicon(),
                      snapshot.counted_entities())


LEXICON_LIBRARIES = ("confusable_homoglyphs", "anyascii", "number_parser")  # what build_lexicon reads names with


def screening_lexicon(snapshot) -> Lexicon | LexiconIncomplete:
    """The de-id lexicon of SNAPSHOT for screening one statement (a proposal, a reviewer's edit), from a per-store
    cache keyed by the ids of the entities/ and episodes/ trees and by the code and data that build it (this
    module, the gate, the libraries it normalises names with, the Unicode tables); built and cached on a miss.
    A lexicon with a file that cannot be read is never cached: its verdict fails closed every time."""
    from vmem.store.cache import cache_file, read_cache, write_cache

    key = _lexicon_key(snapshot)
    path = cache_file(Path(snapshot.repo.workdir)).with_suffix(".lexicon")
    cached = read_cache(path) if key else None
    if cached is not None and cached.get("key") == key:
        try:
            return Lexicon.from_plain(cached["lexicon"])
        except (KeyError, TypeError, ValueError):
            pass  # damaged or from another layout: rebuilt below
    inputs = load_inputs(snapshot)
    if inputs.problems:
        return LexiconIncomplete(*inputs.problems[0])
    lexicon = inputs.lexicon({})
    if key:
        write_cache(path, {"key": key, "lexicon": lexicon.to_plain()})
    return lexicon


def screen(statement: str, snapshot):
    """The de-id verdict on one STATEMENT against SNAPSHOT's customers (the cached lexicon)."""
    lexicon = screening_lexicon(snapshot)
    return lexicon if isinstance(lexicon, LexiconIncomplete) else check_statement(statement, lexicon)


def _lexicon_key(snapshot) -> str | None:
    from vmem import digest
    import sys
    import unicodedata
    from importlib.util import find_spec

    from vmem.gates import deid as deid_module

    parts = [sys.version, unicodedata.unidata_version]
    for folder in ("entities", "episodes"):
        entry = snapshot.tree[folder] if snapshot.tree is not None and folder in snapshot.tree else None
        parts.append(str(entry.id) if entry is not None else "-")
    try:
        for source in (__file__, deid_module.__file__):
            parts.append(digest.sha256(Path(source).read_bytes()).hexdigest())
        for name in LEXICON_LIBRARIES:  # an upgrade replaces the package's files: new size or time
            spec = find_spec(name)
            stat = Path(spec.origin).stat() if spec and spec.origin else None
            parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}" if stat else f"{name}:-")
    except (OSError, ValueError, ImportError):
        return None  # no key, no cache: built every time
    return digest.sha256("\0".join(parts).encode()).hexdigest()


def deid(item: dict, inputs: GateInputs):
    if inputs.problems:
        return LexiconIncomplete(*inputs.problems[0])
    return check_statement(item["statement"], inputs.lexicon(item))


# -- the gates: each one returns why ITEM fails it, or None when it passes ------------------------------------------
# (item, inputs, knowledge: the policy's knowledge section, k: the support needed) -> reason | None


def _deid_gate(item: dict, inputs: GateInputs, knowledge: dict, k: int) -> str | None:
    result = deid(item, inputs)
    return None if result.passed else result.reason


def _k_support(item: dict, inputs: GateInputs, knowledge: dict, k: int) -> str | None:
    named = {e["entity"] for e in item.get("evidence") or []}
    entities = named & set(inputs.counted)  # a customer no reviewer added or approved is no support
    if len(entities) >= k:
        return None
    waiting = len(named - entities)
    return (f"support from {counted(len(entities), 'distinct customer')}; needs {k}"
            + (f" ({waiting} more await a reviewer: vmem entity approve ID)" if waiting else ""))


def _writers(item: dict, inputs: GateInputs, knowledge: dict, k: int) -> str | None:
    evidence = item.get("evidence") or []
    writers = {e["writer"].casefold() for e in evidence}
    if len(writers) >= knowledge["writers_min"] or any(e.get("tier") == 1 for e in evidence):
        return None
    return (f"reported by {counted(len(writers), 'distinct writer')}; "
            f"needs {knowledge['writers_min']} (or tier-1 evidence)")


def _category_floor(item: dict, inputs: GateInputs, knowledge: dict, k: int) -> str | None:
    sizes, facets = inputs.category_sizes()
    small = [c for c in item.get("categories") or []
             if c.split(":", 1)[0] in facets and sizes[c] < knowledge["category_floor"]]
    if not small:
        return None
    return ("categor" + ("ies" if len(small) > 1 else "y") + " below the floor of "
            f"{knowledge['category_floor']} customers: " + ", ".join(f"{c} ({sizes[c]})" for c in small))


class Gate(namedtuple("Gate", "name check quarantines")):
    """One publish gate: NAME, its key in the gate record (model.GATE_CHECKS lists the same names); CHECK, the
    function above; QUARANTINES: failing it means the item may identify a customer (quarantined), not merely that
    support is still thin (it stays a candidate)."""

    __slots__ = ()


GATES = (  # run in this order; the record's checks and the reasons keep it
    Gate("deid", _deid_gate, True),
    Gate("k_support", _k_support, False),
    Gate("writers", _writers, False),
    Gate("category_floor", _category_floor, True),
)


def run_gates(item: dict, inputs: GateInputs, policy: dict, k_min: int | None = None, screened=None) -> dict:
    """The gate record stored on the item: {passed, checks, reason, at}; k is clamped to at least 3. SCREENED: the
    de-id verdict already taken from the store's cached lexicon (screen), instead of building it from INPUTS."""
    k = max(policy_k_min(policy), k_min or 0)
    failures = {gate.name: gate.check(item, inputs, policy["knowledge"], k) if gate.name != "deid" or screened is None
                else (None if screened.passed else screened.reason) for gate in GATES}
    checks = {name: reason is None for name, reason in failures.items()}
    reasons = [reason for reason in failures.values() if reason is not None]
    return {"passed": all(checks.values()), "checks": checks, "reason": "; ".join(reasons) or None,
            "at": model.now()}


def status_after_gates(gate: dict) -> str:
    """All pass -> eligible; a quarantining gate failed (de-id, category floor) -> quarantined; only support
    missing -> candidate."""
    if gate["passed"]:
        return "eligible"
    if any(g.quarantines and not gate["checks"][g.name] for g in GATES):
        return "quarantined"
    return "candidate"
