"""vmem eval merge: precision, recall and false-merge rate of the merge cascade on labeled statement pairs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from vmem.errors import UsageError
from vmem.knowledge.detectors import finding_shapes
from vmem.knowledge.judge import BLOCKER_THRESHOLD, REFUSING, floor, judge_pair_with_rule, passes_blocker
from vmem.knowledge.suggest import split_of

if TYPE_CHECKING:  # numpy is imported only when a model is in play
    import numpy as np

_FIELDS = {"id": str, "a": str, "b": str, "categories_a": list, "categories_b": list, "kind": str}
# Pairs from a TSV (PAWS: id, sentence1, sentence2, label) carry no categories: both sides get this one, so the
# blocker decides on the cosine alone.
TSV_CATEGORY = "source:external"


def read_pairs(path: Path) -> list[dict]:
    """Labeled pairs, one JSON object a line, or a PAWS-style TSV (*.tsv); a bad line is a usage error that names
    its number."""
    if not path.is_file():
        raise UsageError(f"no labeled pairs at {path}", "pass a JSONL file such as tests/data/merge_pairs_dev.jsonl")
    if path.suffix.lower() == ".tsv":
        return read_tsv_pairs(path)
    pairs: list[dict] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                pair = json.loads(line)
            except ValueError as exc:
                raise UsageError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            problem = _problem(pair)
            if problem:
                raise UsageError(f"{path}:{number}: {problem}",
                                 'each line needs {"id", "a", "b", "categories_a", "categories_b", "label", "kind"}')
            if pair["id"] in seen:
                raise UsageError(f"{path}:{number}: duplicate id {pair['id']!r}")
            seen.add(pair["id"])
            pairs.append(pair)
    return pairs


def read_tsv_pairs(path: Path) -> list[dict]:
    """PAWS format: no header (one "id sentence1 sentence2 label" header line is skipped), four tab-separated
    columns, label 1 = paraphrase; each row becomes a pair with kind positive/negative and TSV_CATEGORY."""
    pairs: list[dict] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8", newline="") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            fields = line.split("\t")
            if number == 1 and [f.strip().lower() for f in fields] == ["id", "sentence1", "sentence2", "label"]:
                continue
            if len(fields) != 4:
                raise UsageError(f"{path}:{number}: expected 4 tab-separated columns, found {len(fields)}",
                                 "each line needs: id, sentence1, sentence2, label (0 or 1)")
            pid, a, b, label = fields
            if label.strip() not in ("0", "1"):
                raise UsageError(f"{path}:{number}: label must be 0 or 1, found {label.strip()!r}")
            if pid in seen:
                raise UsageError(f"{path}:{number}: duplicate id {pid!r}")
            seen.add(pid)
            pairs.append({"id": pid, "a": a, "b": b, "categories_a": [TSV_CATEGORY], "categories_b": [TSV_CATEGORY],
                          "label": int(label), "kind": "positive" if label.strip() == "1" else "negative", "note": ""})
    return pairs


def _problem(pair: object) -> str | None:
    if not isinstance(pair, dict):
        return "expected a JSON object"
    for name, kind in _FIELDS.items():
        if not isinstance(pair.get(name), kind):
            return f"field {name!r} is missing or not a {kind.__name__}"
    for name in ("categories_a", "categories_b"):
        if not all(isinstance(c, str) for c in pair[name]):
            return f"field {name!r} must be a list of strings"
    if pair.get("label") not in (0, 1) or isinstance(pair.get("label"), float):
        return "field 'label' must be 0 or 1"
    return None


def pair_pool(pairs: list[dict], embed: Callable[[list[str]], np.ndarray]) -> tuple[list[str], np.ndarray]:
    """Every distinct statement of the file and its embedding, rows normalised again so a cosine is a dot
    product."""
    import numpy as np

    texts = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    vectors = np.asarray(embed(texts), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return texts, vectors / np.where(norms == 0, 1.0, norms)


def pair_cosines(pairs: list[dict], pool: tuple[list[str], np.ndarray] | None) -> list[float]:
    if pool is None:  # plumbing tests: every pair reaches the judge on category overlap alone
        return [1.0] * len(pairs)
    texts, vectors = pool
    row = {text: i for i, text in enumerate(texts)}
    return [float(vectors[row[p["a"]]] @ vectors[row[p["b"]]]) for p in pairs]


def suggestion_recall(pairs: list[dict], pool: tuple[list[str], np.ndarray], *, k: int = 3,
                      blocker_threshold: float = BLOCKER_THRESHOLD,
                      progress: Callable[[int, int], None] | None = None) -> dict:
    """For each positive pair, where its partner stands among the merge suggestions (knowledge.suggest, as
    consolidation records them) of either side, within a pool of every statement in the file (a statement's
    categories: all it carries in the file). A reviewer sees a suggestion on the cards of both sides, so the
    better of the two ranks counts; identical statements count at rank 1 (they merge canonically). Reported for
    all positives and per fixed half (`split_of`: the weights were fitted on "fit"; "report" was never looked at).
    """
    import numpy as np

    from vmem.knowledge.suggest import Ranker, split_of

    texts, vectors = pool
    row = {text: i for i, text in enumerate(texts)}
    categories: list[set[str]] = [set() for _ in texts]
    for pair in pairs:
        categories[row[pair["a"]]].update(pair["categories_a"])
        categories[row[pair["b"]]].update(pair["categories_b"])
    ranker = Ranker(texts, [sorted(c) for c in categories], np.asarray(vectors, dtype=np.float32))
    memo: dict[int, list[int]] = {}

    def shown(i: int) -> list[int]:
        if i not in memo:
            memo[i] = [j for j, _, _ in ranker.suggest(i, k=k, threshold=blocker_threshold)]
        return memo[i]

    positives = [p for p in pairs if p["label"] == 1]
    per_item = []
    for done, pair in enumerate(positives, 1):
        a, b = row[pair["a"]], row[pair["b"]]
        if a == b:
            ranks = [1, 1]
        else:
            ranks = [shown(a).index(b) + 1 if b in shown(a) else None,
                     shown(b).index(a) + 1 if a in shown(b) else None]
        found = [r for r in ranks if r is not None]
        per_item.append({"id": pair["id"], "split": split_of(pair["id"]), "rank_a": ranks[0], "rank_b": ranks[1],
                         "rank": min(found) if found else None})
        if progress:
            progress(done, len(positives))

    def recall(rows: list[dict], at: int) -> float | None:
        return sum(1 for r in rows if r["rank"] is not None and r["rank"] <= at) / len(rows) if rows else None

    by_split = {name: {"positives": len(rows), "recall_at_1": recall(rows, 1), "recall_at_3": recall(rows, 3)}
                for name in ("fit", "report") for rows in [[r for r in per_item if r["split"] == name]]}
    return {"k": k, "positives": len(per_item), "recall_at_1": recall(per_item, 1),
            "recall_at_3": recall(per_item, 3), "by_split": by_split, "per_item": per_item}


def _strength(pair: dict) -> str | None:
    """How strongly a positive pair is reworded, when the file says: a "strength" field, or a note whose first
    ";"-separated part is one word ("near_verbatim; on-prem = on-premises")."""
    named = pair.get("strength") or str(pair.get("note") or "").split(";")[0].strip()
    return named if isinstance(named, str) and re.fullmatch(r"[a-z][a-z_-]{0,30}", named) else None


def _rates(tp: int, fp: int, fn: int, tn: int) -> dict:
    return {
        "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        # vacuous cases: no merge claims nothing wrong, no positive leaves nothing to miss
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "false_merge_rate": fp / (fp + tn) if fp + tn else 0.0,
    }


def evaluate_merge(pairs_path: Path, embed: Callable[[list[str]], np.ndarray] | None,
                   progress: Callable[[int, int], None] | None = None, *,
                   blocker_threshold: float = BLOCKER_THRESHOLD) -> dict:
    """Read labeled pairs (JSONL {id, a, b, categories_a, categories_b, label, kind, note}, or a PAWS TSV); embed all
    statements once (L2-normalised rows; cosine = dot); for each pair run the same path consolidation uses: blocker
    (cosine >= 0.5 AND category overlap) then judge_pair; return {"pairs", "tp", "fp", "fn", "tn", "precision",
    "recall", "false_merge_rate", "differing": {the same counts and rates over pairs whose two statements differ},
    "by_kind": {kind: {"pairs", "merged"}}, "by_strength": {strength: {"pairs", "merged"}} over positives that
    name how strongly they are reworded (a "strength" field, or a note opening with one word such as "moderate;"),
    "by_rule": {rule: {"pairs", "positives"}} (the rule that decided:
    "blocker", a detector such as "order" or "role", "cosine"; "canonical"/"aligned" for merges), "errors": [ids
    of false merges], "misses": [ids of false non-merges]}."""
    return evaluate_pairs(read_pairs(Path(pairs_path)), embed, progress, blocker_threshold=blocker_threshold)


def evaluate_pairs(pairs: list[dict], embed: Callable[[list[str]], np.ndarray] | None,
                   progress: Callable[[int, int], None] | None = None, *,
                   blocker_threshold: float = BLOCKER_THRESHOLD, suggestions: bool = True) -> dict:
    """evaluate_merge on PAIRS already read; with a model and SUGGESTIONS, also "suggestions"
    (suggestion_recall)."""
    pool = pair_pool(pairs, embed) if embed is not None and pairs else None

    opened = {key: {"pairs": 0, "positives": 0} for key in ("all", "fit", "report")}
    claims: dict[str, dict[str, list[int]]] = {}  # detector:shape -> split -> [refused, right]

    def deterministic(pair: dict, cosine: float) -> tuple[bool, str]:
        verdict, rule = judge_pair_with_rule(pair["a"], pair["b"], pair["categories_a"], pair["categories_b"], cosine)
        split = split_of(pair["id"])
        for shape in dict(finding_shapes(pair["a"], pair["b"], pair["categories_a"], pair["categories_b"])):
            cell = claims.setdefault(shape, {"fit": [0, 0], "report": [0, 0]})[split]
            cell[0] += 1
            cell[1] += pair["label"] == 0
        if not verdict.same:  # the floor itself, as consolidation runs it: refused, or open for a judge
            refusal, _ = floor(pair["a"], pair["b"], pair["categories_a"], pair["categories_b"], cosine)
            cell = claims.setdefault(FLOOR_ROW, {"fit": [0, 0], "report": [0, 0]})[split]
            cell[0] += refusal is not None
            cell[1] += refusal is not None and pair["label"] == 0
            if refusal is None:
                for key in ("all", split):
                    opened[key]["pairs"] += 1
                    opened[key]["positives"] += pair["label"] == 1
        return verdict.same, rule

    report = tally(pairs, pair_cosines(pairs, pool), deterministic, progress, blocker_threshold)
    positives = sum(p["label"] == 1 for p in pairs)
    # what a judge that reads meaning can reach: the pairs the floor leaves open for it, and the recall if it said
    # "same" to every one of them (merged by the floor + open positives)
    report["judge_open"] = {**opened["all"], "ceiling": round((report["tp"] + opened["all"]["positives"]) / positives,
                                                              4) if positives else None}
    report["by_detector"] = detector_table(claims)
    report["by_split"] = halves(pairs, report, opened)
    report["suggestions"] = suggestion_recall(pairs, pool, blocker_threshold=blocker_threshold) \
        if pool is not None and suggestions else None
    return report


# by_detector's row for the floor as a whole: the pairs it refuses (on any shape in REFUSING) and the share different
FLOOR_ROW = "floor"


def _precision(refused: int, right: int) -> dict:
    return {"refused": refused, "right": right, "precision": round(right / refused, 4) if refused else None}


def detector_table(claims: dict[str, dict[str, list[int]]]) -> dict:
    """{detector:shape: {refused, right, precision, refuses, fit: {refused, right, precision}, report: {...}}}: each
    finding's precision as a difference claim (of the pairs past the blocker that it would refuse, the share
    labeled different), over all pairs and per fixed half (split_of); `refuses` says whether the floor refuses on
    it (judge.REFUSING, chosen on the fit halves). The row "floor" is the floor's own refusals."""
    table = {}
    for shape in sorted(claims, key=lambda name: (name == FLOOR_ROW, name)):
        halves = claims[shape]
        table[shape] = {**_precision(sum(h[0] for h in halves.values()), sum(h[1] for h in halves.values())),
                        "refuses": shape in (FLOOR_ROW, "category") or shape in REFUSING,
                        **{name: _precision(*halves[name]) for name in ("fit", "report")}}
    return table


