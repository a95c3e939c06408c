"""`vmem supersede ID TEXT`: a new version of a belief."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, NoAsOpt, StoreOpt, refuse_as, session
from vmem.cli.render import one_line


def supersede(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="The item to replace.")],
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The new statement.")],
    reason: Annotated[Optional[str], typer.Option("--reason", "-r", help="Why the belief changed.")] = None,
    title: Annotated[Optional[str], typer.Option("--title", help="A new one-line title.")] = None,
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Replace ITEM with a new version; the old one becomes superseded (valid_to, superseded_by) in one commit."""
    with session(ctx, json_, store) as s:
        from vmem.ops.supersede import supersede as run

        refuse_as(as_, "supersede")
        result = run(s.store, item_id, text, reason=reason, title=title)

        s.out.result({"action": "superseded", "item": result.item, "previous": result.previous,
                      "commit": result.commit})
        s.out.line(one_line(f"supersedes {result.previous['id']}", result.item, result.commit))
        if not s.out.as_json:
            s.out.note(f"{result.previous['id']} is now superseded; history: vmem blame {result.item['id']}")
