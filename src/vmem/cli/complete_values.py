"""The values shell completion offers, read without git, pygit2, YAML or the model: a TAB press must answer in
well under 150 ms. Store values come from the store's work tree, which vmem keeps equal to HEAD (every vmem
write materialises its commit); an uncommitted hand-made file may be offered, and is then refused by the command
with a message that says so. Every reader fails silent: completion never prints an error."""

from __future__ import annotations

import os
import re
from pathlib import Path

from vmem.model import CLAIM_STATUSES, KNOWLEDGE_STATUSES
from vmem.names import CLASSES
from vmem.targets import NAMES

ITEM_KINDS = ("claim", "knowledge")
VERIFY_KINDS = ("confirmation", "correction")
EPISODE_KINDS = ("call", "email", "note", "session")
REVIEW_ACTIONS = ("approve", "reject")  # what --action takes (with --yes); the rest are keys in a terminal
AUDIENCES = ("all", "group:")
TARGETS = NAMES
MAX_DESCRIBED = 40  # up to this many id matches also carry their statement (zsh and fish show it)
MAX_SCREENED = 400  # up to this many id matches are screened by their status line (~20 us a file); more: all offered

_ITEM_ID = re.compile(r"[ck]-[0-9a-f]{12}\Z")
_NAME_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
_DIRS = {"c": "claims", "k": "knowledge"}


def store_root(explicit: str | None) -> Path | None:
    """The store every command would open (vmem.ops.session.resolve, never over the network), or None."""
    from vmem.ops.session import resolve

    try:
        root = resolve(explicit, network=False).root
    except Exception:  # noqa: BLE001 - no store, or an unreadable user config: no completions, no error
        return None
    return root if (root / "vmem.yaml").is_file() else None


def _names(folder: Path, pattern: re.Pattern, prefix: str = "") -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return [e.name[:-5] for e in entries if e.name.endswith(".yaml") and e.name.startswith(prefix)
                    and pattern.match(e.name[:-5]) and not e.is_symlink()]
    except OSError:
        return []


def item_ids(root: Path | None, kinds: str, incomplete: str) -> list[str]:
    """Item ids starting with INCOMPLETE; KINDS is "c", "k" or "ck". A prefix of 4+ hex digits reads one shard."""
    if root is None:
        return []
    found: list[str] = []
    for kind in kinds:
        prefix = f"{kind}-"
        if not (incomplete.startswith(prefix) or prefix.startswith(incomplete)):
            continue
        top = root / _DIRS[kind]
        if len(incomplete) >= 4:
            shard = top / incomplete[2:4]
            shards = [] if os.path.islink(shard) else [shard]  # a symlinked shard is never followed
        else:
            try:
                with os.scandir(top) as entries:
                    shards = sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))
            except OSError:
                shards = []
        for shard in shards:
            found += _names(shard, _ITEM_ID, incomplete)
    return sorted(found)


def _reaching(kind: str, target: str) -> frozenset[str]:
    """The statuses from which the lifecycle lets an item of KIND move to TARGET."""
    from vmem.model import TRANSITIONS

    return frozenset(s for s, ends in TRANSITIONS[kind].items() if target in ends)


def _status_filter(command: str) -> dict[str, frozenset[str]] | None:
    """Per id prefix ("c", "k"), the statuses COMMAND accepts an item in; None: any."""
    from vmem.model import OPEN

    targets = {"approve": "approved", "mandate": "mandatory", "revoke": "revoked", "publish": "published",
               "reject": "rejected", "supersede": "superseded"}
    if command == "verify":
        return {"c": frozenset(OPEN["claim"])}
    if command in ("merge", "distinct"):  # what vmem.ops.suggest takes: open learnings
        return {"k": frozenset(OPEN["knowledge"])}
    if command == "unmerge":
        return {"k": frozenset(("merged",))}
    target = targets.get(command)
    return None if target is None else {"c": _reaching("claim", target), "k": _reaching("knowledge", target)}


def screened(root: Path, ids: list[str], command: str) -> list[str]:
    """IDS less those whose file's status line says COMMAND would refuse them (a rejected claim for approve, say).
    A file without a plain status line is kept (the command explains); many matches are offered unscreened."""
    wanted = _status_filter(command)
    if wanted is None or len(ids) > MAX_SCREENED:
        return ids
    kept = []
    for item_id in ids:
        allowed = wanted.get(item_id[0])
        status = _status_line(root, item_id) if allowed is not None else None
        if status is None or status in allowed:
            kept.append(item_id)
    return kept


def _status_line(root: Path, item_id: str) -> str | None:
    text = _head(root / _DIRS[item_id[0]] / item_id[2:4] / f"{item_id}.yaml")
    for line in (text or "").splitlines():
        if line.startswith("status: "):
            value = line[8:].strip()
            return value if value.isalpha() else None
    return None


def _head(path: Path) -> str | None:
    """A regular file's first 64 kB, never through a symlink and never blocking on a FIFO; None otherwise."""
    from vmem.ops.writer import read_regular

    data = read_regular(path, limit=65_536, whole=False)
    return None if data is None else data.decode("utf-8", "replace")


