"""The one owned-file writer every sync target goes through (SPEC 9, 11, 13).

All or nothing: every write and delete is planned (and every refusal found) before the first byte is written.
Files are opened with O_NOFOLLOW and replaced by atomic renames of fresh files; nothing is written through a
symlink, FIFO or directory in the way; only files whose head carries this store's marker are overwritten or
pruned; a file whose content would not change (but for the commit in its marker) keeps its bytes and mtime.
A target that owns a *section* of a user's file (AGENTS.md) merges into it and never changes the text outside.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from collections.abc import Callable

from vmem.errors import UsageError
from vmem.targets.text import MARKER, id_tag, one_line

# The marker's provenance: which clone's folder name and which commit wrote it. Neither is content: a file equal
# but for them is left as it is, so a committed AGENTS.md section reads the same bytes in every teammate's clone,
# wherever each keeps the store (and an agent that cites the commit still finds one that produced this text).
_MARKED_COMMIT = re.compile(rb"from store [^\n]*? at commit (?:[0-9a-f]{40}|none);")
HEAD = 2048  # the marker sits in a file's first bytes (after frontmatter)


def same_content(old: bytes, new: bytes) -> bool:
    """Equal, or equal but for the store's folder name and the commit in the marker: the file stays as it is
    (same bytes, same mtime), and its marker keeps naming the commit its content was generated from. A commit that
    changes nothing a file shows rewrites nothing, and neither does a clone that keeps the store elsewhere."""
    return old == new or _MARKED_COMMIT.sub(b"", old, count=1) == _MARKED_COMMIT.sub(b"", new, count=1)


class Owner:
    """Which generated files belong to one store: its marker (its id; a pre-id marker with its name) in the head."""

    def __init__(self, store_name: str, store_id: str | None) -> None:
        self.tag = id_tag(store_id).encode()
        self.legacy = f"from store {one_line(store_name)} at commit ".encode()

    def owns(self, head: bytes) -> bool:
        if MARKER.encode() not in head:
            return False
        if self.tag and self.tag in head:
            return True
        return b" [id " not in head and self.legacy in head


def lstat(path: Path):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def read_regular(path: Path, limit: int = 4_000_000, whole: bool = True) -> bytes | None:
    """A regular file's bytes, opened without following a symlink or blocking on a FIFO; None otherwise. A file
    longer than LIMIT is refused (a usage error), never read in part, unless WHOLE is false (a head is enough)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if whole and size > limit:
            raise UsageError(f"{path} is larger than {limit:,} bytes; vmem will not read it in part or edit it",
                             "shorten it, or move it away")
        return b"".join(chunks)
    finally:
        os.close(fd)


def kind(mode: int) -> str:
    import stat

    return ("a symlink" if stat.S_ISLNK(mode) else "a directory" if stat.S_ISDIR(mode) else
            "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def check_dir(directory: Path, project: Path | None) -> None:
    """A target directory: a real directory (or one to create), reached without a symlink from PROJECT."""
    import stat

    chain = [directory]
    if project is not None:
        try:
            rel = directory.relative_to(project)
        except ValueError:
            rel = None
        if rel is not None:
            chain = [project / Path(*rel.parts[:n]) for n in range(1, len(rel.parts) + 1)]
    for step in chain:
        found = lstat(step)
        if found is not None and not stat.S_ISDIR(found.st_mode):
            raise UsageError(f"{step} is {kind(found.st_mode)}, not a directory; vmem syncs only into real "
                             "directories", "remove it, or sync into another --dir")


Merge = Callable[[bytes | None, "str | None", Owner, Path], "bytes | None"]


def plan(directory: Path, files: dict[str, str | None], owner: Owner, prunable: Callable[[str], bool],
         merge: Merge | None = None) -> tuple[dict[Path, bytes], list[str], list[Path]]:
    """Decide every write and delete before touching anything, so a refusal leaves the previous files intact.
    FILES: name -> content (None: a merged file's section is to go)."""
    import stat

    writes: dict[Path, bytes] = {}
    unchanged: list[str] = []
    deletes: list[Path] = []
    for name, content in sorted(files.items()):
        path = directory / name  # names come from validated ids (km_<id>.md), never from a path
        found = lstat(path)
        if found is not None and not stat.S_ISREG(found.st_mode):
            raise UsageError(f"{path} is {kind(found.st_mode)}; vmem never writes through one",
                             "remove it, or sync into another --dir")
        # a merged file (AGENTS.md) is the user's: read whole or refused, never spliced into a truncated copy
        old = read_regular(path, whole=merge is not None) if found is not None else None
        if found is not None and old is None:
            raise UsageError(f"{path} cannot be read safely; vmem will not replace it", "remove it by hand")
        if merge is not None:
            data = merge(old, content, owner, path)
            if data is None:
                if old is not None:
                    deletes.append(path)
                continue
            if content is None and data == old:
                continue  # nothing of ours in it
        else:
            data = (content or "").encode("utf-8")
        if old is not None and same_content(old, data):
            unchanged.append(str(path))
            continue
        if merge is None and old is not None and not owner.owns(old[:HEAD]):
            raise UsageError(f"{path} exists and was not written by vmem from this store; refusing to overwrite it",
                             "move it away or sync into another --dir")
        writes[path] = data
    if merge is None and lstat(directory) is not None:
        for path in sorted(directory.iterdir()):
            if path.name in files or not prunable(path.name):
                continue
            found = lstat(path)
            head = read_regular(path, HEAD, whole=False) if found is not None and stat.S_ISREG(found.st_mode) else None
            if head is not None and owner.owns(head[:HEAD]):
                deletes.append(path)
    return writes, unchanged, deletes


def plan_dir(directory: Path, files: dict[str, str | None], owner: Owner, project: Path | None,
             prunable: Callable[[str], bool], merge: Merge | None = None):
    check_dir(directory, project)
    return plan(directory, files, owner, prunable, merge)


def commit(directory: Path, project: Path | None, writes: dict[Path, bytes], unchanged: list[str],
           deletes: list[Path]) -> tuple[list[str], list[str], list[str]]:
    if writes:
        directory.mkdir(parents=True, exist_ok=True)
        check_dir(directory, project)  # nothing raced a symlink into the path while it was made
    staged = []
    try:
        for path, data in writes.items():
            # one name per process: two sessions starting at once each stage their own file
            tmp = path.with_name(f".{path.name}.{os.getpid()}.vmem-tmp")
            if lstat(tmp) is not None:
                os.unlink(tmp)  # a leftover of a killed run with this pid (unlink never follows a symlink)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            staged.append((tmp, path))
    except OSError as exc:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write into {directory} ({exc.strerror or exc}); nothing was changed",
                         "check the directory's permissions") from None
    for tmp, path in staged:
        os.replace(tmp, path)  # atomic; a concurrent run renaming the same content first is harmless
    for path in deletes:
        path.unlink(missing_ok=True)
    return [str(p) for _, p in staged], unchanged, [str(p) for p in deletes]
