"""Trust derived from history (SPEC 12): the status each item may be served with, as git history attests it.

A status in a file is a claim about history. Walking the commits oldest first, an item's *attested status*
moves only when a commit changes the file's status in a way that was allowed: a vmem commit that names the
item, a transition the lifecycle table permits, and for governance targets (approved, mandatory, revoked,
rejected, published) the matching action by a committer who is a reviewer in the policy attested at the parent
(with a verified signature when `require_signed`). New files enter at an entry status (a proposed claim, a
candidate or quarantined learning), or at any status through a reviewer's import. A change that was not allowed
leaves the attested status where it was and is recorded as *unattested*, with the commit that made it.

The policy is attested the same way: a change to vmem.yaml counts only if its committer is a reviewer under the
policy attested before it (anyone, while the list is empty), so nobody adds themselves as a reviewer.

The lexicon is tracked too: an entity or episode file that cannot be read is *broken* from the commit that
broke it, and knowledge published after that point is not served until the file is fixed (SPEC 11).

The result is cached per commit in the user cache directory and brought forward commit by commit, each step
costing a tree diff and the parse of the files it changed.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from vmem import digest, model
from vmem.errors import SchemaError
from vmem.policy import DEFAULTS, POLICY_FILE, load_policy
from vmem.store import codec
from vmem.store.cache import cache_file
from vmem.store.changes import Change, changed_files, remembering, tree_changes
from vmem.store.message import parse as parse_message
from vmem.store.parse import bulk, parse_ahead, parse_blob, parsed

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Callable
    import pygit2

# 4: who decided each row, whose reviewers each line has (merges); 3: evidence lineage; 2: served content (the
# blob a reviewer attested) and content changes made without one
# 10: an eligible learning edited after a hand-written status is a candidate too; 9: who edited an open item's words;
# 8: customers a reviewer counted; 7: an eligible learning edited after its count is a candidate; 6: reviewed items
# removed without a reviewer (dropped); 5: lexicon versions kept
FORMAT = 10
TOPS = ("claims", "knowledge", "entities", "episodes", POLICY_FILE)
from vmem.model import SERVABLE  # noqa: E402 - the one family of reviewed, served statuses
ENTRY = {"claim": ("proposed",), "knowledge": ("candidate", "quarantined")}
# governance targets, and the vmem actions that may set each (a reviewer's); the other targets, and the actions that
# set them (anyone's, within the lifecycle): both read off model.ACTIONS, the one table of who may do what
GOVERNED = {status: model.setters(status, reviewer=True) for status in model.GOVERNED_STATUSES}
GOVERNED_ACTIONS = model.REVIEWER_ACTIONS
ROUTINE = {status: model.setters(status) for status in model.ROUTINE_STATUSES}
# what an agent is served of an item: a change to any of these needs a reviewer too, like a status change
CONTENT = {"claim": ("statement", "title", "scope", "audience", "personal", "paths", "expires_at", "valid_from",
                     "valid_to"),
           "knowledge": ("statement", "audience", "valid_from", "valid_to")}
CONTENT_ACTIONS = tuple(a.name for a in model.ACTIONS.values() if a.changes == "content")
# how sure an agent is told to be, and on whose word: changed only by the commands that set the status
PROVENANCE = {"claim": ("review", "confidence", "source", "created_at"), "knowledge": ("published",)}
# two lawful steps that one consolidate commit takes at once
NET_STEPS = {("knowledge", "eligible", "quarantined"), ("knowledge", "candidate", "published"),
             ("knowledge", "quarantined", "eligible"),  # a quarantined learning released and passing at once
             ("knowledge", "eligible", "merged")}  # a reviewer merges an eligible learning into another


_GONE = object()
_UNSET = object()
ROW = ("status", "unattested", "published", "served", "altered", "evidence", "forged", "decider", "edited")


class Overlay:
    """One per-item table: what the replayed commits changed, over a read-only base (the stored attestation)."""

    def __init__(self, column: str, base: Callable[[str], dict | None] | None, changes: dict | None = None):
        self.column, self.base, self.changes = column, base, dict(changes or {})

    def get(self, path: str, default=None):
        value = self.changes.get(path, _UNSET)  # one lookup: a replay asks ~16 times per item
        if value is not _UNSET:
            return default if value is _GONE else value
        row = self.base(path) if self.base is not None else None
        value = row.get(self.column) if row else None
        return default if value is None else value

    def __contains__(self, path: str) -> bool:
        return self.get(path) is not None

    def __getitem__(self, path: str):
        value = self.get(path)
        if value is None:
            raise KeyError(path)
        return value

    def __setitem__(self, path: str, value) -> None:
        self.changes[path] = value

    def pop(self, path: str, default=None):
        value = self.get(path, _UNSET)
        if value is _UNSET:
            return default  # nothing here or below to hide: no change to record (a replay pops ~4 columns per item)
        self.changes[path] = _GONE
        return value

    def setdefault(self, path: str, value):
        if path not in self:
            self[path] = value
        return self[path]

    def copy(self) -> "Overlay":
        return Overlay(self.column, self.base, self.changes)


class State:
    """The attestation as of one commit: per-item rows (stored in SQLite, read on demand) plus small globals."""

    def __init__(self, data: dict | None = None, base: Callable[[str], dict | None] | None = None) -> None:
        data = data or {}
        self.status = Overlay("status", base)  # item path -> attested status
        self.unattested = Overlay("unattested", base)  # path -> [status in the file, commit that set it]
        self.published = Overlay("published", base)  # knowledge path -> seq of the publish that attests it
        self.served = Overlay("served", base)  # path -> [blob whose content is attested, its fingerprint]
        self.altered = Overlay("altered", base)  # path -> commit that changed served content without a reviewer
        self.evidence = Overlay("evidence", base)  # knowledge path -> evidence keys history attests
        self.forged = Overlay("forged", base)  # knowledge path -> commit that added evidence history does not
        # path -> [commit, committer e-mail, time] of the reviewer's decision the row rests on (None: none needed);
        # what a merge checks before it carries the row over, and where served provenance comes from
        self.decider = Overlay("decider", base)
        # path -> [commit, committer]: the last change of an open item's words by someone other than its writer
        # (the card says so, rather than show the edit as the proposer's)
        self.edited = Overlay("edited", base)
        self.broken: dict[str, list] = data.get("broken", {})  # lexicon path -> [seq it broke at, problem]
        # lexicon path -> [[blob, commit, committer], ...]: versions a commit without a reviewer removed or replaced;
        # the de-id gate still reads them (SPEC 12: the lexicon fails closed on deletion too)
        self.kept: dict[str, list] = data.get("kept", {})
        # item path -> [commit, committer]: a reviewed (servable) item whose file a commit without a reviewer removed
        self.dropped: dict[str, list] = data.get("dropped", {})
        # entity path -> [commit, committer, blob]: the version of each customer a reviewer's own commit wrote or
        # approved; only those count toward k and the category floor (every file feeds the lexicon at once)
        self.customers: dict[str, list] = data.get("customers", {})
        self.policy: dict = data.get("policy") or DEFAULTS
        self.policy_blob: str | None = data.get("policy_blob")
        self.policy_unattested: list | None = data.get("policy_unattested")  # [blob, commit, committer]
        self.policy_by: list | None = data.get("policy_by")  # [commit, committer, time] that set the policy
        self.refused: list[list] = data.get("refused", [])  # [commit, action, committer, why]
        self.seq: int = data.get("seq", 0)
        self.commit: str | None = data.get("commit")
        self.root: str | None = data.get("root")  # the first commit of this commit's own line
        # the store's root commit (its identity across clones): the line HEAD is on may have another root (an
        # orphan history checked out), which then attests nothing
        self.store_root: str | None = data.get("store_root")
        # the commit that first gave this line's policy reviewers (None: anyone may review here); a policy is
        # carried with it through merges, so two lines share it only if their reviewers stem from one decision
        self.governed_since: str | None = data.get("governed_since")
        # the store's: the governed_since of the line it has followed (None: no reviewers yet). A line with other
        # reviewers (a fork from before reviewers existed that named its own) cannot vouch for what it merges in
        self.anchor: str | None = data.get("anchor")
        self.epoch: str | None = data.get("epoch")  # changes when the stored attestation is rebuilt
        self.store: AttestDB | None = None

    def globals(self) -> dict:
        return {"broken": self.broken, "kept": self.kept, "dropped": self.dropped, "customers": self.customers,
                "policy": self.policy, "policy_blob": self.policy_blob,
                "policy_unattested": self.policy_unattested, "policy_by": self.policy_by, "refused": self.refused,
                "seq": self.seq, "commit": self.commit, "root": self.root, "store_root": self.store_root, "anchor": self.anchor,
                "governed_since": self.governed_since, "epoch": self.epoch}

    def copy(self) -> "State":
        import marshal

        twin = State(marshal.loads(marshal.dumps(self.globals())))
        for column in ROW:
            setattr(twin, column, getattr(self, column).copy())
        twin.store = self.store
        return twin

    def changed_paths(self) -> set[str]:
        return set().union(*(getattr(self, column).changes for column in ROW))

    def changed_rows(self) -> dict[str, dict]:
        """path -> row for every path a replay changed, built column by column (a replay from the first commit
        changes every item: one pass per column instead of a lookup per column and path)."""
        overlays = [getattr(self, column) for column in ROW]
        paths = self.changed_paths()
        if any(overlay.base is not None for overlay in overlays):
            return {path: self.row(path) for path in paths}  # over stored rows: the few a catch-up changed
        rows = {path: dict.fromkeys(ROW) for path in paths}
        for column, overlay in zip(ROW, overlays):
            for path, value in overlay.changes.items():
                if value is not _GONE:
                    rows[path][column] = value
        return rows

    def row(self, path: str) -> dict:
        return {column: getattr(self, column).get(path) for column in ROW}

    # -- what consumers ask -------------------------------------------------------------------------------------

    def status_of(self, path: str) -> str | None:
        """The status history attests for the item at PATH (None: none; such an item is never served)."""
        return self.status.get(path)

    @property
    def lexicon_since(self) -> int | None:
        """The point in history from which the lexicon has been incomplete (None: every file reads)."""
        return min(seq for seq, _ in self.broken.values()) if self.broken else None

    def servable(self, path: str, kind: str) -> bool:
        """Attested as servable; knowledge published after the lexicon broke is held back until it is fixed."""
        if self.status.get(path) not in SERVABLE[kind]:
            return False
        since = self.lexicon_since
        return kind != "knowledge" or since is None or self.published.get(path, since) < since

    def served_blob(self, path: str, current: str | None) -> str | None:
        """The blob to serve for PATH: the version whose content history attests (a hand edit of an approved
        statement is not served; the reviewed text is), else the CURRENT one."""
        found = self.served.get(path)
        return found[0] if found else current

    def serve(self, path: str, change: Change | None) -> str | None:
        """The blob agents are served for PATH, whose file at HEAD is CHANGE: the version history attests (a hand
        edit of a reviewed text serves the reviewed one), and for a reviewed item a non-reviewer removed, still
        that version (SPEC 12: a deletion is a proposal); None: nothing to serve."""
        if change is not None and change.is_file:
            return self.served_blob(path, change.oid)
        found = self.served.get(path) if path in self.dropped else None
        return found[0] if found else None

    def dropped_changes(self) -> dict[str, Change]:
        """PATH -> its absence, for every reviewed item removed without a reviewer: what a reader of HEAD's tree
        adds so that serve() gives it the reviewed version."""
        return {path: Change(None) for path in self.dropped}

    def attested_evidence(self, path: str, item: dict) -> list[dict]:
        """ITEM's evidence entries that history vouches for (what support and writers may count)."""
        keys = {tuple(k) for k in self.evidence.get(path) or []}
        return [e for e in item.get("evidence") or [] if evidence_key(e) in keys]

    def as_served(self, path: str, item: dict) -> dict:
        """ITEM as agents are told of it: who reviewed or published it and when, from the reviewer commit history
        attests (not the file's `review.by`), and only the evidence history vouches for (what support counts)."""
        decided = self.decider.get(path)
        served = dict(item)
        if decided is not None:
            when = _stamp(decided[2])
            if item["kind"] == "claim" and item.get("review"):
                served["review"] = {**item["review"], "by": decided[1], "at": when}
            elif item["kind"] == "knowledge" and item.get("published"):
                served["published"] = {**item["published"], "by": decided[1], "at": when}
        if item["kind"] == "knowledge" and item.get("evidence"):
            served["evidence"] = self.attested_evidence(path, item)
        return served

    def lexicon_problems(self) -> list[tuple[str, str]]:
        return sorted((path, problem) for path, (_, problem) in self.broken.items())

    def findings(self) -> list[tuple[str, dict]]:
        """(path, row) for every item whose file says more than history attests (a status, or an edit)."""
        paths = set(self.store.flagged()) if self.store is not None else set()
        paths |= self.changed_paths()
        rows = [(path, self.row(path)) for path in sorted(paths)]
        return [(path, row) for path, row in rows if row["unattested"] or row["altered"] or row["forged"]]

    def preload(self) -> None:
        """Read every stored row at once (before looking at the whole store: one query, not one per item)."""
        if self.store is not None:
            self.store.preload()

    def token(self) -> list:
        """Where a consumer's cache stands: hand it back to moved_since to learn what changed after."""
        return [self.epoch, self.seq]

    def moved_since(self, token) -> set[str] | None:
        """Item paths whose attested row changed after TOKEN (None: unknown, look at everything)."""
        if self.store is None or not isinstance(token, list) or len(token) != 2 or token[0] != self.epoch:
            return None
        return self.store.moved_since(token[1], self.seq)


