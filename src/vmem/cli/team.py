"""Team commands over git remotes: clone, setup, merge-driver."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session


def clone(
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(metavar="URL", help="The store's git remote.")],
    directory: Annotated[Optional[Path], typer.Argument(
        metavar="DIR", help="Where to clone the store (default: a directory named after it).")] = None,
    json_: JsonOpt = False,
) -> None:
    """Clone a store and register the vmem merge driver in the clone."""
    with session(ctx, json_) as s:
        from vmem.ops.merge import clone as clone_store

        target = directory or Path(url.rstrip("/").split("/")[-1].removesuffix(".git") or "store")
        workdir = clone_store(url, target)
        s.out.result({"path": str(Path(workdir)), "merge_driver": True})
        s.out.line(f"cloned into {workdir} and registered the vmem merge driver")


def setup(ctx: typer.Context, json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Register the vmem merge driver in this clone (git silently line-merges item files without it)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.merge import set_up

        changed = set_up(s.store)
        s.out.result({"merge_driver": True, "changed": changed})
        s.out.line("vmem merge driver " + ("registered" if changed else "already registered"))


def merge_driver(
    base: Annotated[Path, typer.Argument(metavar="BASE", help="The common ancestor's version (git passes %O).")],
    ours: Annotated[Path, typer.Argument(metavar="OURS", help="This side's version; the result is written here (%A).")],
    theirs: Annotated[Path, typer.Argument(metavar="THEIRS", help="The other side's version (%B).")],
    name: Annotated[str, typer.Argument(metavar="PATH", help="The file's path in the store (%P).")] = "item",
) -> None:
    """Git merge driver for item files (%O %A %B %P): field-wise merge into OURS; exit 1 on a conflict."""
    import sys

    from vmem.errors import VmemError
    from vmem.ops.merge import merge_files

    try:
        conflicts = merge_files(base, ours, theirs, name)
    except VmemError as exc:
        sys.stderr.write(f"vmem merge-driver: {exc.message}; leaving {name} to git\n")
        raise typer.Exit(1) from None
    for line in conflicts:
        sys.stderr.write(f"vmem merge conflict in {name}: {line}\n")
    raise typer.Exit(1 if conflicts else 0)
