"""What the typer-free faces of the commonest writes share (vmem propose, vmem supersede): a reader of the command
line that never guesses, and errors printed as the typer commands print them.

The console entry point tries these first: typer and its command table cost ~60 ms before anything happens.
Anything a parser does not read with certainty (help, an unknown option, a missing value, a positional that
starts with '-', `--opt=value`, `--`) returns None and the typer command runs instead, with its own messages.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


class _Unsure(Exception):
    pass


class Parser:
    """Options and positionals as argparse would read them, for the shapes everyone types; anything else is
    _Unsure (the typer command then reads it). Not argparse itself: its import, with gettext and locale, costs
    ~3 ms of every proposal, and the reading needed here is small. A test holds it to argparse's reading."""

    def __init__(self, prog: str) -> None:
        self.prog = prog
        self.options: dict[str, tuple[str, str]] = {}  # option string -> (dest, "store" | "append" | "store_true")
        self.positionals: list[str] = []
        self.defaults: dict[str, object] = {}

    def add_argument(self, *names: str, dest: str | None = None, action: str = "store", default=None) -> None:
        if not names[0].startswith("-"):
            self.positionals.append(names[0])
            return
        dest = dest or names[0].lstrip("-").replace("-", "_")
        for name in names:
            self.options[name] = (dest, action)
        self.defaults[dest] = False if action == "store_true" else default

    def parse_args(self, argv: list[str]) -> dict:
        args = dict(self.defaults)
        given: list[str] = []
        words = iter(argv)
        for word in words:
            if not word.startswith("-") or word == "-":
                given.append(word)
                continue
            if word not in self.options:  # "--", an unknown option, -cVALUE, an abbreviation
                raise _Unsure(f"{self.prog}: not read here: {word}")
            dest, action = self.options[word]
            if action == "store_true":
                args[dest] = True
                continue
            value = next(words, None)
            if value is None or value.startswith("-"):
                raise _Unsure(f"{self.prog}: {word} needs a value")
            args[dest] = (args[dest] or []) + [value] if action == "append" else value
        if len(given) != len(self.positionals):
            raise _Unsure(f"{self.prog}: expected {len(self.positionals)} arguments")
        args.update(zip(self.positionals, given))
        return args


def parser_for(command: str) -> Parser:
    """A reader for `vmem COMMAND` with the options every write takes (--as, --json, --store)."""
    p = Parser(prog=f"vmem {command}")
    p.add_argument("--as", dest="as_")
    p.add_argument("--json", dest="as_json", action="store_true")
    p.add_argument("--store")
    return p


def refuse_as(value: str | None, command: str) -> None:
    if value is not None:
        from vmem.errors import UsageError

        raise UsageError(f"{command} does not take --as: the reviewer is whoever makes the commit (git's committer)",
                         "run it as yourself (git config user.email, or GIT_COMMITTER_NAME/GIT_COMMITTER_EMAIL)")


def run_fast(argv: list[str], reader: Parser, body: Callable) -> int | None:
    """Read ARGV with READER (None when unsure) and run BODY(out, store, **args), errors printed as typer would."""
    if {"-h", "--help"} & set(argv) or any(a.startswith("--") and "=" in a for a in argv):
        return None
    try:
        args = reader.parse_args(argv)
    except _Unsure:
        return None
    if any(isinstance(value, str) and value.startswith("-") for value in args.values()):
        return None  # a positional that looks like an option: typer decides what it means
    from vmem.errors import VmemError
    from vmem.output import Output

    as_json, store_path = args.pop("as_json"), args.pop("store") or os.environ.get("VMEM_STORE")
    out = Output(as_json)

    try:
        return lite_first(body, out, store_path, **args)
    except VmemError as exc:
        if os.environ.get("VMEM_DEBUG"):
            raise
        out.error(exc.message, exc.hint)
        return exc.exit_code
    finally:
        sys.stdout.flush()


def lite_first(body: Callable, out, store_path: str | None, *args, **kwargs) -> int:
    """BODY(out, store, *args, **kwargs) on a store opened through vmem.store.lite (no pygit2 import); when that meets
    something only pygit2 does (vmem.store.lite.Unsupported, raised before any commit), the same BODY again on
    pygit2. VMEM_NO_LITE=1 skips the first try."""
    from vmem.errors import VmemError
    from vmem.store.discover import find_store_root, open_store
    from vmem.store.lite import Unsupported, discard_early, start_early

    try:  # found once: for the early start and for opening
        where = find_store_root(store_path)
    except VmemError:
        where = store_path  # a missing store is reported when the command opens it
    if where is not None and not os.environ.get("VMEM_NO_LITE"):
        try:  # git's configuration and object reader start on the other core while the command's modules load
            start_early(where)
        except Exception:  # noqa: BLE001 - only a head start: Repository starts them itself otherwise
            pass
    opened: list = []

    def store(lite: bool = True):
        opened.append(open_store(where, lite=lite and not os.environ.get("VMEM_NO_LITE")))
        return opened[-1]

    try:
        return body(out, store, *args, **kwargs)
    except Unsupported:
        if any(getattr(s.repo, "moved", False) for s in opened):
            raise  # a commit was made: running again would make it twice (never expected; a bug if seen)
        return body(out, lambda: store(lite=False), *args, **kwargs)
    finally:
        if where is not None:
            discard_early(where)
