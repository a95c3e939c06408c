"""What an agent that calls tools may see and do (SPEC 13): the MCP server's domain, kept below the face.

The server is started for one scope and audience (its launcher's, never the agent's choice), and every answer
comes from the set sync would serve there: live, reviewed, attested by history (SPEC 12), in scope, visible
to the audience, never personal. Items outside it are "not found", indistinguishable from absent ones. The
agent's only write is a proposal, through the same gates as `vmem propose`.
"""

from __future__ import annotations

from pathlib import Path

from vmem.errors import ItemNotFound, UsageError

_SHOWN = ("id", "kind", "title", "statement", "scope", "status", "paths", "domain", "valid_from", "expires_at")


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

        _, _, items, _ = load_candidates(self.root)
        return {i["id"]: i for i in select(items, self.who.entity, self.who.audience, datetime.now(timezone.utc))}

    def _visible(self, item_id: str) -> dict:
        from vmem import model

        model.check_item_id(item_id)
        item = self.served().get(item_id)
        if item is None:
            raise ItemNotFound(f"no item {item_id} visible to this agent", "search with recall, or list what is "
                               "served; unreviewed and out-of-scope items are never shown")
        return item

    def _row(self, item: dict, policy: dict) -> dict:
        from vmem import confidence

        row = {k: item.get(k) for k in _SHOWN}
        row["scope"] = item.get("scope") or "org"
        if item["kind"] == "knowledge":
            row["scope"] = "org"
            row["support_tier"] = confidence.support_tier(item, policy["knowledge"]["tiers"])
            vouched = item.get("published") or {}
        else:
            row["confidence"] = round(confidence.effective_confidence(item), 3)
            vouched = item.get("review") or {}
        row["reviewed_by"], row["reviewed_at"] = vouched.get("by"), vouched.get("at")
        row["correct_with"] = (f'vmem propose --supersedes {item["id"]} "…"' if item["kind"] == "claim"
                               else f"ask a reviewer to retract {item['id']}")
        return row

    def recall(self, query: str, k: int = 5) -> dict:
        from vmem.ops.recall import search
        from vmem.store.served import head_commit

        query = (query or "").strip()
        if not query:
            raise UsageError("the query is empty", "ask something, e.g. how is ARR defined")
        if not 1 <= k <= 50:
            raise UsageError("k must be between 1 and 50", "e.g. k=5")
        commit = head_commit(self.root)
        if self._index is None or commit is None or commit != self._index_commit:
            from vmem.embed import embedder
            from vmem.index.local import LocalIndex

            store = self._store()
            self._embed = self._embed or embedder(store.policy, store.root)
            self._index = LocalIndex.open(store, self._embed, model_id=str(self._embed.path))
            self._index_commit = commit
        result = search(self._index, query, self.who, False, k, self._embed)
        return {"coverage": result["coverage"], "scope": self.scope, "results": [
            {key: row.get(key) for key in ("id", "kind", "title", "statement", "scope", "status", "confidence",
                                           "support_tier", "score")} for row in result["results"]]}

    def show(self, item_id: str) -> dict:
        item = self._visible(item_id)
        return self._row(item, self._store().policy)

    def list(self, kind: str | None = None, limit: int = 50) -> dict:
        if kind not in (None, "claim", "knowledge"):
            raise UsageError(f"unknown kind {kind!r}", "use claim or knowledge")
        if not 1 <= limit <= 500:
            raise UsageError("limit must be between 1 and 500", "e.g. limit=50")
        policy = self._store().policy
        items = sorted((i for i in self.served().values() if kind is None or i["kind"] == kind),
                       key=lambda i: (i["status"] != "mandatory", i["id"]))
        return {"scope": self.scope, "total": len(items), "items": [self._row(i, policy) for i in items[:limit]]}

    def blame(self, item_id: str) -> dict:
        """How a visible item came to be: its vmem commits and those of the versions it replaced. Never a
        later proposal that would replace it (unreviewed), never the text of a version (hand edits live
        there); for knowledge, never who contributed evidence."""
        from vmem.ops.blame import blame

        item = self._visible(item_id)
        full = blame(self._store(), item_id)
        chain = full["chain"][:full["chain"].index(item_id) + 1]
        events = []
        for event in full["events"]:
            if event["item"] not in chain or event["action"] == "git":
                continue
            row = {k: event[k] for k in ("commit", "at", "action", "item")}
            if item["kind"] == "claim":
                row.update(author=event["author"], reason=event["reason"])
            events.append(row)
        return {"id": item_id, "chain": chain, "events": events}

    def propose(self, text: str, *, title: str | None = None, domain: str | None = None,
                paths: list[str] | None = None, about: str | None = None, learning_from: str | None = None,
                categories: list[str] | None = None) -> dict:
        """A fact (a claim, proposed) or, with LEARNING_FROM and CATEGORIES, a learning: a proposal for a
        human to review, never a review. An entity named must be this server's own scope. The body is `vmem
        propose`'s (vmem.ops.propose.propose): the same result, notes and contradictions, narrowed to what this
        agent may see (a contradicted item outside its view is counted, never shown)."""
        from vmem.ops.propose import propose

        for entity in (about, learning_from):
            if entity is not None and entity != self.who.entity:
                raise UsageError(f"this server serves {self.scope}; it cannot propose about entity {entity!r}",
                                 "start the server with --scope entity:ID for that customer")
        if learning_from and (title or domain or paths or about):
            raise UsageError("title, domain, paths and about apply to facts, not learnings",
                             "a learning takes learning_from and categories")
        if not learning_from and categories:
            raise UsageError("categories apply to learnings", "add learning_from, or leave categories out")
        from vmem.ops.session import deliver

        store = self._store()
        done = propose(store, text, from_=learning_from, categories=categories or [], about=about,
                       title=title, domain=domain, paths=paths)
        data = done.data()
        note = deliver(store)  # to the team's remote, so a reviewer sees it (SPEC 15)
        if note:
            data["notes"] = [*data["notes"], note]
        data["item"] = self._own(done.item)
        served = self.served() if done.contradictions else {}
        data["contradictions"] = [c for c in done.contradictions if c["id"] in served]
        hidden = len(done.contradictions) - len(data["contradictions"])
        if hidden:
            data["notes"] = [*data["notes"], f"it contradicts {hidden} item(s) outside this agent's view; a reviewer "
                                             "will see both"]
        return {**data, "id": done.item["id"], "kind": done.item["kind"], "status": done.item["status"],
                "outcome": done.action, "next": "a reviewer decides: vmem review"}

    def _own(self, item: dict) -> dict:
        """ITEM as this agent may see it: a learning's evidence from other customers (or other writers) never."""
        if item["kind"] != "knowledge":
            return item
        shown = {k: item.get(k) for k in ("id", "kind", "statement", "status", "categories")}
        shown["evidence"] = [e for e in item.get("evidence") or [] if e.get("entity") == self.who.entity]
        return shown
