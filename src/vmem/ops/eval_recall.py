"""vmem eval recall: hit@1, hit@k, MRR@k, coverage accuracy and the stale-hallucination rate on labeled queries."""

from __future__ import annotations

from pathlib import Path

from vmem.errors import UsageError
from vmem.store import codec
from vmem.store.repo import Store

COVERAGES = ("covered", "partial", "uncovered")


def read_queries(path: Path) -> list[dict]:
    if not path.is_file():
        raise UsageError(f"no labeled queries at {path}", "pass a YAML file such as examples/eval/recall.yaml")
    data = codec.load(path.read_bytes(), str(path))
    queries = data.get("queries") if isinstance(data, dict) else None
    if not isinstance(queries, list) or not queries:
        raise UsageError(f"{path}: expected a 'queries:' list", "see examples/eval/recall.yaml for the format")
    for n, q in enumerate(queries, 1):
        if not isinstance(q, dict) or not isinstance(q.get("query"), str) or q.get("expect") not in COVERAGES:
            raise UsageError(f"{path}: query {n} needs 'query' (text) and 'expect' (covered|partial|uncovered)")
        if q.get("split", "tune") not in SPLITS:
            raise UsageError(f"{path}: query {n}: split must be tune or heldout")
    return queries


SPLITS = ("tune", "heldout")


def evaluate_recall(store: Store, path: Path, k: int = 10, progress=None, split: str | None = None) -> dict:
    """Run every query through recall and score the ranking and the coverage answer, per split.

    hit@1 / hit@k / MRR@k count queries with `relevant` substrings (the first result that contains one);
    coverage accuracy compares the answer with `expect`; a served item that the scope rule forbids, or that the
    query marks stale, counts as a stale hallucination (the target is zero). `split: tune` questions may be used
    to fit ranking and coverage constants, `split: heldout` ones never. SPLIT (tune or heldout): only that half's
    questions are asked, so fitting on tune never shows a held-out row."""
    from vmem.embed import embedder
    from vmem.index.local import LocalIndex
    from vmem.ops.recall import Scope, search

    queries = read_queries(Path(path))
    if split is not None:
        if split not in SPLITS:
            raise UsageError(f"--split must be one of {', '.join(SPLITS)}, not {split!r}")
        queries = [q for q in queries if q.get("split", "tune") == split]
        if not queries:
            raise UsageError(f"{path}: no question is marked split: {split}")
    embed = embedder(store.policy, store.root)
    index = LocalIndex.open(store, embed, model_id=str(embed.path))
    head = store.head()
    rows = []
    for n, q in enumerate(queries, 1):
        who = Scope.parse(q.get("scope"), q.get("audience"))
        result = search(index, q["query"], who, False, k, embed)
        served = result["results"]
        bad = []
        for row in served:
            item = head.item(row["id"])
            if not who.admits(item) or any(s in item["statement"] for s in q.get("stale") or []):
                bad.append(row["id"])
        rank = None
        if q.get("relevant"):
            rank = next((r for r, row in enumerate(served, 1) if any(s in row["statement"] for s in q["relevant"])),
                        0)
        rows.append({"query": q["query"], "split": q.get("split", "tune"), "expect": q["expect"],
                     "got": result["coverage"], "missing": result.get("missing") or [],
                     "stale": [s["id"] for s in result.get("stale") or []],
                     "best_cosine": max((r["cosine"] for r in served), default=0.0),
                     "rank": rank, "top": served[0]["statement"] if served else None, "stale_served": bad})
        if progress:
            progress(n, len(queries))
    report = {"queries": len(queries), "k": k, "split": split, **_scores(rows, k)}
    report["splits"] = {split: {"queries": sum(r["split"] == split for r in rows),
                                **_scores([r for r in rows if r["split"] == split], k)} for split in SPLITS}
    report["rows"] = rows
    return report


def _scores(rows: list[dict], k: int) -> dict:
    ranked = [r["rank"] for r in rows if r["rank"] is not None]
    confusion = {e: {g: 0 for g in COVERAGES} for e in COVERAGES}
    for r in rows:
        confusion[r["expect"]][r["got"]] += 1
    correct = sum(confusion[e][e] for e in COVERAGES)

    def share(n: float, total: int):
        return round(n / total, 4) if total else None

    return {"ranked": len(ranked), "hit_at_1": share(sum(r == 1 for r in ranked), len(ranked)),
            "hit_at_k": share(sum(r > 0 for r in ranked), len(ranked)),
            "mrr_at_k": share(sum(1 / r for r in ranked if r > 0), len(ranked)),
            "coverage_accuracy": share(correct, len(rows)), "confusion": confusion,
            # per label: of the questions labeled so, the share answered so (what an agent trusting the word gets)
            "label_accuracy": {e: share(confusion[e][e], sum(confusion[e].values())) for e in COVERAGES},
            "stale_hallucination_rate": share(sum(bool(r["stale_served"]) for r in rows), len(rows))}
