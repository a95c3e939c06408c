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
        from vmem.ops import hook as ops

        project = project.absolute()
        data: dict = {}
        config = None
        if store is not None or target or budget is not None:
            if store is None:
                from vmem.errors import UsageError
                raise UsageError("--target and --budget go into the project config, which needs the store too",
                                 "add --store PATH|URL")
            from vmem.errors import VmemError
            from vmem.ops.project import read as read_config

            try:
                existing = read_config(project)
            except VmemError:
                existing = None  # unreadable: write_config refuses it below unless vmem wrote it
            config = ops.project_config(project, store, target, budget, existing)
            if config["store"]["url"] and not config["store"]["path"]:
                from vmem.ops.project import resolve_store

                resolve_store(project, config)  # cloned now: a wrong URL fails here, not in every session
            files = _gitignore(ops, project, config["targets"], config)  # refused here: nothing written yet
            path, written = ops.write_config(project, config)
            data.update({"config": str(path), "config_written": written, "store": config["store"],
                         "targets": config["targets"]})
            gone = [t for t in (existing or {}).get("targets") or [] if t not in config["targets"]]
            if gone:  # narrowed with --target: what those targets wrote would never be synced again
                from vmem.ops.project import resolve_store

                try:
                    data["removed"] = ops.prune_targets(resolve_store(project, config)[0], project, gone)
                except VmemError as exc:
                    s.out.warn(f"files of {', '.join(gone)} left in place: {exc.message}")
        if config is None:
            files = _gitignore(ops, project, *_configured(project))
        path, added = ops.install_claude(project)
        data.update({"settings": str(path), "added": added, "command": ops.HOOK_COMMAND})
        ignore_path, ignore_written = files["path"], ops.apply_gitignore(files["path"], files["text"])
        data.update({"commit": files["commit"], "ignore": files["ignore"], "gitignore": str(ignore_path),
                     "gitignore_written": ignore_written})
        if git:
            from vmem.store.discover import find_store_root

            root = find_store_root(store if store and not _is_url(store) else s.store_path).absolute()
            directory = (project / s.store.policy["sync"]["dir"]).absolute()
            hook_path, hook_added = ops.install_git(root, directory)
            data.update({"post_merge": str(hook_path), "post_merge_added": hook_added})
        s.out.result(data)
        if "config" in data:
            s.out.line(f"{'wrote' if data['config_written'] else 'unchanged'}: {data['config']} (commit it)")
        s.out.line(f"{'added' if added else 'already present'}: SessionStart hook in {path} (commit it)")
        s.out.line(f"{'wrote' if ignore_written else 'unchanged'}: vmem's block in {ignore_path} (commit it)")
        s.out.line(f"commit: {', '.join(files['commit'])}")
        if files["sections"]:
            s.out.line(f"  {' and '.join(files['sections'])}: your text, with vmem's marked section inside; the "
                       "section changes when the store does")
        s.out.line(f"ignored: {', '.join(files['ignore'])} (each clone's session hook writes them)")
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


def _configured(project: Path) -> tuple[list[str], dict | None]:
    """The project's targets and config, for an install that writes no config."""
    from vmem.errors import VmemError
    from vmem.ops.project import read
    from vmem.targets import DEFAULT

    try:
        config = read(project)
    except VmemError:
        config = None
    return (config or {}).get("targets") or [DEFAULT], config


def _gitignore(ops, project: Path, targets: list[str], config: dict | None) -> dict:
    """What the project commits and ignores, and its .gitignore as it will be (a damaged block refused now)."""
    files = ops.generated(targets, ops.rules_dir(project, config))
    path, text = ops.plan_gitignore(project, files["ignore"])
    return {**files, "path": path, "text": text}


def _is_url(value: str) -> bool:
    from vmem.store.remote import is_url

    return is_url(value)
