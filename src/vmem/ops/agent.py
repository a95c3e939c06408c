"""What an agent that calls tools may see and do (SPEC 13): the MCP server's domain, kept below the face.

The server is started for one scope and audience (its launcher's, never the agent's choice), and every answer
comes from the set sync would serve there: live, reviewed, attested by history (SPEC 12), in scope, visible
to the audience, never personal. Items outside it are "not found", indistinguishable from absent ones.

Each method runs the body its CLI command runs and returns that command's `--json` data (same keys, same ids,
short id prefixes resolved alike, the same errors), narrowed to this view: an item outside it is absent, the
text of a version outside it is None, another customer's evidence and its writers are left out, and a rejected,
unreviewed or out-of-scope item is never named. The agent's writes are a proposal (`vmem propose`) and a
verification (`vmem verify`): both through the CLI's gates, never a review or a status change, never a delete.

Every argument is bounded (LIMITS) and checked before anything is read: a 3.5 MB question is refused at once.
"""

from __future__ import annotations

from pathlib import Path

from vmem.errors import ItemNotFound, UsageError
from vmem.output import counted

# The largest value each argument may carry (characters; for a list, how many entries and each entry's length).
# A question is a sentence or two; a statement's limit is `vmem propose`'s (4,000 characters, checked by its body).
LIMITS = {"query": 2_000, "corrected": 4_000, "title": 200, "id": 20, "since": 64, "domain": 64,
          "about": 64, "from": 64, "kind": 16, "status": 16, "statement": 4_000, "quote": 4_000}
LIST_LIMITS = {"paths": (50, 256), "categories": (20, 128)}


def check_sizes(**values) -> None:
    """A usage error naming the first argument that is larger than its limit, before any work is done."""
    for name, value in values.items():
        if value is None:
            continue
        if name in LIST_LIMITS:
            most, each = LIST_LIMITS[name]
            if not isinstance(value, (list, tuple)):
                raise UsageError(f"{name} must be a list of strings", f'e.g. {name}=["..."]')
            if len(value) > most:
                raise UsageError(f"{name} has {len(value)} entries; the limit is {most}",
                                 f"give at most {most} {name}")
            for entry in value:
                if not isinstance(entry, str) or len(entry) > each:
                    size = len(entry) if isinstance(entry, str) else "a non-string"
                    raise UsageError(f"an entry of {name} is {size} characters; the limit is {each}",
                                     f"each of {name} is at most {each} characters")
            continue
        if isinstance(value, str) and len(value) > LIMITS[name]:
            if name in ("statement", "corrected"):
                from vmem.ops.propose import valid_statement  # vmem propose's own limit and words

                valid_statement(value)
            hint = {"query": "ask one question in a sentence or two",
                    "id": "ids look like c-7b1e0d9c4a22, or a unique prefix of one (c-7b1e)"}.get(
                name, f"{name} is at most {LIMITS[name]} characters")
            raise UsageError(f"{name} is {len(value)} characters; the limit is {LIMITS[name]}", hint)


def _code(text: str) -> str:
    """TEXT as inline code on one line."""
    return "`" + " ".join(text.replace("`", "'").split()) + "`"


def _attested(item: dict, served: dict, edited: bool = False) -> dict:
    """The fields of ITEM (its file at HEAD) to replace with SERVED's (the blob history attests, provenance from the
    reviewer's commit) when the file was edited by hand after review (EDITED, or any served field differs beyond
    the review's time stamp): what sync would serve, never the edit. {} for a file as reviewed."""
    def plain(key: str, value):
        return {k: v for k, v in value.items() if k != "at"} if key in ("review", "published") and value else value

    differ = {k: v for k, v in served.items() if k in item and k not in ("status", "evidence") and item[k] != v}
    if edited or any(plain(k, item[k]) != plain(k, v) for k, v in differ.items()):
        return differ
    return {}