def halves(pairs: list[dict], report: dict, opened: dict) -> dict:
    """The automatic merges and the judge's ceiling per fixed half (split_of): {fit|report: {pairs, positives,
    recall, false_merge_rate, judge_open: {pairs, positives, ceiling}}}."""
    errors, misses = set(report["errors"]), set(report["misses"])
    out = {}
    for name in ("fit", "report"):
        mine = [p for p in pairs if split_of(p["id"]) == name]
        positives = sum(p["label"] == 1 for p in mine)
        negatives = len(mine) - positives
        tp = positives - sum(p["id"] in misses for p in mine)
        fp = sum(p["id"] in errors for p in mine)
        out[name] = {"pairs": len(mine), "positives": positives,
                     "recall": round(tp / positives, 4) if positives else None,
                     "false_merge_rate": round(fp / negatives, 4) if negatives else None,
                     "judge_open": {**opened[name], "ceiling": round((tp + opened[name]["positives"]) / positives, 4)
                                    if positives else None}}
    return out


def tally(pairs: list[dict], cosines: list[float], decide: Callable[[dict, float], tuple[bool, str]],
          progress: Callable[[int, int], None] | None, blocker_threshold: float) -> dict:
    """The report of evaluate_merge for PAIRS: each pair the blocker lets through is decided by DECIDE(pair,
    cosine) -> (merged, the rule that decided); the rest are "blocker". The one tally `vmem eval merge` and its
    --judge run share, so their reports compare row by row."""
    counts = {"all": [0, 0, 0, 0], "differing": [0, 0, 0, 0]}  # tp, fp, fn, tn
    by_kind: dict[str, dict[str, int]] = {}
    by_rule: dict[str, dict[str, int]] = {}
    by_strength: dict[str, dict[str, int]] = {}
    errors: list[str] = []
    misses: list[str] = []
    for done, (pair, cosine) in enumerate(zip(pairs, cosines, strict=True), start=1):
        if passes_blocker(cosine, pair["categories_a"], pair["categories_b"], blocker_threshold):
            merged, rule = decide(pair, cosine)
        else:
            merged, rule = False, "blocker"
        kind = by_kind.setdefault(pair["kind"], {"pairs": 0, "merged": 0})
        kind["pairs"] += 1
        kind["merged"] += merged
        strength = _strength(pair) if pair["label"] == 1 else None
        if strength:
            row = by_strength.setdefault(strength, {"pairs": 0, "merged": 0})
            row["pairs"] += 1
            row["merged"] += merged
        decided = by_rule.setdefault(rule, {"pairs": 0, "positives": 0})
        decided["pairs"] += 1
        decided["positives"] += pair["label"]
        cell = (0 if merged else 2) if pair["label"] == 1 else (1 if merged else 3)
        for subset in ("all", "differing") if pair["a"] != pair["b"] else ("all",):
            counts[subset][cell] += 1
        if cell == 2:
            misses.append(pair["id"])
        elif cell == 1:
            errors.append(pair["id"])
        if progress:
            progress(done, len(pairs))
    return {
        "pairs": len(pairs), **_rates(*counts["all"]),
        "differing": {"pairs": sum(counts["differing"]), **_rates(*counts["differing"])},
        "by_kind": dict(sorted(by_kind.items())),
        "by_strength": dict(sorted(by_strength.items())),
        "by_rule": dict(sorted(by_rule.items())),
        "errors": errors,
        "misses": misses,
    }
