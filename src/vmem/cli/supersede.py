"""`vmem supersede ID TEXT`: a new version of a belief."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, NoAsOpt, StoreOpt, session
from vmem.cli.fast import run_on_store
from vmem.cli.supersede_fast import execute


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
        run_on_store(execute, s.out, s.store_path, item_id, text, reason=reason, title=title, as_=as_)
