"""The console entry point: `vmem sync` (run in every session hook) takes a path that never imports typer."""

from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["sync"] and not {"-h", "--help"} & set(args):
        from vmem.cli.sync import fast_main

        code = fast_main(args[1:])
        sys.stdout.flush()
        sys.stderr.flush()
        import os

        os._exit(code)
    from vmem.cli.app import main as full

    full()
