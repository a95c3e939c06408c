"""Shell completion of values: statuses, kinds, classes, targets, and ids, customers and scopes from the store.

Wired only when the shell asks (`_VMEM_COMPLETE` is set): one table maps each command's parameters to a
completer, so no command module carries completion code and normal runs pay nothing. Store values are read from
the HEAD tree with pygit2 (no model, no index, no YAML for ids); the shard layout keeps a long prefix to one folder.
Every completer fails silent: a shell completion must never print an error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import click

from vmem import model
from vmem.names import CLASSES

Completer = Callable[[click.Context, click.Parameter, str], list]

VERIFY_KINDS = ("confirmation", "correction")
EPISODE_KINDS = ("call", "email", "note", "session")
REVIEW_ACTIONS = ("approve", "mandate", "reject", "publish", "skip")
MAX_DESCRIBED = 40  # up to this many id matches also carry their statement (zsh and fish show it)


def choices(*values: str) -> Completer:
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]
    return complete


def _statuses(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    kind = ctx.params.get("kind")
    values = {"claim": model.CLAIM_STATUSES, "knowledge": model.KNOWLEDGE_STATUSES}.get(
        kind, tuple(dict.fromkeys(model.CLAIM_STATUSES + model.KNOWLEDGE_STATUSES)))
    return [v for v in values if v.startswith(incomplete)]


def _tree(ctx: click.Context):
    """The HEAD tree of the store this command line names (--store, $VMEM_STORE, the nearest parent), or None."""
    import pygit2

    from vmem.store.discover import find_store_root

    explicit = ctx.params.get("store") or ctx.find_root().params.get("store")
    try:
        root = Path(find_store_root(explicit))
        repo = pygit2.Repository(str(root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        return None if repo.head_is_unborn else repo.head.peel(pygit2.Commit).tree
    except Exception:  # noqa: BLE001 - no store, no completions
        return None


def _folder(tree, path: str):
    try:
        entry = tree[path]
    except KeyError:
        return None
    return entry if entry.type_str == "tree" else None


def _ids(kinds: tuple[str, ...]) -> Completer:
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
        tree = _tree(ctx)
        if tree is None:
            return []
        found: list[tuple[str, object]] = []
        for kind in kinds:
            prefix = model.PREFIX[kind] + "-"
            if not (incomplete.startswith(prefix) or prefix.startswith(incomplete)):
                continue
            top = _folder(tree, model.ITEM_DIRS[kind])
            if top is None:
                continue
            shard = incomplete[2:4] if len(incomplete) >= 4 else None
            shards = [_folder(top, shard)] if shard else [e for e in top if e.type_str == "tree"]
            for folder in shards:
                if folder is None:
                    continue
                for entry in folder:
                    name = entry.name[:-5]
                    if entry.name.endswith(".yaml") and name.startswith(incomplete) and model.ITEM_ID.fullmatch(name):
                        found.append((name, entry))
        found.sort(key=lambda pair: pair[0])
        if len(found) > MAX_DESCRIBED:
            return [name for name, _ in found]
        from click.shell_completion import CompletionItem

        return [CompletionItem(name, help=_statement(entry)) for name, entry in found]
    return complete


def _statement(entry) -> str | None:
    """The first statement line of an item blob, without parsing YAML (a description only; may be None)."""
    try:
        data = entry.data
    except Exception:  # noqa: BLE001
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("statement:"):
            return line[len("statement:"):].strip().strip("'\"")[:70] or None
    return None


def _entity_ids(tree) -> list[str]:
    folder = _folder(tree, "entities") if tree is not None else None
    if folder is None:
        return []
    return sorted(e.name[:-5] for e in folder if e.name.endswith(".yaml") and model.NAME_ID.fullmatch(e.name[:-5]))


def _entities(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    return [e for e in _entity_ids(_tree(ctx)) if e.startswith(incomplete)]


def _scopes(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    values = ["org"] + [f"entity:{e}" for e in _entity_ids(_tree(ctx))]
    return [v for v in values if v.startswith(incomplete)]


def _entity_scopes(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    return [v for v in _scopes(ctx, param, incomplete) if v != "org"]


def _episodes(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    tree = _tree(ctx)
    if tree is None:
        return []
    chosen = ctx.params.get("from_") or ctx.params.get("entity")
    names = [chosen] if chosen else _entity_ids(tree)
    out: list[str] = []
    for name in names:
        folder = _folder(tree, f"episodes/{name}")
        if folder is not None:
            out += [e.name[:-5] for e in folder if e.name.endswith(".yaml") and e.name.startswith(incomplete)]
    return sorted(set(out))


def _categories(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """facet:value pairs the store's customers use (they are what the floor and the blocker count)."""
    tree = _tree(ctx)
    folder = _folder(tree, "entities") if tree is not None else None
    found: set[str] = set()
    for entry in folder or []:
        if not entry.name.endswith(".yaml"):
            continue
        try:
            text = entry.data.decode("utf-8", "replace") if hasattr(entry, "data") else ""
        except Exception:  # noqa: BLE001
            continue
        in_list = False
        for line in text.splitlines():
            if line.startswith("categories:"):
                in_list = True
                inline = line[len("categories:"):].strip()
                if inline.startswith("["):
                    found.update(v.strip(" '\"") for v in inline.strip("[]").split(",") if ":" in v)
                    in_list = False
            elif in_list and line.lstrip().startswith("- "):
                found.add(line.lstrip()[2:].strip(" '\""))
            elif in_list and line and not line.startswith(" "):
                in_list = False
    return sorted(v for v in found if v.startswith(incomplete))


