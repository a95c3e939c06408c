"""Shell completion of values: statuses, kinds, classes, targets, and ids, customers, episodes, categories and
scopes from the store (complete_values.py says what each parameter completes to, and how it is read).

Wired only when the shell asks (`_VMEM_COMPLETE` is set), so no command module carries completion code and normal
runs pay nothing. complete_fast.py answers bash's commonest questions without typer; everything else comes here:
the click command tree, each parameter in complete_values.VALUES given its completer, and click answers.
"""

from __future__ import annotations

import os

from vmem.cli import complete_values as values


def _completer(value: tuple[str, str]):
    def complete(ctx, param, incomplete: str) -> list:
        root = values.store_root(ctx.params.get("store") or ctx.find_root().params.get("store"))
        found = values.candidates(value, incomplete, root, ctx.params)
        if value[0] != "ids" or len(found) > values.MAX_DESCRIBED or root is None:
            return found
        from click.shell_completion import CompletionItem

        return [CompletionItem(item_id, help=values.statement(root, item_id)) for item_id in found]
    return complete


def install(command, path: str = "") -> None:
    """Give every parameter that complete_values names its completer, through the whole command tree."""
    for sub_name, sub in (getattr(command, "commands", None) or {}).items():
        install(sub, f"{path} {sub_name}".strip())
    for param in command.params:
        value = values.lookup(path, param.name)
        if value is not None:
            param._custom_shell_complete = _completer(value)  # click's hook for shell_complete=, set after the fact


def run() -> None:
    """Answer the shell, then exit."""
    import sys

    from vmem.cli.complete_fast import answer

    fast = answer(os.environ)
    if fast is not None:
        sys.stdout.write("".join(f"{v}\n" for v in fast))
        sys.stdout.flush()
        os._exit(0)
    import typer.main

    from vmem.cli.app import app

    command = typer.main.get_command(app)
    install(command)
    try:
        command.main(prog_name="vmem")
    except SystemExit:
        pass
    finally:
        sys.stdout.flush()
        os._exit(0)
