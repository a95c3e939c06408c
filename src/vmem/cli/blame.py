"""`vmem blame ID`: how a belief changed, who changed it and why."""

from __future__ import annotations

from typing import Annotated

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.cli.render import blame_table
from vmem.errors import VmemError

ID_HELP = "A claim or learning id, or a unique prefix of one (c-f3d5)."


def blame(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help=ID_HELP)],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """The supersession chain of ID both ways, with every commit that touched each version."""
    with session(ctx, json_, store) as s:
        from vmem.ops.blame import blame as run
        from vmem.ops.card import viewer_of
        from vmem.ops.common import require_own_if_personal

        snapshot, viewer = s.store.head(), viewer_of(s.store)
        require_own_if_personal(snapshot.item(snapshot.resolve_id(item_id)), viewer, item_id)  # as `vmem show`
        history = run(s.store, item_id)
        for event in history["events"]:  # a version that is another person's personal claim: its id, no text
            try:
                require_own_if_personal(snapshot.item(event["item"]), viewer, event["item"])
            except VmemError:
                event["statement"] = None
        s.out.result(history, lambda console: blame_table(console, history))
