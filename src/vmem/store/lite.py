"""vmem's git object layer without pygit2: how every vmem commit is written, and how the commonest commands read.

Importing pygit2 costs ~90 ms of a proposal's ~150 ms on this kind of machine, while the commit itself reads three
small trees and writes four objects. This module does exactly that much with git's own tools and the standard
library:

- objects are read through one `git cat-file --batch` co-process (packs, deltas, alternates: git's own reader);
- new objects are written as loose objects (zlib + SHA-1), byte for byte what libgit2 writes for the same input,
  a commit signed as `git commit -S` signs it when asked (the gpgsig header);
- HEAD moves with one `git update-ref` that checks the old value, so a commit made by anyone else in between is
  never overwritten (git does the locking, the reflog and packed refs);
- configuration comes from one `git config --list`, with git's own precedence and includes.

It offers the small part of pygit2's object model that the write path, the caches it brings forward (canonical
map, statement cache, attestation) and the gates use: `Repository[oid]`, trees that look up paths and iterate
entries, blobs with `.data`, commits with `.tree`, `.parents`, `.message`, `.committer`. Every store writes through
it (vmem.store.repo.Store.objects). What is pygit2's alone, walking history, a store asks of
`Repository.walker()` within the same operation; nothing runs a command a second time on another backend.
`Unsupported` (a VmemError) says what this reader cannot do with a repository (no git, SHA-256).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from vmem import digest
from vmem.errors import VmemError

FILEMODE_TREE = 0o040000
FILEMODE_BLOB = 0o100644
FILEMODE_EXECUTABLE = 0o100755
FILEMODE_LINK = 0o120000
FILEMODE_COMMIT = 0o160000
_NO_OID = "0" * 40


class Unsupported(VmemError):
    """This repository cannot be read or written the way vmem does (no git, SHA-256, a git reader that stopped);
    nothing has been written when this is raised."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message, hint or "vmem needs git 2.x on PATH and a SHA-1 repository with a work tree")


class Oid(str):
    """A 40-hex object id; `.raw` gives its 20 bytes (pygit2's Oid compares and prints the same way)."""

    __slots__ = ()

    @property
    def raw(self) -> bytes:
        return bytes.fromhex(self)

    @property
    def hex(self) -> str:  # type: ignore[override]
        return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)


class Signature:
    """Who and when, as git writes it (`Name <email> seconds +hhmm`); pygit2.Signature's fields."""

    __slots__ = ("name", "email", "time", "offset")

    def __init__(self, name: str, email: str, when: int | None = None, offset: int | None = None) -> None:
        name, email = name.strip(), email.strip()
        if not name or not email or any(c in name + email for c in "<>\n"):
            raise ValueError("a name and an e-mail address without <, > or a line break")
        now = int(time.time()) if when is None else when
        self.name, self.email, self.time = name, email, now
        self.offset = time.localtime(now).tm_gmtoff // 60 if offset is None else offset

    def raw(self) -> bytes:
        sign = "-" if self.offset < 0 else "+"
        hours, minutes = divmod(abs(self.offset), 60)
        return f"{self.name} <{self.email}> {self.time} {sign}{hours:02d}{minutes:02d}".encode("utf-8")

    @classmethod
    def parse(cls, line: bytes) -> "Signature":
        head, _, rest = line.rpartition(b"> ")
        name, _, email = head.partition(b" <")
        stamp, _, zone = rest.partition(b" ")
        try:
            sign = -1 if zone[:1] == b"-" else 1
            offset = sign * (int(zone[1:3]) * 60 + int(zone[3:5]))
            when = int(stamp)
        except ValueError:
            when, offset = 0, 0
        made = cls.__new__(cls)
        made.name, made.email = name.decode("utf-8", "replace"), email.decode("utf-8", "replace")
        made.time, made.offset = when, offset
        return made


