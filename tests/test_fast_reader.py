"""The typer-free reader of the commands a session or a script waits for (vmem.cli.fast) is derived from the
typer commands themselves and never reads a command line otherwise than click does: it reads the same values, or
declines (then typer reads it)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.cli.fast import read, spec_of

WORDS = ["Refunds settle in 3 days.", "other words", "x", "-", "--", "-5", "-x", "--fro", "--json=1", "-cindustry:x",
         "--json", "--store", "/tmp/s", "--store=/tmp/t", "--as", "Bob <bob@example.com>", "--from", "tidewell", "-c",
         "--category", "industry:x", "--episode", "ep-1", "--personal", "--audience", "group:x", "--paths",
         "src/*.py", "--title", "--class", "factual", "--supersedes", "c-0123456789ab", "--reason", "-r", "--about",
         "--domain", "--scope", "entity:acme", "-k", "3", "-k=3", "--as-of", "2026-01-01", "--include-superseded",
         "--rebuild", "--target", "claude", "--dir", "d", "--budget", "100", "--pull", "--no-pull", "--hook"]
COMMANDS = [("propose", "propose", "propose"), ("supersede", "supersede", "supersede"), ("recall", "recall", "recall"),
            ("recall", "index", "index"), ("sync", "sync", "sync")]


def _click(name: str):
    import typer.main

    from vmem.cli.app import app

    return typer.main.get_command(app).commands[name]


def _clicks_reading(command, argv):
    try:
        ctx = command.make_context(command.name, list(argv), resilient_parsing=False)
    except Exception:  # noqa: BLE001 - click refuses it (usage error, or --help's exit)
        return None
    params = dict(ctx.params)
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()}


@pytest.mark.parametrize("module,function,name", COMMANDS)
@settings(max_examples=300, deadline=None)
@given(argv=st.lists(st.sampled_from(WORDS), max_size=8))
def test_the_fast_reader_reads_what_click_reads_or_declines(module, function, name, argv):
    ours = read(argv, spec_of(module, function))
    if ours is not None:
        theirs = _clicks_reading(_click(name), argv)
        assert theirs is not None, argv
        assert {k: (v or None) if isinstance(v, list) else v for k, v in ours.items()} == \
            {k: (v or None) if isinstance(v, list) else v for k, v in theirs.items()}, argv


@pytest.mark.parametrize("module,function,name", COMMANDS)
def test_every_option_of_the_typer_command_is_known_to_the_fast_reader(module, function, name):
    spec = spec_of(module, function)
    flags = {opt for p in _click(name).params for opt in (*p.opts, *p.secondary_opts) if opt.startswith("-")}
    assert set(spec.options) == flags
    assert spec.positionals == [p.name for p in _click(name).params if p.param_type_name == "argument"]


def test_the_everyday_lines_are_read_not_declined():
    spec = spec_of("propose", "propose")
    got = read(["Buyers ask early.", "--from", "tidewell", "-c", "industry:x", "-c", "size:smb", "--json",
                "--store", "/tmp/s"], spec)
    assert got["text"] == "Buyers ask early." and got["from_"] == "tidewell" and got["json_"] is True
    assert got["category"] == ["industry:x", "size:smb"] and got["store"] == "/tmp/s" and got["audience"] == "all"
    assert read(["q", "--scope=entity:acme", "-k", "3", "--json"], spec_of("recall", "recall"))["k"] == 3
    assert read(["--", "-starts with a dash"], spec_of("recall", "recall"))["query"] == "-starts with a dash"
    for unsure in (["x", "--from"], ["x", "--from", "-c"], ["x", "y"], [], ["x", "--fro", "t"], ["x", "-cX"]):
        assert read(unsure, spec) is None, unsure


def test_a_global_store_yields_to_the_commands_own():
    """`vmem --store A propose X --store B` writes to B, as typer reads it; `vmem --store A propose X` to A."""
    spec = spec_of("propose", "propose")
    assert read(["x", "--store", "B"], spec, store="A")["store"] == "B"
    assert read(["x", "--store=B"], spec, store="A")["store"] == "B"
    assert read(["x"], spec, store="A")["store"] == "A"


def test_a_new_option_needs_one_edit(tmp_path, monkeypatch):
    """The table is derived from the source: a changed command file is read again (the cache is per version)."""
    import os

    from vmem.cli import fast

    here = os.path.dirname(fast.__file__)
    source = open(os.path.join(here, "supersede.py"), encoding="utf-8").read()
    fresh = tmp_path / "cli"
    fresh.mkdir()
    (fresh / "common.py").write_text(open(os.path.join(here, "common.py"), encoding="utf-8").read())
    (fresh / "supersede.py").write_text(source.replace('    title: Annotated[Optional[str], typer.Option("--title"',
                                                       '    note: Annotated[Optional[str], typer.Option("--note")] '
                                                       '= None,\n    title: Annotated[Optional[str], '
                                                       'typer.Option("--title"'))
    monkeypatch.setattr(fast, "__file__", str(fresh / "fast.py"))
    assert "--note" in fast.spec_of("supersede", "supersede").options