class AgentView:
    def __init__(self, root: Path, scope: str | None = None, audience: str | None = None) -> None:
        from vmem.ops.recall import Scope
        from vmem.store.repo import Store

        self.root = root
        store = Store.open(root, lite=True)
        settings = store.policy["sync"]
        self.who = Scope.parse(scope or settings["scope"], audience or settings["audience"])
        self.who.check_entity(store.head())
        self._embed = None
        self._index = None
        self._index_commit: str | None = None

    @property
    def scope(self) -> str:
        return f"entity:{self.who.entity}" if self.who.entity else "org"

    def _store(self):
        from vmem.store.repo import Store

        return Store.open(self.root, lite=True)

    def served(self) -> dict[str, dict]:
        """id -> item for everything this agent may see, as history attests it (sync's cached candidates)."""
        from datetime import datetime, timezone

        from vmem.ops.bundle import select
        from vmem.store.served import load_candidates

        items = load_candidates(self.root).items
        return {i["id"]: i for i in select(items, self.who.entity, self.who.audience, datetime.now(timezone.utc))}

    def resolve(self, text: str, served: dict[str, dict]) -> str:
        """TEXT (a whole id, or a unique prefix of at least 4 hex digits) as a served id, with the CLI's errors
        (Snapshot.resolve_id's words), looked up among served items only: an item outside this view is absent,
        and an ambiguity never names one."""
        from vmem import model

        if isinstance(text, str) and model.ITEM_ID.fullmatch(text):
            if text not in served:
                raise ItemNotFound(f"no item {text} in this store", "list items with: vmem list")
            return text
        if not isinstance(text, str) or not model.ITEM_PREFIX.fullmatch(text):
            return model.check_item_id(text)  # raises the grammar's error
        from vmem.store.repo import only_match

        return only_match(text, sorted(i for i in served if i.startswith(text)))

    # -- reading ---------------------------------------------------------------------------------------------

    def recall(self, query: str, k: int = 5) -> dict:
        """`vmem recall QUERY --scope S --audience A -k K --json`: the same search over the same index."""
        from vmem.ops.recall import search
        from vmem.store.served import head_commit

        check_sizes(query=query)
        query = (query or "").strip()
        if not query:
            raise UsageError("the query is empty", 'ask something: vmem recall "how is ARR defined"')
        if not isinstance(k, int) or not 1 <= k <= 50:
            raise UsageError("k must be between 1 and 50", "e.g. k=5")
        commit = head_commit(self.root)
        if self._index is None or commit is None or commit != self._index_commit:
            from vmem.embed import embedder
            from vmem.index.local import LocalIndex

            store = self._store()
            self._embed = self._embed or embedder(store.policy, store.root)
            self._index = LocalIndex.open(store, self._embed, model_id=str(self._embed.path))
            self._index_commit = commit
        return search(self._index, query, self.who, False, k, self._embed)

    def show(self, item_id: str) -> dict:
        """`vmem show ID --json` (vmem.ops.card.show_card) for a served item, narrowed to this view."""
        from vmem.ops.card import legal_actions, show_card

        check_sizes(id=item_id)
        served = self.served()
        item_id = self.resolve(item_id, served)
        data = show_card(self._store(), item_id)
        mine = served[item_id]
        computed = data.get("computed") or {}
        edited = _attested(data, mine, computed.pop("unattested_edit", None) is not None)
        computed.pop("unattested", None)
        data.update(edited)
        data.update(self._narrowed(data, served))
        card = data.get("card")
        if card:
            card.update({key: value for key, value in edited.items() if key in card})
            self._narrow_card(card, served, legal_actions({**data, "status": mine["status"]}, False))
        return data

    def list(self, kind: str | None = None, status: str | None = None, limit: int = 100) -> tuple[list[dict], list]:
        """`vmem list [--kind K] [--status S] --json` (vmem.ops.show.list_items): its items, oldest first, those
        served only, the first LIMIT; and a note when more were left out."""
        from vmem.ops.show import list_items

        check_sizes(kind=kind, status=status)
        if not isinstance(limit, int) or not 1 <= limit <= 500:
            raise UsageError("limit must be between 1 and 500", "e.g. limit=100")
        served = self.served()
        listing = list_items(self._store(), kind, status)
        items = []
        for item in listing.items:
            mine = served.get(item["id"])
            if mine is None or (status is not None and mine["status"] != status):
                continue
            shown = {**item, "status": mine["status"], **_attested(item, mine)}
            items.append({**shown, **self._narrowed(shown, served)})
        notes = [f"{len(items) - limit} more not shown (limit={limit}; at most 500)"] if len(items) > limit else []
        return items[:limit], notes

    def blame(self, item_id: str) -> dict:
        """`vmem blame ID --json` for a served item: its chain up to it (never a later proposal that would replace
        it), the commits vmem wrote (never a hand commit), and only its own served text; for a learning, no
        author (who contributed evidence is not the agent's)."""
        from vmem.ops.blame import blame

        check_sizes(id=item_id)
        served = self.served()
        item_id = self.resolve(item_id, served)
        item = served[item_id]
        full = blame(self._store(), item_id)
        chain = full["chain"][:full["chain"].index(item_id) + 1]
        events = []
        for event in full["events"]:
            if event["item"] not in chain or event["action"] == "git":
                continue
            row = dict(event)
            if row["statement"] is not None and (row["item"] not in served
                                                 or row["statement"] != served[row["item"]]["statement"]):
                row["statement"] = None
            if item["kind"] == "knowledge":
                row["author"] = None
            events.append(row)
        return {**full, "chain": chain, "events": events}

    def changes(self, limit: int = 20, since: str | None = None) -> dict:
        """`vmem log [-n N] [--since WHEN] --json` (vmem.ops.log.log), narrowed: only changes to items this
        agent is served, naming those items only; a summary or reason only when every item of the change is
        served; no author for a change to a learning."""
        from vmem.ops.log import log

        check_sizes(since=since)
        served = self.served()

        def keep(row: dict) -> dict | None:
            mine = [i for i in row["items"] if i in served]
            if not mine or row["action"] == "git":
                return None
            whole = len(mine) == len(row["items"])
            return {**row, "items": mine, "summary": row["summary"] if whole else None,
                    "reason": row["reason"] if whole else None,
                    "author": None if any(served[i]["kind"] == "knowledge" for i in mine) else row["author"]}

        return log(self._store(), limit=limit, since=since, keep=keep)

    def mandatory(self) -> dict:
        """The mandatory rules sync delivers to this scope (vmem.ops.bundle.pack: its selection, its rule fields,
        path-scoped ones with their paths), and their text as the rules files print it."""
        from vmem.ops.bundle import pack
        from vmem.store.served import load_candidates
        from vmem.targets.text import entry

        commit, policy, items, about, _ = load_candidates(self.root)
        bundle = pack(items, policy, entity=self.who.entity, audience=self.who.audience, budget=0,
                      store_name="", commit=commit)
        text = [f"# Mandatory team rules (vmem, {self.scope})\n\n"]
        for rule in bundle.mandatory:
            text.append(entry(rule))
            if rule["paths"]:
                text.append(f"  applies to files matching: {', '.join(_code(p) for p in rule['paths'])}\n")
        if not bundle.mandatory:
            text.append("None in this scope.\n")
        return {"scope": self.scope, "commit": commit, "rules": bundle.mandatory, "text": "".join(text)}

    # -- writing: proposals and verifications only -----------------------------------------------------------

    def propose(self, statement: str, *, title: str | None = None, domain: str | None = None,
                paths: list[str] | None = None, about: str | None = None, from_: str | None = None,
                categories: list[str] | None = None) -> tuple[dict, list[str]]:
        """`vmem propose --json` (vmem.ops.propose.propose): a fact (a claim, proposed) or, with FROM_ and
        CATEGORIES, a learning, for a human to review. An entity named must be this server's own scope. The
        result is the CLI's data narrowed to this view (a contradicted item outside it is counted in a note,
        never shown), and the notes the CLI prints."""
        from vmem.ops.propose import propose

        check_sizes(statement=statement, title=title, domain=domain, paths=paths, about=about, categories=categories,
                    **{"from": from_})
        for entity in (about, from_):
            if entity is not None and entity != self.who.entity:
                raise UsageError(f"this server serves {self.scope}; it cannot propose about entity {entity!r}",
                                 "start the server with --scope entity:ID for that customer")
        from vmem.ops.session import deliver

        store = self._store()
        done = propose(store, statement, from_=from_, categories=categories, about=about, title=title,
                       domain=domain, paths=paths)
        data = done.data()
        notes = data.pop("notes")
        note = deliver(store)  # to the team's remote, so a reviewer sees it (SPEC 15)
        if note:
            notes.append(note)
        served = self.served()
        data["item"] = {**done.item, **self._narrowed(done.item, served)}
        data["contradictions"] = [c for c in done.contradictions if c["id"] in served]
        hidden = len(done.contradictions) - len(data["contradictions"])
        if hidden:
            notes.append(f"it contradicts {counted(hidden, 'item')} outside this agent's view; a reviewer will see both")
        from vmem.ops.contradictions import warning

        for clash in data["contradictions"]:
            notes.append(warning(clash, proposal=True, agent=True))
        return data, notes

    def verify(self, item_id: str, kind: str = "confirmation", corrected: str | None = None) -> tuple[dict, list]:
        """`vmem verify ID [--kind K] [--corrected TEXT] --json` (vmem.ops.govern.verify) on a served claim: a
        recorded confirmation or correction (it moves effective confidence; a correction with CORRECTED is
        proposed as its revision, for a reviewer). Never a status change."""
        from vmem.ops.govern import verify
        from vmem.ops.session import deliver

        check_sizes(id=item_id, kind=kind, corrected=corrected)
        item_id = self.resolve(item_id, self.served())
        store = self._store()
        data = verify(store, item_id, kind, corrected).data("corrected")
        note = deliver(store)
        return data, [note] if note else []

    def harvest(self, statement: str, kind: str = "correction", quote: str | None = None) -> tuple[dict, list]:
        """`vmem harvest` for an agent that wants to offer what the person just told it: the statement is queued
        in the analyst's harvest queue (credentials redacted), never proposed: they accept or dismiss it with
        `vmem harvest`."""
        from vmem.ops.harvest import offer, project_root

        check_sizes(statement=statement, kind=kind, quote=quote)
        data = offer(project_root(), statement, kind, quote, session="mcp")
        note = (f"queued as {data['id']} for the analyst's accept (vmem harvest)" if data["queued"] else
                f"already offered as {data['id']} ({data['state']})")
        return data, [note]

    # -- the narrowing ---------------------------------------------------------------------------------------

    def _narrowed(self, item: dict, served: dict[str, dict]) -> dict:
        """The fields of ITEM that name what this agent may not see, narrowed: another customer's evidence, links
        to learnings it is not served, a merge's reasons (they quote the absorbed text)."""
        if item.get("kind") != "knowledge":
            return {}
        out = {"evidence": [e for e in item.get("evidence") or [] if e.get("entity") == self.who.entity]}
        for key in ("suggestions", "related", "distinct"):
            if item.get(key):
                out[key] = [row for row in item[key] if row.get("id") in served]
        if item.get("merges"):
            out["merges"] = [{**m, "reason": None} for m in item["merges"]]
        return out

    def _narrow_card(self, card: dict, served: dict[str, dict], actions: list[str]) -> None:
        card["contradictions"] = [c for c in card.get("contradictions") or [] if c["id"] in served]
        card["prior_rejections"] = []  # rejected items are never served
        card["suggestions"] = [s for s in card.get("suggestions") or [] if s["id"] in served]
        card["related"] = [r for r in card.get("related") or [] if r["id"] in served]
        card["suggestion_actions"] = []
        card["actions"] = actions  # an agent is never a reviewer
        old = card.get("supersedes")
        if old and old.get("id") not in served:
            card["supersedes"] = {**old, "statement": None, "diff": []}
        if card.get("kind") == "knowledge":
            card["evidence"] = [e for e in card.get("evidence") or [] if e.get("entity") == self.who.entity]
            card["proposer"] = None
            card["merges"] = [{**m, "reason": None} for m in card.get("merges") or []]
