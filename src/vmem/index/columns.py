"""The index's per-item columns in one file that numpy and plain Python both read (columns.bin).

Layout: 8 magic bytes, the header's length (8 bytes, little-endian), a JSON header padded to 8 bytes, then the
body: each column as raw little-endian values (int32 `i` or float64 `d`, each 8-byte aligned), then the item ids
joined by newlines. The header holds the row count, each column's type, offset and length, and the body's CRC-32,
so a damaged file is refused, never half read. numpy maps a column with np.frombuffer; a one-shot recall reads it
with memoryview.cast, without importing numpy.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from pathlib import Path

NAME = "columns.bin"
MAGIC = b"VMEMCOL1"
_NUMPY = {"i": "<i4", "d": "<f8"}


def write(path: Path, ids: list[str], columns: dict) -> None:
    """Write IDS and COLUMNS (one value per id: numpy arrays, or a light index's array('i') / array('d')) to PATH
    atomically (a temp file, then os.replace)."""
    parts, layout, at = [], {}, 0
    for name, values in columns.items():
        if hasattr(values, "typecode"):  # array: native order, which the plain reader requires to be little
            code, data = ("d" if values.typecode == "d" else "i"), values.tobytes()
            if values.itemsize != (8 if code == "d" else 4) or sys.byteorder != "little":
                raise ValueError(f"column {name} is not little-endian int32 / float64")
        else:
            import numpy as np

            code = "d" if values.dtype.kind == "f" else "i"
            data = np.ascontiguousarray(values, dtype=_NUMPY[code]).tobytes()
        data += b"\0" * (-len(data) % 8)
        layout[name] = [code, at]
        parts.append(data)
        at += len(data)
    names = "\n".join(ids).encode()
    body = b"".join(parts) + names
    header = json.dumps({"rows": len(ids), "columns": layout, "ids": [at, len(names)],
                         "crc": zlib.crc32(body)}).encode()
    header += b" " * (-len(header) % 8)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as handle:
        handle.write(MAGIC + len(header).to_bytes(8, "little") + header + body)
    os.replace(tmp, path)


def _read(path: Path, buffer: bytearray | bytes) -> tuple[dict, memoryview]:
    """(header, body) of a columns file's bytes; ValueError when it is not one or is damaged."""
    view = memoryview(buffer)
    header, start = _header(path, bytes(view[:16]), lambda size: bytes(view[16:16 + size]))
    body = view[start:]
    if zlib.crc32(body) != header["crc"]:
        raise ValueError(f"{path} is damaged")
    return header, body


def _header(path: Path, lead: bytes, read) -> tuple[dict, int]:
    if lead[:8] != MAGIC:
        raise ValueError(f"{path} is not a columns file")
    length = int.from_bytes(lead[8:16], "little")
    return json.loads(read(length)), 16 + length


def _ids(header: dict, body: memoryview) -> list[str]:
    start, size = header["ids"]
    ids = bytes(body[start:start + size]).decode().split("\n") if header["rows"] else []
    if len(ids) != header["rows"]:
        raise ValueError("the ids do not match the row count")
    return ids


def read_numpy(path: Path) -> tuple[list[str], dict]:
    """(ids, {name: writable numpy array}) for a long-lived index, which updates rows in place."""
    import numpy as np

    header, body = _read(path, bytearray(path.read_bytes()))
    rows = header["rows"]
    columns = {name: np.frombuffer(body, dtype=_NUMPY[code], count=rows, offset=at)
               for name, (code, at) in header["columns"].items()}
    return _ids(header, body), columns


def read_plain(path: Path, max_rows: int) -> tuple[list[str], dict] | None:
    """(ids, {name: memoryview of int or float}) without numpy; None on a big-endian machine or past MAX_ROWS
    (where numpy's import costs less than plain Python's per-row work): the caller reads it with numpy."""
    if sys.byteorder != "little":
        return None
    with open(path, "rb") as handle:
        lead = handle.read(16)
        text = []
        header, _ = _header(path, lead, lambda size: text.append(handle.read(size)) or text[0])
        if header["rows"] > max_rows:
            return None
        data = lead + text[0] + handle.read()
    header, body = _read(path, data)
    rows = header["rows"]
    columns = {}
    for name, (code, at) in header["columns"].items():
        size = 4 if code == "i" else 8
        if code not in _NUMPY or at + rows * size > len(body):
            raise ValueError(f"column {name} runs past the file")
        columns[name] = body[at:at + rows * size].cast("i" if code == "i" else "d")
    return _ids(header, body), columns
