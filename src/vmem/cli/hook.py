"""`vmem hook install`: run `vmem sync --hook` at every Claude Code session start (and after git pulls)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session

app = typer.Typer(help="Install the hooks that keep the agent's rules in sync.", no_args_is_help=True)


@app.command("install")
def install(
    ctx: typer.Context,
    project: Annotated[Path, typer.Option("--project", help="The project whose .claude/ gets the hook.")] = Path("."),
    git: Annotated[bool, typer.Option("--git", help="Also a post-merge hook in the store: a pull re-syncs.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Add a SessionStart hook running `vmem sync --hook` to .claude/settings.json (merged, idempotent)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.hook import install_claude, install_git

        path, added = install_claude(project.absolute())
        data = {"settings": str(path), "added": added}
        if git:
            from vmem.store.discover import find_store_root

            target = (project.absolute() / s.store.policy["sync"]["dir"]).absolute()
            hook_path, hook_added = install_git(find_store_root(s.store_path).absolute(), target)
            data.update({"post_merge": str(hook_path), "post_merge_added": hook_added})
        s.out.result(data)
        s.out.line(f"{'added' if added else 'already present'}: SessionStart hook in {path}")
        if git:
            s.out.line(f"{'added' if data['post_merge_added'] else 'already present'}: {data['post_merge']}")
