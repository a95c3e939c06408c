"""`vmem demo [DIR]`: the lifecycle on a throwaway store seeded from examples/, narrated."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, session


def demo(
    ctx: typer.Context,
    directory: Annotated[Optional[Path], typer.Argument(metavar="DIR",
                                                        help="Where to build the demo store (default: a new "
                                                             "temporary directory).")] = None,
    json_: JsonOpt = False,
) -> None:
    """Build a store from the bundled examples and walk through proposing, superseding and blame."""
    with session(ctx, json_) as s:
        from vmem.ops.demo import run_demo

        def narrate(step: str, detail: str = "") -> None:
            s.out.info(f"[bold cyan]▸ {step}[/]" + (f"\n  {detail}" if detail else ""))

        report = run_demo(directory, narrate)
        s.out.result(report, lambda console: console.print(
            f"\n[bold]demo store:[/] {report['store']}\n"
            f"try: vmem --store {report['store']} list   |   vmem --store {report['store']} blame "
            f"{report['blame_id']}"))
