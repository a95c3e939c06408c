"""`vmem sync`: write the bundle into each target's rules files. Runs in hooks, so it has a fast path that
skips typer (argparse, no rich): an unchanged store is synced without importing pygit2 either."""

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
        from vmem.ops.session import locate, project_dir
        from vmem.ops.sync import sync

        project = project_dir() if hook else Path(".").absolute()
        root, config, found = locate(store, project)
        warnings += found
        if config:
            targets = targets or config["targets"]
            budget = config["budget"] if budget is None else budget
            scope, audience = scope or config["scope"], audience or config["audience"]
        result, more = sync(root, target=Path(directory) if directory else None, targets=targets, scope=scope,
                            audience=audience, budget=budget, do_pull=do_pull, project=project)
        warnings += more
    except VmemError as exc:
        if hook:  # a hook never fails the session: one line, exit 0
            print(json.dumps({"systemMessage": f"vmem sync skipped: {exc.message}"}))
            return 0
        if as_json:
            print(json.dumps({"schema_version": 1, "error": exc.message, "hint": exc.hint}))
        else:
            sys.stderr.write(f"error: {plain(exc.message)}\n" + (f"  {plain(exc.hint)}\n" if exc.hint else ""))
        return exc.exit_code
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
        answer: dict = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": result.context}}
        if warnings:  # e.g. offline: the user sees that the rules are the last good state
            answer["systemMessage"] = "vmem: " + "; ".join(plain(w) for w in warnings)
        print(json.dumps(answer))
    elif as_json:
        print(json.dumps({"schema_version": 1, "data": result.as_dict()}, indent=2))
    else:
        print(plain(result.summary) + f" ({len(result.written)} written, {len(result.unchanged)} unchanged, "
                                      f"{len(result.deleted)} deleted)")
    return 0


def parser():
    import argparse

    p = argparse.ArgumentParser(prog="vmem sync", description="Write the trusted, ranked, token-budgeted bundle "
                                "into the agent's rules directory (default .claude/rules/vmem/).")
    p.add_argument("--store", metavar="PATH", help="the store (else $VMEM_STORE, else the nearest parent)")
    p.add_argument("--target", dest="targets", action="append", metavar="T", choices=TARGETS,
                   help=f"{listed(default=True)}; repeatable (default: .vmem.yaml's)")
    p.add_argument("--dir", dest="directory", metavar="D", help="the claude target's directory "
                   "(default: sync.dir in vmem.yaml)")
    p.add_argument("--scope", metavar="entity:E", help="also serve claims scoped to this entity")
    p.add_argument("--audience", metavar="A", help="all or group:NAME")
    p.add_argument("--budget", type=int, metavar="N", help="tokens for the approved bundle (default 6000)")
    p.add_argument("--pull", dest="do_pull", action="store_true", help="fast-forward the store first (5 s timeout)")
    p.add_argument("--no-pull", dest="do_pull", action="store_false", help="do not pull (default)")
    p.add_argument("--hook", action="store_true", help="Claude Code SessionStart hook mode: JSON out, never fails")
    p.add_argument("--json", dest="as_json", action="store_true", help="print {schema_version, data}")
    return p


_VALUED = {"--target": "targets", "--store": "store", "--dir": "directory", "--scope": "scope",
           "--audience": "audience",
           "--budget": "budget"}
_FLAGS = {"--pull": ("do_pull", True), "--no-pull": ("do_pull", False), "--hook": ("hook", True),
          "--json": ("as_json", True)}


def _parse_simple(argv: list[str]) -> dict | None:
    """The everyday command lines, without importing argparse (~10 ms of a hook's start-up); None for
    anything else, which argparse then parses (and explains, if it is wrong)."""
    args: dict = {"store": None, "directory": None, "targets": None, "scope": None, "audience": None, "budget": None,
                  "do_pull": False, "hook": False, "as_json": False}
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if name in _VALUED:
            if not equals:
                if not rest or rest[0].startswith("-"):
                    return None
                value = rest.pop(0)
            if name == "--target":
                if value not in TARGETS:
                    return None
                args["targets"] = (args["targets"] or []) + [value]
                continue
            if name == "--budget":
                if not value.isdigit():
                    return None
                value = int(value)
            args[_VALUED[name]] = value
        elif word in _FLAGS:
            key, flag = _FLAGS[word]
            args[key] = flag
        else:
            return None
    return args


def fast_main(argv: list[str]) -> int:
    import os

    args = _parse_simple(argv)
    if args is None:
        args = vars(parser().parse_args(argv))
    return run(**{**args, "store": args["store"] or os.environ.get("VMEM_STORE")})


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
