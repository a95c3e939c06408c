"""`vmem recall QUERY` and `vmem index`: scoped retrieval over the local index."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.output import safe


def recall(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="A question.")],
    scope: Annotated[Optional[str], typer.Option("--scope", metavar="entity:E", help="Also this entity's claims.")] = None,
    audience: Annotated[Optional[str], typer.Option("--audience", help="all or group:NAME.")] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", metavar="WHEN", help="Answer as the store was then.")] = None,
    include_superseded: Annotated[bool, typer.Option("--include-superseded",
                                                     help="Also superseded/expired items, marked stale.")] = False,
    k: Annotated[int, typer.Option("-k", help="How many results.")] = 5,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ask the store: results inside your scope, and whether it is covered, partial or uncovered."""
    with session(ctx, json_, store) as s:
        from vmem.ops.recall import recall as run

        result = run(s.store, query, scope=scope, audience=audience, as_of=as_of,
                     include_superseded=include_superseded, k=k)

        def human(console) -> None:
            from vmem.cli.recall_fast import answer_lines  # the same lines as the fast path prints

            for runs in answer_lines(result):
                console.print("".join(f"[{style}]{safe(text)}[/]" if style else safe(text) for text, style in runs),
                              soft_wrap=True)

        s.out.result(result, human)


def index(
    ctx: typer.Context,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the index and build it again from git.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Bring the local search index up to date (recall does this automatically)."""
    with session(ctx, json_, store) as s:
        import time

        from vmem.cli.knowledge import show_progress
        from vmem.embed import embedder
        from vmem.index.local import LocalIndex

        embed = embedder(s.store.policy, s.store.root)
        started = time.perf_counter()
        with show_progress(s.out) as progress:
            idx = LocalIndex.open(s.store, embed, model_id=str(embed.path), rebuild=rebuild,
                                  progress=(lambda done, total: progress("index", done, total)) if progress else None)
        data = {"commit": idx.commit, "items": len(idx.items), "parsed": idx.stats["parsed"],
                "rebuilt": idx.stats["rebuilt"], "seconds": round(time.perf_counter() - started, 3),
                "path": str(idx.path)}
        s.out.result(data, lambda console: console.print(
            f"index at {idx.commit[:10] if idx.commit else 'empty'}: {data['items']} items, {data['parsed']} parsed "
            f"now{' (rebuilt)' if data['rebuilt'] else ''}, {data['seconds']} s"))
