"""`vmem import`: the team's existing agent rules become proposals (one commit), for review like any other."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session


def import_(
    ctx: typer.Context,
    files: Annotated[Optional[list[str]], typer.Argument(metavar="[FILE]...", help="Rules files inside the project "
                                                         "(default: CLAUDE.md, AGENTS.md, .claude/rules/**, "
                                                         ".cursor/rules/**).", show_default=False)] = None,
    project: Annotated[Path, typer.Option("--project", help="The agent's project (default: here).")] = Path("."),
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be proposed; write nothing.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Propose the bullets and sections of existing rules files as facts (one commit; duplicates skipped)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.import_rules import import_rules

        data = import_rules(s.store, project, files, dry_run)
        s.out.result(data)
        verb = "would propose" if dry_run else "proposed"
        s.out.line(f"{verb} {len(data['proposed'])} facts from {len(data['sources'])} files"
                   + (f"; {len(data['duplicates'])} already in the store" if data["duplicates"] else "")
                   + (f" [{data['commit'][:10]}]" if data["commit"] else ""))
        if data["proposed"] and not dry_run:
            s.out.line("next: a reviewer works the queue: vmem review")
