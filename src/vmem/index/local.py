"""The local search index: a disposable cache under the user cache dir, rebuilt from git, caught up incrementally.

Per store it holds a tantivy full-text index, a unit-length embedding per item, and per-item columns for
filtering (status, scope, audience, validity) as numpy arrays, plus the commit it reflects. Catching up
diffs that commit's tree against HEAD (git compares subtree ids, so the work is proportional to the change)
and parses only the changed blobs. A missing, corrupt or outdated index (other model, other schema) is
rebuilt, never fatal.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import shutil
from pathlib import Path
from typing import Callable

from vmem import model
from vmem.errors import SchemaError
from vmem.store.repo import Store, parse_blob

SCHEMA_VERSION = 1
SERVABLE = {"claim": ("approved", "mandatory"), "knowledge": ("published",)}
STALE = ("superseded", "expired")
NO_TIME = float("nan")

Progress = Callable[[int, int], None]


def index_dir(store: Store) -> Path:
    from platformdirs import user_cache_dir

    key = hashlib.sha256(str(store.root.resolve()).encode()).hexdigest()[:16]
    return Path(user_cache_dir("vmem")) / "index" / key


def _epoch(stamp: str | None) -> float:
    return model.parse_ts(stamp).timestamp() if stamp else NO_TIME


def _text(item: dict) -> str:
    return " ".join(filter(None, [item.get("title"), item["statement"], " ".join(item.get("categories") or [])]))


def _meta(item: dict) -> dict:
    """What recall needs from an item, without lineage: knowledge keeps a count, not its customers."""
    keep = ("id", "kind", "title", "statement", "scope", "status", "audience", "personal", "confidence",
            "created_at", "review", "verifications", "expires_at", "valid_from", "valid_to", "superseded_by",
            "last_reinforced", "categories")
    meta = {k: item.get(k) for k in keep}
    if item["kind"] == "knowledge":
        meta["evidence"] = [{"entity": f"e{n}"} for n in range(len({e["entity"] for e in item["evidence"]}))]
    return meta


class LocalIndex:
    """Open with LocalIndex.open(store, embed) — it is brought up to date on the way."""

    def __init__(self, store: Store, path: Path, model_id: str) -> None:
        self.store = store
        self.path = path
        self.model_id = model_id
        self.commit: str | None = None
        self.blobs: dict[str, str] = {}  # path -> blob id
        self.items: dict[str, dict] = {}  # id -> meta
        self.order: list[str] = []  # row of each id in the arrays
        self.rows: dict[str, int] = {}
        self.vectors = None
        self.columns: dict = {}
        self.entity_names: list[str] = []
        self.group_names: list[str] = []
        self._tantivy = None
        self.stats = {"parsed": 0, "rebuilt": False}

    # -- lifecycle ------------------------------------------------------------------------------------------

    @classmethod
    def open(cls, store: Store, embed, model_id: str, progress: Progress | None = None,
             rebuild: bool = False) -> "LocalIndex":
        index = cls(store, index_dir(store), model_id)
        if rebuild or not index._load():
            index._reset()
        index.catch_up(embed, progress)
        return index

    def _load(self) -> bool:
        import numpy as np

        try:
            meta = marshal.loads((self.path / "meta.marshal").read_bytes())
            if meta.get("version") != SCHEMA_VERSION or meta.get("model") != self.model_id:
                return False
            self.commit, self.blobs, self.items, self.order = (meta["commit"], meta["blobs"], meta["items"],
                                                                meta["order"])
            self.entity_names, self.group_names = meta["entity_names"], meta["group_names"]
            self.vectors = np.load(self.path / "vectors.npy")
            with np.load(self.path / "columns.npz") as data:
                self.columns = {k: data[k] for k in data.files}
            if len(self.vectors) != len(self.order) or any(len(v) != len(self.order) for v in self.columns.values()):
                return False
            self.rows = {item_id: n for n, item_id in enumerate(self.order)}
            self._open_tantivy(create=False)
            return True
        except Exception:  # noqa: BLE001 - any damage means: rebuild from git
            return False

    def _reset(self) -> None:
        import numpy as np

        shutil.rmtree(self.path, ignore_errors=True)
        self.path.mkdir(parents=True, exist_ok=True)
        self.commit, self.blobs, self.items, self.order, self.rows = None, {}, {}, [], {}
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self.columns = {}
        self._open_tantivy(create=True)
        self.stats["rebuilt"] = True

    def _open_tantivy(self, create: bool) -> None:
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
        schema = builder.build()
        directory = self.path / "tantivy"
        if create:
            shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True, exist_ok=True)
        self._tantivy = tantivy.Index(schema, path=str(directory))

    # -- catching up -----------------------------------------------------------------------------------------

    def catch_up(self, embed, progress: Progress | None = None) -> None:
        repo = self.store.repo
        if repo.head_is_unborn:
            return
        head = repo.head.peel()
        if self.commit == str(head.id):
            return
        changed: dict[str, str | None] = {}
        old = None
        if self.commit:
            try:
                old = repo[self.commit].peel(type(head)).tree
            except (KeyError, ValueError):
                old = None
        if old is None:
            if self.commit:
                self._reset()
            from vmem.store.repo import Snapshot

            snapshot = Snapshot(repo, head)
            for kind_dir in ("claims", "knowledge"):
                for path, entry in snapshot._walk(kind_dir):
                    if path.endswith(".yaml"):
                        changed[path] = str(entry.id)
        else:
            for delta in repo.diff(old, head.tree).deltas:  # deltas only: no patch text is computed
                path = delta.new_file.path if delta.status_char() != "D" else delta.old_file.path
                if path.startswith(("claims/", "knowledge/")) and path.endswith(".yaml"):
                    changed[path] = None if delta.status_char() == "D" else str(delta.new_file.id)
        self._apply(changed, embed, progress)
        self.commit = str(head.id)
        self._save()

    def _apply(self, changed: dict[str, str | None], embed, progress: Progress | None) -> None:
        import numpy as np

        updates: dict[str, dict] = {}
        removed: list[str] = []
        total = len(changed)
        for n, (path, oid) in enumerate(sorted(changed.items()), 1):
            if progress and (n % 500 == 0 or n == total):
                progress(n, total)
            if oid is None:
                stem = Path(path).stem
                if stem in self.items:
                    removed.append(stem)
                self.blobs.pop(path, None)
                continue
            self.blobs[path] = oid
            kind = "claim" if path.startswith("claims/") else "knowledge"
            try:
                item = parse_blob(kind, path, oid, self.store.repo[oid].data)
            except SchemaError:
                continue  # vmem check reports it; the index serves the rest
            if model.item_path(item["id"]) != path:
                continue
            updates[item["id"]] = _meta(item)
        self.stats["parsed"] += len(updates)
        if not updates and not removed:
            return
        writer = self._tantivy.writer(heap_size=50_000_000, num_threads=1)
        import tantivy

        for item_id in removed + list(updates):
            writer.delete_documents_by_term("id", item_id)
        for item_id, meta in updates.items():
            writer.add_document(tantivy.Document(id=item_id, text=_text(meta)))
        writer.commit()
        writer.wait_merging_threads()
        for item_id in removed:
            self.items.pop(item_id, None)
        vectors = embed([_text(meta) for meta in updates.values()]) if updates else None
        new_rows = [i for i in updates if i not in self.rows]
        if self.vectors is None or self.vectors.size == 0:
            self.vectors = np.zeros((0, vectors.shape[1] if vectors is not None else 0), dtype=np.float32)
        if new_rows:
            self.vectors = np.vstack([self.vectors, np.zeros((len(new_rows), vectors.shape[1]), np.float32)])
            for item_id in new_rows:
                self.rows[item_id] = len(self.order)
                self.order.append(item_id)
        for n, (item_id, meta) in enumerate(updates.items()):
            self.items[item_id] = meta
            self.vectors[self.rows[item_id]] = vectors[n]
        for item_id in removed:
            if item_id in self.rows:
                self.vectors[self.rows[item_id]] = 0
        self._columns()

    def _columns(self) -> None:
        """Filter columns, one row per item, so scope soundness is a vectorised mask at query time."""
        import numpy as np

        n = len(self.order)
        entities = sorted({m["scope"][7:] for m in self.items.values() if (m.get("scope") or "").startswith("entity:")})
        groups = sorted({m["audience"][6:] for m in self.items.values() if (m.get("audience") or "").startswith("group:")})
        entity_code = {e: i + 1 for i, e in enumerate(entities)}
        group_code = {g: i + 1 for i, g in enumerate(groups)}
        cols = {name: np.zeros(n, dtype=np.int32) for name in ("servable", "stale", "personal", "scope",
                                                               "audience", "knowledge", "present")}
        for name in ("valid_from", "valid_to", "expires"):
            cols[name] = np.full(n, NO_TIME)
        for row, item_id in enumerate(self.order):
            meta = self.items.get(item_id)
            if meta is None:
                continue
            cols["present"][row] = 1
            cols["servable"][row] = meta["status"] in SERVABLE[meta["kind"]]
            cols["stale"][row] = meta["status"] in STALE
            cols["personal"][row] = bool(meta.get("personal"))
            cols["knowledge"][row] = meta["kind"] == "knowledge"
            scope = meta.get("scope") or "org"
            cols["scope"][row] = entity_code.get(scope[7:], 0) if scope.startswith("entity:") else 0
            audience = meta.get("audience") or "all"
            cols["audience"][row] = group_code.get(audience[6:], -1) if audience.startswith("group:") else 0
            cols["valid_from"][row] = _epoch(meta.get("valid_from"))
            cols["valid_to"][row] = _epoch(meta.get("valid_to"))
            cols["expires"][row] = _epoch(meta.get("expires_at"))
        self.columns = cols
        self.entity_names, self.group_names = entities, groups

    def _save(self) -> None:
        import numpy as np

        self.path.mkdir(parents=True, exist_ok=True)
        for name in ("vectors.npy", "columns.npz"):
            tmp = self.path / f".{name}.tmp{os.getpid()}"
            with open(tmp, "wb") as handle:
                if name == "vectors.npy":
                    np.save(handle, self.vectors)
                else:
                    np.savez(handle, **self.columns)
            os.replace(tmp, self.path / name)
        tmp = self.path / f".meta.tmp{os.getpid()}"
        tmp.write_bytes(marshal.dumps({"version": SCHEMA_VERSION, "model": self.model_id, "commit": self.commit,
                                       "blobs": self.blobs, "items": self.items, "order": self.order,
                                       "entity_names": self.entity_names, "group_names": self.group_names}))
        os.replace(tmp, self.path / "meta.marshal")

    # -- querying ----------------------------------------------------------------------------------------------

    def bm25(self, query: str, limit: int) -> list[tuple[str, float]]:
        import re

        words = re.findall(r"\w+", query.lower())
        if not words:
            return []
        self._tantivy.reload()
        searcher = self._tantivy.searcher()
        parsed = self._tantivy.parse_query(" ".join(words), ["text"])
        hits = searcher.search(parsed, limit=limit).hits
        return [(searcher.doc(address)["id"][0], score) for score, address in hits]

