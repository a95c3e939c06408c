"""The local search index: a disposable cache under the user cache dir, rebuilt from git, caught up incrementally.

Per store it holds a tantivy full-text index, a unit-length embedding per item (vectors.f32), and per-item columns
for filtering (status, scope, audience, validity; columns.bin, read with or without numpy), plus the commit it
reflects. Catching up
diffs that commit's tree against HEAD (git compares subtree ids, so the work is proportional to the change)
and parses only the changed blobs. A missing, corrupt or outdated index (other model, other schema) is
rebuilt, never fatal.
"""

from __future__ import annotations

import marshal
import re
from pathlib import Path

from vmem import digest, model
from vmem.errors import SchemaError

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:  # pygit2 only when the index has to catch up: a current index is read without it
    from typing import Callable

    from vmem.store.repo import Store

    Progress = Callable[[int, int], None]

SCHEMA_VERSION = 9  # 2: statuses as history attests them (SPEC 12), the lexicon column; 3: served content;
# 4: attestation token; 5: the awaiting column; 6: columns.bin (read without numpy) instead of columns.npz;
# 7: provenance (reviewer, date, evidence) as history attests it; 8: reviewed items deleted by hand stay;
# 9: each customer's name and aliases (entity_aliases)
NO_TIME = float("nan")
LIGHT_CHANGES = 64  # up to this many changed items, a one-shot recall catches a light index up without numpy (each
# embedded in plain Python, ~2 ms); past it, numpy's import costs less
LIGHT_ROWS = 200_000  # up to this many rows a one-shot recall reads the index without numpy (its import: ~100 ms);
# past it, plain Python's per-row work (sorting every cosine, the ids) costs more than the import


def index_dir(store: Store) -> Path:
    return index_dir_for(store.root)


def index_dir_for(root: Path) -> Path:
    from vmem.store.cache import cache_home

    key = digest.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]
    return cache_home() / "index" / key


def recorded(root: Path, count: bool = True) -> dict | None:
    """What the store's index says it reflects (commit, model, schema version, item count), read with sqlite
    alone, so a caller can decide that nothing changed before importing numpy, tantivy, pygit2 or the model.
    COUNT False leaves the item count out (counting scans the table: ~15 ms at 1M items)."""
    import sqlite3

    path = index_dir_for(root) / "meta.sqlite"
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            info = {k: marshal.loads(v) for k, v in db.execute(
                "SELECT key, value FROM info WHERE key IN ('version', 'model', 'commit')")}
            if count:
                info["items"] = db.execute("SELECT COUNT(*) FROM items").fetchone()[0]
        finally:
            db.close()
    except (sqlite3.Error, ValueError, EOFError, TypeError):
        return None
    return info if info.get("version") == SCHEMA_VERSION and info.get("commit") else None


def open_text_index(root: Path):
    """The store's full-text index for reading only (tantivy, no numpy, no model); raises when there is none."""
    import tantivy

    return tantivy.Index.open(str(index_dir_for(root) / "tantivy"))


_TERM = re.compile(r"[^\W_]+")  # letters and digits: the index's tokenizer splits on anything else, "_" too


def bm25_hits(text_index, words: list[str], limit: int) -> list[tuple[str, float]]:
    """(item id, BM25 score) of the LIMIT best matches of WORDS in an open tantivy index. Any text is a valid
    WORDS: each word is reduced to its runs of letters and digits, lower case, before tantivy's query parser sees
    it, so quotes, colons, signs and brackets ("team's", "06:00", "-5%", "(pii)") are never query syntax."""
    terms = [term for word in words for term in _TERM.findall(word.lower())]
    if not terms:
        return []
    searcher = text_index.searcher()
    try:
        parsed = text_index.parse_query(" ".join(terms), ["text"])
    except ValueError:
        # every term reduced to nothing by the index's tokenizer (which reads letters a little differently from
        # Python, combining marks say): nothing to look for
        return []
    found = searcher.search(parsed, limit=limit, count=False).hits  # no total count: top-k pruning may skip
    return [(searcher.doc(address)["id"][0], score) for score, address in found]


