"""`vmem propose`: a fact (claim) or, with --from, a learning (knowledge evidence)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import AsOpt, JsonOpt, StoreOpt, session
from vmem.cli.render import one_line

HEADLINES = {
    "created": "proposed",
    "reinforced": "reinforced (same canonical statement; evidence added)",
    "unchanged": "unchanged (this evidence is already recorded)",
    "previously_rejected": "previously rejected (nothing written)",
    "quarantined": "quarantined (it identifies a customer)",
}


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
        from vmem.errors import UsageError
        from vmem.ops import propose as ops

        if from_:
            misplaced = [flag for flag, value in (("--about", about), ("--domain", domain), ("--title", title),
                                                  ("--class", klass), ("--paths", paths),
                                                  ("--supersedes", supersedes)) if value]
            if misplaced or personal or audience != "all":
                raise UsageError(f"{(misplaced or ['--personal/--audience'])[0]} applies to facts, not learnings",
                                 "a learning takes --from ENTITY -c CATEGORY [--episode EP]")
            result = ops.propose_learning(s.store, text, entity=from_, categories=category or [],
                                          episodes=episode, as_=as_)
        else:
            if episode:
                raise UsageError("--episode needs --from ENTITY", "learnings cite episodes; facts do not")
            result = ops.propose_claim(s.store, text, about=about, domain=domain, title=title, klass=klass,
                                       audience=audience, personal=personal, paths=paths, categories=category,
                                       supersedes=supersedes, as_=as_)

        from vmem.ops.card import viewer_of
        from vmem.ops.contradictions import at_propose

        found = [] if result.action in ("previously_rejected", "unchanged") else \
            at_propose(s.store.head(), result.item, viewer_of(s.store))
        clashes = [{"id": p["b"] if p["a"] == result.item["id"] else p["a"], "reason": p["reason"], "rules": p["rules"],
                    "statement": p["b_statement"] if p["a"] == result.item["id"] else p["a_statement"]} for p in found]
        s.out.result({"action": result.action, "item": result.item, "commit": result.commit,
                      "contradictions": clashes})
        s.out.line(one_line(HEADLINES.get(result.action, result.action), result.item, result.commit))
        for note in result.notes:
            s.out.note(note)
        for clash in clashes:  # a warning, not a refusal: a reviewer decides which belief stands (SPEC 14)
            s.out.note(f"warning: contradicts {clash['id']} ({clash['reason']}): {clash['statement'][:120]}\n"
                       f"  a reviewer will see both; to replace it instead: vmem propose TEXT --supersedes {clash['id']}")
        if result.action == "previously_rejected":
            raise typer.Exit(1)
