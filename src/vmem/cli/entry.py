"""The console entry point: `vmem sync` (run in every session hook) takes a path that never imports typer."""

from __future__ import annotations

import sys


def end(code: int) -> None:
    """End the process now, skipping interpreter teardown (all output is flushed and every write committed by
    then)."""
    import os

    os._exit(code)


def _global_store(args: list[str]) -> tuple[list[str], list[str]]:
    """Split a leading global `--store PATH` / `--store=PATH` from the command line."""
    if args[:1] == ["--store"] and len(args) >= 2:
        return ["--store", args[1]], args[2:]
    if args[:1] and args[0].startswith("--store="):
        return ["--store", args[0].split("=", 1)[1]], args[1:]
    return [], args


def _fast(args: list[str], store: list[str]) -> None:
    """`vmem recall` / `vmem index` on an up-to-date index: answer and exit (skipping interpreter teardown), or
    return and let the full command run."""
    import os

    from vmem.cli.recall_fast import fast_main

    try:
        code = fast_main(args, store[1] if store else None)
        if code is None:
            return
        sys.stdout.flush()
    except BrokenPipeError:  # `vmem recall --json Q | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    end(code)


def main() -> None:
    store, args = _global_store(sys.argv[1:])
    if args[:1] == ["sync"] and not {"-h", "--help"} & set(args):
        import gc
        import os

        from vmem.cli.sync import fast_main

        # A one-shot process that ends with os._exit: the cyclic collector would only walk the items a cold sync
        # builds (acyclic; refcounting frees them), ~100 ms at 10k items, and once more if it were turned back on
        gc.disable()
        try:
            code = fast_main(args[1:], store[1] if store else None)
            sys.stdout.flush()
        except BrokenPipeError:
            # `vmem sync --json | head`: the reader left; the bundle is written, so end quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            code = 0
        if code is not None:
            try:
                sys.stderr.flush()
            except BrokenPipeError:
                pass
            end(code)
        gc.enable()  # the typer command reads ARGV
    import os

    if args == ["harvest", "--hook"]:  # Claude Code's SessionEnd: bounded, never fails, no typer (~0.15 s less)
        from vmem.ops.harvest import session_end

        notice = session_end(sys.stdin.buffer.read())
        if notice:
            sys.stderr.write(notice + "\n")
        sys.stderr.flush()
        end(0)
    if args[:1] in (["recall"], ["index"]) and "_VMEM_COMPLETE" not in os.environ:
        _fast(args, store)  # one-shot: an up-to-date index answers without typer, rich or pygit2
    if args[:1] in (["propose"], ["supersede"]) and "_VMEM_COMPLETE" not in os.environ:  # writes, without typer
        if args[0] == "propose":
            from vmem.cli.propose_fast import fast_main
        else:
            from vmem.cli.supersede_fast import fast_main

        code = fast_main(args[1:], store[1] if store else None)
        if code is not None:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except BrokenPipeError:
                pass
            end(code)

    if "_VMEM_COMPLETE" in os.environ:  # the shell asks for candidates: values from the store, then exit
        from vmem.cli.complete import run

        run()
    if "--json" in args:
        _usage_errors_as_json()
    _full()


def _full() -> None:
    """The typer app, with its ends: an exit skips interpreter teardown (freeing a 100k-entry git index and every
    module: ~100 ms; all output is flushed and every write committed by then), a bug is one line."""
    import os

    from vmem.cli.app import for_argv

    try:
        for_argv(sys.argv[1:])()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if isinstance(done.code, str):
            sys.stderr.write(done.code + "\n")
        sys.stdout.flush()
        sys.stderr.flush()
        end(code)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - a bug, not a user mistake: one line, traceback on request
        if os.environ.get("VMEM_DEBUG"):
            raise
        message = f"internal error: {type(exc).__name__}: {exc}"
        hint = "this is a vmem bug; rerun with VMEM_DEBUG=1 for the traceback and report it"
        if "--json" in sys.argv[1:]:  # still the one error envelope a script parses
            from vmem.output import Output

            Output(True).error(message, hint)
        else:
            sys.stderr.write(f"error: {message}\n  {hint}\n")
        sys.exit(1)


def _usage_errors_as_json() -> None:
    """Under --json, a usage error (a missing argument, an unknown option, a bad value) is one JSON object on
    stdout, {schema_version, error, hint}, exit 2, like every other error (typer prints it through its click's
    UsageError.show, which this replaces for the process)."""

    try:  # typer >= 0.26 carries its own click
        from typer._click import exceptions
    except ImportError:  # pragma: no cover - older typer uses click itself
        from click import exceptions

    from vmem.output import Output

    def show(self, file=None) -> None:
        command = self.ctx.command_path if self.ctx is not None else "vmem"
        Output(True).error(self.format_message(), f"see: {command} --help")

    exceptions.UsageError.show = show
    exceptions.NoArgsIsHelpError.show = show  # `vmem --json GROUP` without its subcommand: a usage error too
