"""vmem eval recall: coverage accuracy, relevance@k and the stale-hallucination rate on labeled queries."""

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
    return queries


def evaluate_recall(store: Store, path: Path, k: int = 5, progress=None) -> dict:
    """Run every query through recall; a served item that the scope rule forbids, or that a query marks stale,
    counts as a stale hallucination (the target is zero)."""
    from vmem.embed import embedder
    from vmem.index.local import LocalIndex
    from vmem.ops.recall import Scope, search

    queries = read_queries(Path(path))
    embed = embedder(store.policy, store.root)
    index = LocalIndex.open(store, embed, model_id=str(embed.path))
    head = store.head()
    confusion = {e: {g: 0 for g in COVERAGES} for e in COVERAGES}
    relevant_hits = relevant_total = hallucinations = 0
    rows = []
    for n, q in enumerate(queries, 1):
        who = Scope.parse(q.get("scope"), q.get("audience"))
        result = search(index, q["query"], who, False, k, embed)
        confusion[q["expect"]][result["coverage"]] += 1
        served = result["results"]
        bad = []
        for row in served:
            item = head.item(row["id"])
            if not who.admits(item) or any(s in item["statement"] for s in q.get("stale") or []):
                bad.append(row["id"])
        hallucinations += bool(bad)
        found = None
        if q.get("relevant"):
            relevant_total += 1
            found = any(any(s in row["statement"] for s in q["relevant"]) for row in served)
            relevant_hits += found
        rows.append({"query": q["query"], "expect": q["expect"], "got": result["coverage"],
                     "best_cosine": max((r["cosine"] for r in served), default=0.0), "relevant_found": found,
                     "stale_served": bad})
        if progress:
            progress(n, len(queries))
    correct = sum(confusion[e][e] for e in COVERAGES)
    return {"queries": len(queries), "coverage_accuracy": round(correct / len(queries), 4),
            "confusion": confusion, "relevance_at_k": round(relevant_hits / relevant_total, 4) if relevant_total else None,
            "k": k, "stale_hallucination_rate": round(hallucinations / len(queries), 4), "rows": rows}
