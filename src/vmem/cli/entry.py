"""The console entry point: `vmem sync` (run in every session hook) takes a path that never imports typer."""

from __future__ import annotations

import sys


def _global_store(args: list[str]) -> tuple[list[str], list[str]]:
    """Split a leading global `--store PATH` / `--store=PATH` from the command line."""
    if args[:1] == ["--store"] and len(args) >= 2:
        return ["--store", args[1]], args[2:]
    if args[:1] and args[0].startswith("--store="):
        return ["--store", args[0].split("=", 1)[1]], args[1:]
    return [], args


def main() -> None:
    store, args = _global_store(sys.argv[1:])
    if args[:1] == ["sync"] and not {"-h", "--help"} & set(args):
        from vmem.cli.sync import fast_main

        code = fast_main(args[1:] + store)
        sys.stdout.flush()
        sys.stderr.flush()
        import os

        os._exit(code)
    from vmem.cli.app import main as full

    full()
