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
        import os

        from vmem.cli.sync import fast_main

        try:
            code = fast_main(args[1:] + store)
            sys.stdout.flush()
        except BrokenPipeError:
            # `vmem sync --json | head`: the reader left; the bundle is written, so end quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            code = 0
        try:
            sys.stderr.flush()
        except BrokenPipeError:
            pass
        os._exit(code)
    from vmem.cli.app import main as full

    full()
