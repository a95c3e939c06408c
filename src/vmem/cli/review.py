"""`vmem review`: the interactive review queue (a TTY), or --list, or --yes with one action for the whole queue."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, NoAsOpt, StoreOpt, refuse_as, session
from vmem.output import safe

KEYS = "[a]pprove/publish  [m]andate  [r]eject  [e]dit  [s]kip  [q]uit"


def review(
    ctx: typer.Context,
    list_: Annotated[bool, typer.Option("--list", help="Print the queue and exit (no TTY needed).")] = False,
    status: Annotated[Optional[str], typer.Option("--status", help="proposed or eligible (default both).")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Apply --action to every queued item without asking.")] = False,
    action: Annotated[Optional[str], typer.Option("--action", help="With --yes: approve | reject.")] = None,
    reason: Annotated[Optional[str], typer.Option("--reason", help="Reason for --action reject.")] = None,
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Review proposed claims and eligible knowledge: support, evidence, merges and gate result for each."""
    with session(ctx, json_, store) as s:
        from vmem.errors import UsageError
        from vmem.ops.review import queue

        refuse_as(as_, "review")
        if status not in (None, "proposed", "eligible"):
            raise UsageError(f"unknown queue status {status!r}", "use --status proposed or --status eligible")
        entries = queue(s.store, status)
        if list_:
            s.out.result(entries, lambda console: _print_queue(console, entries))
            return
        if yes:
            if action not in ("approve", "reject"):
                raise UsageError("--yes needs --action approve or --action reject", "or review interactively in a terminal")
            results = [_apply(s.store, e, action, reason) for e in entries]
            s.out.result([{"id": e["id"], "action": a} for e, a in zip(entries, results)])
            s.out.line(f"{len(entries)} item{'s' * (len(entries) != 1)}: {action}")
            return
        if not (sys.stdin.isatty() or os.environ.get("VMEM_ASSUME_TTY")):
            raise UsageError("vmem review is interactive and needs a terminal",
                             "use vmem review --list, or --yes --action approve|reject for scripts")
        _interactive(s, entries)


def _apply(store, entry: dict, action: str, reason: str | None) -> str:
    from vmem.ops.govern import set_status
    from vmem.ops.publish import publish, reject

    if action == "reject":
        reject(store, entry["id"], reason=reason or "")
        return "rejected"
    if action == "mandate":
        set_status(store, entry["id"], "mandatory")
        return "mandated"
    if entry["kind"] == "knowledge":
        publish(store, entry["id"])
        return "published"
    set_status(store, entry["id"], "approved")
    return "approved"


def _interactive(s, entries: list[dict]) -> None:
    from vmem.errors import VmemError
    from vmem.ops.review import edit

    console = s.out.console
    done = {"approved": 0, "published": 0, "mandated": 0, "rejected": 0, "edited": 0, "skipped": 0}
    for n, entry in enumerate(entries, 1):
        _print_entry(console, entry, n, len(entries))
        while True:
            key = typer.prompt(KEYS, default="s", show_default=False).strip().lower()[:1]
            try:
                if key == "q":
                    _summary(console, done)
                    return
                if key == "s":
                    done["skipped"] += 1
                elif key == "a":
                    done[_apply(s.store, entry, "approve", None)] += 1
                elif key == "m" and entry["kind"] == "claim":
                    done[_apply(s.store, entry, "mandate", None)] += 1
                elif key == "r":
                    why = typer.prompt("reason", default="", show_default=False).strip()
                    if not why:
                        console.print("a rejection needs a reason")
                        continue
                    done[_apply(s.store, entry, "reject", why)] += 1
                elif key == "e":
                    edited = edit(s.store, entry["id"])
                    console.print(f"edited: {safe(edited['statement'])}")
                    done["edited"] += 1
                    continue  # act on the edited item next
                else:
                    console.print(f"unknown key {key!r}")
                    continue
            except VmemError as exc:
                console.print(f"[red]{safe(exc.message)}[/]" + (f"\n  {safe(exc.hint)}" if exc.hint else ""))
                continue
            break
    _summary(console, done)


def _summary(console, done: dict) -> None:
    console.print(", ".join(f"{n} {what}" for what, n in done.items() if n) or "nothing reviewed")


def _print_entry(console, entry: dict, n: int, total: int) -> None:
    from rich.panel import Panel

    lines = [safe(entry["statement"]), ""]
    if entry["kind"] == "knowledge":
        lines.append(f"support: {entry['support_tier']} — {entry['distinct_entities']} distinct customers, "
                     f"{entry['writers']} writers, {entry['evidence_count']} evidence entries")
        for merge in entry["merges"]:
            lines.append(f"merged {merge['from']} [{merge['judge']}]: {safe(merge['reason'] or '')}")
        gate = entry["gate"] or {}
        lines.append(f"gate: {'passed' if gate.get('passed') else safe(gate.get('reason') or 'not run')}")
    else:
        lines.append(f"proposed by {safe(entry['source'] or '?')}, {entry['age_days']} days ago")
    console.print(Panel("\n".join(lines), title=f"{n}/{total} {entry['kind']} {entry['id']} ({entry['status']})",
                        title_align="left"))


def _print_queue(console, entries: list[dict]) -> None:
    if not entries:
        console.print("the review queue is empty")
        return
    for entry in entries:
        extra = (f"{entry['support_tier']}, {entry['distinct_entities']} customers, {entry['evidence_count']} "
                 f"evidence" if entry["kind"] == "knowledge" else f"by {entry['source']}")
        console.print(f"{entry['id']}  {entry['status']:<9} {safe(entry['statement'][:90])}  [dim]({safe(extra)})[/]",
                      soft_wrap=True)
