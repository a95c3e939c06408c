"""`vmem contradictions [--scope]`: open pairs of items that say nearly the same thing and disagree (SPEC 14)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.cli.render import shorten as _shorten
from vmem.output import counted, safe


def contradictions(
    ctx: typer.Context,
    scope: Annotated[Optional[str], typer.Option("--scope", metavar="entity:E",
                                                 help="Only claims that an agent in this scope could be served.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List open contradictions: proposed or live items in overlapping scopes that differ in a decisive feature,
    two live items first."""
    with session(ctx, json_, store) as s:
        from vmem.ops.card import viewer_of
        from vmem.ops.contradictions import contradictions as run

        pairs = run(s.store, scope, viewer_of(s.store))

        def human(console) -> None:
            from vmem.ops.contradictions import live_sides

            if not pairs:
                console.print("no open contradictions")
                return
            for pair in pairs:
                console.print(f"[bold]{pair['a']}[/] ({pair['a_status']}) vs [bold]{pair['b']}[/] ({pair['b_status']}): "
                              f"[yellow]{safe(pair['reason'])}[/]", soft_wrap=True)
                console.print(f"    {safe(_shorten(pair['a_statement'], 160))}\n"
                              f"    {safe(_shorten(pair['b_statement'], 160))}", soft_wrap=True)
            both = sum(live_sides(p) == 2 for p in pairs)
            console.print(f"[dim]{counted(len(pairs), 'open contradiction')}"
                          + (f", {both} between two live items (agents are served both)" if both else "")
                          + "; approving one side in vmem review asks what becomes of the other, or retire one: "
                          "vmem revoke ID --reason …[/]", soft_wrap=True)

        s.out.result(pairs, human)
