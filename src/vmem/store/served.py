"""The items a store may serve, at HEAD: a commit-keyed cache of what history attests (SPEC 12), brought
forward by tree diffs, so a pre-session hook on an unchanged store reads one file and never imports pygit2.

All git reading for sync lives here (HEAD from .git directly; pygit2 only when the cache is behind). An item is
cached as its digest: the fields that sync, the session hook and the MCP server read of it, taken from the bytes
of a file in vmem's stable layout without building the rest (see digest below); a file in any other layout is
parsed in full."""

from __future__ import annotations

import re
from pathlib import Path

from vmem.store.cache import cache_file, read_cache, write_cache
from vmem.visibility import held_back

FORMAT = 2  # 2: provenance (reviewer, date, evidence) as history attests it


def head_commit(root: Path) -> str | None:
    """HEAD's commit id read from .git directly (no pygit2); None when it cannot be read that simply."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head if re.fullmatch(r"[0-9a-f]{40}", head) else None
        ref = head[5:]
        loose = git / ref
        if loose.is_file():
            value = loose.read_text().strip()
            return value if re.fullmatch(r"[0-9a-f]{40}", value) else None
        packed = git / "packed-refs"
        for line in packed.read_text().splitlines() if packed.is_file() else []:
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref:
                return parts[0]
    except OSError:
        return None
    return None


def load_candidates(root: Path) -> tuple[str | None, dict, list[dict], dict]:
    """(commit, policy, items that may be served, each with the status history attests), from the cache when
    HEAD has not moved; else brought forward from the cached commit (SPEC 12)."""
    commit = head_commit(root)
    path = cache_file(root)
    cached = read_cache(path)
    if cached is not None and commit is not None and cached.get("commit") == commit and _current(cached):
        return commit, cached["policy"], _servable(cached), cached["store"]
    data = _read_store(root, cached)
    write_cache(path, data)
    return data["commit"], data["policy"], _servable(data), data["store"]


def _current(cached: dict) -> bool:
    return "token" in cached and cached.get("format") == FORMAT


def _servable(data: dict) -> list[dict]:
    """The cached items, less knowledge published after the lexicon broke (SPEC 11), while it is broken."""
    since = data.get("lexicon_since")
    if since is None:  # the usual case, on every warm sync: nothing is held back, no call per item
        return [item for item in data["items"].values() if item is not None]
    seqs = data.get("seqs", {})
    return [item for p, item in data["items"].items() if item is not None
            and not held_back(item["kind"], seqs.get(p), since)]


def _read_store(root: Path, cached: dict | None) -> dict:
    """Bring the item cache to HEAD: parse what changed since the cached commit, or whose attestation moved."""
    from vmem.errors import SchemaError
    from vmem.model import SERVABLE
    from vmem.store.changes import changes_since, entry_at, tree_changes
    from vmem.store.parse import _PARSED as parsed  # blob id -> item, filled by this process's parses
    from vmem.store.repo import Store, parse_blob

    store = Store.open(root, lite=True)  # the one reader; history walks, if any, are asked of pygit2 by the store
    snapshot = store.head()
    state = store.attestation()
    tops = ("claims", "knowledge")
    usable = cached is not None and _current(cached) and cached.get("policy") is not None
    changes = changes_since(store.repo, cached["commit"], snapshot.commit, tops) \
        if usable and snapshot.commit is not None else None
    moved = state.moved_since(cached["token"]) if changes is not None else None
    items: dict[str, dict | None] = {}
    seqs: dict[str, int] = {}
    if changes is None or moved is None:
        state.preload()
        changes = tree_changes(None, snapshot.tree, tops) if snapshot.tree is not None else {}
    else:
        items, seqs = dict(cached["items"]), dict(cached["seqs"])
        for path in moved - set(changes):
            changes[path] = entry_at(snapshot.tree, path)  # same file, but what history attests of it moved
    for item_path, change in changes.items():
        items.pop(item_path, None)
        seqs.pop(item_path, None)
        status = state.status_of(item_path)
        kind = "claim" if item_path.startswith("claims/") else "knowledge"
        if not change.is_file or not item_path.endswith(".yaml") or status not in SERVABLE[kind]:
            continue
        oid = state.served_blob(item_path, change.oid)  # a hand edit of a reviewed text: the reviewed one
        # A blob history attests as served was parsed and validated when it was attested (store/attest.py), so
        # its digest is the item's, unless this process parsed it already (replaying history on a fresh clone);
        # any other blob is parsed and validated here.
        item = parsed.get((kind, oid))
        data = store.repo[oid].data if item is None else b""
        if item is None and state.served.get(item_path) is not None:
            item = digest(kind, data)
        if item is None:
            try:
                item = parse_blob(kind, item_path, oid, data)
            except SchemaError:
                continue  # vmem check reports it; sync serves the rest
        if f"{item['id']}.yaml" != item_path.rsplit("/", 1)[-1]:
            continue  # a file that holds another item's id is not that item
        items[item_path] = {**state.as_served(item_path, item), "status": status}  # as history attests it
        if status == "published":
            seqs[item_path] = state.published.get(item_path)
    entities = sorted(p[9:-5] for p, _ in snapshot.walk("entities") if p.endswith(".yaml"))
    problems = state.lexicon_problems()
    lexicon = f"{problems[0][0]}: {problems[0][1]}" if problems else None
    about = {"id": state.store_root or state.root, "entities": entities, "lexicon": lexicon}
    return {"commit": snapshot.commit_id, "policy": store.policy, "items": items, "token": state.token(),
            "seqs": seqs, "lexicon_since": state.lexicon_since, "store": about, "format": FORMAT}


# -- an item's digest, read from its bytes ------------------------------------------------------------------------
# Parsing and validating an item in full costs ~0.4 ms, most of it building values sync never reads; a cold sync
# of a 10k store spent seconds on it. A file in the stable layout (every key, in the model's order, each value on
# its line: what vmem's writers produce) is instead matched whole by one expression per kind. It captures the
# fields in DIGEST and admits nothing that could make YAML read a line as part of another: no value that opens a
# quote, flow collection or block scalar it does not close on its line, no anchor, alias, tag, directive,
# document marker or YAML line break other than "\n", indentation in steps of two. Each captured text must be
# one YAML reads as that text (plain by the codec's fast-writer rule, or one single-quoted line), and each field
# then meets the model's rule for it. Any other file is parsed in full (the caller's job).

DIGEST = {  # per kind: what sync, the session hook and the MCP server read of a served item (status: history's)
    "claim": ("id", "kind", "title", "statement", "scope", "domain", "paths", "audience", "personal", "confidence",
              "verifications", "created_at", "valid_from", "valid_to", "expires_at", "review"),
    "knowledge": ("id", "kind", "statement", "evidence", "audience", "published", "last_reinforced", "valid_from",
                  "valid_to"),
}
# "\r", "\x85", "\u2028" and "\u2029" are line breaks to YAML 1.1: never inside a value here
_V = (r"(?:'[^'\n\r\x85\u2028\u2029]*(?:''[^'\n\r\x85\u2028\u2029]*)*'|\"[^\"\\\\\n\r\x85\u2028\u2029]*\"|\[\]|\{\}"
      r"|(?![-?:,\[\]{}#&*!|>'\"%@`\s])(?:[^:\n\r\x85\u2028\u2029]++|:(?! ))*+)")
# every line: a key, a sequence entry or both, then a value that ends on it; depth within the codec's bound
_LINES = rf"(?:(?:  ){{0,13}}(?:- )?(?:[a-z][a-z0-9_]*:(?: {_V})?|{_V})\n)*"
_STAMP = r"[1-9]\d{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ"  # canonical
_NAME = r"[a-z0-9][a-z0-9_-]{0,63}"
_WORDS = "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~"
_PRINTABLE = r"\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"  # (negated) as YAML, narrowed
_TEXT = (rf"'(?:[^'{_PRINTABLE}]|'')*'|\"[^\"\\\\{_PRINTABLE}]*\""  # one quoted line; double: no escapes
         # the codec's plain text (_PLAIN and not _RESERVED): read as this text by every YAML reader
         rf"|(?!(?:{_WORDS})\Z)(?:[^\W\d]|\()(?:[\w.,;()/%$+=@~'*?!&\"…–—‘’“”-]++|:(?! |\Z)| (?! |\Z|#))*+")
_ANY = r"[^\n]*"  # a whole value, as _LINES has checked it


def _other(key: str) -> str:
    return rf"{key}:(?: {_ANY}\n|\n(?:(?:- |  ){_ANY}\n)+)"


def _seq(key: str, entry: str) -> str:
    return rf"{key}:(?: \[\]\n|\n(?P<{key}>(?:{entry})+))"


def _record(key: str, fields: str) -> str:
    return rf"{key}:(?: null\n|\n(?P<{key}>{fields}))"


_VERIFICATION = rf"- user: ({_ANY})\n  kind: (confirmation|correction)\n  at: ({_STAMP})\n"
_EVIDENCE = (rf"- entity: ({_NAME})\n  writer: ({_ANY})\n  episode: (null|{_NAME})\n  at: ({_STAMP})\n"
             r"  tier: (\d{1,9})\n")
_ENTRY = rf"- ({_ANY})\n"
_REVIEW = rf"  by: ({_ANY})\n  at: ({_STAMP})\n  action: ({_ANY})\n  reason: ({_ANY})\n"
_PUBLISHED = rf"  by: ({_ANY})\n  at: ({_STAMP})\n"
_LAYOUT = {  # the stable layout's top-level lines, in the model's order
    "claim": (
        rf"id: (?P<id>[ck]-[0-9a-f]{{12}})\nkind: claim\ntitle: (?P<title>{_ANY})\n"
        rf"statement: (?P<statement>{_ANY})\nscope: (?P<scope>org|entity:{_NAME})\n{_other('class')}"
        rf"domain: (?P<domain>null|{_NAME})\n{_other('categories')}{_seq('paths', _ENTRY)}{_other('status')}"
        rf"audience: (?P<audience>all|group:{_NAME})\npersonal: (?P<personal>true|false)\n{_other('source')}"
        rf"confidence: (?P<confidence>[01](?:\.\d{{1,17}})?)\n{_seq('verifications', _VERIFICATION)}"
        rf"created_at: (?P<created_at>{_STAMP})\nvalid_from: (?P<valid_from>null|{_STAMP})\n"
        rf"valid_to: (?P<valid_to>null|{_STAMP})\nexpires_at: (?P<expires_at>null|{_STAMP})\n"
        rf"{_other('supersedes')}{_other('superseded_by')}{_record('review', _REVIEW)}"),
    "knowledge": (
        rf"id: (?P<id>[ck]-[0-9a-f]{{12}})\nkind: knowledge\nstatement: (?P<statement>{_ANY})\n{_other('canonical')}"
        rf"{_other('categories')}{_other('status')}{_seq('evidence', _EVIDENCE)}{_other('merges')}{_other('gate')}"
        rf"audience: (?P<audience>null|all|group:{_NAME})\n{_record('published', _PUBLISHED)}{_other('first_seen')}"
        rf"last_reinforced: (?P<last_reinforced>{_STAMP})\nvalid_from: (?P<valid_from>null|{_STAMP})\n"
        rf"valid_to: (?P<valid_to>null|{_STAMP})\n{_other('supersedes')}{_other('superseded_by')}"
        rf"{_other('merged_into')}{_other('review')}(?:{_other('suggestions')}{_other('distinct')})?"),
}
_COMPILED: dict = {}
_MAX_LINES = 5_000  # no flow values: fewer values than the codec's node bound


def _compiled(name: str):
    if not _COMPILED:
        _COMPILED.update({kind: re.compile(layout) for kind, layout in _LAYOUT.items()}, text=re.compile(_TEXT),
                         lines=re.compile(_LINES),
                         paths=re.compile(_ENTRY), verifications=re.compile(_VERIFICATION),
                         evidence=re.compile(_EVIDENCE), review=re.compile(_REVIEW), published=re.compile(_PUBLISHED))
    return _COMPILED[name]


_READ: dict[str, str] = {}  # raw text -> as YAML reads it, for what repeats (reviewers, writers, actions)
_DAYS: dict[str, bool] = {}  # YYYY-MM-DD -> a real day


def _text(raw: str) -> str:
    """RAW as YAML reads it, if it is text YAML reads plainly as written (else ValueError: parse in full)."""
    known = _READ.get(raw)
    if known is not None:
        return known
    if raw[:1] in ("'", '"'):
        if _compiled("text").fullmatch(raw) is None:
            raise ValueError("not a one-line quoted text")
        text = raw[1:-1].replace("''", "'") if raw[0] == "'" else raw[1:-1]
    elif len(raw) >= 1000 or _compiled("text").fullmatch(raw) is None:
        raise ValueError("not plain text by the codec's rule")
    else:
        text = raw
    if len(raw) < 80:
        if len(_READ) > 50_000:
            _READ.clear()
        _READ[raw] = text
    return text


def _stamp(raw: str | None) -> str | None:
    """A _STAMP capture (or null) as the model's rule (normalize_ts) gives it: itself, if its day exists."""
    if raw is None or raw == "null":
        return None
    day = _DAYS.get(raw[:10])
    if day is None:
        from datetime import date

        try:
            day = _DAYS[raw[:10]] = bool(date.fromisoformat(raw[:10]))
        except ValueError:
            day = _DAYS[raw[:10]] = False
    if not day:
        raise ValueError("no such day")
    return raw


