"""The `vmem` command: global options and the command table. Each command lives in its own module."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem import __version__
from vmem.cli import (blame, check, contradictions, demo, diff, entity, eval, govern, harvest, hook, import_rules,
                      init, knowledge, log, mcp, propose, recall, report, review, show, status, supersede, sync, targets,
                      team)
from vmem.cli.common import Globals

app = typer.Typer(
    name="vmem",
    help="Version control for what a team and its AI agents believe.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"vmem {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    ctx: typer.Context,
    store: Annotated[Optional[str], typer.Option("--store", metavar="PATH", envvar="VMEM_STORE",
                                                 help="The store (else the nearest project config .vmem.yaml or store).",
                                                 show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output for every command.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Version control for what a team and its AI agents believe."""
    ctx.obj = Globals(store=store, as_json=as_json)


app.command("init")(init.init)
app.command("propose")(propose.propose)
app.command("import")(import_rules.import_)
app.command("harvest")(harvest.harvest)
app.command("supersede")(supersede.supersede)
app.command("status")(status.status)
app.command("show")(show.show)
app.command("list")(show.list_)
app.command("blame")(blame.blame)
app.command("log")(log.log)
app.command("diff")(diff.diff)
app.command("check")(check.check)
app.command("review")(review.review)
app.command("contradictions")(contradictions.contradictions)
app.command("approve")(govern.approve)
app.command("mandate")(govern.mandate)
app.command("revoke")(govern.revoke)
app.command("verify")(govern.verify)
app.command("expire")(govern.expire)
app.command("consolidate")(knowledge.consolidate)
app.command("publish")(knowledge.publish)
app.command("reject")(knowledge.reject)
app.command("forget")(knowledge.forget)
app.command("merge")(knowledge.merge)
app.command("unmerge")(knowledge.unmerge)
app.command("distinct")(knowledge.distinct)
app.command("sync")(sync.make_command())
app.command("recall")(recall.recall)
app.command("clone")(team.clone)
app.command("setup")(team.setup)
app.command("merge-driver")(team.merge_driver)
app.command("index")(recall.index)
app.add_typer(entity.entity_app, name="entity")
app.add_typer(entity.episode_app, name="episode")
app.add_typer(eval.app, name="eval")
app.add_typer(hook.app, name="hook")
app.add_typer(mcp.app, name="mcp")
app.add_typer(targets.app, name="targets")
app.command("map")(report.map_)
app.command("report")(report.report)
app.command("demo")(demo.demo)


def for_argv(argv: list[str]) -> typer.Typer:
    """The app to run ARGV with: when ARGV names one of its commands or groups, a copy holding that one alone (and
    the global options), else the whole app. Typer builds a click command from every command function's signature
    and type hints each time an app is called (~65 ms for all of vmem's); a process runs one command, so it builds
    one. The whole app stays for everything that lists commands: `vmem`, `vmem --help`, an unknown or misspelt
    command (click's suggestions), shell completion."""
    import copy

    name = _command_named(argv)
    commands = [c for c in app.registered_commands if c.name == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = commands, groups
    return one


_TAKES_VALUE = {"--store"}  # the global options that take a value (as the next word)


def _command_named(argv: list[str]) -> str | None:
    """The first word of ARGV that is not a global option or an option's value: the command's name, if any (none
    after a help option: `vmem -h status` is the whole app's help)."""
    words = iter(argv)
    for word in words:
        if word == "--":
            return next(words, None)
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word
        if word in _TAKES_VALUE:
            next(words, None)
    return None
