"""`vmem hook install|uninstall`: the project's committed config and SessionStart hook (and a git post-merge hook)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, session
from vmem.targets import listed

app = typer.Typer(help="Install the hooks that keep the agents' rules in sync.", no_args_is_help=True)

ProjectOpt = Annotated[Path, typer.Option("--project", help="The agent's project (default: here).")]
TargetOpt = Annotated[Optional[list[str]], typer.Option("--target", metavar="T", help=f"{listed(default=True)}; "
                                                        "repeatable.")]


@app.command("install")
def install(
    ctx: typer.Context,
    project: ProjectOpt = Path("."),
    store: Annotated[Optional[str], typer.Option("--store", metavar="PATH|URL", help="The team's store: recorded "
                                                 "in the project's .vmem.yaml (a path relative to the project, "
                                                 "and/or its remote URL).", show_default=False)] = None,
    target: TargetOpt = None,
    budget: Annotated[Optional[int], typer.Option("--budget", metavar="N", help="Token budget.")] = None,
    git: Annotated[bool, typer.Option("--git", help="Also a post-merge hook in the store: a pull re-syncs.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Write .vmem.yaml (with --store), a SessionStart hook in .claude/settings.json and vmem's block in .gitignore
    (merged, idempotent); say which files to commit."""
    with session(ctx, json_, None) as s:
        from vmem.ops.hook import install as run

        data = run(project.absolute(), store, target, budget, git, s.store_path)
        for warning in data.pop("warnings"):
            s.out.warn(warning)
        s.out.result(data)
        if "config" in data:
            s.out.line(f"{'wrote' if data['config_written'] else 'unchanged'}: {data['config']} (commit it)")
        s.out.line(f"{'added' if data['added'] else 'already present'}: SessionStart hook in {data['settings']} "
                   "(commit it)")
        s.out.line(f"{'wrote' if data['gitignore_written'] else 'unchanged'}: vmem's block in {data['gitignore']} "
                   "(commit it)")
        s.out.line(f"commit: {', '.join(data['commit'])}")
        if data["sections"]:
            s.out.line(f"  {' and '.join(data['sections'])}: your text, with vmem's marked section inside; the "
                       "section changes when what the team serves does")
        if data["after_sync"]:
            s.out.line(f"after the first vmem sync writes them, commit: {', '.join(data['after_sync'])}")
        s.out.line(f"ignored: {', '.join(data['ignore'])} (each clone's session hook writes them)")
        if git:
            s.out.line(f"{'added' if data['post_merge_added'] else 'already present'}: {data['post_merge']}")


@app.command("uninstall")
def uninstall(
    ctx: typer.Context,
    project: ProjectOpt = Path("."),
    git: Annotated[bool, typer.Option("--git", help="Also remove the store's post-merge hook.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Remove what install added: the hook entry, .vmem.yaml, the .gitignore block, and every target's files
    (AGENTS.md and copilot-instructions.md keep your text)."""
    with session(ctx, json_, None) as s:
        from vmem.ops import hook as ops

        project = project.absolute()
        data = ops.uninstall(project, s.store_path, git)
        s.out.result(data)
        s.out.line(f"removed: {len(data['removed'])} files or sections; hook "
                   f"{'removed' if data['hook_removed'] else 'was not there'}"
                   + ("" if data["config_removed"] else "; no .vmem.yaml of vmem's"))
        for warning in data["warnings"]:
            s.out.warn(warning)
