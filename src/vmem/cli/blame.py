"""`vmem blame ID`: how a belief changed, who changed it and why."""

from __future__ import annotations

from typing import Annotated

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.cli.render import blame_table


def blame(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """The supersession chain of ID both ways, with every commit that touched each version."""
    with session(ctx, json_, store) as s:
        from vmem.ops.blame import blame as run

        history = run(s.store, item_id)
        s.out.result(history, lambda console: blame_table(console, history))
