"""`vmem eval deid FILE`: the de-identification gate on labeled statements, with the rule behind every catch."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from vmem.errors import UsageError
from vmem.gates.publish import GateInputs, deid
from vmem.store import codec


def read_cases(path: Path) -> list[dict]:
    """JSONL of {id, statement, leak: bool, entity_ids?: [ids the evidence cites], variant?: str}."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path} ({exc})", "give a JSONL file of labeled statements") from None
    cases = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except ValueError as exc:
            raise UsageError(f"{path}:{number}: not JSON ({exc})", "one JSON object per line") from None
        if not isinstance(case, dict) or not isinstance(case.get("statement"), str) or \
                not isinstance(case.get("leak"), bool):
            raise UsageError(f"{path}:{number}: needs 'statement' (text) and 'leak' (true or false)",
                             'e.g. {"id": "p1", "statement": "...", "leak": true, "entity_ids": ["acme"]}')
        cases.append(case)
    return cases


def lexicon_from_dir(*roots: Path) -> GateInputs:
    """GateInputs from folders holding entities/*.yaml and episodes/*/*.yaml (a store's layout); a later folder's
    entity replaces an earlier one's with the same id."""
    entities, episodes = {}, {}
    for root in roots:
        for path in sorted((root / "entities").glob("*.yaml")):
            item = codec.load(path.read_bytes(), str(path))
            entities[item["id"]] = item
        for path in sorted((root / "episodes").glob("*/*.yaml")):
            item = codec.load(path.read_bytes(), str(path))
            episodes.setdefault(item["entity"], []).append(item)
    if not entities:
        raise UsageError(f"{', '.join(map(str, roots))} hold no entities/*.yaml",
                         "point --lexicon at a store or a folder like one")
    return GateInputs(entities, episodes)


def evaluate_deid(cases: list[dict], inputs: GateInputs) -> dict:
    """Leaks caught and clean statements quarantined, by variant, and which rule caught each leak."""
    missed, false = [], []
    rules: Counter = Counter()
    variants: dict[str, Counter] = {}
    for case in cases:
        item = {"statement": case["statement"],
                "evidence": [{"entity": e} for e in case.get("entity_ids") or []]}
        verdict = deid(item, inputs)
        flagged = not verdict.passed
        variant = variants.setdefault(case.get("variant") or "-", Counter())
        variant["cases"] += 1
        variant["flagged"] += flagged
        if case["leak"] and not flagged:
            missed.append(case.get("id"))
        if not case["leak"] and flagged:
            false.append(case.get("id"))
        for hit in getattr(verdict, "hits", ()) or ():
            rules[f"{hit.kind}:{hit.rule}"] += 1
    leaks = sum(1 for c in cases if c["leak"])
    clean = len(cases) - leaks
    return {"cases": len(cases), "leaks": leaks, "caught": leaks - len(missed), "missed": missed,
            "clean": clean, "false_quarantines": len(false), "false": false,
            "false_quarantine_rate": round(len(false) / clean, 4) if clean else 0.0,
            "by_rule": dict(rules.most_common()),
            "by_variant": {k: dict(v) for k, v in sorted(variants.items())}}
