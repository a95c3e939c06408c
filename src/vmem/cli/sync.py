"""`vmem sync`: write the bundle into each target's rules files. Runs in hooks, so it has a fast path that
skips typer and rich (its reader is derived from the typer command below): an unchanged store is synced without
importing pygit2 either."""

import json
import sys
from pathlib import Path

from vmem.targets import NAMES as TARGETS  # the registry alone: no target module is imported to parse
from vmem.targets import listed


def run(*, store: str | None, directory: str | None, scope: str | None, audience: str | None,
        budget: int | None, do_pull: bool, hook: bool, as_json: bool, targets: list[str] | None = None) -> int:
    from vmem.errors import VmemError
    from vmem.output import plain

    warnings: list[str] = []
    try:
        from vmem.ops.session import project_dir
        from vmem.ops.sync import sync_project

        project = project_dir() if hook else Path(".").absolute()
        result, warnings = sync_project(store, project, directory=directory, targets=targets, scope=scope,
                                        audience=audience, budget=budget, do_pull=do_pull)
    except VmemError as exc:
        if hook:  # a hook never fails the session: one line, exit 0
            print(json.dumps({"systemMessage": f"vmem sync skipped: {exc.message}"}))
            return 0
        from vmem.output import Output

        return Output(as_json).fail(exc)
    except Exception as exc:  # noqa: BLE001 - a bug: still never fails the session that is starting
        import os

        if not hook or os.environ.get("VMEM_DEBUG"):
            raise
        print(json.dumps({"systemMessage": f"vmem sync failed (a vmem bug: {type(exc).__name__}: {exc}); "
                                           "rerun `vmem sync` with VMEM_DEBUG=1 and report it"}))
        return 0
    for warning in warnings:
        sys.stderr.write(f"warning: {plain(warning)}\n")
    if hook:
        from vmem.ops.harvest import waiting_notice

        answer: dict = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": result.context}}
        waiting = waiting_notice(project)  # what your last sessions taught, waiting for your accept
        if warnings or waiting:  # e.g. offline: the user sees that the rules are the last good state
            answer["systemMessage"] = "vmem: " + "; ".join([plain(w) for w in warnings] + ([waiting] if waiting else []))
        print(json.dumps(answer))
    elif as_json:
        from vmem.output import Output

        Output(True).result(result.as_dict())
    else:
        print(plain(result.summary) + f" ({len(result.written)} written, {len(result.unchanged)} unchanged, "
                                      f"{len(result.deleted)} deleted)")
    return 0


def fast_main(argv: list[str], store: str | None = None) -> int | None:
    """The exit code, or None when the typer command should read ARGV (help, or anything the reader derived
    from it is unsure of). STORE: a global --store."""
    import os

    from vmem.cli.fast import read, spec_of

    args = read(argv, spec_of("sync", "sync"), store)
    if args is None or any(t not in TARGETS for t in args["target"] or []):
        return None
    return run(store=args["store"] or os.environ.get("VMEM_STORE"), directory=args["directory"],
               targets=args["target"], scope=args["scope"], audience=args["audience"], budget=args["budget"],
               do_pull=args["do_pull"], hook=args["hook"], as_json=args["json_"])


def make_command():
    """The typer face of sync (help, completions, `vmem --json sync`); the console entry point normally takes
    fast_main, which skips typer."""
    from typing import Annotated, Optional

    import typer

    from vmem.cli.common import JsonOpt, StoreOpt

    def sync(
        ctx: typer.Context,
        store: StoreOpt = None,
        target: Annotated[Optional[list[str]], typer.Option("--target", metavar="T", help=f"{listed(default=True)}; "
                                                             "repeatable.")] = None,
        directory: Annotated[Optional[str], typer.Option("--dir", metavar="D", help="The claude target's "
                                                                                    "directory.")] = None,
        scope: Annotated[Optional[str], typer.Option("--scope", metavar="entity:E", help="Entity scope.")] = None,
        audience: Annotated[Optional[str], typer.Option("--audience", help="all or group:NAME.")] = None,
        budget: Annotated[Optional[int], typer.Option("--budget", metavar="N", help="Token budget.")] = None,
        do_pull: Annotated[bool, typer.Option("--pull/--no-pull", help="Fast-forward the store first.")] = False,
        hook: Annotated[bool, typer.Option("--hook", help="Claude Code SessionStart hook mode.")] = False,
        json_: JsonOpt = False,
    ) -> None:
        """Write the trusted, ranked, token-budgeted bundle into the agent's rules directory."""
        root = ctx.find_root().obj
        code = run(store=store or (root.store if root else None), directory=directory, targets=target, scope=scope,
                   audience=audience, budget=budget, do_pull=do_pull, hook=hook,
                   as_json=json_ or bool(root and root.as_json))
        raise typer.Exit(code)

    return sync
