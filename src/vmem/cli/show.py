"""`vmem show ID` and `vmem list`: inspect items."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.cli.render import item_table, show_panel

ID_HELP = "A claim or learning id, or a unique prefix of one (c-f3d5)."


def show(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help=ID_HELP)],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Show one item as its review card, plus what consumers compute from it (confidence, liveness, support tier)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.card import show_card

        data = show_card(s.store, item_id)
        s.out.result(data, lambda console: show_panel(console, data))


def list_(
    ctx: typer.Context,
    kind: Annotated[Optional[str], typer.Option("--kind", help="claim or knowledge.")] = None,
    status: Annotated[Optional[str], typer.Option("--status", help="Only items with this status.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List items (oldest first); broken files are skipped with a warning."""
    with session(ctx, json_, store) as s:
        from vmem.ops.card import viewer_of
        from vmem.visibility import visible_to
        from vmem.ops.show import list_items

        listing = list_items(s.store, kind, status)
        viewer = viewer_of(s.store)
        listing.items = [i for i in listing.items if visible_to(i, viewer)]  # never another person's personal
        for error in listing.errors:
            s.out.warn(f"skipped {error.message}")
        s.out.result(listing.items, lambda console: item_table(console, listing.items))
