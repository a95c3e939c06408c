"""The typer-free face of the commands a session or a script waits for (vmem propose, supersede, recall, index,
sync): a command-line reader derived from the typer command itself, and errors printed as the typer commands
print them.

typer and its command table cost ~60 ms before anything happens, so the console entry point tries these first.
The reader is not a second declaration of the options: it reads the typer command's own signature (the
`typer.Option(...)`/`typer.Argument(...)` declarations in its source, and the shared ones in cli/common.py), so an
option is added in one place. The table is derived once per source file version and kept in the user cache.
Anything it does not read with certainty (help, an unknown option, a missing or dash-led value, a short option
glued to its value, a value typer would convert and this reader cannot) returns None and the typer command runs
instead, with its own messages. A property test holds this reader to click's own reading of the same command.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

_FORMAT = 1  # of the cached tables


class _Unsure(Exception):
    pass


class Spec:
    """A command's options as typer declares them: flag -> (dest, kind), positionals in order, defaults.
    kind: "str" | "int" | "list" | True | False (a flag and the value it sets)."""

    __slots__ = ("options", "positionals", "defaults")

    def __init__(self, options: dict[str, tuple[str, object]], positionals: list[str], defaults: dict) -> None:
        self.options, self.positionals, self.defaults = options, positionals, defaults

    def parse(self, argv: list[str], store: str | None = None) -> dict:
        """ARGV read as click reads it, or _Unsure. STORE: a global `vmem --store PATH` given before the command
        (the command's own --store wins over it, as in typer)."""
        args = dict(self.defaults)
        given: list[str] = []
        words = iter(argv)
        for word in words:
            if word == "--":  # the rest is positionals, whatever they look like
                given.extend(words)
                break
            if word == "-":
                raise _Unsure(word)  # stdin for some tools, a value for others: typer decides
            if not word.startswith("-"):
                given.append(word)
                continue
            name, equals, value = word.partition("=")
            if name not in self.options or (equals and not name.startswith("--")):
                raise _Unsure(word)  # "--", an unknown option, -cVALUE, an abbreviation
            dest, kind = self.options[name]
            if kind is True or kind is False:
                if equals:
                    raise _Unsure(word)
                args[dest] = kind
                continue
            if not equals:
                value = next(words, None)
                if value is None or value.startswith("-"):
                    raise _Unsure(f"{word} needs a value")
            if kind == "int":
                if not value.isdigit():
                    raise _Unsure(f"{word} {value}")
                value = int(value)
            args[dest] = [*(args[dest] or []), value] if kind == "list" else value
        if len(given) != len(self.positionals):
            raise _Unsure(f"expected {len(self.positionals)} arguments")
        args.update(zip(self.positionals, given))
        if "store" in args and args["store"] is None:
            args["store"] = store
        return args


def spec_of(module: str, function: str) -> Spec:
    """The reader for the typer command FUNCTION in vmem.cli.MODULE, derived from its source (cached per version
    of the two source files it reads)."""
    here = os.path.dirname(__file__)
    sources = [os.path.join(here, f"{module}.py"), os.path.join(here, "common.py")]
    stamp = [_FORMAT, function, *[(s.st_mtime_ns, s.st_size) for s in map(os.stat, sources)]]
    cached = _cache_path(module, function)
    import json

    try:
        with open(cached, encoding="utf-8") as handle:
            found = json.load(handle)
        if found["stamp"] == json.loads(json.dumps(stamp)):
            return Spec({k: tuple(v) for k, v in found["options"].items()}, found["positionals"], found["defaults"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    spec = _derive(sources, function)
    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = f"{cached}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump({"stamp": stamp, "options": spec.options, "positionals": spec.positionals,
                       "defaults": spec.defaults}, handle)
        os.replace(tmp, cached)
    except OSError:
        pass  # a read-only cache: derived again next time
    return spec


def _cache_path(module: str, function: str) -> str:
    from vmem.store.cache import cache_home  # the one answer to where vmem's caches live

    return os.path.join(cache_home(), "cli", f"{module}.{function}.json")


def _derive(sources: list[str], function: str) -> Spec:
    """Read FUNCTION's parameters in the first source: `Annotated[TYPE, typer.Option("--x", "-x", ...)]` (or an
    alias such as JsonOpt, defined in a later source), `typer.Argument(...)` for positionals, and the defaults."""
    import ast

    trees = []
    for path in sources:
        with open(path, encoding="utf-8") as handle:
            trees.append(ast.parse(handle.read(), path))
    aliases = {node.targets[0].id: node.value for tree in trees for node in tree.body
               if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}
    found = [node for node in ast.walk(trees[0]) if isinstance(node, ast.FunctionDef) and node.name == function]
    if len(found) != 1:
        raise LookupError(f"no single typer command {function} in {sources[0]}")
    params = found[0].args
    defaults = [None] * (len(params.args) - len(params.defaults)) + list(params.defaults)
    options: dict[str, tuple[str, object]] = {}
    positionals: list[str] = []
    values: dict = {}
    for param, default in zip(params.args, defaults):
        annotation = param.annotation
        if isinstance(annotation, ast.Name) and annotation.id in aliases:
            annotation = aliases[annotation.id]
        if not (isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple)):
            continue  # typer.Context, or nothing typer reads from the command line
        kind_node, declared = annotation.slice.elts[0], annotation.slice.elts[1]
        if not (isinstance(declared, ast.Call) and isinstance(declared.func, ast.Attribute)):
            continue
        kind = ast.unparse(kind_node)
        if declared.func.attr == "Argument":
            positionals.append(param.arg)
            continue
        flags = [a.value for a in declared.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        values[param.arg] = ast.literal_eval(default) if default is not None else None
        for flag in flags:
            if "bool" in kind:
                on, _, off = flag.partition("/")
                options[on] = (param.arg, True)
                if off:
                    options[off] = (param.arg, False)
            else:
                options[flag] = (param.arg, "list" if "list" in kind else "int" if "int" in kind else "str")
    return Spec(options, positionals, values)


def refuse_as(value: str | None, command: str) -> None:
    if value is not None:
        from vmem.errors import UsageError

        raise UsageError(f"{command} does not take --as: the reviewer is whoever makes the commit (git's committer)",
                         "run it as yourself (git config user.email, or GIT_COMMITTER_NAME/GIT_COMMITTER_EMAIL)")


def read(argv: list[str], spec: Spec, store: str | None = None) -> dict | None:
    """ARGV read by SPEC, or None when the typer command should read it (help included)."""
    if {"-h", "--help"} & set(argv):
        return None
    try:
        args = spec.parse(argv, store)
    except _Unsure:
        return None
    if not _utf8(args):  # bytes that are not UTF-8: typer's face says which argument (cli.common.session)
        return None
    return args


def _utf8(args: dict) -> bool:
    """Every str value of ARGS (and of its lists) encodes as UTF-8 (no lone surrogate from argv's
    surrogateescape)."""
    try:
        for value in args.values():
            for text in value if isinstance(value, list) else (value,):
                if isinstance(text, str):
                    text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def run(out, body: Callable[[], int]) -> int:
    """Run a command BODY for a face: its exit code, or a VmemError printed as one message with its hint and its
    exit code (1; 2 for usage). The typer faces (cli/common.session) and the typer-free ones share it."""
    from vmem.errors import VmemError

    try:
        return body()
    except VmemError as exc:
        return out.fail(exc)
    finally:
        sys.stdout.flush()


def run_fast(argv: list[str], spec: Spec, body: Callable, store: str | None = None) -> int | None:
    """Read ARGV (None when unsure: typer reads it) and run BODY(out, store, **args)."""
    args = read(argv, spec, store)
    if args is None:
        return None
    from vmem.output import Output

    as_json, store_path = args.pop("json_"), args.pop("store") or os.environ.get("VMEM_STORE")
    out = Output(as_json)
    return run(out, lambda: run_on_store(body, out, store_path, **args))


def run_on_store(body: Callable, out, store_path: str | None, *args, **kwargs) -> int:
    """BODY(out, store, *args, **kwargs) on the store opened through vmem.store.lite (no pygit2 import; what
    pygit2 alone does, a walk through history, the store asks it for), then what the command committed delivered
    to the team's remote (SPEC 15). STORE is called to open the store, so a missing one is reported like any
    other error."""
    from vmem.errors import VmemError
    from vmem.ops.session import resolve
    from vmem.store.discover import open_store
    from vmem.store.lite import discard_early, start_early

    try:  # found once: for the early start and for opening
        found = resolve(store_path)
        where = found.root
        if found.aside() and not out.as_json:
            sys.stderr.write(found.aside() + "\n")
    except VmemError:
        where = store_path  # a missing store is reported when the command opens it
    if where is not None:
        try:  # git's configuration and object reader start on the other core while the command's modules load
            start_early(where)
        except Exception:  # noqa: BLE001 - only a head start: Repository starts them itself otherwise
            pass
    opened: list = []

    def store():
        opened.append(open_store(where, lite=True))
        return opened[-1]

    try:
        code = body(out, store, *args, **kwargs)
    finally:
        if where is not None:
            discard_early(where)
    from vmem.ops.session import deliver

    for written in opened:  # what the command committed goes to the team's remote (SPEC 15)
        note = deliver(written)
        if note:
            out.note(note)
    return code