class _Object:
    """An object, or a tree entry (then with .name and .filemode); its content is read on first use."""

    type_str = ""

    def __init__(self, repo: "Repository", oid: str, name: str | None = None, filemode: int | None = None,
                 raw: bytes | None = None) -> None:
        self._repo, self.id, self.name, self.filemode, self._raw = repo, Oid(oid), name, filemode, raw

    def read_raw(self) -> bytes:
        if self._raw is None:
            kind, self._raw = self._repo.read(self.id)
            if kind != self.type_str:
                raise Unsupported(f"{self.id} is a {kind}, not a {self.type_str}")
        return self._raw


class Blob(_Object):
    type_str = "blob"

    @property
    def data(self) -> bytes:
        return self.read_raw()


class Tree(_Object):
    type_str = "tree"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._entries: dict[str, tuple[int, str]] | None = None

    def entries(self) -> dict[bytes, tuple[bytes, bytes]]:
        """raw name -> (raw mode, raw id), in the tree's own order (parsed once per tree id and process; the
        conversions wait until an entry is used: a shard of a big store has thousands)."""
        if self._entries is None:
            cache = self._repo._trees
            found = cache.get(self.id)
            if found is None:
                found = cache[self.id] = {name: (mode, oid) for mode, name, oid in _ENTRY.findall(self.read_raw())}
            self._entries = found
        return self._entries

    def _entry(self, name: bytes) -> tuple[bytes, bytes] | None:
        """NAME's (raw mode, raw id), or None. A tree read for a lookup or two is searched, not parsed: parsing a
        shard of a 1M store (~2,800 entries, ~130 KB) costs ~2.5 ms, a search ~0.3 ms (see find_entry)."""
        if self._entries is None and self.id not in self._repo._trees:
            seen = self._repo._lookups[self.id] = self._repo._lookups.get(self.id, 0) + 1
            if seen <= 4:
                return find_entry(self.read_raw(), name)
        return self.entries().get(name)

    def _child(self, name: bytes, entry: tuple[bytes, bytes] | None = None) -> _Object:
        raw_mode, oid = entry or self.entries()[name]
        mode = int(raw_mode, 8)
        kind = Tree if mode == FILEMODE_TREE else Commit if mode == FILEMODE_COMMIT else Blob
        return kind(self._repo, oid.hex(), name.decode("utf-8", "surrogateescape"), mode)

    def __getitem__(self, path: str) -> _Object:
        node: _Object = self
        for part in path.split("/"):
            key = part.encode("utf-8", "surrogateescape")
            entry = node._entry(key) if isinstance(node, Tree) else None
            if entry is None:
                raise KeyError(path)
            node = node._child(key, entry)
        return node

    def __contains__(self, path: str) -> bool:
        try:
            self[path]
        except KeyError:
            return False
        return True

    def __iter__(self):
        return (self._child(name) for name in self.entries())

    def __len__(self) -> int:
        if self._entries is None and self.id not in self._repo._trees:
            return len(_WHOLE_ENTRY.findall(self.read_raw()))  # a count needs no dictionary of names
        return len(self.entries())


class Commit(_Object):
    type_str = "commit"

    def _fields(self) -> tuple[dict[bytes, list[bytes]], bytes]:
        raw = self.read_raw()
        head, _, message = raw.partition(b"\n\n")
        fields: dict[bytes, list[bytes]] = {}
        for line in head.split(b"\n"):
            if line.startswith(b" "):
                continue  # a continuation line (a signature's body)
            key, _, value = line.partition(b" ")
            fields.setdefault(key, []).append(value)
        return fields, message

    @property
    def tree_id(self) -> Oid:
        return Oid(self._fields()[0][b"tree"][0].decode("ascii"))

    @property
    def tree(self) -> Tree:
        return Tree(self._repo, self.tree_id)

    @property
    def parent_ids(self) -> list[Oid]:
        return [Oid(p.decode("ascii")) for p in self._fields()[0].get(b"parent", [])]

    @property
    def parents(self) -> list["Commit"]:
        return [self._repo.commit(p) for p in self.parent_ids]

    @property
    def message(self) -> str:
        fields, message = self._fields()
        encoding = (fields.get(b"encoding") or [b"utf-8"])[0].decode("ascii", "replace")
        try:
            return message.decode(encoding, "replace")
        except LookupError:
            return message.decode("utf-8", "replace")

    @property
    def author(self) -> Signature:
        return Signature.parse(self._fields()[0][b"author"][0])

    @property
    def committer(self) -> Signature:
        return Signature.parse(self._fields()[0][b"committer"][0])

    @property
    def commit_time(self) -> int:
        return self.committer.time

    def peel(self, _kind=None) -> "Commit":
        return self