def _filled(raw: str) -> str:
    """The model's rule for required text (_nonempty): stripped, not empty."""
    text = _text(raw).strip()
    if not text:
        raise ValueError("empty")
    return text


def digest(kind: str, data: bytes) -> dict | None:
    """DIGEST[KIND] of an item file in the stable layout, equal to what a full parse and validation give; None
    for a file in any other layout, or one that breaks a rule of the model: the caller parses it in full."""
    from vmem.store.codec import MAX_BYTES

    if len(data) > MAX_BYTES:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.count("\n") > _MAX_LINES:
        return None
    found = _compiled(kind).fullmatch(text)
    if found is None or _compiled("lines").fullmatch(text) is None:
        return None
    g = found.groupdict()

    def entries(key: str) -> list:
        return [] if g[key] is None else _compiled(key).findall(g[key])

    def record(key: str):
        return None if g[key] is None else _compiled(key).fullmatch(g[key]).groups()

    try:
        item = {"id": g["id"], "kind": kind}
        if kind == "claim":
            confidence = float(g["confidence"])
            if not 0 <= confidence <= 1:
                return None
            review = record("review")
            item.update(
                title=None if g["title"] == "null" else _text(g["title"]), statement=_filled(g["statement"]),
                scope=g["scope"], domain=None if g["domain"] == "null" else g["domain"],
                paths=[_filled(path) for path in entries("paths")], audience=g["audience"],
                personal=g["personal"] == "true", confidence=round(confidence, 4),
                verifications=[{"user": _filled(user), "kind": how, "at": _stamp(at)}
                               for user, how, at in entries("verifications")],
                created_at=_stamp(g["created_at"]), valid_from=_stamp(g["valid_from"]),
                valid_to=_stamp(g["valid_to"]), expires_at=_stamp(g["expires_at"]),
                review=None if review is None else {"by": _filled(review[0]), "at": _stamp(review[1]),
                                                    "action": _filled(review[2]),
                                                    "reason": None if review[3] == "null" else _text(review[3])})
        else:
            published = record("published")
            item.update(
                statement=_filled(g["statement"]),
                evidence=[{"entity": entity, "writer": _filled(writer), "episode": None if episode == "null"
                           else episode, "at": _stamp(at), "tier": int(tier)}
                          for entity, writer, episode, at, tier in entries("evidence")],
                audience=None if g["audience"] == "null" else g["audience"],
                published=None if published is None else {"by": _filled(published[0]), "at": _stamp(published[1])},
                last_reinforced=_stamp(g["last_reinforced"]), valid_from=_stamp(g["valid_from"]),
                valid_to=_stamp(g["valid_to"]))
    except ValueError:
        return None
    return item