def statement(root: Path, item_id: str) -> str | None:
    """The first line of an item's statement, without parsing YAML (a description only); never a personal
    item's (it may be another person's, which `vmem show` refuses to show, and this reader knows no viewer)."""
    text = _head(root / _DIRS[item_id[0]] / item_id[2:4] / f"{item_id}.yaml")
    lines = (text or "").splitlines()
    for line in lines:  # fail closed: any personal value but a plain false hides the statement
        if line.startswith("personal:") and line[9:].split("#")[0].strip().strip("'\"").lower() not in ("false", "no",
                                                                                                     "off", ""):
            return None
    for line in lines:
        if line.startswith("statement:"):
            return line[len("statement:"):].strip().strip("'\"")[:70] or None
    return None


def entity_ids(root: Path | None) -> list[str]:
    return sorted(_names(root / "entities", _NAME_ID)) if root is not None else []


def scopes(root: Path | None) -> list[str]:
    return ["org"] + [f"entity:{e}" for e in entity_ids(root)]


def episode_ids(root: Path | None, entity: str | None) -> list[str]:
    if root is None:
        return []
    names = [entity] if entity and _NAME_ID.match(entity) else entity_ids(root)
    return sorted({e for name in names for e in _names(root / "episodes" / name, _NAME_ID)})


def categories(root: Path | None) -> list[str]:
    """facet:value pairs the store's customers use (what the category floor and the merge blocker count)."""
    found: set[str] = set()
    for entity in entity_ids(root):
        text = _head(root / "entities" / f"{entity}.yaml")  # bounded: a TAB press never loads a 1 GB file
        if text is None:
            continue
        in_list = False
        for line in text.splitlines():
            if line.startswith("categories:"):
                inline = line[len("categories:"):].strip()
                in_list = not inline
                if inline.startswith("["):
                    found.update(v.strip(" '\"") for v in inline.strip("[]").split(","))
            elif in_list and line.lstrip().startswith("- "):
                found.add(line.lstrip()[2:].strip(" '\""))
            elif in_list and line.strip() and not line.startswith((" ", "-")):
                in_list = False
    return sorted(v for v in found if ":" in v)


def statuses(kind: str | None) -> tuple[str, ...]:
    return {"claim": CLAIM_STATUSES, "knowledge": KNOWLEDGE_STATUSES}.get(
        kind or "", tuple(dict.fromkeys(CLAIM_STATUSES + KNOWLEDGE_STATUSES)))


# What each parameter completes to: (command path or "*", parameter name) -> (kind of value, detail).
# complete.py installs these on the click tree; complete_fast.py answers bash from them without typer.
VALUES: dict[tuple[str, str], tuple[str, str]] = {
    ("*", "item_id"): ("ids", "ck"),
    # "KINDS:COMMAND": ids of those kinds in a status COMMAND accepts (screened by their status line)
    ("approve", "item_id"): ("ids", "c:approve"), ("mandate", "item_id"): ("ids", "c:mandate"),
    ("revoke", "item_id"): ("ids", "c:revoke"), ("verify", "item_id"): ("ids", "c:verify"),
    ("supersede", "item_id"): ("ids", "c:supersede"), ("propose", "supersedes"): ("ids", "c:supersede"),
    ("publish", "item_id"): ("ids", "k:publish"), ("reject", "item_id"): ("ids", "ck:reject"),
    ("merge", "item_id"): ("ids", "k:merge"), ("unmerge", "item_id"): ("ids", "k:unmerge"),
    ("distinct", "item_id"): ("ids", "k:distinct"),
    ("*", "status"): ("statuses", ""),
    ("list", "kind"): ("choices", "item_kinds"), ("verify", "kind"): ("choices", "verify_kinds"),
    ("episode add", "kind"): ("choices", "episode_kinds"),
    ("*", "klass"): ("choices", "classes"),
    ("*", "scope"): ("scopes", ""), ("contradictions", "scope"): ("entity_scopes", ""),
    ("*", "about"): ("entities", ""), ("*", "from_"): ("entities", ""), ("forget", "entity"): ("entities", ""),
    ("entity show", "entity_id"): ("entities", ""), ("episode add", "entity_id"): ("entities", ""),
    ("*", "episode"): ("episodes", ""),
    ("*", "category"): ("categories", ""),
    ("*", "target"): ("choices", "targets"),
    ("*", "audience"): ("choices", "audiences"),
    ("review", "action"): ("choices", "review_actions"),
}
_CHOICES = {"item_kinds": ITEM_KINDS, "verify_kinds": VERIFY_KINDS, "episode_kinds": EPISODE_KINDS,
            "classes": CLASSES, "targets": TARGETS, "audiences": AUDIENCES, "review_actions": REVIEW_ACTIONS}


def lookup(command: str, param: str) -> tuple[str, str] | None:
    return VALUES.get((command, param)) or VALUES.get(("*", param))


def candidates(value: tuple[str, str], incomplete: str, root: Path | None, params: dict) -> list[str]:
    """The values of kind VALUE that start with INCOMPLETE; PARAMS: what the command line already holds."""
    kind, detail = value
    if kind == "ids":
        kinds, _, command = detail.partition(":")
        found = item_ids(root, kinds, incomplete)
        return screened(root, found, command) if command and root is not None else found
    if kind == "statuses":
        pool: tuple | list = statuses(params.get("kind"))
    elif kind == "choices":
        pool = _CHOICES[detail]
    elif kind == "scopes":
        pool = scopes(root)
    elif kind == "entity_scopes":
        pool = scopes(root)[1:]
    elif kind == "entities":
        pool = entity_ids(root)
    elif kind == "episodes":
        pool = episode_ids(root, params.get("from_") or params.get("entity"))
    elif kind == "categories":
        pool = categories(root)
    else:
        pool = ()
    return [v for v in pool if v.startswith(incomplete)]
