"""`vmem targets list|add|remove`: which agents' formats this project's committed .vmem.yaml syncs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vmem.cli.common import JsonOpt, session
from vmem.targets import DEFAULT, NAMES, listed

app = typer.Typer(help=f"The agent formats this project syncs ({', '.join(NAMES)}).", no_args_is_help=True)
ProjectOpt = Annotated[Path, typer.Option("--project", help="The agent's project (default: here).")]
NamesArg = Annotated[list[str], typer.Argument(metavar="NAME...", help=listed() + ".")]


def _change(ctx: typer.Context, project: Path, add: list[str], remove: list[str], json_: bool) -> None:
    with session(ctx, json_) as s:
        from vmem.ops.hook import change_targets

        data = change_targets(project.absolute(), add, remove)
        s.out.result(data)
        s.out.line(f"targets: {', '.join(data['targets'])} in {data['config']}"
                   + ("" if data["written"] else " (unchanged)"))
        if data["gitignore_written"]:
            s.out.line(f"ignored: {', '.join(data['ignore'])} (vmem's block in {data['gitignore']}, in step)")
        if data["removed"]:
            s.out.line(f"removed {len(data['removed'])} files or sections")
        if data["commit"]:
            s.out.line(f"commit: {', '.join(data['commit'])}")
        if data["after_sync"]:
            s.out.line(f"after the next vmem sync writes them, commit: {', '.join(data['after_sync'])}")
        for warning in data["warnings"]:
            s.out.warn(warning)


@app.command("add")
def add(ctx: typer.Context, names: NamesArg, project: ProjectOpt = Path("."), json_: JsonOpt = False) -> None:
    """Add targets to .vmem.yaml (the next sync writes them)."""
    _change(ctx, project, names, [], json_)


@app.command("remove")
def remove(ctx: typer.Context, names: NamesArg, project: ProjectOpt = Path("."), json_: JsonOpt = False) -> None:
    """Remove targets from .vmem.yaml and prune the files vmem wrote for them."""
    _change(ctx, project, [], names, json_)


@app.command("list", help=f"The targets .vmem.yaml names ({DEFAULT} when there is no config).")
def list_(ctx: typer.Context, project: ProjectOpt = Path("."), json_: JsonOpt = False) -> None:
    with session(ctx, json_) as s:
        from vmem.ops.project import read

        config = read(project.absolute())
        targets = config["targets"] if config else [DEFAULT]
        s.out.result({"targets": targets, "config": bool(config)})
        s.out.line(", ".join(targets) + ("" if config else " (no .vmem.yaml: the default)"))
