"""Knowledge governance commands: consolidate, publish, reject, forget."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, NoAsOpt, StoreOpt, session
from vmem.cli.fast import refuse_as
from vmem.cli.render import item_panel
from vmem.output import counted, safe


def consolidate(
    ctx: typer.Context,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would merge and pass; write nothing.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Merge what many people noticed (canonical, then blocker + judge) and run the publish gates; one commit."""
    with session(ctx, json_, store) as s:
        from vmem.ops.consolidate import consolidate as run

        with show_progress(s.out) as progress:
            result = run(s.store, dry_run=dry_run, progress=progress)

        def human(console) -> None:
            for merge in result.merged:
                console.print(f"[bold]merge[/] {merge.source} → {merge.into} [dim]({merge.judge})[/] "
                              f"{safe(merge.reason)}", soft_wrap=True)
            for item_id in result.eligible:
                console.print(f"[green]eligible[/] {item_id}")
            for q in result.quarantined:
                console.print(f"[red]quarantined[/] {q['id']}: {safe(q['reason'])}", soft_wrap=True)
            for item_id in result.held:
                console.print(f"[yellow]held[/] {item_id}: auto_publish is on but knowledge.default_audience is "
                              "not set")
            if result.expired:
                console.print(f"{counted(len(result.expired), 'claim')} past expires_at recorded as expired")
            ending = ("changes not written (--dry-run)" if dry_run else
                      f"changes committed in {result.commit[:10]}" if result.commit else "nothing to commit")
            console.print(f"{len(result.merged)} merged, {len(result.eligible)} eligible, "
                          f"{len(result.quarantined)} quarantined, {result.candidates} still "
                          f"{'candidate' if result.candidates == 1 else 'candidates'} "
                          f"({counted(result.judged, 'pair')} judged); {ending}")

        s.out.result(result.as_dict(), human)


def show_progress(out):
    """A rich progress bar on a terminal, nothing otherwise (and never under --json)."""
    import contextlib
    import sys

    if out.as_json or not sys.stderr.isatty():
        return contextlib.nullcontext(None)

    @contextlib.contextmanager
    def bar():
        from rich.progress import Progress

        with Progress(console=out.err, transient=True) as progress:
            tasks: dict[str, int] = {}

            def update(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = progress.add_task(stage, total=total)
                progress.update(tasks[stage], completed=done, total=total)
            yield update
    return bar()


def publish(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="A learning id (k-…), or a unique prefix of one.")],
    audience: Annotated[Optional[str], typer.Option("--audience", help="all or group:NAME (default: policy).")] = None,
    k_min: Annotated[Optional[int], typer.Option("--k-min", help="Require this many customers (never below 3).")] = None,
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Publish an eligible knowledge item after re-running every gate (k is clamped to at least 3)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.contradictions import warning
        from vmem.confidence import support_tier
        from vmem.ops.publish import publish as run

        refuse_as(as_, "publish")
        result = run(s.store, item_id, audience=audience, k_min=k_min)
        tier = support_tier(result.item, s.store.policy["knowledge"]["tiers"])
        s.out.result(result.data(),
                     lambda console: item_panel(console, result.item, f"published, support tier {tier}"))
        for clash in result.contradictions or []:  # a warning: the reviewer decides which belief stands
            s.out.note(warning(clash, proposal=False))


def reject(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="A claim or learning id, or a unique prefix of one.")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (required; remembered).")] = "",
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Reject a proposal; the same statement proposed again comes back rejected."""
    with session(ctx, json_, store) as s:
        from vmem.ops.publish import reject as run

        refuse_as(as_, "reject")
        result = run(s.store, item_id, reason=reason)
        s.out.result({"action": "rejected", "item": result.item, "commit": result.commit},
                     lambda console: item_panel(console, result.item, "rejected"))


def forget(
    ctx: typer.Context,
    entity: Annotated[Optional[str], typer.Option("--entity", metavar="E", help="Drop this customer's evidence.")] = None,
    episode: Annotated[Optional[str], typer.Option("--episode", metavar="EP", help="Drop this episode's evidence.")] = None,
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (required).")] = "",
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Retract evidence everywhere; published items that fall below k are invalidated, eligible ones demoted."""
    with session(ctx, json_, store) as s:
        from vmem.ops.forget import forget as run

        refuse_as(as_, "forget")
        result = run(s.store, entity=entity, episode=episode, reason=reason)
        s.out.result(result.as_dict(), lambda console: console.print(
            f"{result.evidence_removed} evidence entries removed; invalidated: "
            f"{', '.join(result.invalidated) or 'none'}; back to candidate: {', '.join(result.demoted) or 'none'}"))


def _decided(console, result) -> None:
    item, other = result.item, result.other
    if result.action == "merged":
        absorbed = item if item["id"] != result.survivor else other
        console.print(f"merged {absorbed['id']} into {result.survivor}" + (f"  [{result.commit[:10]}]"
                      if result.commit else ""), soft_wrap=True)
        console.print(f"  undo with: vmem unmerge {absorbed['id']} --reason …")
    elif result.action == "unmerged":
        console.print(f"unmerged {item['id']} from {other['id']}: both are open again, remembered as not the same"
                      + (f"  [{result.commit[:10]}]" if result.commit else ""), soft_wrap=True)
    else:
        console.print(f"{item['id']} and {other['id']} are not the same; never suggested again"
                      + (f"  [{result.commit[:10]}]" if result.commit else ""), soft_wrap=True)
    for note in result.notes:
        console.print(f"  {safe(note)}", soft_wrap=True)


def merge(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="A learning (k-…).")],
    other_id: Annotated[str, typer.Argument(metavar="OTHER", help="The learning it says the same as.")],
    reason: Annotated[Optional[str], typer.Option("--reason", "-r", help="Why they are the same (recorded).")] = None,
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """A reviewer merges two learnings that say the same (a merge suggestion, say): the older or more advanced one
    keeps its id and takes the other's evidence; support is recounted. Undo with vmem unmerge."""
    with session(ctx, json_, store) as s:
        from vmem.ops.suggest import merge as run

        refuse_as(as_, "merge")
        result = run(s.store, item_id, other_id, reason=reason)
        s.out.result(result.as_dict(), lambda console: _decided(console, result))


def unmerge(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="The learning that was merged into another.")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why they are not the same (required).")] = "",
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Undo a merge: ID is open again with its own evidence, the other gives that evidence back and is gated
    again, and the pair is remembered as not the same."""
    with session(ctx, json_, store) as s:
        from vmem.ops.suggest import unmerge as run

        refuse_as(as_, "unmerge")
        result = run(s.store, item_id, reason=reason)
        s.out.result(result.as_dict(), lambda console: _decided(console, result))


def distinct(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="A learning (k-…).")],
    other_id: Annotated[str, typer.Argument(metavar="OTHER", help="The learning it is not the same as.")],
    reason: Annotated[Optional[str], typer.Option("--reason", "-r", help="Why they differ (recorded).")] = None,
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """A reviewer says two learnings are not the same: remembered on both, never suggested again."""
    with session(ctx, json_, store) as s:
        from vmem.ops.suggest import distinct as run

        refuse_as(as_, "distinct")
        result = run(s.store, item_id, other_id, reason=reason)
        s.out.result(result.as_dict(), lambda console: _decided(console, result))
