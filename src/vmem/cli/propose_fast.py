"""`vmem propose` without typer or rich: the body both faces run, and the parser the console entry point tries
first (a proposal is the commonest write; typer and its command table cost ~60 ms before anything happens).

Anything this parser does not read with certainty (help, an unknown option, a missing value, a TEXT that starts
with '-') returns None and the typer command runs instead, with its own messages. A test checks that both faces
take the same options and print the same thing.
"""

from __future__ import annotations

from vmem.cli.fast import Parser, parser_for, run_fast

HEADLINES = {
    "created": "proposed",
    "reinforced": "reinforced (same canonical statement; evidence added)",
    "unchanged": "unchanged (this evidence is already recorded)",
    "previously_rejected": "previously rejected (nothing written)",
    "quarantined": "quarantined (it identifies a customer)",
}


def execute(out, store, text: str, *, from_: str | None = None, category: list[str] | None = None,
            episode: list[str] | None = None, about: str | None = None, domain: str | None = None,
            title: str | None = None, klass: str | None = None, audience: str = "all", personal: bool = False,
            paths: list[str] | None = None, supersedes: str | None = None, as_: str | None = None) -> int:
    """Propose, print, and return the exit code (1 for a statement rejected before); VmemError propagates.
    STORE is called to open the store, so a missing store is reported like any other error."""
    from vmem.cli.render import one_line
    from vmem.errors import UsageError
    from vmem.ops import propose as ops

    if from_:
        misplaced = [flag for flag, value in (("--about", about), ("--domain", domain), ("--title", title),
                                              ("--class", klass), ("--paths", paths),
                                              ("--supersedes", supersedes)) if value]
        if misplaced or personal or audience != "all":
            raise UsageError(f"{(misplaced or ['--personal/--audience'])[0]} applies to facts, not learnings",
                             "a learning takes --from ENTITY -c CATEGORY [--episode EP]")
        opened = store()
        result = ops.propose_learning(opened, text, entity=from_, categories=category or [], episodes=episode,
                                      as_=as_)
    else:
        if episode:
            raise UsageError("--episode needs --from ENTITY", "learnings cite episodes; facts do not")
        opened = store()
        result = ops.propose_claim(opened, text, about=about, domain=domain, title=title, klass=klass,
                                   audience=audience, personal=personal, paths=paths, categories=category,
                                   supersedes=supersedes, as_=as_)

    from vmem.ops.card import viewer_of
    from vmem.ops.contradictions import at_propose

    from vmem.store.lite import Unsupported

    try:
        found = [] if result.action in ("previously_rejected", "unchanged") else \
            at_propose(opened.head(), result.item, viewer_of(opened), result.notes)
    except Unsupported:  # after the commit: only this check runs again, on pygit2
        opened = opened.full()
        found = at_propose(opened.head(), result.item, viewer_of(opened), result.notes)
    clashes = [{"id": p["b"] if p["a"] == result.item["id"] else p["a"], "reason": p["reason"], "rules": p["rules"],
                "statement": p["b_statement"] if p["a"] == result.item["id"] else p["a_statement"]} for p in found]
    out.result({"action": result.action, "item": result.item, "commit": result.commit, "contradictions": clashes})
    out.line(one_line(HEADLINES.get(result.action, result.action), result.item, result.commit))
    for note in result.notes:
        out.note(note)
    for clash in clashes:  # a warning, not a refusal: a reviewer decides which belief stands (SPEC 14)
        out.note(f"warning: contradicts {clash['id']} ({clash['reason']}): {clash['statement'][:120]}\n"
                 f"  a reviewer will see both; to replace it instead: vmem propose TEXT --supersedes {clash['id']}")
    return 1 if result.action == "previously_rejected" else 0


def parser() -> Parser:
    p = parser_for("propose")
    p.add_argument("text")
    p.add_argument("--from", dest="from_")
    p.add_argument("--category", "-c", dest="category", action="append")
    p.add_argument("--episode", action="append")
    p.add_argument("--about")
    p.add_argument("--domain")
    p.add_argument("--title")
    p.add_argument("--class", dest="klass")
    p.add_argument("--audience", default="all")
    p.add_argument("--personal", action="store_true")
    p.add_argument("--paths", action="append")
    p.add_argument("--supersedes")
    return p


def fast_main(argv: list[str]) -> int | None:
    """The exit code, or None when the typer command should run instead."""
    return run_fast(argv, parser(), execute)
