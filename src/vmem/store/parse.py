"""Parsing item blobs, cached by blob id; no pygit2 here, so `vmem sync` can parse without importing it."""

from __future__ import annotations

from vmem import model
from vmem.errors import SchemaError
from vmem.store import codec, layout

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Callable

PARSED: dict[tuple[str, str], dict] = {}  # (kind, blob id) -> validated item; blob ids are content hashes
CAPACITY = 200_000  # items kept; beyond this the cache starts over
SHARE_FROM = 2_000  # blobs to parse at once from which a second process is worth its start (~10 ms)


class bulk:
    """`with bulk():` the cyclic garbage collector rests while a replay or a full read builds tens of thousands of
    rows and items: they hold no reference cycles (refcounting frees them), yet each full collection walks all of
    them (~100 ms of a 10k store's cold sync, measured with gc.callbacks, for nothing found). Nested uses are one."""

    def __enter__(self) -> None:
        import gc

        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc) -> None:
        if self.was:
            import gc

            gc.enable()


def parsed(kind: str, oid: str) -> dict | None:
    """The validated item in blob OID if this process parsed it already (None: not yet, or it does not parse)."""
    return PARSED.get((kind, oid))


def parse_blob(kind: str, path: str, oid: str, data: bytes) -> dict:
    key = (kind, oid)
    cached = PARSED.get(key)
    if cached is None:
        text = codec.decode(data, path)
        cached = layout.read(kind, text) if kind in ("claim", "knowledge") else None  # a vmem-written file
        if cached is None:
            cached = model.validate(kind, codec.load(text, path, oid), path, codec.line_finder(text))
        if len(PARSED) > CAPACITY:
            PARSED.clear()
        PARSED[key] = cached
    return cached


def parse_ahead(wanted: list[tuple[str, str, str]], read: Callable[[str], bytes],
                reader: Callable[[], Callable[[str], bytes]], meanwhile: Callable[[], object] | None = None) -> None:
    """Parse and validate the blobs WANTED ((kind, path, blob id)) into the cache ahead of the calls that ask for
    them (parse_blob, parsed): a replay from the first commit on a fresh clone parses every version of every item.
    With two cores and many blobs, a forked process parses every other one (reading them through READER(), its
    own repository handle) and hands the validated items back; the same function on the same bytes, so the
    result is the one this process would have computed. A blob that does not parse is left for the caller to meet
    (its error is the caller's to report); anything that goes wrong with the second process costs only time.
    MEANWHILE runs while the second process finishes its share (work the caller will need, that needs no parse)."""
    todo = [w for w in dict.fromkeys(wanted) if (w[0], w[2]) not in PARSED][:max(0, CAPACITY - len(PARSED))]
    share = todo[1::2] if len(todo) >= SHARE_FROM and _cores() >= 2 else []
    child = _fork(share, reader) if share else None
    for kind, path, oid in todo[::2] if child is not None else todo:
        try:
            parse_blob(kind, path, oid, read(oid))
        except SchemaError:
            pass
    if child is not None:
        if meanwhile is not None:
            meanwhile()
        _collect(*child)


def _cores() -> int:
    """Cores this process may fork a parser onto: 1 off Linux (fork elsewhere is not worth its risks) and while
    other threads run (a lock one of them holds, the import lock say, would stay held forever in the child)."""
    import os
    import sys

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return 1


def _fork(share: list[tuple[str, str, str]], reader: Callable[[], Callable[[str], bytes]]):
    """Start a process that parses SHARE and writes {(kind, blob id): item} to a pipe; (pid, read end) or None."""
    import os

    try:
        out, into = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid != 0:
        os.close(into)
        return pid, out
    try:  # the child: parse, write, and leave without running anything of the parent's (os._exit)
        import marshal

        os.close(out)
        read, found = reader(), {}
        for kind, path, oid in share:
            try:
                found[(kind, oid)] = parse_blob(kind, path, oid, read(oid))
            except SchemaError:
                pass
        with os.fdopen(into, "wb") as pipe:
            pipe.write(marshal.dumps(found))
    finally:
        os._exit(0)


def _collect(pid: int, out: int) -> None:
    import marshal
    import os

    with os.fdopen(out, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    try:
        found = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return  # the child died on the way: its blobs are parsed here when asked for
    if isinstance(found, dict):
        PARSED.update(found)
