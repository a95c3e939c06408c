"""bash's commonest completion questions answered without typer or click: an option's value (`--status <TAB>`,
`--scope <TAB>`, `--from <TAB>`) and a command's ID argument (`vmem show c-ab<TAB>`). Anything else, or anything
this cannot read with certainty, is None and the full click path answers (complete.py). A test checks that both
paths agree on every parameter complete_values names."""

from __future__ import annotations

import shlex
from typing import Mapping

from vmem.cli import complete_values as values

# Commands whose first positional argument is a parameter complete_values names, and that parameter.
POSITIONAL = {
    "show": "item_id", "blame": "item_id", "approve": "item_id", "mandate": "item_id", "revoke": "item_id",
    "verify": "item_id", "publish": "item_id", "reject": "item_id", "supersede": "item_id",
    "entity show": "entity_id", "episode add": "entity_id",
    "merge": "item_id", "unmerge": "item_id", "distinct": "item_id",
}
# Option strings that take the value of a parameter complete_values names, per command ("*": any command).
OPTIONS = {
    "--status": "status", "--kind": "kind", "--class": "klass", "--scope": "scope", "--about": "about",
    "--from": "from_", "--episode": "episode", "--category": "category", "-c": "category", "--target": "target",
    "--audience": "audience", "--supersedes": "supersedes", "--action": "action",
}
GROUPS = ("entity", "episode", "eval", "hook", "mcp")
# Global options before the command: the flag and how many values it takes.
GLOBALS = {"--store": 1, "--json": 0}


def answer(env: Mapping[str, str]) -> list[str] | None:
    if env.get("_VMEM_COMPLETE") != "complete_bash":
        return None
    try:
        words = shlex.split(env.get("COMP_WORDS", ""))
        cword = int(env.get("COMP_CWORD", ""))
    except ValueError:
        return None
    args, incomplete = words[1:cword], (words[cword] if cword < len(words) else "")
    store = None
    while args and args[0] in GLOBALS:
        if GLOBALS[args[0]]:
            if len(args) < 2:
                return None
            store = args[1]
        args = args[1 + GLOBALS[args[0]]:]
    if not args:
        return None
    path = " ".join(args[:2]) if args[0] in GROUPS and len(args) > 1 else args[0]
    rest = args[len(path.split()):]
    params: dict[str, str] = {}
    for flag, value in zip(rest, rest[1:]):
        if flag in OPTIONS:
            params[OPTIONS[flag]] = value
        elif flag == "--store":
            store = value
    if rest and rest[-1] in OPTIONS:
        param = OPTIONS[rest[-1]]
    elif rest and rest[-1].startswith("-"):
        return None  # the value of an option this table does not know, or a flag: let click decide
    elif not rest and not incomplete.startswith("-") and path in POSITIONAL:
        param = POSITIONAL[path]
    else:
        return None
    value = values.lookup(path, param)
    if value is None:
        return None
    return values.candidates(value, incomplete, values.store_root(store), params)
