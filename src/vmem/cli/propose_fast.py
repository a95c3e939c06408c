"""`vmem propose` without typer or rich: what the typer-free face prints (the body is vmem.ops.propose.propose;
the reader is derived from the typer command in cli/propose.py, see cli/fast.py).
"""

from __future__ import annotations

from vmem.cli.fast import run_fast, spec_of

HEADLINES = {
    "created": "proposed",
    "repeated": "repeats an open claim (recorded as your confirmation, not a second claim)",
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
    from vmem.ops.contradictions import warning

    for clash in result.contradictions:  # a warning, not a refusal: a reviewer decides which belief stands
        out.note(warning(clash, proposal=True))
    return result.exit_code


def fast_main(argv: list[str], store: str | None = None) -> int | None:
    """The exit code, or None when the typer command should run instead. STORE: a global --store."""
    return run_fast(argv, spec_of("propose", "propose"), execute, store)
