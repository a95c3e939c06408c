"""Issue 31: every positional argument of every command says what it takes (`vmem show --help` listed `ID` with
no text)."""

from __future__ import annotations

import pytest
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


@pytest.mark.slow
def test_the_one_command_a_process_builds_is_the_command_the_whole_app_has():
    """A process builds only the command its words name (cli.app.for_argv: building all of them cost every typer
    command ~40-120 ms); that command's help, options and usage are the whole app's, whatever global options come
    first, and words that name no command get the whole app (its list, click's suggestions)."""
    from typer.testing import CliRunner

    from vmem.cli.app import for_argv

    runner = CliRunner()
    paths = [path.split()[1:] for path, _ in _commands(typer.main.get_command(app)) if path != "vmem"]
    assert len(paths) > 40
    for i, words in enumerate(paths):
        for argv in (words, ["--store", "x", *words], ["--store=x", "--json", *words]):
            one = for_argv([*argv, "--help"])
            assert one is not app and len(one.registered_commands) + len(one.registered_groups) == 1, argv
            assert [c.name for c in one.registered_commands] + [g.name for g in one.registered_groups] == words[:1]
        argv = (words, ["--store", "x", *words], ["--store=x", "--json", *words])[i % 3]
        alone = runner.invoke(for_argv(argv), [*argv, "--help"])
        whole = runner.invoke(app, [*argv, "--help"])
        assert (alone.exit_code, alone.stdout) == (whole.exit_code, whole.stdout) and alone.exit_code == 0, argv
    for argv in ([], ["--help"], ["stauts"], ["--store", "status"], ["--json"], ["-h", "status"]):
        assert for_argv(argv) is app, argv
    typo = runner.invoke(for_argv(["stauts"]), ["stauts"])
    assert typo.exit_code == 2 and "Did you mean 'status'" in typo.stderr