def products(vectors, qv):
    """Each row of VECTORS (a float32 matrix: a numpy array or a memoryview cast to [rows, dims]) times QV (float32,
    e.g. an array('f')), as a buffer of float64: the one cosine kernel of every recall path (simsimd's dot, one
    thread; 10k x 256 in ~1.6 ms). Not BLAS: OpenBLAS spreads a matrix-vector product over its threads, and on a
    machine with other work they wait on each other (10k x 256 on 2 busy cores: 8 ms)."""
    import simsimd

    query = memoryview(qv).cast("B").cast("f", [1, len(qv)])
    rows = len(vectors)
    if not rows:
        return memoryview(b"").cast("d")
    return memoryview(simsimd.cdist(query, vectors, metric="dot")).cast("B").cast("d")


def dot(vectors, qv):
    """products() as a numpy array (float64), for the vectorised paths."""
    import numpy as np

    return np.frombuffer(products(vectors, qv), dtype=np.float64)


def _epoch(stamp: str | None) -> float:
    return model.parse_ts(stamp).timestamp() if stamp else NO_TIME


def item_text(item: dict) -> str:
    return " ".join(filter(None, [item.get("title"), item["statement"], " ".join(item.get("categories") or [])]))


def item_meta(item: dict) -> dict:
    """What recall needs from an item, without lineage: knowledge keeps a count, not its customers."""
    keep = ("id", "kind", "title", "statement", "scope", "status", "audience", "personal", "confidence",
            "created_at", "review", "verifications", "expires_at", "valid_from", "valid_to", "superseded_by",
            "last_reinforced", "categories")
    meta = {k: item.get(k) for k in keep}
    if item["kind"] == "knowledge":
        meta["evidence"] = [{"entity": f"e{n}"} for n in range(len({e["entity"] for e in item["evidence"]}))]
    return meta


