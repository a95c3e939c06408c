"""The store: a git repository read through snapshots of its tree and written through one-commit transactions."""

from __future__ import annotations

import marshal
import os
from collections import namedtuple
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from vmem import model
from vmem.errors import DirtyWorkTree, ItemNotFound, SchemaError, StoreNotFound, UsageError, VmemError
from vmem.policy import POLICY_FILE, load_policy
from vmem.store import codec
from vmem.store.gitconfig import setting
from vmem.store.lite import FILEMODE_LINK, hash_file
from vmem.store.lock import StoreLock
from vmem.store.message import Message
from vmem.store.parse import PARSED, parse_blob  # noqa: F401 - re-exported

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator
    import pygit2

PENDING_FILE = "vmem-pending"  # in .git: a commit whose files may not be in the work tree yet
LOCK_FILE = "vmem.lock"


class Loaded(namedtuple("Loaded", "path oid item error", defaults=(None,))):
    """One file read from a tree (path, blob id): its parsed content (item), or the error that stopped it."""

    __slots__ = ()


def _copy(item: dict) -> dict:
    """Items are shared through the parse cache; hand out copies that callers may change (marshal: fast, C)."""
    return marshal.loads(marshal.dumps(item))


class Snapshot:
    """Read access to the store as of one commit (HEAD, or the tree at some past date)."""

    def __init__(self, repo: pygit2.Repository, commit: pygit2.Commit | None) -> None:
        self.repo = repo
        self.commit = commit
        self.tree = commit.tree if commit is not None else None

    @property
    def commit_id(self) -> str | None:
        return str(self.commit.id) if self.commit is not None else None

    def blob(self, path: str) -> tuple[str, bytes] | None:
        if self.tree is None:
            return None
        try:
            entry = self.tree[path]
        except KeyError:
            return None
        if entry.type_str != "blob" or entry.filemode == FILEMODE_LINK:
            return None  # symlinks inside the store are never followed
        return str(entry.id), self.repo[entry.id].data

    def blobs(self, paths: list[str]) -> dict[str, tuple[str, bytes]]:
        """path -> (blob id, bytes) of each of PATHS that is a file at this commit. Through vmem.store.lite the
        paths go to git in one pipelined request (`COMMIT:PATH`, resolved by git): one round trip instead of a
        shard tree read and parsed per path (16 files at 100k: ~3 ms against ~8). Unlike blob(), a symbolic link
        at a path comes back as what git stores for it, the text of its target, never followed: for a caller that
        only needs candidates (the contradiction check, which parses and validates each one before it warns)."""
        if self.tree is None or not paths:
            return {}
        if getattr(self.repo, "lite", False) is not True:
            return {path: found for path in paths if (found := self.blob(path)) is not None}
        safe = [p for p in paths if 0 < len(p) < 4096 and not any(c in p for c in "\n\r\0")
                and all(part not in ("", ".", "..") for part in p.split("/"))]  # git reads ./ and ../ as relative
        asked = self.repo.lookup_many([f"{self.commit_id}:{p}" for p in safe])
        return {path: (str(found[0]), found[2]) for path, found in zip(safe, asked)
                if found is not None and found[1] == "blob"}

    def blob_data(self, oids: list[str]) -> list[bytes | None]:
        """The bytes of each blob of OIDS (None for one the repository lacks): one pipelined request through
        vmem.store.lite."""
        if getattr(self.repo, "lite", False) is True:
            return [None if found is None or found[1] != "blob" else found[2]
                    for found in self.repo.lookup_many([str(oid) for oid in oids])]
        out: list[bytes | None] = []
        for oid in oids:
            try:
                out.append(self.repo[oid].data)
            except KeyError:
                out.append(None)
        return out

    def resolve_id(self, text: str) -> str:
        """TEXT when it is a whole item id; else the one item whose id starts with TEXT (c- or k- and at least 4
        hex digits, like git's short SHAs). Ambiguous: a usage error listing the candidates; none: ItemNotFound.
        Looks in one shard only (the first two hex digits name it), so the cost does not grow with the store."""
        if isinstance(text, str) and model.ITEM_ID.fullmatch(text):
            return text
        if not isinstance(text, str) or not model.ITEM_PREFIX.fullmatch(text):
            return model.check_item_id(text)  # raises the grammar's error
        kind = model.KIND_OF_PREFIX[text[0]]
        shard = f"{model.ITEM_DIRS[kind]}/{text[2:4]}"
        found: list[str] = []
        try:
            folder = self.tree[shard] if self.tree is not None else None
        except KeyError:
            folder = None
        if folder is not None and folder.type_str == "tree":
            found = sorted(entry.name[:-5] for entry in folder
                           if entry.name.startswith(text) and entry.name.endswith(".yaml")
                           and model.ITEM_ID.fullmatch(entry.name[:-5]))
        return only_match(text, found)

    def item(self, item_id: str) -> dict:
        path = model.item_path(item_id)
        found = self.blob(path)
        if found is None:
            raise ItemNotFound(f"no item {item_id} in this store", "list items with: vmem list")
        item = parse_blob(model.kind_of(item_id), path, found[0], found[1])
        if item["id"] != item_id:
            raise SchemaError(path, f"file holds id {item['id']}, not {item_id}", "ids must match file names")
        return _copy(item)

    def load_file(self, kind: str, path: str) -> dict | None:
        found = self.blob(path)
        return None if found is None else _copy(parse_blob(kind, path, found[0], found[1]))

    def walk(self, top: str) -> Iterator[tuple[str, pygit2.Object]]:
        if self.tree is None:
            return
        try:
            root = self.tree[top]
        except KeyError:
            return
        if root.type_str != "tree":
            return
        stack = [(top, root)]
        lite = getattr(self.repo, "lite", False) is True
        while stack:
            prefix, tree = stack.pop()
            if lite:  # every caller reads the files: one pipelined read per tree, not one round trip per file
                tree = list(tree)
                self.repo.prefetch([e for e in tree if e.type_str == "blob" and e.name.endswith(".yaml")])
            for entry in tree:
                path = f"{prefix}/{entry.name}"
                if entry.type_str == "tree":
                    stack.append((path, entry))
                elif entry.type_str == "blob" and entry.filemode != FILEMODE_LINK:
                    yield path, entry

    def files(self, kind: str, may_match: Callable[[bytes], bool] | None = None) -> Iterator[Loaded]:
        """Every file of one kind, parsed; a broken file yields its error instead of stopping the rest.

        MAY_MATCH, given a file's raw bytes, may return False to skip parsing a file the caller can prove it does
        not want (parsing costs ~1 ms per file; a byte test ~1 us). It must never return False for a wanted file.
        """
        top = {"claim": "claims", "knowledge": "knowledge", "entity": "entities", "episode": "episodes"}[kind]
        for path, entry in sorted(self.walk(top), key=lambda pe: pe[0]):
            if not path.endswith(".yaml"):
                continue
            oid = str(entry.id)
            data = entry.data
            if may_match is not None and (kind, oid) not in PARSED and not may_match(data):
                continue
            try:
                yield Loaded(path, oid, _copy(parse_blob(kind, path, oid, data)))
            except SchemaError as exc:
                yield Loaded(path, oid, None, exc)

    def items(self, kinds: tuple[str, ...] = ("claim", "knowledge")) -> Iterator[Loaded]:
        for kind in kinds:
            yield from self.files(kind)

    def entities(self) -> dict[str, dict]:
        return {loaded.item["id"]: loaded.item for loaded in self.files("entity") if loaded.item}  # copies

    def lexicon_problems(self) -> list[tuple[str, str]]:
        """(path, problem) for each entities/ or episodes/ file that cannot feed the de-id lexicon: unreadable,
        invalid, a symlink, or named .yml. Any one of them makes the gate fail closed."""
        from vmem.store.attest import lexicon_problem
        from vmem.store.changes import tree_changes

        if self.tree is None:
            return []
        changes = tree_changes(None, self.tree, ("entities", "episodes"))
        found = [(path, lexicon_problem(self.repo, path, change)) for path, change in changes.items()]
        return sorted((path, problem) for path, problem in found if problem)

    def kept_lexicon(self) -> tuple[list[dict], list[dict]]:
        """(entities, episodes): versions of lexicon files that a commit without a reviewer removed or replaced.
        The de-id gate still reads them (SPEC 12), so a customer deleted by hand is still screened for."""
        if self.commit is None:
            return [], []
        from vmem.store.attest import attestation

        state = attestation(self.repo, Path(self.repo.workdir), self.commit_id)
        wanted = [(path, oid) for path, entries in sorted(state.kept.items()) for oid, _, _ in entries]
        found: tuple[list[dict], list[dict]] = ([], [])
        for (path, oid), data in zip(wanted, self.blob_data([oid for _, oid in wanted]) if wanted else []):
            kind = "entity" if path.startswith("entities/") else "episode"
            try:
                if data is None:
                    raise SchemaError(path, f"kept version {oid[:10]} is missing", "run git fsck")
                found[kind == "episode"].append(parse_blob(kind, path, oid, data))
            except SchemaError:
                continue  # it was readable when it was kept; a pruned object is a broken clone
        return found

    def counted_entities(self) -> dict[str, dict]:
        """id -> entity, as a reviewer's own commit last wrote or approved it: the customers that count toward k and
        the category floor (SPEC 7.2). A customer an analyst added, or a version an analyst edited, waits for a
        reviewer (`vmem entity approve`); the lexicon reads every file at once."""
        if self.commit is None:
            return {}
        known = getattr(self, "_counted", None)
        if known is not None:  # a snapshot is one commit: the review queue asks once per card
            return {entity_id: dict(entity) for entity_id, entity in known.items()}
        from vmem.store.attest import attestation

        state = attestation(self.repo, Path(self.repo.workdir), self.commit_id)
        current = {model.entity_path(i): e for i, e in self.entities().items()}
        wanted = [(path, oid) for path, (_, _, oid) in sorted(state.customers.items())]
        out = {}
        missing = [(path, oid) for path, oid in wanted if self.blob(path) is None or self.blob(path)[0] != oid]
        datas = dict(zip(missing, self.blob_data([oid for _, oid in missing]))) if missing else {}
        for path, oid in wanted:
            try:
                wanted_data = (path, oid) in datas  # another version than HEAD's: read the one counted
                entity = parse_blob("entity", path, oid, datas[(path, oid)]) if wanted_data else current[path]
            except (KeyError, SchemaError, TypeError):
                continue  # unreadable or pruned: it counts for nothing
            out[entity["id"]] = entity
        self._counted = out
        return {entity_id: dict(entity) for entity_id, entity in out.items()}

    def entity(self, entity_id: str) -> dict:
        path = model.entity_path(entity_id)
        found = self.load_file("entity", path)
        if found is None:
            self._uncommitted(path)
            raise ItemNotFound(f"no entity {entity_id!r} in this store",
                               f"add the customer: vmem entity add {entity_id} --name 'Full Name' "
                               "[--alias A] [--domain D] [--person P] [-c facet:value]; see: vmem entity list")
        return found

    def episode(self, entity_id: str, episode_id: str) -> dict:
        path = model.episode_path(entity_id, episode_id)
        found = self.load_file("episode", path)
        if found is None:
            self._uncommitted(path)
            raise ItemNotFound(f"no episode {episode_id!r} for entity {entity_id!r}",
                               f"add it: vmem episode add {entity_id} --quote '...' --kind call, or leave out "
                               "--episode; see: vmem entity show " + entity_id)
        return found

    def _uncommitted(self, path: str) -> None:
        """A file the work tree has but this commit does not: say exactly that, not "no such entity"."""
        workdir = self.repo.workdir
        if workdir and os.path.lexists(os.path.join(workdir, path)):
            root = workdir.rstrip("/")
            raise ItemNotFound(f"{path} is in the work tree but not committed; vmem reads only committed files",
                               f"commit it: git -C {root} add {path} && git -C {root} commit -m 'add {path}'")


