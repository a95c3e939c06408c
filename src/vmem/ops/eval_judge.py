"""`vmem eval merge --judge`: the configured external judge measured on labeled pairs, behind the deterministic floor.

The path is consolidation's with a judge that reads meaning: the blocker (cosine and category overlap) bounds what
is judged; the deterministic judge decides first (a merge it is sure of, or a decisive difference: number,
negation, role, ...); the external judge decides only the pairs the floor leaves open (judge.floor). The metrics
are `vmem eval merge`'s, so the two reports compare row by row; `judge` adds what the external judge did.

Which judge: the one in the attested policy of the store vmem finds (--store rules: VMEM_STORE, the nearest
store, the user config's store), else the `judge:` section of the user's own config file (SPEC 12: a program vmem
runs comes only from the attested policy or the user's own configuration, never from a file nobody reviewed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from vmem.errors import UsageError

NO_JUDGE_FIX = ("set knowledge.judge in vmem.yaml through a reviewer's commit (e.g. judge: {{adapter: ollama, model: "
                "llama3.1:8b}}), or put the same mapping under judge: in your own config file ({config})")


def user_judge() -> tuple[list[str], float, str] | None:
    """(command, timeout_s, where) from the user's own config file's `judge:` mapping (the keys of
    knowledge.judge, checked the same way), or None when it has none."""
    from vmem.policy import load_policy
    from vmem.store import codec
    from vmem.store.discover import user_config_file

    path = user_config_file()
    if not path.is_file():
        return None
    text = codec.decode(path.read_bytes(), str(path))
    data = codec.load(text, str(path))
    if not isinstance(data, dict) or data.get("judge") is None:
        return None
    if not isinstance(data["judge"], dict):
        raise UsageError(f"{path}: judge must be a mapping, e.g. judge: {{adapter: ollama, model: llama3.1:8b}}")
    judge = load_policy({"knowledge": {"judge": data["judge"]}}, str(path))["knowledge"]["judge"]
    return (_argv(judge["command"]), judge["timeout_s"], str(path)) if judge["command"] else None


def configured_judge() -> tuple[list[str], float, str]:
    """(command, timeout_s, where it is configured) of the judge --judge measures; a usage error when none is."""
    from vmem.errors import StoreNotFound
    from vmem.store.discover import find_store_root, user_config_file

    try:
        root = find_store_root()
    except StoreNotFound:
        root = None
    if root is not None and (root / "vmem.yaml").is_file():
        from vmem.store.repo import Store

        judge = Store.open(root, lite=True).policy["knowledge"]["judge"]
        if judge.get("command"):
            return _argv(judge["command"]), judge["timeout_s"], f"{root}/vmem.yaml (attested)"
    found = user_judge()
    if found is None:
        config = user_config_file()
        store = f"none in {root}/vmem.yaml (as a reviewer committed it)" if root is not None else "no store here"
        raise UsageError(f"no merge judge is configured: {store} and none in {config}",
                         NO_JUDGE_FIX.format(config=config))
    return found


def summary(judge: dict) -> str:
    """One line on what the external judge did (the human face of report["judge"])."""
    line = (f"judge {judge['name']} ({judge['source']}): asked about {judge['asked']} pairs the floor left open: "
            f"{judge['same']} same, {judge['not_same']} not the same, {judge['failed']} no answer "
            f"(fail-closed), {judge['seconds']:.1f}s")
    if judge["failures"]:
        line += f"\n  first failure ({judge['failures'][0]['id']}): {judge['failures'][0]['reason']}"
    return line


def _argv(command: list[str] | str) -> list[str]:
    if isinstance(command, str):
        import shlex

        return shlex.split(command)
    return list(command)


def evaluate_judge(pairs_path: Path, embed: Callable | None, command: list[str], timeout_s: float, *,
                   source: str = "", progress: Callable[[int, int], None] | None = None,
                   blocker_threshold: float | None = None) -> dict:
    """evaluate_merge's report for blocker -> deterministic floor -> COMMAND, plus "judge": {"name", "source",
    "asked" (pairs the floor left open), "same", "not_same", "failed" (no answer: fail-closed), "seconds",
    "failures": [{id, reason}] (the first ten)}. A pair the external judge decided has rule "judge" in by_rule."""
    from vmem.knowledge.adapters import describe
    from vmem.knowledge.judge import BLOCKER_THRESHOLD, floor, judge_command
    from vmem.ops.eval_merge import pair_cosines, pair_pool, read_pairs, tally

    threshold = BLOCKER_THRESHOLD if blocker_threshold is None else blocker_threshold
    pairs = read_pairs(Path(pairs_path))
    judged = {"asked": 0, "same": 0, "not_same": 0, "failed": 0}
    failures: list[dict] = []

    def floor_then_command(pair: dict, cosine: float) -> tuple[bool, str]:
        verdict, rule = floor(pair["a"], pair["b"], pair["categories_a"], pair["categories_b"], cosine)
        if verdict is None:  # open: the judge that reads meaning decides
            verdict = judge_command(command, {"statement": pair["a"], "categories": pair["categories_a"]},
                                    {"statement": pair["b"], "categories": pair["categories_b"]}, timeout_s)
            rule = "judge"
            judged["asked"] += 1
            judged["failed" if verdict.failed else "same" if verdict.same else "not_same"] += 1
            if verdict.failed and len(failures) < 10:
                failures.append({"id": pair["id"], "reason": verdict.reason})
        return verdict.same, rule

    pool = pair_pool(pairs, embed) if embed is not None and pairs else None
    cosines = pair_cosines(pairs, pool)
    started = time.monotonic()  # the judging, not the embedding
    report = tally(pairs, cosines, floor_then_command, progress, threshold)
    report["judge"] = {"name": describe(command), "source": source, **judged,
                       "seconds": round(time.monotonic() - started, 3), "failures": failures}
    return report


def evaluate_configured(pairs_path: Path, embed: Callable | None,
                        progress: Callable[[int, int], None] | None = None) -> dict:
    """`vmem eval merge FILE --judge`: the configured judge (configured_judge) on FILE."""
    command, timeout_s, source = configured_judge()
    return evaluate_judge(pairs_path, embed, command, timeout_s, source=source, progress=progress)
