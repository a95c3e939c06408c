"""`vmem report [--out DIR]` (a static HTML site for reviewers) and `vmem map` (the knowledge layer's communities)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.output import safe


def report(
    ctx: typer.Context,
    out: Annotated[Optional[Path], typer.Option("--out", metavar="DIR", help="Where to write the site (default: "
                                                "vmem-report inside the store's .git).")] = None,
    quarantined_evidence: Annotated[bool, typer.Option("--quarantined-evidence",
                                                       help="Also show quarantined items' evidence quotes (they "
                                                            "identify a customer).")] = False,
    claims: Annotated[bool, typer.Option("--map-claims", help="Put claims on the map too.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Write a static HTML report (no server, works from file://): queue with cards, timelines, contradictions,
    gates and support, claims expiring soon, the map."""
    with session(ctx, json_, store) as s:
        from vmem.ops.report import write

        done = write(s.store, out, quarantined_evidence=quarantined_evidence, map_claims=claims)
        s.out.result(done)
        c = done["counts"]
        s.out.line(f"report written: {done['index']}")
        s.out.line(f"  {c['queue']} to review, {c['contradictions']} contradictions, {c['expiring']} expiring within "
                   f"30 days, {c['communities']} communities on the map; open {done['url']}")


def map_(
    ctx: typer.Context,
    svg: Annotated[Optional[Path], typer.Option("--svg", metavar="FILE", help="Also write the map as SVG.")] = None,
    claims: Annotated[bool, typer.Option("--claims", help="Map claims too, not only knowledge.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """The knowledge layer as communities of similar items (Louvain), each with its dominant categories and a
    representative statement; orphans, bridges between communities and thin categories. Read-only."""
    with session(ctx, json_, store) as s:
        from vmem.ops.card import viewer_of
        from vmem.ops.knowledge_map import build, svg as render_svg

        graph = build(s.store, claims=claims, viewer=viewer_of(s.store))
        if svg is not None:
            _write_svg(svg, render_svg(graph))

        def human(console) -> None:
            words = (("nodes", "item", "items"), ("edges", "link", "links"), ("communities", "community",
                     "communities"), ("orphans", "orphan", "orphans"), ("bridges", "bridge", "bridges"))
            console.print(", ".join(f"{len(graph[k])} {one if len(graph[k]) == 1 else many}" for k, one, many in words))
            for c in graph["communities"][:20]:
                console.print(f"  {c['id']:>3}  {c['size']:>5} items  [bold]{safe(c['label'])}[/]\n"
                              f"        {c['representative']['id']}: {safe(c['representative']['statement'][:120])}",
                              soft_wrap=True)
            for t in graph["thin_categories"][:10]:
                console.print(f"  thin: {safe(t['category'])} ({'; '.join(t['reasons'])})", soft_wrap=True)
            if svg is not None:
                console.print(f"map written: {safe(svg)}")

        s.out.result(graph, human)


def _write_svg(path: Path, text: str) -> None:
    """Write the map to PATH atomically; never through a symlink, never over a file that is not an SVG (a typo in
    --svg must not cost anyone their notes)."""
    import os

    from vmem.errors import VmemError

    hint = "pick a new file name: vmem map --svg FILE"
    if path.is_symlink():
        raise VmemError(f"{path} is a symlink; vmem never writes through one", hint)
    if path.exists():
        head = b""
        if path.is_file():
            with open(path, "rb") as handle:
                head = handle.read(512).lstrip()
        if not head.startswith((b"<svg", b"<?xml")):
            raise VmemError(f"{path} exists and is not an SVG; vmem map will not overwrite it", hint)
    tmp = path.with_name(f".{path.name}.vmem-tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise VmemError(f"cannot write {path} ({exc.strerror})", "pick a writable path: vmem map --svg FILE") from None
