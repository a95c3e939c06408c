"""Issue 31: every positional argument of every command says what it takes (`vmem show --help` listed `ID` with
no text)."""

from __future__ import annotations

import typer

from vmem.cli.app import app


def _commands(group, prefix: str = "vmem"):
    yield prefix, group
    for name, sub in getattr(group, "commands", {}).items():
        yield from _commands(sub, f"{prefix} {name}")


def test_every_argument_has_help():
    root = typer.main.get_command(app)
    missing = [f"{path} {param.human_readable_name}" for path, command in _commands(root)
               for param in command.params if param.param_type_name == "argument"
               and not (getattr(param, "help", None) or "").strip()]
    assert len(list(_commands(root))) > 40  # the walk reaches every subcommand
    assert not missing, missing
