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
        report["temporary"] = directory is None

        def human(console) -> None:
            # commands are printed whole, one per line: the terminal may wrap them, copy-paste still works
            where = " (a new temporary directory)" if directory is None else ""
            console.print(f"\n[bold]demo store:[/] {report['store']}{where}", soft_wrap=True)
            for command in (f"vmem --store {report['store']} list",
                            f"vmem --store {report['store']} blame {report['blame_id']}"):
                console.print(f"try: {command}", soft_wrap=True, markup=False)
            console.print(f"report: {report['report']} (open it in a browser)", soft_wrap=True, markup=False)
            if directory is None:  # the store and the agent's project sit side by side in one temporary folder
                console.print(f"remove it when done: rm -rf {Path(report['store']).parent}", soft_wrap=True,
                              markup=False)

        s.out.result(report, human)
