"""`vmem diff [SINCE [UNTIL]]`: what the team started and stopped believing."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session


def diff(
    ctx: typer.Context,
    since: Annotated[Optional[str], typer.Argument(metavar="SINCE", help="A date, a phrase ('2 weeks ago', "
                                                   "'yesterday') or a git revision; default: 7 days ago.")] = None,
    until: Annotated[Optional[str], typer.Argument(metavar="UNTIL", help="The same kinds of point; default: "
                                                   "now.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """The belief diff: what became live, what stopped (and why), what was published, edited or re-scoped, by whom.

    Derived from attested history: a hand edit is reported by `vmem check`, never shown here as a change.
    """
    with session(ctx, json_, store) as s:
        from vmem.ops.card import viewer_of
        from vmem.ops.diff import diff as run
        from vmem.ops.diff import lines
        from vmem.output import plain

        data = run(s.store, since, until, viewer=viewer_of(s.store))
        s.out.result(data, lambda console: [console.print(plain(line), soft_wrap=True, markup=False)
                                            for line in lines(data)])