class AttestDB:
    """The stored attestation, SQLite in the user cache dir: rows read on demand, so catching up after one commit
    reads and writes the few rows it changed, not the whole store's (100k items: ~2 ms instead of ~250 ms)."""

    JOURNAL_KEEP = 20_000  # commits of row changes kept for consumers catching up; older tokens rebuild
    CHECKPOINT_FROM = 1_000  # rows written by one catch-up beyond which it checkpoints the write-ahead log (a
    # replay from the first commit always does)

    def __init__(self, path: Path) -> None:
        import sqlite3

        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), timeout=10, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        # A cache: a commit need not reach the disk before the command goes on (no fsync per write; WAL keeps the
        # file consistent, and a file lost or damaged by a power cut is rebuilt from git, like any damaged cache)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(f"PRAGMA journal_size_limit={4 << 20}")  # a checkpointed WAL is cut back to 4 MiB
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB)")
        self.db.execute("CREATE TABLE IF NOT EXISTS items (path TEXT PRIMARY KEY, row BLOB, flagged INTEGER)")
        self.db.execute("CREATE TABLE IF NOT EXISTS journal (seq INTEGER, path TEXT)")
        self.db.execute("CREATE INDEX IF NOT EXISTS journal_seq ON journal (seq)")
        self._rows: dict[str, dict | None] = {}

    def load(self) -> State | None:
        import marshal

        found = self.db.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
        if found is None:
            return None
        data = marshal.loads(found[0])
        if data.get("format") != FORMAT:
            return None
        state = State(data, self.row)
        state.store = self
        return state

    def row(self, path: str) -> dict | None:
        import marshal

        if path not in self._rows:
            if getattr(self, "_complete", False):
                return None
            found = self.db.execute("SELECT row FROM items WHERE path = ?", (path,)).fetchone()
            self._rows[path] = marshal.loads(found[0]) if found else None
        return self._rows[path]

    def preload(self) -> None:
        import marshal

        if not getattr(self, "_complete", False):
            rows = {p: marshal.loads(r) for p, r in self.db.execute("SELECT path, row FROM items")}
            self._rows = {**rows, **{p: v for p, v in self._rows.items() if p not in rows and v is not None}}
            self._complete = True

    def flagged(self) -> list[str]:
        return [p for (p,) in self.db.execute("SELECT path FROM items WHERE flagged = 1")]

    def moved_since(self, seq: int, head_seq: int) -> set[str] | None:
        found = self.db.execute("SELECT value FROM meta WHERE key = 'journal_from'").fetchone()
        complete_from = int(found[0]) if found else head_seq  # the journal holds every change after this seq
        if seq > head_seq or seq < complete_from:
            return None
        return {p for (p,) in self.db.execute("SELECT DISTINCT path FROM journal WHERE seq > ?", (seq,))}

    def save(self, since: str | None, state: State) -> None:
        """Store STATE, brought forward from commit SINCE (None: replayed from the first commit), if nobody stored
        another meanwhile (compare and swap on SINCE)."""
        import marshal
        import os

        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            found = db.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
            current = marshal.loads(found[0]).get("commit") if found else None
            if since is not None and current != since:
                db.execute("ROLLBACK")
                return  # another process moved it meanwhile; ours was right for this call all the same
            if since is None:
                db.execute("DELETE FROM items")
                db.execute("DELETE FROM journal")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('journal_from', ?)", (state.seq,))
                state.epoch = os.urandom(8).hex()
            rows, kept = [], {}
            built = state.changed_rows()
            changed = sorted(built)  # in key order: SQLite appends to its index instead of inserting
            for path in changed:
                row = built[path]
                if any(value is not None for value in row.values()):
                    flag = row["unattested"] or row["altered"] or row["forged"]
                    rows.append((path, marshal.dumps(row), int(bool(flag))))
                    kept[path] = row
                else:
                    db.execute("DELETE FROM items WHERE path = ?", (path,))
            db.executemany("INSERT OR REPLACE INTO items VALUES (?, ?, ?)", rows)
            if since is not None:
                db.executemany("INSERT INTO journal VALUES (?, ?)", [(state.seq, p) for p in changed])
                cutoff = state.seq - self.JOURNAL_KEEP
                if db.execute("DELETE FROM journal WHERE seq <= ?", (cutoff,)).rowcount:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('journal_from', "
                               "MAX(?, COALESCE((SELECT value FROM meta WHERE key = 'journal_from'), 0)))",
                               (cutoff,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('state', ?)",
                       (marshal.dumps({**state.globals(), "format": FORMAT}),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if since is None or len(rows) > self.CHECKPOINT_FROM:
            # A replay wrote every row (~300 MB at 1M items) to the write-ahead log. Commands end with os._exit,
            # so nothing else checkpoints it: the next process would read the whole log to open the file and
            # copy it into the database at its first write (0.6 s measured at 1M). This process pays instead.
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.OperationalError:
                pass  # busy: a later checkpoint does it
        # the rows as stored: the overlays that held them are cleared below, so nothing else refers to them
        gone = set(changed)
        self._rows = {p: v for p, v in self._rows.items() if p not in gone} | kept
        self._complete = since is None or getattr(self, "_complete", False)  # a full replay holds every row
        # the rows are stored: later reads go to the table (and its cache); after a full replay, every row is in the
        # cache, which is then asked directly (a cold sync asks ~20 times per item)
        base = self._rows.get if self._complete else self.row
        for column in ROW:
            getattr(state, column).changes.clear()
            getattr(state, column).base = base
        state.store = self


def _now() -> float:
    import time

    return time.time()


_STAMPS: dict[int, str] = {}


def _stamp(seconds: int) -> str:
    """A commit time as vmem writes times; a store's decisions share few commits, so each is formatted once."""
    if seconds not in _STAMPS:
        from datetime import datetime, timezone

        _STAMPS[seconds] = model.format_ts(datetime.fromtimestamp(seconds, timezone.utc))
    return _STAMPS[seconds]


def cache_path(root: Path) -> Path:
    return cache_file(root).with_suffix(".attest.sqlite")


def attestation(repo: pygit2.Repository, root: Path, commit: str | None = None) -> State:
    """The attestation at COMMIT (default HEAD): stored per store, brought forward from the stored commit. A look
    into the past (recall --as-of) is replayed in memory and leaves the store alone."""
    if repo.head_is_unborn:
        return State()
    if getattr(repo, "lite", False) is True:
        head = repo.head_commit() if commit is None else repo.commit(commit)
    else:
        import pygit2

        head = repo.head.peel(pygit2.Commit) if commit is None else repo[commit].peel(pygit2.Commit)
    try:
        store = AttestDB(cache_path(root))
        start = store.load()
    except Exception:  # noqa: BLE001 - a damaged cache is rebuilt, never fatal
        cache_path(root).unlink(missing_ok=True)
        store, start = AttestDB(cache_path(root)), None
    pins = ((start.store_root or start.root, start.anchor) if start is not None
            else (pinned_root(repo), pinned_root(repo, PIN_ANCHOR)))
    if commit is not None and head.id != repo.head.target:
        with bulk():
            return _walk(repo, head, None, root, pins)  # the past: replayed in memory
    if start is not None and start.commit == str(head.id):
        return start
    since = start.commit if start is not None else None
    with bulk():
        return _replay(repo, head, start, root, pins, store, since)


def _replay(repo, head, start: State | None, root: Path, pins: tuple, store: AttestDB, since: str | None) -> State:
    """Replay from START (None: the first commit) to HEAD and store the result."""
    try:
        state = _walk(repo, head, start, root, pins)
        if getattr(state, "foreign", False):
            return state  # never stored: the store's own line is what the cache follows
        store.save(since if state.epoch is not None else None, state)  # no epoch: replayed from the first commit
    except sqlite3.DatabaseError:  # damaged rows found on the way: replay from the first commit into a new file
        for suffix in ("", "-wal", "-shm"):
            Path(str(cache_path(root)) + suffix).unlink(missing_ok=True)
        store = AttestDB(cache_path(root))
        state = _walk(repo, head, None, root, pins)
        store.save(None, state)
    return state


PIN = "vmem.root"  # git config: the store's root commit as this clone first saw it (`vmem clone`, `vmem setup`)
PIN_ANCHOR = "vmem.reviewed-since"  # git config: the commit that first gave the store reviewers, as first seen


def pinned_root(repo, key: str = PIN) -> str | None:
    from vmem.store.gitconfig import setting as _config

    found = _config(repo, key)
    return found.strip().lower() if found and len(found.strip()) in (40, 64) else None


def pin_identity(repo) -> None:
    """Remember the store's identity as this clone first saw it: its root commit, and the commit that first gave
    it reviewers. A history merged in later that claims another root, or a fork from before reviewers that named
    its own, then attests nothing here, whichever parent order its merge chose, even after the attestation cache
    is gone. Kept in the clone's own git config, which nobody can push."""
    if repo.head_is_unborn or pinned_root(repo) is not None:
        return
    state = attestation(repo, Path(repo.workdir))  # the first replay: also the cache the first sync will use
    repo.config[PIN] = state.store_root or state.root or first_root(repo)
    if state.anchor:
        repo.config[PIN_ANCHOR] = state.anchor


def first_root(repo) -> str | None:
    """The root commit of HEAD's first-parent line (None: no commits)."""
    if repo.head_is_unborn:
        return None
    import pygit2

    at = repo.head.peel(pygit2.Commit)
    while at.parent_ids:
        at = repo[at.parent_ids[0]]
    return str(at.id)


def _walk(repo: pygit2.Repository, head: pygit2.Commit, start: State | None, root: Path,
          pins: tuple[str | None, str | None] = (None, None)) -> State:
    """Replay the commits after START's commit up to HEAD, oldest first; from the root if START does not fit."""
    lite = getattr(repo, "lite", False) is True
    commits = _range(repo, head, start.commit) if start is not None and start.commit else None
    if lite and commits is None:
        # not a straight line from the stored commit (a merge, a replay from the first commit, a rewritten
        # history): pygit2's topological walk over the same repository; pygit2 also reads a million blobs faster
        # than a pipe does. Chosen before anything is replayed, never a second try.
        full = repo.walker()
        return _walk(full, full[str(head.id)], start, root, pins)
    # The store's identity: its root commit, and the commit from which it has had reviewers. Kept from the stored
    # attestation (or the root pinned when the clone was made) while history still holds them, so a line merged
    # in later cannot take them over; else read off HEAD's first-parent line.
    known_root, known_anchor = pins
    if commits is None:
        start = None  # replayed from the first commit: stored as a new epoch
        import pygit2

        commits = list(repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE))
    states: dict[str, State] = {start.commit: start} if start is not None else {}
    need: dict[str, int] = {}
    first: dict[str, str | None] = {}
    for commit in commits:
        first[str(commit.id)] = str(commit.parent_ids[0]) if commit.parent_ids else None
        for parent_id in commit.parent_ids:
            need[str(parent_id)] = need.get(str(parent_id), 0) + 1
    line, at = [], str(head.id)  # HEAD's first-parent line among the commits replayed, newest first
    while at in first:
        line.append(at)
        at = first[at]
    if start is not None:
        store_root, anchor = start.store_root or start.root, start.anchor
    else:  # known and still in the repository (a store made anew at the same path has other commits)
        store_root = known_root if _exists(repo, known_root) else (line[-1] if line else None)
        anchor = known_anchor if _exists(repo, known_anchor) else None
    on_line = set(line) if anchor is None else ()
    seq = start.seq if start is not None else 0
    verifier = _Verifier(root)
    with remembering():  # each commit's tree diff, computed once for the look-ahead and the step
        if len(commits) > 1 and getattr(repo, "lite", False) is not True:
            _parse_ahead(repo, commits)
        for commit in commits:
            seq += 1
            commit_id = str(commit.id)
            state = _step(repo, commit, states, need, seq, verifier, store_root, anchor)
            if anchor is None and commit_id in on_line and state.governed_since:
                anchor = state.governed_since  # the reviewers the store's own line has had from the start
            state.seq, state.commit, state.anchor, state.store_root = seq, commit_id, anchor, store_root
            states[commit_id] = state
    final = states[str(head.id)]
    if store_root is not None and (final.root != store_root or (
            anchor is not None and final.governed_since is not None and final.governed_since != anchor)):
        # HEAD is on a history unrelated to the store (an orphan branch checked out), or on a line whose reviewers
        # are not the store's (a fork from before reviewers that named its own): it attests nothing
        foreign = State({"store_root": store_root, "anchor": anchor, "root": final.root, "commit": final.commit,
                         "seq": final.seq})
        foreign.foreign = True
        return foreign
    return final


def _parse_ahead(repo: pygit2.Repository, commits: list) -> None:
    """Parse every item version the replay will read before stepping through it (on two cores when there are
    many: a fresh clone's replay is mostly parsing). Only the parse cache is filled; the steps decide everything."""
    import pygit2

    wanted = [("claim" if path.startswith("claims/") else "knowledge", path, change.oid)
              for path, change in changed_files(commits, TOPS) if path.startswith(("claims/", "knowledge/"))
              and path.endswith(".yaml") and change.is_file]
    where = repo.path

    def reader():
        fresh = pygit2.Repository(where).odb  # the second process's own handle: none of libgit2's state is shared
        return lambda oid: fresh.read(oid)[1]

    odb = repo.odb  # the object database read directly: ~35 % less than building a Blob object per file
    # meanwhile: PyYAML, which every vmem.yaml needs (its comments are outside the line reader), ~30 ms to import
    parse_ahead(wanted, lambda oid: odb.read(oid)[1], reader, meanwhile=codec.yaml_loader)


def _exists(repo, commit_id: str | None) -> bool:
    if not commit_id:
        return False
    try:
        return (repo.commit_or_none(commit_id) if getattr(repo, "lite", False) is True else repo.get(commit_id)) \
            is not None
    except (KeyError, ValueError, TypeError):
        return False


def _range(repo: pygit2.Repository, head: pygit2.Commit, since: str) -> list[pygit2.Commit] | None:
    """The commits after SINCE up to HEAD, oldest first, if each one's parents are among them or SINCE."""
    if getattr(repo, "lite", False) is True:  # None: not a straight line (the caller takes pygit2's walk)
        if repo.commit_or_none(since) is None:
            return None
        return repo.linear_range(head, since) or None  # empty: HEAD is SINCE's ancestor; replay from the start
    import pygit2

    try:
        repo[since].peel(pygit2.Commit)
    except (KeyError, ValueError, TypeError, pygit2.GitError):
        return None
    walker = repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    walker.hide(since)
    commits = list(walker)
    if not commits:
        return None  # HEAD is SINCE's ancestor (a look into the past): replay from the start
    known = {since} | {str(c.id) for c in commits}
    if any(str(p) not in known for c in commits for p in c.parent_ids) or any(not c.parent_ids for c in commits):
        # HEAD is not a descendant of SINCE (history rewritten, branch switched), or a root commit is among the new
        # ones (an orphan history, which descends from nothing): start over, keeping the store's known identity
        return None
    return commits


def _take(states: dict[str, State], need: dict[str, int], commit_id: str, own: bool) -> State:
    """A parent's state: handed over when this is its last child to be replayed, else copied (or read only)."""
    need[commit_id] -= 1
    if need[commit_id] == 0:
        return states.pop(commit_id)
    return states[commit_id].copy() if own else states[commit_id]


class _Verifier:
    """Reviewer checks with `require_signed`: a good signature, checked by git, by a key the attested policy lists
    for the reviewer (signing_keys); once per commit. WHY tells a refused commit's reason."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._why: dict[str, str | None] = {}

    def signed(self, commit_id: str, email: str, policy: dict) -> bool:
        """Does COMMIT_ID carry a good signature that the attested POLICY accepts as EMAIL's?"""
        from vmem.store import signing

        ok, self._why[commit_id] = signing.verify(self.root, commit_id, email, policy)
        return ok

    def why(self, commit_id: str) -> str | None:
        """Why COMMIT_ID's signature was refused (None: it was not checked, or it verified)."""
        return self._why.get(commit_id)


def is_reviewer(policy: dict, email: str) -> bool:
    reviewers = {r.casefold() for r in policy["reviewers"]}
    return not reviewers or email.casefold() in reviewers


def _base(states: dict[str, State], parent_ids: list[str], store_root: str | None, anchor: str | None) -> int:
    """Which parent of a merge is the line it lands on: the first whose reviewers are the store's (anchor), else the
    first from the store's root that has reviewers at all (a line where anyone may review cannot vouch for what it
    brings into one with reviewers), else the first from the store's root, else the first. Not simply the first
    parent: whoever makes a merge chooses its parents' order, and a fast-forward push of it is allowed."""
    found = [states[p] for p in parent_ids]
    rooted = lambda s: s.root == store_root  # noqa: E731
    for test in (lambda s: anchor is not None and rooted(s) and s.governed_since == anchor,
                 lambda s: rooted(s) and s.governed_since is not None, rooted):
        for n, state in enumerate(found):
            if test(state):
                return n
    return 0


def decision(commit: pygit2.Commit) -> list:
    """What a row or the policy records of the reviewer commit it rests on."""
    return [str(commit.id), commit.committer.email, commit.committer.time]


def _step(repo, commit: pygit2.Commit, states: dict[str, State], need: dict[str, int], seq: int,
          verifier: _Verifier, store_root: str | None = None, anchor: str | None = None) -> State:
    commit_id = str(commit.id)
    parents = commit.parents
    if parents:
        ids = [str(p.id) for p in parents]
        base = _base(states, ids, store_root, anchor)
        state = _take(states, need, ids[base], own=True)
        others = []
        for n, parent in enumerate(parents):
            if n != base:
                other = _take(states, need, ids[n], own=False)
                if other.root == state.root == (store_root or state.root):  # another root attests nothing
                    others.append((parent, other, _merge_base(repo, parents[base], parent)))
                else:
                    state.refused.append([commit_id, f"merge of a history unrelated to the store ({ids[n][:10]})",
                                          commit.committer.email, "its commits attest nothing here"])
        changes = tree_changes(parents[base].tree, commit.tree, TOPS)
    else:
        state, others, changes = State(), [], tree_changes(None, commit.tree, TOPS)
        state.root = commit_id
    for _, other, _ in others:  # what any line kept for the lexicon stays kept
        for path, entries in other.kept.items():
            mine = state.kept.setdefault(path, [])
            mine.extend(list(e) for e in entries if not any(e[0] == m[0] for m in mine))
        for path, found in other.dropped.items():
            state.dropped.setdefault(path, found)
    if others:
        changes = _overruled(repo, state, others, parents[base], commit, changes)
    if not changes:
        if len(parents) == 1 and commit.message.startswith("vmem: approve"):
            _admit(repo, state, commit, verifier)
        return state
    message = parse_message(commit.message)
    policy = state.policy
    verdict: dict[str, bool] = {}

    def reviewer() -> bool:
        if "ok" not in verdict:
            verdict["ok"] = is_reviewer(policy, commit.committer.email) and (
                not policy["require_signed"] or verifier.signed(commit_id, commit.committer.email, policy))
        return verdict["ok"]

    def vouches(decided: list | None, what: str) -> bool:
        """May a decision made on another line of a merge count here? Only if its committer is a reviewer under
        the policy of the line it lands on (signed by that reviewer's key, with require_signed)."""
        if decided is None:
            return True  # nothing there needed a reviewer (a proposal, a gate result)
        who = decided[1]
        ok = is_reviewer(policy, who) and (not policy["require_signed"] or verifier.signed(decided[0], who, policy))
        if not ok:
            state.refused.append([commit_id, f"merge of {what} decided in {decided[0][:10]}", who,
                                  "not a reviewer of the line it was merged into" if not is_reviewer(policy, who)
                                  else f"signature does not verify ({verifier.why(decided[0]) or 'unsigned'})"])
        return ok

    if message is not None and message.action in GOVERNED_ACTIONS and not reviewer():
        who = commit.committer.email
        why = ("not a reviewer" if not is_reviewer(policy, who)
               else f"signature does not verify ({verifier.why(commit_id) or 'no good signature'})")
        state.refused.append([commit_id, message.action, who, why])
    pool = {tuple(key) for p in changes if p.startswith("knowledge/") for key in state.evidence.get(p) or []}
    for path, change in sorted(changes.items()):
        # the other parents that changed PATH since they parted from the landing line: taking another parent's
        # version that it never changed is not its decision, it is a rollback of the landing line's
        fresh = [(parent, other) for parent, other, (tree, _) in others
                 if _entry(parent.tree, path) != _entry(tree, path)] if others else ()
        adopted = _from_other_parent(state, fresh, path, change, vouches) if fresh else False
        if path.startswith(("entities/", "episodes/")):
            before = [_entry(parents[base].tree if parents else None, path)]
            before += [_entry(parent.tree, path) for parent, _, _ in others]
            _lexicon_step(repo, state, path, change, seq, before, commit, reviewer, adopted=adopted)
            continue
        if adopted:
            continue
        if path == POLICY_FILE:
            _policy_step(repo, state, change, commit, reviewer)
        elif path.startswith(("claims/", "knowledge/")):
            _item_step(repo, state, fresh, path, change, commit, message, reviewer, seq, policy, vouches)
            if path.startswith("knowledge/"):
                _evidence_step(repo, state, fresh, path, change, commit, message, reviewer, pool)
    return state


def _merge_base(repo, ours, theirs) -> tuple:
    """(tree, commit id) where two parents of a merge parted (None, None: unrelated, or unknown)."""
    try:
        found = repo.merge_base(ours.id, theirs.id)
        return (repo[found].tree, str(found)) if found is not None else (None, None)
    except Exception:  # noqa: BLE001 - no base found: every version counts as changed, which only adds checks
        return None, None


def _seen(repo, line, commit_id: str) -> bool:
    """Does the commit LINE (a merge's landing parent) have COMMIT_ID in its history already?"""
    if str(line.id) == commit_id:
        return True
    try:
        return bool(repo.descendant_of(line.id, commit_id))
    except Exception:  # noqa: BLE001 - unknown: treat as not seen, so the newer decision is weighed
        return False


def _overruled(repo, state: State, others: list, line, commit, changes: dict) -> dict:
    """A merge that keeps the landing line's version of an item another parent changed since they parted throws
    that change away. If the change was a decision the landing line has not seen (a revoke, say, when the
    landing line is an old branch fast-forwarded onto main), the result is judged against that decision, as the
    merge commit's own change: it cannot roll the decision back."""
    out = dict(changes)
    for parent, other, (tree, _) in others:
        for path, theirs in tree_changes(tree, parent.tree, ("claims", "knowledge")).items():
            if path in out or _entry(commit.tree, path) == theirs:
                continue
            decided = other.decider.get(path)
            if decided is None or other.row(path) == state.row(path) or _seen(repo, line, decided[0]):
                continue
            for table in ROW:  # the decision the result must answer to
                mine, source = getattr(state, table), getattr(other, table)
                if path in source:
                    mine[path] = source[path]
                else:
                    mine.pop(path, None)
            out[path] = _entry(commit.tree, path) or Change(None)
    return out


def _from_other_parent(state: State, others: list, path: str, change: Change, vouches) -> bool:
    """A merge that took another parent's version of a file takes that parent's attestation of it too, if the
    decision it rests on would count on the line it lands on (else the file is judged as this commit's change).
    OTHERS: the parents that changed the file since they parted from the landing line."""
    for parent, other in others:
        try:
            entry = parent.tree[path]
        except KeyError:
            entry = None
        theirs = Change(str(entry.id), entry.filemode) if entry is not None else Change(None)
        if theirs != change:
            continue
        if path == POLICY_FILE:
            if other.policy_blob != state.policy_blob and not vouches(other.policy_by, POLICY_FILE):
                return False
        elif path.startswith(("claims/", "knowledge/")) and other.row(path) != state.row(path):
            if not vouches(other.decider.get(path), path):
                return False
        elif path.startswith("entities/") and other.customers.get(path) != state.customers.get(path):
            if other.customers.get(path) is not None and not vouches(other.customers[path], path):
                return False
            if path in other.customers:
                state.customers[path] = other.customers[path]
            else:
                state.customers.pop(path, None)
        for table in ROW:
            mine, source = getattr(state, table), getattr(other, table)
            if path in source:
                mine[path] = source[path]
            else:
                mine.pop(path, None)
        if path in other.broken:
            state.broken[path] = other.broken[path]
        else:
            state.broken.pop(path, None)
        if path == POLICY_FILE:
            state.policy, state.policy_blob = other.policy, other.policy_blob
            state.policy_unattested, state.policy_by = other.policy_unattested, other.policy_by
            state.governed_since = other.governed_since
        return True
    return False


def _policy_step(repo, state: State, change: Change, commit: pygit2.Commit, reviewer: Callable[[], bool]) -> None:
    if not change.is_file:
        return  # vmem never reads a symlinked or missing vmem.yaml; the attested policy stays
    if len(commit.parent_ids) > 1 or not reviewer():
        # a merge carries a parent's attested policy (above) but never vouches for a vmem.yaml of its own: a
        # reviewer's `git pull` would otherwise make a teammate's unreviewed lines official
        state.policy_unattested = [change.oid, str(commit.id), commit.committer.email]
        return
    try:
        text = codec.decode(repo[change.oid].data, POLICY_FILE)
        policy = load_policy(codec.load(text, POLICY_FILE), POLICY_FILE)
    except SchemaError:
        return  # unreadable: every command says so; the attested policy stays
    state.policy, state.policy_blob, state.policy_unattested = policy, change.oid, None
    state.policy_by = decision(commit)
    if not policy["reviewers"]:
        state.governed_since = None
    elif state.governed_since is None:
        state.governed_since = str(commit.id)


def lexicon_problem(repo, path: str, change: Change) -> str | None:
    """Why an entities/ or episodes/ file cannot feed the lexicon (None: it can, or it is not a lexicon file)."""
    name = path.rsplit("/", 1)[-1]
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix not in ("yaml", "yml"):
        return None if change.is_file or change.oid is None else "a symlink or other non-file; vmem never follows it"
    if not name.endswith(".yaml"):
        return "named .yml or .YAML; vmem reads only .yaml files: rename it"
    if not change.is_file:
        return "a symlink; vmem never follows symlinks: replace it with the file itself"
    kind = "entity" if path.startswith("entities/") else "episode"
    try:
        parse_blob(kind, path, change.oid, repo[change.oid].data)
    except SchemaError as exc:
        return exc.message
    return None


def _entry(tree, path: str) -> Change | None:
    try:
        entry = tree[path] if tree is not None else None
    except KeyError:
        return None
    return Change(str(entry.id), entry.filemode) if entry is not None else None


def _admit(repo, state: State, commit: pygit2.Commit, verifier: _Verifier) -> None:
    """`vmem entity approve`: a reviewer's commit that changes no file and names customers makes their current
    versions count toward k and the category floor."""
    message = parse_message(commit.message)
    email = commit.committer.email
    if message is None or message.action != "approve" or not is_reviewer(state.policy, email) or (
            state.policy["require_signed"] and not verifier.signed(str(commit.id), email, state.policy)):
        return
    for name in message.items:
        path = f"entities/{name}.yaml"
        entry = _entry(commit.tree, path) if model.NAME_ID.fullmatch(name) else None
        if entry is not None and entry.is_file and lexicon_problem(repo, path, entry) is None:
            state.customers[path] = [str(commit.id), email, entry.oid]


def _lexicon_step(repo, state: State, path: str, change: Change, seq: int, before: list | None = None,
                  commit=None, reviewer: Callable[[], bool] | None = None, adopted: bool = False) -> None:
    """BEFORE: the file in each parent. A version a commit without a reviewer removes or replaces stays in the
    lexicon (kept); so does one a merge drops, whichever parent it came from."""
    problem = None
    if not adopted:
        problem = lexicon_problem(repo, path, change) if change.oid is not None else None
        if problem is None:
            state.broken.pop(path, None)
        elif path not in state.broken:
            state.broken[path] = [seq, problem]
        else:
            state.broken[path] = [state.broken[path][0], problem]
    own = commit is not None and len(commit.parent_ids) < 2 and reviewer()  # a reviewer's own commit
    if own and path.startswith("entities/") and not adopted:
        if change.is_file and problem is None:
            state.customers[path] = [str(commit.id), commit.committer.email, change.oid]
        elif not change.is_file:
            state.customers.pop(path, None)
    gone = [b for b in before or () if b is not None and b.oid != change.oid]
    if commit is None or not gone or not path.endswith(".yaml"):
        return
    if own:
        state.kept.pop(path, None)  # a reviewer's own commit (vmem forget, say) settles what the lexicon holds
        return
    for version in gone:
        if version.is_file and lexicon_problem(repo, path, version) is None:
            entries = state.kept.setdefault(path, [])
            if not any(e[0] == version.oid for e in entries):
                entries.append([version.oid, str(commit.id), commit.committer.email])


def _read_item(repo, path: str, change: Change) -> dict | None:
    if not change.is_file or not path.endswith(".yaml"):
        return None
    kind = "claim" if path.startswith("claims/") else "knowledge"
    item = parsed(kind, change.oid)  # read once per process: a knowledge item is asked for twice per change
    if item is None:
        try:
            item = parse_blob(kind, path, change.oid, repo[change.oid].data)
        except SchemaError:
            return None
    return item if model.item_path(item["id"]) == path else None


def fingerprint(item: dict) -> str:
    values = repr(tuple(map(item.get, CONTENT[item["kind"]])))
    return digest.sha1(values.encode("utf-8")).hexdigest()[:16]


def _item_step(repo, state: State, others: list, path: str, change: Change, commit: pygit2.Commit, message,
               reviewer: Callable[[], bool], seq: int, policy: dict, vouches=lambda decided, what: True) -> None:
    if not change.is_file:
        kind = "claim" if path.startswith("claims/") else "knowledge"
        if state.status.get(path) in SERVABLE[kind] and not (len(commit.parent_ids) < 2 and reviewer()):
            # a reviewed decision removed without a reviewer: reported, and kept, so restoring the file (git revert)
            # brings the reviewed item back as it was
            state.dropped[path] = [str(commit.id), commit.committer.email]
            return
        for table in (state.status, state.unattested, state.published, state.served, state.altered, state.decider):
            table.pop(path, None)  # gone (or a symlink, which is never read): nothing to serve
        return
    state.dropped.pop(path, None)
    item = _read_item(repo, path, change)
    if item is None:
        return  # unreadable: never served; what history attested stays for when it is fixed
    new, prev = item["status"], state.status.get(path)
    if new == prev:
        state.unattested.pop(path, None)
        if new == "eligible" and _edited_after_count(state, path, item, message):
            # its support was counted for another statement: a candidate again until the gates count it anew,
            # as vmem's own edit does (SPEC 12)
            state.status[path] = "candidate"
            state.unattested[path] = [new, str(commit.id), "edited"]
            state.served[path] = [change.oid, fingerprint(item)]
            return
        _content_step(repo, state, path, change, item, message, commit, reviewer)
        return
    source = next((o for _, o in others if o.status.get(path) == new and vouches(o.decider.get(path), path)),
                  None) if others else None
    if source is not None:
        # a merge keeping the other side's status (the merge driver's union, say): attested there
        state.status[path] = new
        state.unattested.pop(path, None)
        for table in ("published", "served", "altered", "decider"):
            mine, theirs = getattr(state, table), getattr(source, table)
            if path in theirs:
                mine[path] = theirs[path]
            else:
                mine.pop(path, None)
        return
    asked: list[bool] = []

    def vouched() -> bool:
        asked.append(True)
        return reviewer()

    if allowed(item, prev, message, commit, vouched, policy) and not (
            new == "published" and prev == "eligible" and _restated(repo, state, path, item)):
        state.status[path] = new
        state.unattested.pop(path, None)
        state.served[path] = [change.oid, fingerprint(item)]  # what the transition was made on
        state.altered.pop(path, None)
        if asked:
            state.decider[path] = decision(commit)
        elif new in SERVABLE[item["kind"]]:
            state.decider[path] = state.policy_by  # published by the policy's auto_publish: its reviewer's word
        else:
            state.decider.pop(path, None)
        if new == "published":
            state.published[path] = seq
        else:
            state.published.pop(path, None)
    elif prev == "eligible" and _edited_after_count(state, path, item, message):
        # its words changed under a status the commit may not set ("candidate" written by hand first, the words
        # edited after): a candidate again all the same, as when the file still says eligible
        state.status[path] = "candidate"
        state.served[path] = [change.oid, fingerprint(item)]
        if new == "candidate":
            state.unattested.pop(path, None)
        else:
            state.unattested[path] = [new, str(commit.id), "edited"]
    elif (state.unattested.get(path) or [None])[0] != new:
        state.unattested[path] = [new, str(commit.id)]


def _edited_after_count(state: State, path: str, item: dict, message) -> bool:
    """Did this commit change what an eligible learning says (or to whom) without the commands that count its
    support again (consolidate, a reviewer's merge)?"""
    counted = state.served.get(path)
    if counted is None or counted[1] == fingerprint(item):
        return False
    return not (message is not None and message.action in ("consolidate", "merge") and item["id"] in message.items)


def _restated(repo, state: State, path: str, item: dict) -> bool:
    """Does a publication change the statement its support was counted for? (publish sets the audience, never
    the words.)"""
    counted = state.served.get(path)
    old = _read_item(repo, path, Change(counted[0], 0o100644)) if counted else None
    return old is None or old["statement"] != item["statement"]


def evidence_key(entry: dict) -> tuple:
    return (entry["entity"], entry["writer"].casefold(), entry.get("episode"))


def _evidence_step(repo, state: State, others: list, path: str, change: Change, commit: pygit2.Commit, message,
                   reviewer: Callable[[], bool], pool: set) -> None:
    """Which evidence entries of a knowledge item history vouches for: each added by a proposal whose writer is
    the commit's committer, moved by a consolidation from an item that had it, kept through a merge from the
    side that had it, or imported by a reviewer. Anything else (a hand-added customer or writer) does not count
    toward support or writers, and is reported."""
    item = _read_item(repo, path, change)
    if item is None:
        if not change.is_file and path not in state.dropped:  # a dropped item keeps what counted for it
            state.evidence.pop(path, None)
            state.forged.pop(path, None)
        return
    keys = {evidence_key(e) for e in item["evidence"]}
    had = {tuple(k) for k in state.evidence.get(path) or []}
    added = keys - had
    action = message.action if message is not None else None
    vouched: set = set()
    if action in ("propose", "reinforce") and item["id"] in message.items:
        vouched = {k for k in added if k[1] == commit.committer.email.casefold()}
    elif (action == "consolidate" or (action == "merge" and reviewer())) and item["id"] in message.items:
        vouched = added & pool  # moved from an item that had it: by the cascade, or by a reviewer's merge
    elif action == "supersede" and item["id"] in message.items and model.ITEM_ID.fullmatch(message.supersedes or ""):
        # a learning reworded: its evidence moved from the item it supersedes, which had it (and this commit changed)
        vouched = added & pool & {tuple(k) for k in state.evidence.get(model.item_path(message.supersedes)) or []}
    elif action == "import" and reviewer():
        vouched = added
    for _, other in others:
        vouched |= added & {tuple(k) for k in other.evidence.get(path) or []}
    state.evidence[path] = sorted(list(k) for k in (keys & had) | vouched)
    if added - vouched:
        state.forged.setdefault(path, str(commit.id))  # the commit that first brought unvouched evidence
    elif not keys - {tuple(k) for k in state.evidence.get(path)}:
        state.forged.pop(path, None)


def _provenance_kept(repo, state: State, path: str, change: Change, item: dict, message,
                     commit: pygit2.Commit) -> bool:
    """Between the served version and ITEM, did only what vmem's routine commands change, as they change it? The
    review and publication records, the base confidence and the source are set by the commands that set the
    status; a verification is added by `vmem verify`, in the verifier's own name."""
    served = state.served.get(path)
    if served[0] == change.oid:
        return True
    old = _read_item(repo, path, Change(served[0], 0o100644))
    if old is None:
        return False
    if any(old.get(key) != item.get(key) for key in PROVENANCE[item["kind"]]):
        return False
    before, after = old.get("verifications") or [], item.get("verifications") or []
    if after[:len(before)] != before:
        return False  # a verification removed or rewritten
    added = after[len(before):]
    if not added:
        return True
    latest = min(commit.committer.time, _now()) + 300  # a verification dated ahead would freeze its claim's age
    return (message is not None and message.action == "verify" and item["id"] in message.items
            and all(v["user"].casefold() == commit.committer.email.casefold()
                    and model.parse_ts(v["at"]).timestamp() <= latest for v in added))


def _content_step(repo, state: State, path: str, change: Change, item: dict, message, commit: pygit2.Commit,
                  reviewer: Callable[[], bool]) -> None:
    """The status held; did what an agent is served change, and who changed it? The statement and what it
    applies to need a reviewer; the record of who reviewed it and how sure we are changes only as vmem changes it
    (a hand-edited `review.by`, confidence or verification is not served: the version before it is)."""
    mark = fingerprint(item)
    served = state.served.get(path)
    if served is not None and served[1] != mark and item["status"] not in SERVABLE[item["kind"]]:
        source = item.get("source") or {}
        evidence = item.get("evidence") or [{}]
        writer = source.get("user") if item["kind"] == "claim" else evidence[0].get("writer")
        if commit.committer.email.casefold() != (writer or "").casefold():
            state.edited[path] = [str(commit.id), commit.committer.email]
    if item["status"] not in SERVABLE[item["kind"]] or served is None or (
            served[1] == mark and _provenance_kept(repo, state, path, change, item, message, commit)):
        state.served[path] = [change.oid, mark]  # not served, or the same content (a verification, evidence)
        state.altered.pop(path, None)
        return
    if (message is not None and message.action in CONTENT_ACTIONS
            and (message.action == "import" or item["id"] in message.items) and reviewer()):
        state.served[path] = [change.oid, mark]
        state.altered.pop(path, None)
        state.decider[path] = decision(commit)
        return
    state.altered.setdefault(path, str(commit.id))  # the reviewed version stays the one served


def allowed(item: dict, prev: str | None, message, commit: pygit2.Commit, reviewer: Callable[[], bool],
            policy: dict) -> bool:
    """May this commit move ITEM from PREV (None: a new file) to the status its file now holds?"""
    kind, new = item["kind"], item["status"]
    action = message.action if message is not None else None
    if action is None or (action != "import" and item["id"] not in message.items):
        return prev is None and new in ENTRY[kind]  # anyone may add a proposal, by hand or not
    if prev is None:
        if new in ENTRY[kind]:
            return True
        if action == "import":
            return reviewer()
        if kind == "knowledge" and action == "supersede":
            return new in model.ACTIONS[action].sets  # a learning reworded, its gates run at once: eligible if passed
        return kind == "claim" and action == "supersede" and new in SERVABLE["claim"] and reviewer()
    if new not in model.TRANSITIONS[kind].get(prev, ()) and not (
            (kind, prev, new) in NET_STEPS and action in ("consolidate", "merge")):
        return False
    if new in GOVERNED:
        if new == "published" and action == "consolidate":
            knowledge = policy["knowledge"]
            return bool(knowledge["auto_publish"] and knowledge["default_audience"])
        return action in GOVERNED[new] and reviewer()
    if action == "import":
        return reviewer()
    if action not in ROUTINE.get(new, ()):
        return False  # a gate result claimed by an approve commit, say: the action must be one that sets it
    if action in GOVERNED_ACTIONS or (new == "superseded" and prev in SERVABLE[kind]):
        return reviewer()  # approving a revision retires the old claim; retiring a reviewed belief: reviewers
    if new == "expired":
        expires = item.get("expires_at")
        # the committer chooses the commit's date: an expiry dated in the future is not one yet
        return bool(expires) and model.parse_ts(expires).timestamp() <= min(commit.committer.time, _now())
    return True