class _Head:
    def __init__(self, target: Oid) -> None:
        self.target = target


_ENTRY = re.compile(rb"(\d+) ([^\0]*)\0(.{20})", re.S)


_WHOLE_ENTRY = re.compile(rb"\d+ [^\0]*\0.{20}", re.S)


# whole entries from where it starts: mode and name up to their NUL, then 20 id bytes (every step is forced)
_ENTRIES_BEFORE = re.compile(rb"(?:[^\0]*\0.{20})*", re.S)


def find_entry(raw: bytes, name: bytes) -> tuple[bytes, bytes] | None:
    """(raw mode, raw id) of the entry NAME in a raw tree object, or None, without parsing the other entries.

    A name is absent when " NAME\0" is nowhere in the bytes. Where it is, it must be an entry's: one fixed pattern
    steps over whole entries from the tree's start up to that place (a name holds no NUL, so every step is forced)
    and the entry it stops at must be its mode's digits, then " NAME\0", then an id. So bytes inside another name
    or inside an id can never be taken for it; the first such place wins. All in C, and no pattern is compiled
    per name (a write looks up hundreds of names)."""
    needle = b" " + name + b"\0"
    at = raw.find(needle)
    start = 0
    while at != -1:
        start = _ENTRIES_BEFORE.match(raw, start, at).end()  # the steps are forced: go on from the last stop
        oid = at + len(needle)
        if raw[start:at].isdigit() and len(raw) >= oid + 20:
            return raw[start:at], raw[oid:oid + 20]
        at = raw.find(needle, at + 1)
    return None


def parse_tree(raw: bytes) -> list[tuple[int, bytes, bytes]]:
    """(mode, name, 20-byte id) for each entry of a raw tree object (one C-level findall)."""
    return [(int(mode, 8), name, oid) for mode, name, oid in _ENTRY.findall(raw)]


_CANONICAL_MODES = frozenset({b"100644", b"100755", b"40000", b"120000", b"160000"})


def _sort_key(entry: tuple[int, bytes, bytes]) -> bytes:
    return entry[1] + b"/" if entry[0] == FILEMODE_TREE else entry[1]  # git orders a tree as NAME/


def _canonical_mode(mode: int) -> int:
    """The modes git (and libgit2's tree builder) write, whatever an old tool left in a tree."""
    if mode & 0o170000 == FILEMODE_TREE:
        return FILEMODE_TREE
    if mode & 0o170000 == 0o100000:
        return FILEMODE_EXECUTABLE if mode & 0o111 else FILEMODE_BLOB
    return mode


def serialize_tree(entries: list[tuple[int, bytes, bytes]]) -> bytes:
    return b"".join(b"%o %s\0%s" % (_canonical_mode(mode), name, oid) for mode, name, oid in
                    sorted(entries, key=_sort_key))


def hash_object(kind: str, data: bytes) -> str:
    return digest.sha1(b"%s %d\0" % (kind.encode("ascii"), len(data)) + data).hexdigest()


def hash_file(path: str | os.PathLike) -> str:
    """The blob id of a work-tree file's bytes (no filters), as `git hash-object --no-filters` gives it."""
    with open(path, "rb") as f:
        return hash_object("blob", f.read())