def _targets(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    try:
        from vmem.targets import NAMES  # the sync targets, where that module names them
    except Exception:  # noqa: BLE001
        NAMES = ("claude", "agents-md", "cursor", "copilot")  # noqa: N806
    return [v for v in NAMES if v.startswith(incomplete)]


_CLAIMS = _ids(("claim",))
_KNOWLEDGE = _ids(("knowledge",))
_ANY = _ids(("claim", "knowledge"))

# (command path, parameter name) -> completer; "*" matches any command.
TABLE: dict[tuple[str, str], Completer] = {
    ("*", "item_id"): _ANY,
    ("approve", "item_id"): _CLAIMS, ("mandate", "item_id"): _CLAIMS, ("revoke", "item_id"): _CLAIMS,
    ("verify", "item_id"): _CLAIMS, ("supersede", "item_id"): _CLAIMS, ("propose", "supersedes"): _CLAIMS,
    ("publish", "item_id"): _KNOWLEDGE,
    ("*", "status"): _statuses,
    ("list", "kind"): choices("claim", "knowledge"),
    ("verify", "kind"): choices(*VERIFY_KINDS),
    ("episode add", "kind"): choices(*EPISODE_KINDS),
    ("*", "klass"): choices(*CLASSES),
    ("*", "scope"): _scopes,
    ("contradictions", "scope"): _entity_scopes,
    ("*", "about"): _entities, ("*", "from_"): _entities, ("forget", "entity"): _entities,
    ("entity show", "entity_id"): _entities, ("episode add", "entity_id"): _entities,
    ("*", "episode"): _episodes,
    ("*", "category"): _categories,
    ("*", "target"): _targets,
    ("*", "audience"): choices("all", "group:"),
    ("review", "action"): choices(*REVIEW_ACTIONS),
}


def install(command: click.Command, path: str = "") -> None:
    """Give every parameter in TABLE its completer, through the whole command tree."""
    for sub_name, sub in (getattr(command, "commands", None) or {}).items():
        install(sub, f"{path} {sub_name}".strip())
    for param in command.params:
        completer = TABLE.get((path, param.name)) or TABLE.get(("*", param.name))
        if completer is not None:
            param._custom_shell_complete = completer  # click's hook for shell_complete=, set after the fact


def run() -> None:
    """Answer the shell: build the click command, install the completers, let click print the candidates."""
    import typer.main

    from vmem.cli.app import app

    command = typer.main.get_command(app)
    install(command)
    try:
        command.main(prog_name="vmem")
    except SystemExit:
        pass
    finally:
        import sys

        sys.stdout.flush()
        os._exit(0)
