"""The typer-free command-line reader of `vmem propose` and `vmem supersede` (vmem.cli.fast.Parser) never reads a
command line otherwise than argparse would: it reads the same values, or declines (then typer reads it)."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.cli.fast import Parser, _Unsure

WORDS = ["Refunds settle in 3 days.", "other words", "x", "-", "--", "-5", "-x", "--fro", "--json=1", "-cindustry:x",
         "--json", "--store", "/tmp/s", "--as", "Bob <bob@example.com>", "--from", "tidewell", "-c", "--category",
         "industry:x", "--episode", "ep-1", "--personal", "--audience", "group:x", "--paths", "src/*.py", "--title",
         "--class", "factual", "--supersedes", "c-0123456789ab", "--reason", "-r", "--about", "--domain"]


def _argparse_twin(ours: Parser) -> argparse.ArgumentParser:
    twin = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    by_dest: dict[str, list[str]] = {}
    for name, (dest, _) in ours.options.items():
        by_dest.setdefault(dest, []).append(name)
    for dest, names in by_dest.items():
        action = ours.options[names[0]][1]
        if action == "store_true":
            twin.add_argument(*names, dest=dest, action="store_true")
        else:
            twin.add_argument(*names, dest=dest, action=action, default=ours.defaults[dest])
    for name in ours.positionals:
        twin.add_argument(name)
    return twin


def _read(parser, argv):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            found = parser.parse_args(argv)
    except (_Unsure, argparse.ArgumentError, SystemExit):
        return None
    return found if isinstance(found, dict) else vars(found)


@pytest.mark.parametrize("command", ["propose", "supersede"])
@settings(max_examples=400, deadline=None)
@given(argv=st.lists(st.sampled_from(WORDS), max_size=8))
def test_the_fast_reader_reads_what_argparse_reads_or_declines(command, argv):
    import importlib

    ours = importlib.import_module(f"vmem.cli.{command}_fast").parser()
    mine = _read(ours, argv)
    if mine is not None:
        assert mine == _read(_argparse_twin(ours), argv)


def test_the_everyday_lines_are_read_not_declined():
    from vmem.cli.propose_fast import parser

    read = parser().parse_args(["Buyers ask early.", "--from", "tidewell", "-c", "industry:x", "-c", "size:smb",
                                "--json", "--store", "/tmp/s"])
    assert read["text"] == "Buyers ask early." and read["from_"] == "tidewell" and read["as_json"] is True
    assert read["category"] == ["industry:x", "size:smb"] and read["store"] == "/tmp/s" and read["audience"] == "all"
    for unsure in (["x", "--"], ["--from"], ["x", "--from", "-c"], ["x", "y"], [], ["x", "--fro", "t"]):
        with pytest.raises(_Unsure):
            parser().parse_args(unsure)
