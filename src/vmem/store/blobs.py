"""A blob's bytes by its id, from the repository a store or a snapshot reads (pygit2 or vmem.store.lite alike)."""

from __future__ import annotations


def read(source, oid) -> bytes:
    """The bytes of the blob OID in the repository of SOURCE (a Store or a Snapshot); KeyError when it has none."""
    return source.repo[oid].data
