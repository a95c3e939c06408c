"""`vmem propose`: a fact (claim) or, with --from, a learning (knowledge evidence)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import AsOpt, JsonOpt, StoreOpt, session
from vmem.cli.fast import run_on_store
from vmem.cli.propose_fast import execute


def propose(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The fact or learning, in one or two sentences.")],
    from_: Annotated[Optional[str], typer.Option("--from", metavar="ENTITY",
                                                 help="A learning noticed at this customer (knowledge).")] = None,
    category: Annotated[Optional[list[str]], typer.Option("--category", "-c", metavar="CAT",
                                                          help="Category facet:value (repeatable).")] = None,
    episode: Annotated[Optional[list[str]], typer.Option("--episode", metavar="EP",
                                                         help="Source episode of the learning (repeatable).")] = None,
    about: Annotated[Optional[str], typer.Option("--about", metavar="ENTITY",
                                                 help="Scope a fact to one customer.")] = None,
    domain: Annotated[Optional[str], typer.Option("--domain", help="Domain partition, e.g. finance.")] = None,
    title: Annotated[Optional[str], typer.Option("--title", help="One-line title.")] = None,
    klass: Annotated[Optional[str], typer.Option("--class", metavar="CLASS",
                                                 help="factual | procedural | preference | contextual.")] = None,
    audience: Annotated[str, typer.Option("--audience", help="all or group:NAME.")] = "all",
    personal: Annotated[bool, typer.Option("--personal", help="Private to you; never synced or recalled "
                                                               "for others.")] = False,
    paths: Annotated[Optional[list[str]], typer.Option("--paths", metavar="GLOB",
                                                       help="Only load for files matching GLOB (repeatable).")] = None,
    supersedes: Annotated[Optional[str], typer.Option("--supersedes", metavar="ID",
                                                      help="Propose a revision of ID (it stays live until "
                                                           "this is approved).")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Propose a fact (a claim, status proposed) or, with --from ENTITY -c CAT, a learning."""
    with session(ctx, json_, store) as s:
        code = run_on_store(execute, s.out, s.store_path, text, from_=from_, category=category, episode=episode,
                          about=about, domain=domain, title=title, klass=klass, audience=audience, personal=personal,
                          paths=paths, supersedes=supersedes, as_=as_)
        if code:
            raise typer.Exit(code)
