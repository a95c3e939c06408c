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
    """Propose (vmem.ops.propose.propose, the body every face runs), print, and return the exit code (1 for a
    statement rejected before); VmemError propagates. STORE is called to open the store."""
    from vmem.cli.render import one_line
    from vmem.ops.propose import propose

    result = propose(store(), text, from_=from_, categories=category, episodes=episode, about=about,
                     domain=domain, title=title, klass=klass, audience=audience, personal=personal, paths=paths,
                     supersedes=supersedes, as_=as_)
    data = result.data()
    del data["notes"]  # printed below, on stderr
    out.result(data)
    out.line(one_line(HEADLINES.get(result.action, result.action), result.item, result.commit))
    for note in result.notes:
        out.note(note)
    for clash in result.contradictions:  # a warning, not a refusal: a reviewer decides which belief stands
        out.note(f"warning: contradicts {clash['id']} ({clash['reason']}): {clash['statement'][:120]}\n"
                 f"  a reviewer will see both; to replace it instead: vmem propose TEXT --supersedes {clash['id']}")
    return result.exit_code


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
