"""`vmem init [PATH]`: create a store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, session


def init(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Directory for the new store (created if missing).")] = Path("."),
    remote: Annotated[Optional[str], typer.Option("--remote", metavar="URL",
                                                  help="The team's git remote, added as origin.")] = None,
    reviewer: Annotated[Optional[list[str]], typer.Option(
        "--reviewer", metavar="EMAIL",
        help="A reviewer, in vmem.yaml from the first commit (repeatable): no fork of the store's history is "
             "ever one where anyone may review.")] = None,
    solo: Annotated[bool, typer.Option("--solo", help="No reviewers: anyone who can push may approve and publish "
                                       "(a store for one person; vmem init and vmem check say so).")] = False,
    json_: JsonOpt = False,
) -> None:
    """Create a new store: a git repository with vmem.yaml, the item folders and one initial commit."""
    with session(ctx, json_) as s:
        from vmem.ops.init import init_store

        store = init_store(path, remote=remote, reviewers=reviewer or [], solo=solo)
        head = store.head().commit_id
        reviewers = store.policy["reviewers"]
        s.out.result({"path": str(store.root), "commit": head, "reviewers": reviewers}, lambda c: (
            c.print(f"created vmem store in [bold]{store.root}[/] (commit {head[:10]})"),
            c.print(f"reviewers: {', '.join(reviewers)} (add more in vmem.yaml, as a reviewer's commit)"
                    if reviewers else "solo store: no reviewers, so anyone who can push may approve and publish",
                    soft_wrap=True),
            c.print(f"next: cd {store.root} && vmem entity add acme --name 'Acme Health' -c industry:healthcare",
                    soft_wrap=True),
            c.print("then: vmem propose \"what you know\" (a fact), or --from acme -c industry:healthcare "
                    "(a learning about a customer)", soft_wrap=True),
        ))
