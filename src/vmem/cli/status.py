"""`vmem status`: the store, its remote, and what awaits delivery."""

from __future__ import annotations

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session


def status(ctx: typer.Context, json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Which store this directory uses, its remote, ahead/behind, and proposals not yet delivered (delivers them)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.session import resolve
        from vmem.ops.status import lines, status as run

        data = run(s.store, resolve(s.store_path).via)
        s.out.result(data, lambda console: [console.print(line, soft_wrap=True, markup=False)
                                            for line in lines(data)])
