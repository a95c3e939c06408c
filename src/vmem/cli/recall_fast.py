"""The one-shot paths of `vmem recall` and `vmem index`: no typer, no rich, and when the index already reflects
HEAD no pygit2 either (cli/entry.py sends them here). Anything these paths cannot decide simply returns None, and the full
command runs instead, so behaviour and errors stay the full command's."""

from __future__ import annotations

import sys

def _root(store: str | None):
    import os

    from vmem.policy import POLICY_FILE
    from vmem.ops.session import resolve

    root = resolve(store).root
    policy = root / POLICY_FILE
    if policy.is_symlink() or not policy.is_file() or not (root / ".git").is_dir() or not os.access(policy, os.R_OK):
        return None  # the full command explains what is wrong
    return root


def _emit(as_json: bool, data, lines: list[str]) -> None:
    if as_json:
        from vmem.output import Output

        Output(True).result(data)
    else:
        from vmem.output import plain

        sys.stdout.write("".join(plain(line) + "\n" for line in lines))


def answer_lines(result: dict) -> list[list[tuple[str, str | None]]]:
    """A recall answer for people, as lines of (text, style) runs: the full command styles them with rich, the
    fast path prints the text (what rich prints when stdout is not a terminal)."""
    from vmem.ops.pending import coverage_line

    style = {"covered": "green", "partial": "yellow", "uncovered": "red"}[result["coverage"]]
    lines: list[list[tuple[str, str | None]]] = [[(coverage_line(result), f"bold {style}")]]
    for row in result["results"]:
        extra = f"support: {row['support_tier']}" if row["kind"] == "knowledge" else row["scope"]
        runs = [(f"{row['id']}  {row['score']:.4f}  conf {row['confidence']:.2f}  ", None), (extra, "dim")]
        if row.get("stale"):
            runs.append((" (stale)", "red"))
        lines += [runs, [(f"    {row['statement']}", None)]]
    return lines


def recall(argv: list[str], store: str | None = None) -> int | None:
    """`vmem recall QUERY` for scripts and agents: --json, or text when stdout is not a terminal (a terminal gets
    the full command's colours)."""
    from vmem.cli.fast import read, spec_of

    parsed = read(argv, spec_of("recall", "recall"), store)
    if parsed is None or parsed["as_of"] or parsed["include_superseded"] or \
            not (parsed["json_"] or not sys.stdout.isatty()):
        return None
    from vmem.ops.recall import recall_current

    try:
        root = _root(parsed["store"])
        result = root and recall_current(root, parsed["query"], scope=parsed["scope"], audience=parsed["audience"],
                                         k=parsed["k"])
        if result is None and root:
            result = _caught_up(root, parsed)
    except Exception:  # noqa: BLE001 - a bad argument, or an index rebuilt under us: the full command decides
        import os

        if os.environ.get("VMEM_DEBUG"):
            raise
        return None
    if not result:
        return None
    _emit(parsed["json_"], result, ["".join(text for text, _ in runs) for runs in answer_lines(result)])
    return 0


def _caught_up(root, parsed: dict) -> dict | None:
    """The answer when the index is behind HEAD (a commit since it was written): the command's own body, catching
    the index up in this process without typer's ~60-100 ms. No index yet (a build the full command shows the
    progress of), or anything unusual: None, and the full command runs."""
    from vmem.index.local import recorded

    if recorded(root) is None:
        return None
    from vmem.ops.recall import recall
    from vmem.store.repo import Store

    return recall(Store.open(root, lite=True), parsed["query"], scope=parsed["scope"], audience=parsed["audience"],
                  k=parsed["k"])


def index(argv: list[str], store: str | None = None) -> int | None:
    """`vmem index` with nothing new: decided from .git and the index's sqlite file, before numpy or the model."""
    import time

    started = time.perf_counter()
    from vmem.cli.fast import read, spec_of

    parsed = read(argv, spec_of("recall", "index"), store)
    if parsed is None or parsed["rebuild"]:
        return None
    from vmem.embed import bundled_model_dir
    from vmem.errors import VmemError
    from vmem.index.local import index_dir_for, recorded
    from vmem.store.served import head_commit

    try:
        root = _root(parsed["store"])
    except VmemError:
        return None
    info = recorded(root) if root else None
    commit = head_commit(root) if info else None
    if info is None or commit is None or info["commit"] != commit or info.get("model") != str(bundled_model_dir()):
        return None
    data = {"commit": commit, "items": info["items"], "parsed": 0, "rebuilt": False,
            "seconds": round(time.perf_counter() - started, 3), "path": str(index_dir_for(root))}
    _emit(parsed["json_"], data, [f"index at {commit[:10]}: {data['items']} items, 0 parsed now, {data['seconds']} s"])
    return 0


def fast_main(args: list[str], store: str | None = None) -> int | None:
    """ARGS starts with the command; STORE is a global `--store PATH` given before it."""
    return recall(args[1:], store) if args[0] == "recall" else index(args[1:], store)