def git_executable() -> str | None:
    """`git` on PATH (shutil.which's rule, without importing shutil and its archive modules on the write path)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _child_stream(actions: list, theirs: list[int], fd: int, piped: bool):
    """The child's FD (0 or 1) as a pipe, whose other end is returned open here (its own end added to THEIRS, to be
    closed once it is spawned); or /dev/null, and None."""
    if not piped:
        actions.append((os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY, 0))
        return None
    read, write = os.pipe()
    child, parent, mode = (read, write, "wb") if fd == 0 else (write, read, "rb")
    actions.append((os.POSIX_SPAWN_DUP2, child, fd))
    theirs.append(child)
    return open(parent, mode)


class _Process:
    """A child started with os.posix_spawn (no shell; no `subprocess` import on the write path: ~5 ms), its
    stdin and stdout as pipes when asked for; stderr goes to /dev/null."""

    def __init__(self, argv: list[str], stdin: bool = False, stdout: bool = True) -> None:
        actions = [(os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
        mine: list[int] = []
        self.stdin = _child_stream(actions, mine, 0, stdin)
        self.stdout = _child_stream(actions, mine, 1, stdout)
        try:
            self.pid = os.posix_spawn(argv[0], argv, git_env(), file_actions=actions)
        finally:
            for fd in mine:  # the child's ends
                os.close(fd)
        self.returncode: int | None = None

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode

    def close(self) -> None:
        for stream in (self.stdin, self.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self.wait()


_EARLY: dict[str, tuple[_Process, _Process]] = {}  # root -> (git config, git cat-file), started by start_early


def start_early(root: str | os.PathLike) -> None:
    """Start the two git processes a lite command needs first (reading the configuration, the object reader) for
    the store at ROOT now, so that they start on another core while Python imports the rest; Repository(ROOT)
    adopts them. Anything unusual (no git, no plain .git folder) starts nothing: Repository decides as before.
    Unused ones end when this process does (the reader sees its input close)."""
    key = str(Path(root).absolute())
    git = git_executable()
    if key in _EARLY or git is None or not hasattr(os, "posix_spawn") or not os.path.isdir(os.path.join(key, ".git")):
        return
    config = None
    try:
        config = _Process([git, "-C", key, "config", "--list", "-z"])
        _EARLY[key] = (config, _Process([git, "-C", key, "cat-file", "--batch"], stdin=True))
    except OSError:
        if config is not None:
            config.close()


def discard_early(root: str | os.PathLike) -> None:
    """End the processes start_early started for ROOT if no Repository adopted them (the command stopped before
    opening the store): a long-lived process must not keep them."""
    for process in _EARLY.pop(str(Path(root).absolute()), ()):
        process.close()


def _finish(process: _Process) -> tuple[int, bytes]:
    """Read PROCESS to its end: (exit code, stdout)."""
    try:
        out = process.stdout.read()  # type: ignore[union-attr]
    finally:
        process.close()
    return process.returncode or 0, out


def _run(argv: list[str]) -> tuple[int, bytes]:
    """Run ARGV to its end: (exit code, stdout)."""
    return _finish(_Process(argv))


def git_env() -> dict[str, str]:
    """vmem.store.gitenv's scrub, replace refs off: libgit2 ignores them, and git must read the objects it reads."""
    from vmem.store.gitenv import scrubbed_env

    return scrubbed_env({"GIT_NO_REPLACE_OBJECTS": "1"})


