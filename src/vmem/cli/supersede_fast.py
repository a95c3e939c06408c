"""`vmem supersede` without typer or rich: the body both faces run, and the parser the console entry point tries
first (a revision is a write an analyst waits for, like a proposal; see propose_fast for the rules)."""

from __future__ import annotations

from vmem.cli.fast import refuse_as, run_fast, spec_of


def execute(out, store, item_id: str, text: str, *, reason: str | None = None, title: str | None = None,
            as_: str | None = None) -> int:
    """Supersede, print, and return the exit code; VmemError propagates."""
    from vmem.cli.render import one_line
    from vmem.ops.supersede import supersede as run

    refuse_as(as_, "supersede")
    result = run(store(), item_id, text, reason=reason, title=title)
    out.result({"action": result.action, "item": result.item, "previous": result.previous, "commit": result.commit})
    headline = f"supersedes {result.previous['id']}"
    if result.action == "quarantined":  # as propose says it: the new words still identify a customer
        headline += ", quarantined (it identifies a customer)"
    out.line(one_line(headline, result.item, result.commit))
    for note in result.notes:
        out.note(note)
    if not out.as_json:
        out.note(f"{result.previous['id']} is now superseded; history: vmem blame {result.item['id']}"
                 if not result.notes else f"history: vmem blame {result.item['id']}")
    return 0


def fast_main(argv: list[str], store: str | None = None) -> int | None:
    """The exit code, or None when the typer command should run instead. STORE: a global --store."""
    return run_fast(argv, spec_of("supersede", "supersede"), execute, store)
