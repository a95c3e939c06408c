"""Customers (entities) and their episodes without hand-written YAML: add, list, show.

An entity's names, aliases, domains, people and restricted values are the de-identification lexicon; the gate reads
them from the commit it runs on, so a customer added here is protected from the next command on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from vmem import model
from vmem.errors import SchemaError, UsageError
from vmem.names import check_category
from vmem.store.repo import Store

EPISODE_KINDS = ("call", "email", "note", "session")


@dataclass
class Added:
    kind: str  # "entity" | "episode"
    data: dict
    path: str
    commit: str | None


def _values(values: list[str] | None, what: str) -> list[str]:
    """Stripped, de-duplicated, non-empty, one line each."""
    out: list[str] = []
    for value in values or []:
        text = " ".join(value.split())
        if not text:
            raise UsageError(f"an empty {what}", f"leave out the empty --{what}")
        if text not in out:
            out.append(text)
    return out


def person_name(text: str) -> str:
    """'Jane Doe' or 'Jane Doe <jane@acme.example>' -> 'Jane Doe'. The address is not stored: the de-id gate refuses
    every e-mail address in knowledge anyway, and the name is what people write."""
    text = " ".join(text.split())
    if "<" in text:
        name, _, rest = text.partition("<")
        if not rest.endswith(">") or "@" not in rest:
            raise UsageError(f"--person {text!r} is not 'Name' or 'Name <email>'", "e.g. --person 'Jane Doe'")
        text = name.strip()
    if not text or "@" in text:
        raise UsageError(f"--person {text!r} needs a name", "e.g. --person 'Jane Doe <jane@acme.example>'")
    return text


def _check_new(store: Store, snapshot, path: str, what: str, show: str) -> None:
    if snapshot.blob(path) is not None:
        raise UsageError(f"{what} already exists ({path})", f"see it with: {show}")
    if os.path.lexists(store.root / path):
        raise UsageError(f"{path} exists in the work tree but is not committed",
                         f"commit it (git -C {store.root} add {path} && git -C {store.root} commit) or remove it, "
                         "then run this again")


def add_entity(store: Store, entity_id: str, *, name: str, aliases: list[str] | None = None,
               domains: list[str] | None = None, people: list[str] | None = None,
               categories: list[str] | None = None, restricted: list[str] | None = None) -> Added:
    """One commit adding entities/<id>.yaml, validated like any entity file."""
    model.check_name_id(entity_id)
    name = " ".join((name or "").split())
    if not name:
        raise UsageError("a customer needs a name", "add --name 'Acme Health'")
    data = {
        "id": entity_id, "name": name, "aliases": _values(aliases, "alias"),
        "domains": [d.lower() for d in _values(domains, "domain")],
        "people": _values([person_name(p) for p in people or []], "person"),
        "categories": [check_category(c) for c in _values(categories, "category")],
        "restricted": _values(restricted, "restricted"),
    }
    for domain in data["domains"]:
        if "." not in domain or any(ch in domain for ch in "/@ "):
            raise UsageError(f"--domain {domain!r} is not a domain name", "e.g. --domain acme-health.com")
    path = model.entity_path(entity_id)
    try:
        model.validate("entity", data, path)
    except SchemaError as exc:
        raise UsageError(exc.message, exc.hint) from None
    with store.transaction("entity", summary=f"add customer {entity_id} ({name})") as tx:
        _check_new(store, tx.snapshot, path, f"customer {entity_id}", f"vmem entity show {entity_id}")
        tx.write_file(path, {k: v for k, v in data.items() if v or k in ("id", "name")})
    return Added("entity", data, path, tx.commit_id)


def add_episode(store: Store, entity_id: str, *, quotes: list[str] | None = None, kind: str = "note",
                at: str | None = None, ref: str | None = None, episode_id: str | None = None) -> Added:
    """One commit adding episodes/<entity>/<id>.yaml for an entity already in the store."""
    model.check_name_id(entity_id)
    if kind not in EPISODE_KINDS:
        raise UsageError(f"unknown episode kind {kind!r}", f"use --kind {'|'.join(EPISODE_KINDS)}")
    episode_id = episode_id or f"ep-{os.urandom(4).hex()}"
    model.check_name_id(episode_id, "episode")
    data = {"id": episode_id, "entity": entity_id, "kind": kind,
            "at": model.normalize_ts(at) if at else model.now(), "ref": " ".join(ref.split()) if ref else None,
            "quotes": _values(quotes, "quote")}
    path = model.episode_path(entity_id, episode_id)
    try:
        model.validate("episode", data, path)
    except SchemaError as exc:
        raise UsageError(exc.message, exc.hint) from None
    with store.transaction("episode", summary=f"add {kind} {episode_id} for {entity_id}") as tx:
        tx.snapshot.entity(entity_id)  # the customer must exist (a clear message when it is not committed)
        _check_new(store, tx.snapshot, path, f"episode {episode_id} of {entity_id}",
                   f"vmem entity show {entity_id}")
        tx.write_file(path, {k: v for k, v in data.items() if v is not None})
    return Added("episode", data, path, tx.commit_id)


def approve_entities(store: Store, entity_ids: list[str]) -> dict:
    """A reviewer's word that these customers are real and distinct: their versions at HEAD count toward k and the
    category floor from this commit on (SPEC 7.2). One commit, which changes no file."""
    from vmem.ops.common import require_reviewer

    ids = list(dict.fromkeys(model.check_name_id(i) for i in entity_ids))
    if not ids:
        raise UsageError("name the customers to approve", "e.g. vmem entity approve acme")
    author = store.identity()
    require_reviewer(store, author.email, "approve customers")
    with store.transaction("approve", items=ids, summary="count " + ", ".join(ids) + " as customers") as tx:
        tx.author = author
        for entity_id in ids:
            tx.snapshot.entity(entity_id)  # each must exist and read (a clear message when it does not)
        tx.empty_ok = True
    return {"approved": ids, "commit": tx.commit_id}


def list_entities(store: Store) -> list[dict]:
    """Every customer at HEAD: id, name, categories, how many aliases, people and episodes, and whether it counts
    toward support and the category floor (a reviewer added or approved this version)."""
    snapshot = store.head()
    counted = snapshot.counted_entities()
    out = []
    for entity in snapshot.entities().values():
        episodes = _episode_ids(snapshot, entity["id"])
        out.append({"id": entity["id"], "name": entity["name"], "categories": entity.get("categories") or [],
                    "aliases": len(entity.get("aliases") or []), "people": len(entity.get("people") or []),
                    "episodes": len(episodes), "counted": counted.get(entity["id"]) == entity})
    return sorted(out, key=lambda row: row["id"])


def show_entity(store: Store, entity_id: str) -> dict:
    snapshot = store.head()
    entity = snapshot.entity(model.check_name_id(entity_id))
    episodes = [snapshot.episode(entity_id, episode) for episode in _episode_ids(snapshot, entity_id)]
    return {**entity, "episodes": episodes}


def _episode_ids(snapshot, entity_id: str) -> list[str]:
    if snapshot.tree is None:
        return []
    try:
        folder = snapshot.tree[f"episodes/{entity_id}"]
    except KeyError:
        return []
    if folder.type_str != "tree":
        return []
    return sorted(entry.name[:-5] for entry in folder
                  if entry.name.endswith(".yaml") and model.NAME_ID.fullmatch(entry.name[:-5]))