class Repository:
    """A non-bare repository whose .git is a folder, read and written without pygit2."""

    lite = True

    def __init__(self, root: Path) -> None:
        git = git_executable()
        if git is None:
            raise Unsupported("git is not installed (vmem reads and writes its store with git)",
                              "install git 2.x and put it on PATH")
        gitdir, objects = git_dirs(Path(root))
        if not hasattr(os, "posix_spawn"):
            raise Unsupported("no os.posix_spawn on this platform")
        self._git, self.root = git, Path(root)
        self.path = str(gitdir) + os.sep
        self.objects_dir = objects
        self._full = None
        self.workdir = str(root) + os.sep
        self.is_bare = False
        self._batch: _Process | None = None
        self._request_limit: int | None = None
        self._config: _Config | None = None
        self._early_config: _Process | None = None
        early = _EARLY.pop(str(Path(root).absolute()), None)
        if early is not None:
            self._early_config, self._batch = early
        self._commits: dict[str, Commit] = {}
        self._trees: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
        self._lookups: dict[str, int] = {}  # tree id -> names looked up in it (searched, then parsed)
        self._head_id: Oid | None | bool = False  # False: not read yet
        self.moved = False  # HEAD moved by this process
        if self.config.get("extensions.objectformat", "sha1").lower() != "sha1":
            raise Unsupported(f"{root} is not a SHA-1 repository", "vmem stores are SHA-1 git repositories")

    def walker(self):
        """pygit2's handle on the same repository, for what is pygit2's operation: walking history (a replay
        across merges or from the first commit, a look into the past). Opened once, when first needed."""
        if self._full is None:
            import pygit2

            self._full = pygit2.Repository(str(self.root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        return self._full

    def walker_if_open(self):
        """pygit2's handle if this process has opened it already (a replay did), else None; imports nothing."""
        return self._full

    # -- configuration -----------------------------------------------------------------------------

    @property
    def config(self) -> "_Config":
        if self._config is None:
            early, self._early_config = self._early_config, None
            code, out = _finish(early) if early is not None else \
                _run([self._git, "-C", str(self.root), "config", "--list", "-z"])
            if code not in (0, 1):
                raise Unsupported("git config failed")
            found: dict[str, str] = {}
            for record in out.split(b"\0"):
                if record:
                    key, _, value = record.partition(b"\n")
                    found[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")  # the last one wins
            self._config = _Config(found)
        return self._config

    # -- reading -----------------------------------------------------------------------------------

    def _process(self) -> _Process:
        if self._batch is None:
            self._batch = _Process([self._git, "-C", str(self.root), "cat-file", "--batch"], stdin=True)
        return self._batch

    def read(self, spec: str) -> tuple[str, bytes]:
        """(type, content) of the object SPEC names; KeyError when there is none."""
        return self.lookup(spec)[1:]

    def lookup(self, spec: str) -> tuple[Oid, str, bytes]:
        """(id, type, content) of the object SPEC (an id, or any revision git reads) names; KeyError if none."""
        if not spec or any(c in spec for c in "\n\r\0"):
            raise KeyError(spec)
        found = self._ask([spec.encode("utf-8", "surrogateescape")])[0]
        if found is None:
            raise KeyError(spec)
        return found

    def _request_bytes(self) -> int:
        """How many bytes of requests may be written before reading answers: half the request pipe's buffer, so
        the write never waits for git, which may itself be waiting for its answers to be read (a deadlock). Pipes
        can be as small as one page (Linux, past a user's pipe quota): asked of the pipe, not assumed."""
        if self._request_limit is None:
            size = 4096
            try:
                import fcntl

                size = fcntl.fcntl(self._process().stdin.fileno(), fcntl.F_GETPIPE_SZ)  # type: ignore[union-attr]
            except (ImportError, AttributeError, OSError, ValueError):
                pass
            self._request_limit = max(256, min(size, 65_536) // 2)
        return self._request_limit

    def lookup_many(self, specs: list[str]) -> list[tuple[Oid, str, bytes] | None]:
        """lookup() of each of SPECS (None for one git does not have), pipelined: one round trip per batch of
        requests, a batch small enough to sit in the request pipe whole (_request_bytes)."""
        encoded = []
        for spec in specs:
            if not spec or any(c in spec for c in "\n\r\0"):
                raise KeyError(spec)
            encoded.append(spec.encode("utf-8", "surrogateescape"))
        out: list[tuple[Oid, str, bytes] | None] = []
        batch: list[bytes] = []
        size = 0
        limit = self._request_bytes()
        for spec in encoded + [None]:  # type: ignore[list-item] - the end
            if batch and (spec is None or size + len(spec) + 1 > limit):
                out.extend(self._ask(batch))
                batch, size = [], 0
            if spec is not None:
                batch.append(spec)
                size += len(spec) + 1
        return out

    def _ask(self, specs: list[bytes]) -> list[tuple[Oid, str, bytes] | None]:
        """Send SPECS to the cat-file co-process at once and read its answers in order: (id, type, content), or
        None for one git does not have. Anything else it says (or its end) is Unsupported."""
        process = self._process()
        out: list[tuple[Oid, str, bytes] | None] = []
        try:
            process.stdin.write(b"".join(spec + b"\n" for spec in specs))  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
            for _ in specs:
                header = process.stdout.readline()  # type: ignore[union-attr]
                parts = header.split()
                if len(parts) == 2 and parts[1] in (b"missing", b"ambiguous"):
                    out.append(None)
                    continue
                if len(parts) != 3:
                    raise Unsupported(f"git cat-file answered {header[:80]!r}")
                size = int(parts[2])
                body = process.stdout.read(size + 1)  # type: ignore[union-attr]
                if len(body) != size + 1:
                    raise Unsupported("git cat-file stopped mid-object")
                out.append((Oid(parts[0].decode("ascii")), parts[1].decode("ascii"), body[:size]))
        except (OSError, ValueError) as exc:
            raise Unsupported(f"git cat-file stopped ({exc})") from None
        return out

    def prefetch(self, objects: list) -> None:
        """Read the content of OBJECTS (not yet read) in pipelined batches (lookup_many): a walk over a shard of
        thousands of files costs one round trip per batch instead of one per file."""
        todo = [o for o in objects if o._raw is None]
        for o, found in zip(todo, self.lookup_many([str(o.id) for o in todo])):
            if found is None or found[1] != o.type_str:
                raise Unsupported(f"git cat-file gave no {o.type_str} for {o.id}")
            o._raw = found[2]

    def __getitem__(self, oid) -> _Object:
        found, kind, raw = self.lookup(str(oid))
        made = {"blob": Blob, "tree": Tree, "commit": Commit}.get(kind)
        if made is None:
            raise Unsupported(f"{oid} is a {kind}")
        return made(self, found, raw=raw)

    def commit(self, oid) -> Commit:
        if str(oid) in self._commits:
            return self._commits[str(oid)]
        found = self[oid]
        if not isinstance(found, Commit):
            raise KeyError(str(oid))
        return found

    def commit_or_none(self, oid) -> Commit | None:
        try:
            return self.commit(oid)
        except (KeyError, ValueError):
            return None

    # -- references --------------------------------------------------------------------------------

    def head_branch(self) -> str | None:
        """The branch HEAD names (refs/heads/…), or None when HEAD is detached."""
        text = (Path(self.path) / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        return text[5:].strip() if text.startswith("ref:") else None

    def head_id(self) -> Oid | None:
        """HEAD's commit id, None while the branch is unborn."""
        try:
            found, kind, raw = self.lookup("HEAD")
        except KeyError:
            if self.head_branch() is None:
                raise Unsupported("HEAD is detached and unreadable") from None
            return None  # an unborn branch
        if kind != "commit":
            raise Unsupported("HEAD is not a commit")
        self._commits[found] = Commit(self, found, raw=raw)
        return found

    def forget_head(self) -> None:
        """Read HEAD again next time (a writer takes the store lock, then reads the commit it builds on)."""
        self._head_id = False

    def _head(self) -> Oid | None:
        if self._head_id is False:
            self._head_id = self.head_id()
        return self._head_id  # type: ignore[return-value]

    @property
    def head_is_unborn(self) -> bool:
        return self._head() is None

    @property
    def head(self) -> _Head:
        found = self._head()
        if found is None:
            raise Unsupported("HEAD is unborn")
        return _Head(found)

    def head_commit(self) -> Commit | None:
        found = self._head()
        return None if found is None else self.commit(found)

    def linear_range(self, head: Commit, since: str, limit: int = 10_000) -> list[Commit] | None:
        """The commits after SINCE up to HEAD, oldest first, when history between them is a straight line of at
        most LIMIT commits; None otherwise (SINCE not on that line, a merge, a long history: the caller walks
        with pygit2's topological walk, vmem.store.lite.Repository.walker)."""
        out: list[Commit] = []
        commit = head
        while str(commit.id) != since:
            parents = commit.parent_ids
            if len(parents) > 1 or len(out) >= limit:
                return None
            if not parents:
                return None
            out.append(commit)
            commit = self.commit(parents[0])
        return out[::-1]

    def update_head(self, new: str, old: str | None, message: str) -> bool:
        """Move HEAD (its branch) from OLD to NEW with git's locking and reflog; False when HEAD is no longer OLD
        (someone committed meanwhile): nothing moved."""
        # a ref lock held for a moment by git (the gc vmem starts: pack-refs, reflog expire) is waited for
        code, _ = _run([self._git, "-C", str(self.root), "-c", "core.filesRefLockTimeout=2000", "update-ref", "-m",
                        message, "HEAD", new, old or _NO_OID])
        if code == 0:
            self._head_id = Oid(new)
            self.moved = True
        return code == 0

    # -- writing -----------------------------------------------------------------------------------

    def write(self, kind: str, data: bytes) -> Oid:
        """Store an object as a loose object (what libgit2 does for one object); its id.

        An object already there is freshened, not skipped, as git and libgit2 do: an unreachable loose object
        older than gc.pruneExpire (two weeks) is what `git gc` (the one vmem starts after its commits, or anyone's)
        deletes, and if it went between this write and the commit that makes it reachable, HEAD would name a
        missing object. Touching it makes it new to prune; where it cannot be touched it is written anew."""
        oid = hash_object(kind, data)
        folder = self.objects_dir / oid[:2]
        final = folder / oid[2:]
        try:
            os.utime(final)
            return Oid(oid)
        except OSError:
            pass  # not there, or not ours to touch (another account's object file): written anew, as git does
        folder.mkdir(exist_ok=True)
        tmp = folder / f"tmp_obj_{os.getpid()}_{oid[2:10]}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o444)
        try:
            import zlib

            with os.fdopen(fd, "wb") as f:
                f.write(zlib.compress(b"%s %d\0" % (kind.encode("ascii"), len(data)) + data, 1))
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return Oid(oid)

    def write_tree(self, base: Tree | None, changes: dict[str, str]) -> Oid:
        """BASE with each path in CHANGES (path -> blob id) set to that blob: only the trees on those paths are
        read and written, as vmem.store.repo._build_tree does with pygit2's TreeBuilder."""
        here: dict[bytes, bytes] = {}
        below: dict[str, dict[str, str]] = {}
        for path, oid in changes.items():
            head, _, rest = path.partition("/")
            if rest:
                below.setdefault(head, {})[rest] = oid
            else:
                here[head.encode("utf-8", "surrogateescape")] = bytes.fromhex(oid)
        if base is not None and len(here) + len(below) <= 8:
            built = self._spliced(base, here, below)
            if built is not None:
                return self.write("tree", built)
        entries = {name: (mode, oid) for mode, name, oid in parse_tree(base.read_raw())} if base is not None else {}
        for name, oid in here.items():
            entries[name] = (FILEMODE_BLOB, oid)
        for name, sub in below.items():
            key = name.encode("utf-8", "surrogateescape")
            current = entries.get(key)
            subtree = Tree(self, current[1].hex()) if current is not None and current[0] == FILEMODE_TREE else None
            entries[key] = (FILEMODE_TREE, self.write_tree(subtree, sub).raw)
        return self.write("tree", serialize_tree([(mode, name, oid) for name, (mode, oid) in entries.items()]))

    def _spliced(self, base: Tree, here: dict[bytes, bytes], below: dict[str, dict[str, str]]) -> bytes | None:
        """BASE's bytes with the few entries of a write replaced or inserted in place, when BASE is canonical (its
        entries in git's order, git's modes, every byte an entry); None otherwise, and write_tree rebuilds the
        tree from its parsed entries (which also canonicalises it). A shard of a 1M store holds ~2,800 entries:
        this keeps them as bytes instead of parsing, sorting and formatting each one again."""
        import bisect

        raw = base.read_raw()
        parts = _WHOLE_ENTRY.findall(raw)
        if b"".join(parts) != raw:
            return None
        keys = []
        for part in parts:
            mode, _, rest = part.partition(b" ")
            if mode not in _CANONICAL_MODES:
                return None
            keys.append(rest[:-21] + b"/" if mode == b"40000" else rest[:-21])
        if any(keys[n] >= keys[n + 1] for n in range(len(keys) - 1)):
            return None
        updates: dict[bytes, tuple[int, bytes]] = {name: (FILEMODE_BLOB, oid) for name, oid in here.items()}
        for name, sub in below.items():
            key = name.encode("utf-8", "surrogateescape")
            at = bisect.bisect_left(keys, key + b"/")
            subtree = Tree(self, parts[at][-20:].hex()) if at < len(keys) and keys[at] == key + b"/" else None
            updates[key] = (FILEMODE_TREE, self.write_tree(subtree, sub).raw)
        for name, (mode, oid) in updates.items():
            other = bisect.bisect_left(keys, name if mode == FILEMODE_TREE else name + b"/")
            if other < len(keys) and keys[other] == (name if mode == FILEMODE_TREE else name + b"/"):
                return None  # a file becomes a folder or the other way round: rebuilt in full
            key = name + b"/" if mode == FILEMODE_TREE else name
            entry = b"%o %s\0%s" % (mode, name, oid)
            at = bisect.bisect_left(keys, key)
            if at < len(keys) and keys[at] == key:
                parts[at] = entry
            else:
                keys.insert(at, key)
                parts.insert(at, entry)
        return b"".join(parts)

    def write_commit(self, tree: str, parents: list[str], author: Signature, committer: Signature,
                     message: str, sign=None) -> Oid:
        """A commit object as libgit2's git_commit_create writes it (no encoding header: UTF-8). SIGN: a function
        from the commit's text to a detached signature, stored as git stores one (the gpgsig header)."""
        lines = [b"tree " + str(tree).encode("ascii")]
        lines += [b"parent " + str(p).encode("ascii") for p in parents]
        lines += [b"author " + author.raw(), b"committer " + committer.raw()]
        body = b"\n\n" + message.encode("utf-8")
        if sign is not None:
            signature = sign((b"\n".join(lines) + body).decode("utf-8")).strip("\n").encode("utf-8")
            lines.append(b"gpgsig " + signature.replace(b"\n", b"\n "))
        return self.write("commit", b"\n".join(lines) + body)

    def close(self) -> None:
        if self._batch is not None:
            self._batch.close()
            self._batch = None

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise Unsupported(f"Repository.{name} needs pygit2")


def git_dirs(root: Path) -> tuple[Path, Path]:
    """(the git directory, its objects directory) of the work tree ROOT: .git a folder, or a file naming one
    (`gitdir: …`, a linked worktree or a submodule; its objects are in the common directory)."""
    dot = root / ".git"
    if dot.is_symlink():
        raise Unsupported(f"{dot} is a symlink; vmem never follows one", "make .git a folder (or a gitdir: file)")
    if dot.is_file():
        text = dot.read_text(encoding="utf-8", errors="replace").strip()
        if not text.startswith("gitdir:"):
            raise Unsupported(f"{dot} is neither a folder nor a gitdir: file")
        gitdir = Path(text[len("gitdir:"):].strip())
        gitdir = gitdir if gitdir.is_absolute() else (root / gitdir)
    else:
        gitdir = dot
    if not (gitdir / "HEAD").is_file():
        raise Unsupported(f"{root} is not a git work tree (no {gitdir}/HEAD)",
                          "run: git init && git add -A && git commit -m 'vmem store'")
    common = gitdir
    if (gitdir / "commondir").is_file():
        named = Path((gitdir / "commondir").read_text(encoding="utf-8", errors="replace").strip())
        common = named if named.is_absolute() else gitdir / named
    return gitdir, common / "objects"


class _Config:
    """Lookups by git's key rules: section and variable names ignore case, a subsection does not."""

    def __init__(self, values: dict[str, str]) -> None:
        self._values = values

    @staticmethod
    def _key(key: str) -> str:
        first, _, rest = key.partition(".")
        middle, _, last = rest.rpartition(".")
        return ".".join(p for p in (first.lower(), middle, last.lower()) if p)

    def __getitem__(self, key: str) -> str:
        return self._values[self._key(key)]

    def get(self, key: str, default=None):
        return self._values.get(self._key(key), default)

    def __contains__(self, key: str) -> bool:
        return self._key(key) in self._values
