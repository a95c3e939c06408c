"""`vmem log`: what changed in the store recently."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session


def log(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("-n", "--limit", help="How many changes, newest first (at most 500).")] = 20,
    since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
                                                 help="Only changes after WHEN: a date, a timestamp or a phrase "
                                                      "such as '3 days ago'.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """What changed in the store recently: each commit's action, items, summary, author and reason."""
    with session(ctx, json_, store) as s:
        from vmem.ops.log import lines, log as run
        from vmem.output import plain

        data = run(s.store, limit=limit, since=since)
        s.out.result(data, lambda console: [console.print(plain(line), soft_wrap=True, markup=False)
                                            for line in lines(data)])
