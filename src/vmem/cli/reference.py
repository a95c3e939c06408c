"""The CLI reference page (docs/cli.md), generated from the app itself: every command, every option.

    python -m vmem.cli.reference > docs/cli.md

tests/test_newcomer.py fails when the committed page and the app drift apart.
"""

from __future__ import annotations

import inspect


def _walk(command, path: list[str]):
    yield path, command
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        if not getattr(sub, "hidden", False):
            yield from _walk(sub, [*path, name])


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render() -> str:
    import typer.main

    from vmem.cli.app import app

    root = typer.main.get_command(app)
    root_ctx = root.make_context("vmem", [], resilient_parsing=True)
    lines = ["# vmem command reference", "",
             "Generated from the app by `python -m vmem.cli.reference` (a test fails when it drifts). "
             "Every command also answers `-h`/`--help`.", ""]
    for path, command in _walk(root, ["vmem"]):
        name = " ".join(path)
        ctx = command.make_context(name, [], parent=root_ctx if len(path) > 1 else None, resilient_parsing=True)
        subs = getattr(command, "commands", None)
        if len(path) > 1:
            lines += [f"## `{name}`", ""]
        else:
            lines += ["## Global options", ""]
        doc = inspect.cleandoc(command.help or "")
        if doc and len(path) > 1:
            lines += [doc, ""]
        pieces = " ".join(command.collect_usage_pieces(ctx))
        lines += [f"Usage: `{name} {pieces}`".rstrip("` ") + "`", ""]
        rows = []
        for param in command.get_params(ctx):
            if getattr(param, "hidden", False) or param.name == "help":
                continue
            if param.param_type_name == "argument":
                metavar = param.make_metavar(ctx) if "ctx" in inspect.signature(param.make_metavar).parameters \
                    else param.make_metavar()
                rows.append((f"`{metavar}`", _cell(getattr(param, "help", None) or "")))
                continue
            record = param.get_help_record(ctx)
            if record:
                rows.append((f"`{_cell(record[0])}`", _cell(record[1])))
        if rows:
            lines += ["| argument or option | meaning |", "| --- | --- |"]
            lines += [f"| {left} | {right} |" for left, right in rows]
            lines.append("")
        if subs and len(path) > 1:
            lines += ["Commands: " + ", ".join(f"`{name} {sub}`" for sub in sorted(subs)), ""]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(render(), end="")
