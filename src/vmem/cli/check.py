"""`vmem check`: validate the whole store (exit 1 on errors, for a store's own CI)."""

from __future__ import annotations

from typing import Annotated

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.cli.render import check_report


def check(
    ctx: typer.Context,
    governance: Annotated[bool, typer.Option("--governance", help="Also audit trust derived from history: every "
                                             "governance commit by a reviewer (committer, signed with require_"
                                             "signed), every item's status attested, vmem.yaml set by a reviewer.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Check every file: schema, ids vs paths, supersession links, entities, policy, uncommitted edits."""
    with session(ctx, json_, store) as s:
        from vmem.ops.check import audit

        report = audit(s.store, governance)
        data = {"errors": report.errors, "warnings": report.warnings}
        s.out.result(data, lambda console: check_report(console, data))
        if report.errors:
            raise typer.Exit(1)