class Store:
    """A vmem store on disk."""

    def __init__(self, root: Path, repo: pygit2.Repository) -> None:
        self.root = root
        self.repo = repo
        self._policy: dict | None = None
        self._acting: pygit2.Signature | None = None
        self.wrote = False  # a transaction committed: the faces deliver it to the team's remote (SPEC 15)

    @classmethod
    def open(cls, root: Path, lite: bool = False) -> "Store":
        """The store at ROOT. LITE: read through vmem.store.lite (no pygit2 import: the commonest writes, the
        hook); else through pygit2. Either way every commit is made through vmem.store.lite (Store.objects)."""
        root = Path(root).absolute()
        if (root / POLICY_FILE).is_symlink():
            raise SchemaError(POLICY_FILE, "is a symlink; vmem never follows symlinks inside a store",
                              f"replace it with the file itself: git -C {root} rm {POLICY_FILE}, then restore it "
                              "from the store template and commit")
        if not (root / POLICY_FILE).is_file():
            raise StoreNotFound(f"no vmem store at {root} (no {POLICY_FILE})",
                                "create one with: vmem init, or point at one with --store PATH")
        if lite:  # read (and always written) through git itself: vmem.store.lite
            from vmem.store import lite as objects

            return cls(root, objects.Repository(root))
        import pygit2

        try:
            repo = pygit2.Repository(str(root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        except pygit2.GitError:
            raise StoreNotFound(f"{root} has {POLICY_FILE} but is not a git repository",
                                "run: git init && git add -A && git commit -m 'vmem store'") from None
        if repo.is_bare or repo.workdir is None:
            raise StoreNotFound(f"{root} is a bare repository", "clone it first: git clone URL DIR")
        return cls(root, repo)

    @property
    def lite(self) -> bool:
        """Read without pygit2 (vmem.store.lite); every store is written through it (Store.objects)."""
        return getattr(self.repo, "lite", False) is True

    def reread(self) -> None:
        """Read HEAD (and the policy it attests) again next time: git moved it (a merge, a replay)."""
        forget = getattr(self.repo, "forget_head", None)
        if forget is not None:
            forget()
        self._policy = None

    @property
    def objects(self):
        """The one way vmem writes: blobs, trees on the changed paths and a commit as loose objects, HEAD moved by
        `git update-ref` only if it is still the commit the write read (vmem.store.lite.Repository)."""
        if self.lite:
            return self.repo
        if getattr(self, "_objects", None) is None:
            from vmem.store import lite

            self._objects = lite.Repository(self.root)
        return self._objects

    def full(self) -> "Store":
        """This store opened on pygit2 (itself when it already is)."""
        return self if not self.lite else Store.open(self.root)

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.path)

    @property
    def policy(self) -> dict:
        """The policy in force: vmem.yaml as history attests it (SPEC 12: as a reviewer last committed it, or as
        `vmem init` wrote it). The committed file is read too, so a broken one is named; a change nobody attested
        is ignored whole (`vmem check --governance` reports it)."""
        if self._policy is None:
            head = self.head()
            if head.commit_id is None:
                self._policy = self._file_policy()  # nothing committed yet: vmem init is writing it
                return self._policy
            state = self.attestation()
            found = head.blob(POLICY_FILE)
            known = {state.policy_blob, (state.policy_unattested or [None])[0]}
            if found is None or found[0] not in known:
                self._file_policy()  # a reviewer's change history could not read, or a symlink: say what is wrong
            self._policy = state.policy  # an unattested change is ignored whole, broken or not
        return self._policy

    def _file_policy(self) -> dict:
        """vmem.yaml as committed at HEAD (as written, before any commit), validated."""
        head = self.head()
        found = head.blob(POLICY_FILE)
        if found is None and head.tree is not None and POLICY_FILE in head.tree:
            raise SchemaError(POLICY_FILE, "is committed as a symlink (or a folder); vmem never follows one",
                              f"commit the file itself in its place: git -C {self.root} rm {POLICY_FILE}, "
                              "restore it from the store template, commit")
        if found is None and (self.root / POLICY_FILE).is_symlink():
            raise SchemaError(POLICY_FILE, "is a symlink; vmem never follows symlinks inside a store",
                              "replace it with the file itself")
        data = found[1] if found else (self.root / POLICY_FILE).read_bytes()
        text = codec.decode(data, POLICY_FILE)
        return load_policy(codec.load(text, POLICY_FILE, str(found[0]) if found else None), POLICY_FILE,
                           codec.line_finder(text))

    def head(self) -> Snapshot:
        if self.lite:
            return Snapshot(self.repo, self.repo.head_commit())
        import pygit2

        if self.repo.head_is_unborn:
            return Snapshot(self.repo, None)
        return Snapshot(self.repo, self.repo.head.peel(pygit2.Commit))

    def as_of(self, when: datetime) -> Snapshot:
        """The tree at the last commit made at or before WHEN (transaction time)."""
        import pygit2

        if self.lite:
            return self.full().as_of(when)  # a walk through history is pygit2's operation
        if self.repo.head_is_unborn:
            raise ItemNotFound("the store has no commits yet", "propose something first: vmem propose TEXT")
        limit = when.timestamp()
        order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME  # children first, even within a second
        first = None
        for commit in self.repo.walk(self.repo.head.target, order):
            if commit.commit_time <= limit:
                return Snapshot(self.repo, commit)
            first = commit
        from datetime import datetime, timezone

        from vmem.errors import BeforeHistory

        began = model.format_ts(datetime.fromtimestamp(first.commit_time, timezone.utc))
        raise BeforeHistory(f"the store has no commit before {model.format_ts(when)}",
                            f"its first commit is at {began}; pick a later date", began)

    def identity(self) -> pygit2.Signature:
        """Who makes the commit (the committer): vmem's writer and reviewer identity, as `git commit` finds it."""
        return self._person("committer")

    def author(self) -> pygit2.Signature:
        """The commit's author as `git commit` finds it (GIT_AUTHOR_*, author.*, user.*, EMAIL)."""
        return self._person("author")

    @contextmanager
    def acting_as(self, person: str) -> Iterator[None]:
        """In-process callers (the demo, tests) act as another person, author and committer alike, as if that
        person ran vmem in their own clone. Faces never expose this: on the command line the committer is git's."""
        previous = self._acting
        self._acting = self.signature(*parse_person(person))
        try:
            yield
        finally:
            self._acting = previous

    def _person(self, role: str) -> pygit2.Signature:
        """git's rules: GIT_<ROLE>_NAME/EMAIL, then <role>.name/email and user.name/email in config, then EMAIL."""
        if self._acting is not None:
            return self._acting
        env = os.environ
        name = env.get(f"GIT_{role.upper()}_NAME") or _config(self.repo, f"{role}.name") \
            or _config(self.repo, "user.name")
        email = env.get(f"GIT_{role.upper()}_EMAIL") or _config(self.repo, f"{role}.email") \
            or _config(self.repo, "user.email") or env.get("EMAIL")
        if not email or not name:
            raise VmemError("no git identity for this store",
                            f"set it: git -C {self.root} config user.name 'Your Name' && "
                            f"git -C {self.root} config user.email you@example.com "
                            "(or GIT_COMMITTER_NAME / GIT_COMMITTER_EMAIL in the environment)")
        try:
            return self.signature(name, email)
        except Exception as exc:  # noqa: BLE001 - pygit2.GitError or ValueError: the identity is not valid
            raise VmemError(f"the git identity {name} <{email}> is not valid ({exc})",
                            "fix user.name / user.email (or GIT_COMMITTER_*) for this store") from None

    def signature(self, name: str, email: str):
        """A signature for now (pygit2's, or vmem.store.lite's on a lite store); ValueError if not valid."""
        if self.lite:
            from vmem.store.lite import Signature

            return Signature(name, email)
        import pygit2

        return pygit2.Signature(name, email)

    def attestation(self, snapshot: Snapshot | None = None):
        """What history attests at SNAPSHOT's commit (default HEAD): statuses, reviewers, lexicon (SPEC 12)."""
        from vmem.store.attest import attestation

        commit = snapshot.commit_id if snapshot is not None else None
        return attestation(self.repo, self.root, commit)

    def transaction(self, action: str, **message: Any) -> "Transaction":
        return Transaction(self, Message(action=action, **message))

    def history(self, paths: list[str]) -> Iterator[tuple[pygit2.Commit, str, str | None]]:
        """(commit, path, blob id after it) for each commit that changed one of PATHS, newest first."""
        import pygit2

        if self.lite:
            yield from self.full().history(paths)  # a walk through history is pygit2's operation
            return
        if self.repo.head_is_unborn:
            return
        order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
        for commit in self.repo.walk(self.repo.head.target, order):
            for path in paths:
                oid = _entry_id(commit.tree, path)
                if not commit.parents:
                    if oid is not None:
                        yield commit, path, oid
                elif all(_entry_id(parent.tree, path) != oid for parent in commit.parents):
                    yield commit, path, oid

    # -- crash recovery -------------------------------------------------------------------

    def recover(self) -> None:
        """Finish a transaction whose commit landed but whose work-tree files may not have (killed process)."""
        from vmem.store import stage

        if stage.orphaned(self.git_dir):  # a killed writer's or flusher's entries: staged in the background
            stage.spawn(self.git_dir, self.root)
        pending = self.git_dir / PENDING_FILE
        if not pending.exists():
            return
        lines = pending.read_text().split()
        if lines and not self.repo.head_is_unborn and str(self.repo.head.target) == lines[0]:
            head = self.head()
            before = Snapshot(self.repo, head.commit.parents[0]) if head.commit.parents else None
            files, edited = {}, {}
            for path in lines[1:]:
                found = head.blob(path)
                if found is not None and _hand_edited(self.root / path, found[0], before, path):
                    edited[path] = found[0]  # edited by hand since the crash: kept, staged as committed
                else:
                    files[path] = found
            _materialize(self, files)
            if edited:
                _defer(self, edited)
        for path in lines[1:]:  # a temporary file of a write that was killed before its rename
            (self.root / path).with_name(f".{Path(path).name}.vmem-tmp").unlink(missing_ok=True)
        pending.unlink(missing_ok=True)


def _hand_edited(full: Path, committed: str, before: Snapshot | None, path: str) -> bool:
    """The work-tree file holds neither the killed write's bytes nor what was there before it."""
    if full.is_symlink() or not full.exists():
        return False
    now = hash_file(full)
    if now == committed:
        return False
    previous = before.blob(path) if before is not None else None
    return previous is None or now != previous[0]


_config = setting  # the name the store's code reads it by (vmem.store.gitconfig)


def _entry_id(tree: pygit2.Tree, path: str) -> str | None:
    try:
        return str(tree[path].id)
    except KeyError:
        return None


def parse_person(text: str) -> tuple[str, str]:
    text = text.strip()
    if "<" in text and text.endswith(">"):
        name, email = text[:-1].split("<", 1)
        name, email = name.strip(), email.strip()
    else:
        email, name = text, text.split("@")[0]
    if "@" not in email or any(c in email for c in " \n\r\t<>\0"):
        from vmem.errors import UsageError
        raise UsageError(f"--as {text!r} is not an e-mail address", "use --as 'Name <name@example.com>'")
    return name or email, email


class Transaction:
    """One operation = exactly one commit, made on exit; nothing is written when the body raises."""

    def __init__(self, store: Store, message: Message) -> None:
        self.store = store
        self.message = message
        self.author: pygit2.Signature | None = None
        self.snapshot: Snapshot
        self.commit_id: str | None = None
        self._writes: dict[str, str] = {}
        self.empty_ok = False  # a decision that changes no file (vmem entity approve) is still one commit
        self._lock = StoreLock(store.git_dir / LOCK_FILE)

    def __enter__(self) -> "Transaction":
        self._lock.__enter__()
        try:
            forget = getattr(self.store.repo, "forget_head", None)
            if forget is not None:
                forget()  # HEAD as it is now, under the lock: a snapshot read before it may be a writer behind
            self.store.recover()
            self.snapshot = self.store.head()
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        return self

    def write(self, item: dict) -> str:
        """Stage an item; unchanged content is not a change."""
        item = model.normalize_item(item)
        path = model.item_path(item["id"])
        return self.write_file(path, item)

    def write_file(self, path: str, content: dict) -> str:
        previous = self.snapshot.blob(path)
        previous_text = previous[1].decode("utf-8-sig", "replace") if previous else None
        text = codec.dump(content, previous_text)
        if len(text.encode("utf-8")) > codec.MAX_BYTES:  # every reader refuses it: never write what cannot be read
            raise UsageError(f"{path} would be {len(text.encode('utf-8')):,} bytes; store files are limited to "
                             f"{codec.MAX_BYTES:,}; nothing was written", "split it into several smaller ones")
        if text != previous_text:
            self._writes[path] = text
        else:
            self._writes.pop(path, None)
        return path

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None and (self._writes or self.empty_ok):
                self._commit()
        finally:
            self._lock.__exit__(None, None, None)
        if self.commit_id is not None:  # what `git commit` does last: pack loose objects once there are many
            self.store.wrote = True
            from vmem.store import housekeep

            housekeep.after_commit(self.store.git_dir, lambda: _config(self.store.repo, "gc.auto"))

    def _commit(self) -> None:
        """The one way a vmem commit is made, whichever reader the store was opened with: objects written loose
        (the changed subtrees only), signed as `git commit -S` would when required, HEAD moved by `git update-ref`
        only if it is still the snapshot's commit; then the work tree and the index. Everything that can refuse
        happens before HEAD moves."""
        store = self.store
        _refuse_symlinks(store, self._writes)
        _refuse_dirty(store, self.snapshot, self._writes)
        objects = store.objects
        sign = (lambda content: _sign(store, content)) if _signing(store) else None
        committer = store.identity()
        author = self.author or store.author()
        data = {path: text.encode("utf-8") for path, text in self._writes.items()}
        blobs = {path: objects.write("blob", raw) for path, raw in data.items()}
        parent = self.snapshot.commit_id
        base_tree = objects.commit(parent).tree if parent else None
        tree_id = objects.write_tree(base_tree, blobs)
        if base_tree is not None and tree_id == base_tree.id and not self.empty_ok:
            return
        message = self.message.render()
        commit_id = objects.write_commit(tree_id, [parent] if parent else [], objects_person(author),
                                         objects_person(committer), message, sign=sign)
        _test_kill("commit")
        pending = store.git_dir / PENDING_FILE
        pending.write_text("\n".join([str(commit_id), *self._writes]) + "\n")
        _test_kill("ref")
        if not objects.update_head(commit_id, parent, message.splitlines()[0]):
            pending.unlink(missing_ok=True)
            objects.forget_head()
            if objects.head_id() != parent:
                raise VmemError("the store's HEAD moved while vmem was writing (a commit made meanwhile); nothing "
                                "was written", "run the command again")
            raise VmemError("git could not move HEAD (another git command holds its lock?); nothing was written",
                            f"run the command again when it is done (a stale lock: {store.git_dir}/refs/heads/*.lock)")
        self.commit_id = str(commit_id)
        _test_kill("files")
        _materialize(store, {path: (str(blobs[path]), raw) for path, raw in data.items()})
        _test_kill("journal")
        pending.unlink(missing_ok=True)


def objects_person(person):
    """A signature as the plumbing writer records it (pygit2's Signature or vmem.store.lite's)."""
    from vmem.store.lite import Signature

    if isinstance(person, Signature):
        return person
    return Signature(person.name, person.email, person.time, person.offset)


def _signing(store: Store) -> bool:
    value = (_config(store.repo, "commit.gpgsign") or "").lower()
    if value in ("true", "yes", "on", "1"):
        return True
    try:
        return bool(store.policy["require_signed"])
    except VmemError:
        return False


def _sign(store: Store, content: str) -> str:
    """A detached signature of the commit, made as `git commit -S` makes it: gpg.format picks gpg (openpgp),
    gpgsm (x509) or ssh-keygen (ssh); gpg.<format>.program and user.signingkey as git reads them."""
    from vmem.store.signing import sign

    fmt = (_config(store.repo, "gpg.format") or "openpgp").lower()
    program = _config(store.repo, f"gpg.{fmt}.program") if fmt in ("openpgp", "x509", "ssh") else None
    if fmt == "openpgp":
        program = program or _config(store.repo, "gpg.program")  # git's older name for it
    return sign(content, fmt, program, _config(store.repo, "user.signingkey"))


def _test_kill(stage: str) -> None:
    """Crash tests: VMEM_TEST_KILL_AT=STAGE sends this process SIGKILL there (a real kill -9, no cleanup)."""
    if os.environ.get("VMEM_TEST_KILL_AT") == stage:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def _refuse_symlinks(store: Store, writes: dict[str, str]) -> None:
    """Never write through a symlink in the work tree (a committed shard link such as claims/7b -> /elsewhere
    would otherwise put vmem's files outside the store): checked before anything is committed."""
    checked: set[str] = set()
    for path in writes:
        parts = path.split("/")
        for n in range(1, len(parts) + 1):
            step = "/".join(parts[:n])
            if step in checked:
                continue
            checked.add(step)
            full = store.root / step
            if full.is_symlink() or (n < len(parts) and full.exists() and not full.is_dir()):
                raise VmemError(f"{step} is a symlink (or not a folder) in the store's work tree; vmem never writes "
                                "through one", f"remove it: git -C {store.root} rm {step} && git commit (then rerun)")


def _refuse_dirty(store: Store, snapshot: Snapshot, writes: dict[str, str]) -> None:
    for path in writes:
        full = store.root / path
        if not full.exists() or full.is_symlink():
            continue
        committed = snapshot.blob(path)
        if committed is None or hash_file(full) != committed[0]:
            raise DirtyWorkTree(f"{path} has uncommitted changes; vmem will not overwrite them",
                                f"commit them (git -C {store.root} commit {path}) or discard them "
                                f"(git -C {store.root} checkout -- {path})")


def _materialize(store: Store, files: dict[str, tuple[str, bytes] | None]) -> None:
    """Bring work-tree files and the git index in line with the commit just made (atomic renames)."""
    written = []
    for path, found in files.items():
        if found is None:
            continue
        full = store.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        tmp = full.with_name(f".{full.name}.vmem-tmp")
        tmp.write_bytes(found[1])
        _test_kill("rename")
        os.replace(tmp, full)
        written.append(path)
    if not written:
        return
    from vmem.store import stage

    git_dir = store.git_dir
    entries = {path: files[path][0] for path in written}  # type: ignore[index]
    if stage.wanted(git_dir, _config(store.repo, "vmem.indexUpdate")) and _has_git():
        _defer(store, entries)  # one index rewrite for a burst of writes, off this command's clock
        return
    if not _git_update_index(store, written):
        if ((git_dir / "index.lock").exists() or store.lite) and _has_git():  # the user's git holds the index
            _defer(store, entries)  # (or lite, which has no index of its own): stage later
            return
        index = store.repo.index
        index.read(False)  # only if it changed on disk: re-reading a 100k-entry index costs ~110 ms
        for path in written:
            index.add(path)
        index.write()


def _defer(store: Store, entries: dict[str, str]) -> None:
    """Leave ENTRIES (path -> committed blob) to the background flusher (vmem.store.stage)."""
    from vmem.store import stage

    stage.defer(store.git_dir, store.root, entries, _config(store.repo, "core.hooksPath"))


def _has_git() -> bool:
    from vmem.store.lite import git_executable

    return git_executable() is not None


def _git_update_index(store: Store, paths: list[str]) -> bool:
    """Stage PATHS with git itself when it is installed: on a 100k-entry index `git update-index` takes ~80 ms
    (20-30 ms once the index is split), libgit2's load (which re-hashes the whole file) plus write ~220 ms. No
    shell; False means use libgit2."""
    import shutil
    import subprocess

    from vmem.store.gitenv import scrubbed_env

    git = shutil.which("git")
    if git is None:
        return False
    env = scrubbed_env()
    from vmem.store.stage import DEFER_FROM_BYTES

    split: list[str] = []
    try:  # a big index is split (unless the user said otherwise): git rewrites only the small part each time
        if (store.git_dir / "index").stat().st_size >= DEFER_FROM_BYTES and \
                _config(store.repo, "core.splitIndex") is None:
            split = ["-c", "core.splitIndex=true"]
    except OSError:
        pass
    try:
        done = subprocess.run([git, "-C", str(store.root), *split, "update-index", "--add", "--", *paths], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def only_match(text: str, found: list[str]) -> str:
    """The one id FOUND for the prefix TEXT, else the error every face reports (none, or which ones)."""
    if not found:
        raise ItemNotFound(f"no item id starts with {text} in this store", "list items with: vmem list")
    if len(found) > 1:
        shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
        raise UsageError(f"{text} is ambiguous: {shown}", "type more of the id")
    return found[0]