class Metas:
    """Item metadata in SQLite: recall reads a few rows per query instead of loading 100k records at start-up."""

    def __init__(self, path: Path) -> None:
        import sqlite3

        self.db = sqlite3.connect(str(path))
        self.db.execute("CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, meta BLOB)")
        self.db.execute("CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value BLOB)")
        self._cache: dict[str, dict] = {}

    def __getitem__(self, item_id: str) -> dict:
        if item_id not in self._cache:
            row = self.db.execute("SELECT meta FROM items WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise KeyError(item_id)
            self._cache[item_id] = marshal.loads(row[0])
        return self._cache[item_id]

    def __contains__(self, item_id: str) -> bool:
        try:
            self[item_id]
            return True
        except KeyError:
            return False

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM items").fetchone()[0]

    def put(self, metas: dict[str, dict]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO items VALUES (?, ?)",
                            [(i, marshal.dumps(m)) for i, m in metas.items()])
        self._cache.update(metas)

    def drop(self, ids: list[str]) -> None:
        self.db.executemany("DELETE FROM items WHERE id = ?", [(i,) for i in ids])
        for item_id in ids:
            self._cache.pop(item_id, None)

    def info(self) -> dict:
        return {k: marshal.loads(v) for k, v in self.db.execute("SELECT key, value FROM info")}

    def set_info(self, values: dict) -> None:
        self.db.executemany("INSERT OR REPLACE INTO info VALUES (?, ?)",
                            [(k, marshal.dumps(v)) for k, v in values.items()])

    def commit(self) -> None:
        self.db.commit()


COLUMNS = ("present", "servable", "stale", "awaiting", "personal", "knowledge", "scope", "audience")
TIMES = ("valid_from", "valid_to", "expires", "published_seq")


def catching_up(path: Path):
    """The lock every process holds while it brings the index at PATH up to date (a file beside it, as a rebuild
    deletes the directory): concurrent recalls right after a commit wait for the first instead of writing tantivy,
    the vectors and the columns at once (which failed 7 of 60 such recalls with a tantivy LockBusy or a torn
    vectors file). A reader never takes it: every file it reads is checked against the others."""
    from vmem.store.lock import StoreLock, lock_timeout

    path.parent.mkdir(parents=True, exist_ok=True)  # (a rebuild at 1M items takes minutes: wait that long)
    return StoreLock(path.with_name(path.name + ".lock"), timeout=max(lock_timeout(), 300.0))


def _writable(values):
    """A light index's column (a memoryview of the columns file) as an array it can change and grow."""
    from array import array

    if isinstance(values, memoryview):
        copy = array(values.format)
        copy.frombytes(values.cast("B"))
        return copy
    return values


def _grown(values, count: int, fill):
    """VALUES (a numpy array, or a light index's array) with COUNT more rows of FILL."""
    if hasattr(values, "extend"):
        values.extend([fill] * count)
        return values
    import numpy as np

    return np.concatenate([values, np.full(count, fill, dtype=values.dtype)])


def _raw(vector, width: int) -> bytes:
    """One vector's float32 bytes (a numpy row, an array('f') or zero bytes), checked to be WIDTH long."""
    data = bytes(memoryview(vector).cast("B"))
    if len(data) != width:
        raise ValueError(f"a vector of {len(data)} bytes, not {width}")
    return data


class LocalIndex:
    """Open with LocalIndex.open(store, embed, model_id) — it is brought up to date on the way."""

    def __init__(self, store: Store, path: Path, model_id: str) -> None:
        self.store = store
        self.path = path
        self.model_id = model_id
        self.commit: str | None = None
        self.items: Metas | None = None  # id -> meta, on demand
        self.order: list[str] = []  # the item id of each row of the arrays
        self.rows: dict[str, int] = {}
        self.vectors = None
        self.columns: dict = {}
        self.entity_names: list[str] = []
        self.group_names: list[str] = []
        self.entity_aliases: dict[str, list[str]] = {}  # entity id -> its name and aliases at self.commit
        self.lexicon_since: int | None = None  # knowledge published at or after this point is held back
        self._token = None  # where the attestation stood at self.commit (see State.moved_since)
        self._tantivy = None
        self._stored_rows = 0  # rows in vectors.f32
        self._dims = 0
        self._pending: dict[int, object] = {}  # row -> new vector, written by _save
        self._blocks: Blocks | None = None  # built by a long-lived index's second query (see blocks)
        self._awaiting: Blocks | None = None
        self._queries = 0
        self.light = False  # read without numpy (open_current): columns and vectors are memoryviews
        self.stats = {"parsed": 0, "rebuilt": False}

    # -- lifecycle ------------------------------------------------------------------------------------------

    @classmethod
    def open(cls, store: Store, embed, model_id: str, progress: Progress | None = None,
             rebuild: bool = False) -> "LocalIndex":
        index = cls(store, index_dir(store), model_id)
        head = store.head().commit
        current = not rebuild and (recorded(store.root, count=False) or {}).get("commit") == (head and str(head.id))
        if current and index._load():
            return index
        with catching_up(index.path):  # one process writes at a time; the next finds what it left
            index = cls(store, index_dir(store), model_id)
            if rebuild or not index._load():
                index._reset()
            index.catch_up(embed, progress)
        return index

    @classmethod
    def open_current(cls, root: Path, commit: str, model_id: str, store: "Store | None" = None,
                     embed=None) -> "LocalIndex | None":
        """The index for one query, opened without pygit2 and, up to LIGHT_ROWS items, without numpy (light: columns
        and vectors are memoryviews), if it reflects COMMIT with this model. Given STORE (git-read: the caller saw
        the index behind) and EMBED, a light index a small change behind (up to LIGHT_CHANGES changed items, every
        text the plain tokenizer reads) first catches up, still without numpy: the one-shot recall right after a
        commit. Else None: the caller opens the store and lets LocalIndex.open catch up (and rebuild what is
        damaged)."""
        path = index_dir_for(root)
        if store is None:
            index = cls(None, path, model_id)  # type: ignore[arg-type] - a store only to catch up
            return index if index._load(light=True) and index.commit == commit else None
        with catching_up(path):  # another recall may be catching it up right now: wait, then read what it left
            index = cls(store, path, model_id)
            if not index._load(light=True) or index.commit != commit and (
                    not index.light or not index.catch_up(embed) or index.commit != commit):
                return None  # (HEAD moved meanwhile, or more than a light catch-up takes: the full command)
        return index

    def _load(self, light: bool = False) -> bool:
        from vmem.index import columns

        try:
            if not (self.path / "meta.sqlite").is_file():
                return False
            self.items = Metas(self.path / "meta.sqlite")
            info = self.items.info()
            if info.get("version") != SCHEMA_VERSION or info.get("model") != self.model_id:
                return False
            self.commit = info["commit"]
            self.entity_names, self.group_names = info["entity_names"], info["group_names"]
            self.entity_aliases = info["entity_aliases"]
            self.lexicon_since = info.get("lexicon_since")
            self._token = info.get("attest_token")
            found = columns.read_plain(self.path / columns.NAME, LIGHT_ROWS) if light else None
            if found is None:
                light, found = False, columns.read_numpy(self.path / columns.NAME)
            self.order, self.columns = found
            self.light = light
            self._stored_rows, self._dims = len(self.order), info["dims"]
            self.vectors = self._map()
            if set(self.columns) != set(COLUMNS + TIMES) or any(len(v) != len(self.order)
                                                                 for v in self.columns.values()):
                return False
            self.rows = {item_id: n for n, item_id in enumerate(self.order)}
            self._open_tantivy(create=False)
            return True
        except Exception:  # noqa: BLE001 - any damage means: rebuild from git
            return False

    def _map(self):
        """The vectors, memory-mapped read-only: loading costs nothing and nothing is copied. A light index maps
        them as a memoryview of float32 [rows, dims]; a file of another size is damage (ValueError)."""
        path = self.path / "vectors.f32"
        if self._stored_rows and path.stat().st_size != self._stored_rows * self._dims * 4:
            raise ValueError("vectors.f32 does not match the index")
        if self.light:
            import mmap

            if not self._stored_rows:
                return memoryview(b"").cast("f")
            with open(path, "rb") as handle:
                mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            return memoryview(mapped).cast("f", [self._stored_rows, self._dims])
        import numpy as np

        if not self._stored_rows:
            return np.zeros((0, self._dims), dtype=np.float32)
        return np.memmap(path, dtype=np.float32, mode="r", shape=(self._stored_rows, self._dims))

    def _reset(self) -> None:
        import shutil

        import numpy as np

        shutil.rmtree(self.path, ignore_errors=True)
        self.path.mkdir(parents=True, exist_ok=True)
        self.items = Metas(self.path / "meta.sqlite")
        self.commit, self.order, self.rows = None, [], {}
        self._token, self.lexicon_since = None, None
        self.entity_names, self.group_names, self.entity_aliases = [], [], {}
        self._stored_rows, self._pending, self.light = 0, {}, False
        self.vectors = self._map()
        self.columns = {name: np.zeros(0, dtype=np.int32) for name in COLUMNS}
        self.columns.update({name: np.zeros(0) for name in TIMES})
        self._open_tantivy(create=True)
        self._blocks = self._awaiting = None
        self.stats["rebuilt"] = True

    def _open_tantivy(self, create: bool) -> None:
        import shutil

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

    def catch_up(self, embed, progress: Progress | None = None) -> bool:
        """Bring the index to HEAD: parse, index and embed only the items whose blobs (or what history attests of
        them) changed. A light index does it without numpy, or returns False having written nothing when it
        cannot (no index commit to start from, history started over, more than LIGHT_CHANGES items, a text only
        the tokenizers library reads)."""
        from vmem.store.changes import changes_since, entry_at, tree_changes

        repo = self.store.repo
        head = self.store.head().commit
        if head is None or self.commit == str(head.id):
            return True
        state = self.store.attestation()
        changed: dict[str, str | None] = {}
        tops = ("claims", "knowledge", "entities")
        diff = changes_since(repo, self.commit, head, tops) if self.commit else None
        moved = state.moved_since(self._token) if diff is not None else None
        if diff is None or moved is None:  # no index yet, or history (or the attestation) started over
            if self.light:
                return False
            if self.commit:
                self._reset()
            state.preload()
            diff = {**state.dropped_changes(), **tree_changes(None, head.tree, tops)}
        else:
            for path in moved - set(diff):  # the file is as it was, but what history attests of it changed
                diff[path] = entry_at(head.tree, path)
        self._read_aliases({path: diff.pop(path) for path in [p for p in diff if p.startswith("entities/")]})
        for path, change in diff.items():
            if path.endswith(".yaml"):  # the blob whose content history attests (a hand edit is not indexed)
                changed[path] = state.serve(path, change)  # a reviewed item deleted without a reviewer: kept
        if self.light and len(changed) > LIGHT_CHANGES or not self._apply(changed, embed, progress, state):
            return False
        self._token = state.token()
        self.lexicon_since = state.lexicon_since
        self.commit = str(head.id)
        self._save()
        return True

    def _read_aliases(self, changed: dict) -> None:
        """Keep each customer's name and aliases (entities/ID.yaml at HEAD, CHANGED: path -> Change) for recall to
        know a question that says "LHP" or "Larkspur Health Partners" names entity:larkspur-health. An unreadable
        file names nothing (vmem check reports it)."""
        from vmem.store import blobs
        from vmem.store.repo import parse_blob

        for path, change in changed.items():
            self.entity_aliases.pop(path[9:-5], None)
            if change is None or not change.is_file or not path.endswith(".yaml"):
                continue
            try:
                entity = parse_blob("entity", path, change.oid, blobs.read(self.store, change.oid))
            except SchemaError:
                continue
            self.entity_aliases[path[9:-5]] = [entity["name"], *(entity.get("aliases") or [])]

    def _apply(self, changed: dict[str, str | None], embed, progress: Progress | None, state) -> bool:
        from vmem.store import blobs
        from vmem.store.repo import parse_blob

        updates: dict[str, dict] = {}
        removed: list[str] = []
        total = len(changed)
        for n, (path, oid) in enumerate(sorted(changed.items()), 1):
            if progress and (n % 500 == 0 or n == total):
                progress(n, total)
            if oid is None:
                if Path(path).stem in self.rows:
                    removed.append(Path(path).stem)
                continue
            kind = "claim" if path.startswith("claims/") else "knowledge"
            try:
                item = parse_blob(kind, path, oid, blobs.read(self.store, oid))
            except SchemaError:
                continue  # vmem check reports it; the index serves the rest
            if model.item_path(item["id"]) != path:
                continue
            meta = item_meta(state.as_served(path, item))
            meta["status"] = state.status_of(path) or "unattested"  # served as history attests it (SPEC 12)
            meta["published_seq"] = state.published.get(path) if meta["status"] == "published" else None
            updates[item["id"]] = meta
        self.stats["parsed"] += len(updates)
        if not updates and not removed:
            return True
        texts = [item_text(meta) for meta in updates.values()]
        if self.light:  # a few items, one by one with the question's own plain-Python kernel (Embedder.query)
            vectors = [embed.query(text, light=True) for text in texts]
            if None in vectors:
                return False  # a text only the tokenizers library reads: nothing written, the full command
            self.columns = {name: _writable(values) for name, values in self.columns.items()}
        else:
            vectors = embed(texts) if updates else []
        if len(vectors):
            self._dims = len(vectors[0])
        import tantivy

        self._blocks = self._awaiting = None
        writer = self._tantivy.writer(heap_size=50_000_000, num_threads=1)
        for item_id in removed + list(updates):
            writer.delete_documents_by_term("id", item_id)
        for item_id, text in zip(updates, texts):
            writer.add_document(tantivy.Document(id=item_id, text=text))
        writer.commit()
        writer.wait_merging_threads()
        self.items.drop(removed)
        self.items.put(updates)
        new_ids = [i for i in updates if i not in self.rows]
        if new_ids:
            start = len(self.order)
            for offset, item_id in enumerate(new_ids):
                self.rows[item_id] = start + offset
            self.order.extend(new_ids)
            for name in COLUMNS:
                self.columns[name] = _grown(self.columns[name], len(new_ids), 0)
            for name in TIMES:
                self.columns[name] = _grown(self.columns[name], len(new_ids), NO_TIME)
        for n, (item_id, meta) in enumerate(updates.items()):
            row = self.rows[item_id]
            self._pending[row] = vectors[n]
            self._set_row(row, meta)
        for item_id in removed:
            row = self.rows[item_id]
            self._pending[row] = bytes(4 * self._dims)  # a zero vector
            self.columns["present"][row] = 0
        return True

    def _code(self, names: list[str], name: str) -> int:
        if name not in names:
            names.append(name)  # codes only ever grow, so existing rows stay valid
        return names.index(name) + 1

    def _set_row(self, row: int, meta: dict) -> None:
        """One item's filter columns, so scope soundness is a vectorised mask at query time."""
        c = self.columns
        c["present"][row] = 1
        c["servable"][row] = meta["status"] in model.SERVABLE[meta["kind"]]
        c["stale"][row] = meta["status"] in model.STALE
        c["awaiting"][row] = meta["status"] in model.AWAITING  # what recall counts for an uncovered answer
        c["personal"][row] = bool(meta.get("personal"))
        c["knowledge"][row] = meta["kind"] == "knowledge"
        scope = meta.get("scope") or "org"
        c["scope"][row] = self._code(self.entity_names, scope[7:]) if scope.startswith("entity:") else 0
        audience = meta.get("audience") or "all"
        c["audience"][row] = self._code(self.group_names, audience[6:]) if audience.startswith("group:") else 0
        c["valid_from"][row] = _epoch(meta.get("valid_from"))
        c["valid_to"][row] = _epoch(meta.get("valid_to"))
        c["expires"][row] = _epoch(meta.get("expires_at"))
        seq = meta.get("published_seq")
        c["published_seq"][row] = NO_TIME if seq is None else float(seq)

    def _save(self) -> None:
        """Write what changed: vector rows in place (appending new ones), the small column file, then the commit.
        Plain file writes, so a light index saves without numpy."""
        from vmem.index import columns

        self.path.mkdir(parents=True, exist_ok=True)
        vectors_file = self.path / "vectors.f32"
        width = self._dims * 4
        if self._stored_rows and (not vectors_file.exists() or vectors_file.stat().st_size != self._stored_rows * width):
            raise OSError("vectors.f32 does not match the index")  # damaged: the next open rebuilds
        with open(vectors_file, "r+b" if self._stored_rows else "wb") as handle:
            for row in sorted(row for row in self._pending if row < self._stored_rows):
                handle.seek(row * width)
                handle.write(_raw(self._pending[row], width))
            handle.seek(self._stored_rows * width)
            handle.write(b"".join(_raw(self._pending[row], width)
                                  for row in range(self._stored_rows, len(self.order))))
        self._stored_rows, self._pending = len(self.order), {}
        self.vectors = self._map()
        columns.write(self.path / columns.NAME, self.order, self.columns)
        self.items.set_info({"version": SCHEMA_VERSION, "model": self.model_id, "commit": self.commit,
                             "entity_names": self.entity_names, "group_names": self.group_names,
                             "entity_aliases": self.entity_aliases,
                             "dims": self._dims, "lexicon_since": self.lexicon_since,
                             "attest_token": self._token})
        self.items.commit()  # last: a crash before this leaves an older commit recorded, so it catches up again

    # -- querying ----------------------------------------------------------------------------------------------

    def blocks(self, now: float) -> "Blocks | None":
        """The servable rows grouped by Blocks, for an index that answers more than one query (the MCP server, an
        eval, a benchmark), as of NOW; None for its first query, which multiplies every row (a one-shot process
        never pays the copy), and if the clock went back since they were grouped."""
        import time

        self._queries += 1
        if self._blocks is None and self._queries > 1 and self.order and not self.light:
            self._blocks = Blocks(self, time.time())
        return self._blocks if self._blocks is not None and now >= self._blocks.built else None

    def awaiting_blocks(self) -> "Blocks | None":
        """The rows awaiting review grouped by Blocks, once the servable ones are (a long-lived index); built at
        the first uncovered answer that needs them. None: multiply every row."""
        import time

        if self._blocks is None:
            return None
        if self._awaiting is None:
            self._awaiting = Blocks(self, time.time(), awaiting=True)
        return self._awaiting

    def bm25(self, query: str, limit: int) -> list[tuple[str, float]]:
        import re

        words = re.findall(r"\w+", query.lower())
        if not words:
            return []
        self._tantivy.reload()
        return bm25_hits(self._tantivy, words, limit)



class Blocks:
    """Some of an open index's rows, with their vectors and columns copied in an order that makes each scope's
    rows contiguous: org-wide ones (org claims and knowledge) first, then one block per entity. Either the rows
    a query can be served (servable, not personal, and not a claim already past expires_at or valid_to when the
    blocks were built: time only moves on, so those never become live again) or, for an uncovered answer, the
    rows awaiting review. A query multiplies only the blocks its scope may see, from memory, not through the
    memory map (org scope on the benchmark's 100k store: 21k of 100k rows). --include-superseded needs the other
    rows: the full product."""

    def __init__(self, index: LocalIndex, now: float, awaiting: bool = False) -> None:
        import numpy as np

        c = index.columns
        self.built = now
        if awaiting:
            wanted = c["awaiting"] == 1
        else:
            ended = ((c["knowledge"] == 0) & (c["expires"] <= now)) | (c["valid_to"] <= now)  # NaN: never
            wanted = (c["servable"] == 1) & ~ended
        keep = np.flatnonzero((c["present"] == 1) & (c["personal"] == 0) & wanted)
        group = np.where((c["knowledge"][keep] == 1) | (c["scope"][keep] == 0), 0, c["scope"][keep])
        order = np.lexsort((keep, group))  # by group (0: org-wide, else the entity's code), then row
        self.rows = keep[order]
        self.vectors = np.ascontiguousarray(index.vectors[self.rows], dtype=np.float32)
        self.columns = {name: values[self.rows] for name, values in c.items()}
        group = group[order]
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if group.size else np.zeros(0, dtype=int)
        ends = np.r_[starts[1:], group.size]
        self._spans = {int(group[s]): (int(s), int(e)) for s, e in zip(starts, ends)}

    def take(self, entity_code: int, qv) -> tuple:
        """(index rows, cosines to QV, columns) of the rows visible in the scope of the entity with ENTITY_CODE
        (0 or less: org-wide only)."""
        import numpy as np

        keys = (0, entity_code) if entity_code > 0 else (0,)
        spans = [self._spans[key] for key in keys if key in self._spans]
        if len(spans) == 1:
            (start, end), = spans
            return (self.rows[start:end], dot(self.vectors[start:end], qv),
                    {name: values[start:end] for name, values in self.columns.items()})
        pick = np.concatenate([np.arange(s, e) for s, e in spans]) if spans else np.zeros(0, dtype=np.int64)
        return (self.rows[pick], np.concatenate([dot(self.vectors[s:e], qv) for s, e in spans]) if spans
                else np.zeros(0), {name: values[pick] for name, values in self.columns.items()})
