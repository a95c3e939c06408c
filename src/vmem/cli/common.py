"""What every command shares: global options, opening the store, turning VmemError into output and exit codes."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Iterator, Optional

import typer

from vmem.errors import VmemError
from vmem.output import Output

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object {schema_version, data}.")]
StoreOpt = Annotated[Optional[str], typer.Option("--store", metavar="PATH", help="The store (else $VMEM_STORE, "
                                                 "else the nearest project config .vmem.yaml or store).",
                                                 show_default=False)]
AsOpt = Annotated[Optional[str], typer.Option("--as", metavar="'NAME <EMAIL>'",
                                              help="Scripted imports: record this analyst as the commit's author "
                                                   "(and a Vmem-On-Behalf-Of trailer); the writer is still you.")]
# Governance and other writes take no --as: the reviewer is whoever makes the commit. The option stays, hidden,
# so that passing it is refused with an explanation instead of typer's bare "no such option".
NoAsOpt = Annotated[Optional[str], typer.Option("--as", hidden=True, show_default=False)]


@dataclass
class Globals:
    store: str | None = None
    as_json: bool = False


@dataclass
class Session:
    out: Output
    store_path: str | None

    _store = None

    @property
    def store(self):
        if self._store is None:
            from vmem.ops.session import resolve
            from vmem.store.repo import Store

            found = resolve(self.store_path)
            if found.aside():
                self.out.info(found.aside())
            for warning in found.warnings:
                self.out.warn(warning)
            self._store = Store.open(found.root, lite=True)  # the one reader every face uses
        return self._store


@contextmanager
def session(ctx: typer.Context, as_json: bool = False, store: str | None = None) -> Iterator[Session]:
    """Run one command body: VmemError -> one message with a hint, exit 1 (2 for usage); never a traceback."""
    root = ctx.find_root().obj if ctx.find_root().obj is not None else Globals()
    out = Output(as_json or root.as_json)
    try:
        check_text_arguments(ctx)
        current = Session(out, store or root.store)
        yield current
        if current._store is not None:
            from vmem.ops.session import deliver

            note = deliver(current._store)
            if note:
                out.note(note)
    except VmemError as exc:
        raise typer.Exit(out.fail(exc)) from None


# Arguments that name a place on this machine, not text: Linux allows any bytes in a file name, and such a name
# reaches vmem as surrogate-escaped text that the file system takes back as it was. Everything else is text.
PATH_ARGUMENTS = frozenset({"store", "directory", "files"})


def check_text_arguments(ctx: typer.Context) -> None:
    """Every text argument of the command and its groups (not a path: PATH_ARGUMENTS, typer.Path values) is valid
    UTF-8, or a usage error naming it (vmem.model.check_text), before anything is opened or committed. The one
    place the command line's text is judged; the typer-free faces hand such a command line to typer
    (vmem.cli.fast.read)."""
    from vmem.model import check_text

    while ctx is not None:
        for param in ctx.command.params:
            value = ctx.params.get(param.name)
            if param.name in PATH_ARGUMENTS or value is None:
                continue
            for text in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(text, str):
                    check_text(text, param.opts[0] if param.param_type_name == "option" else
                               param.human_readable_name)
        ctx = ctx.parent
