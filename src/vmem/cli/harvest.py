"""`vmem harvest`: what you told your agents, offered as claims; nothing is proposed until you accept it."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.output import counted, plain, safe

def harvest(
    ctx: typer.Context,
    files: Annotated[Optional[list[str]], typer.Argument(metavar="[FILE]...", help="Transcripts (.jsonl) or notes "
                                                         "(.md) to read instead of the project's sessions.",
                                                         show_default=False)] = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN", help="Only turns since WHEN (a date, "
                                                 "'yesterday', '2 weeks ago').")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be offered; remember nothing.")] = False,
    accept: Annotated[Optional[list[str]], typer.Option("--accept", metavar="ID", help="Propose this candidate as "
                                                        "a claim (repeatable).")] = None,
    dismiss: Annotated[Optional[list[str]], typer.Option("--dismiss", metavar="ID", help="Not a fact: never offer "
                                                         "it again (repeatable).")] = None,
    about: Annotated[Optional[str], typer.Option("--about", metavar="ENTITY", help="With --accept: scope the claim "
                                                 "to this customer.")] = None,
    statement: Annotated[Optional[str], typer.Option("--statement", metavar="TEXT", help="With one --accept: "
                                                     "propose these words instead of the draft.")] = None,
    list_: Annotated[bool, typer.Option("--list", help="Print the candidates and exit (no TTY needed).")] = False,
    hook: Annotated[bool, typer.Option("--hook", hidden=True, help="Claude Code SessionEnd hook: read the event "
                                       "on stdin, queue its session's candidates.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Offer what you told your agents (corrections, definitions, confirmations in Claude Code and Codex sessions
    and CLAUDE.local.md) as claims: accept, edit or dismiss each; nothing is proposed until you accept it."""
    if hook:  # never fails the session, never commits
        from vmem.ops.harvest import session_end

        notice = session_end(sys.stdin.buffer.read())
        if notice:
            sys.stderr.write(notice + "\n")
        return
    with session(ctx, json_, store) as s:
        from vmem.errors import UsageError
        from vmem.ops import harvest as ops

        project = ops.project_root()
        if (about or statement) and not accept:
            raise UsageError("--about and --statement go with --accept ID", "e.g. vmem harvest --accept h-3f9a --about "
                             "corvane")
        if accept or dismiss:
            rows = []
            if dismiss:
                rows += ops.dismiss(project, dismiss)
            if accept:
                rows += ops.accept(s.store, project, accept, about=about, statement=statement)
            s.out.result(rows)
            for row in rows:
                s.out.line(_decided(row))
                for note in row.get("notes") or []:
                    s.out.note(note)
            return
        found = ops.harvest(s.store, project, files, since, dry_run)
        for problem in found.problems:
            s.out.note(f"skipped: {problem}")
        interactive = not list_ and not dry_run and not s.out.as_json and (
            sys.stdin.isatty() or os.environ.get("VMEM_ASSUME_TTY"))
        if interactive and found.candidates:
            _interactive(s, project, found.candidates)
            return
        s.out.result(found.data(), lambda console: _print(console, found))
        if not s.out.as_json:
            _summary(s.out, found)


def _decided(row: dict) -> str:
    if row["action"] == "dismissed":
        return f"{row['id']} dismissed: it will not be offered again"
    if row["action"] in ("created", "repeated", "unchanged"):
        what = {"created": "proposed as", "repeated": "repeats", "unchanged": "repeats"}[row["action"]]
        return f"{row['id']} {what} {row['claim']} ({row.get('scope') or 'org'}): {row.get('statement', '')}"
    if row["action"] == "accepted":
        return f"{row['id']} was accepted before, as {row['claim']}"
    return f"{row['id']}: {row['action']}" + (f" ({row['claim']})" if row.get("claim") else "")


def _card(c: dict) -> list[str]:
    where = f"{c['agent']} session {c['session'][:8]}" + (f", {c['at'][:10]}" if c.get("at") else "")
    lines = [f"{c['id']}  {c['kind']}  ({where})", f"  {c['statement']}"]
    quote = c["quote"] if len(c["quote"]) <= 240 else c["quote"][:240].rsplit(" ", 1)[0] + " …"
    lines.append(f"  you said: \"{quote}\"")
    if c.get("known"):
        lines.append(f"  {c['known_relation']} {c['known']}" + (" (accepting it records your confirmation)"
                                                                if c["known_relation"] == "repeats" else ""))
    if c.get("customers") is None:
        lines.append("  which customers it names is unknown: a customer file cannot be read (vmem check)")
    elif len(c.get("customers") or []) > 1:
        lines.append(f"  names {len(c['customers'])} customers ({', '.join(c['customers'])}): accept it with "
                     "--about ENTITY")
    elif c.get("about"):
        lines.append(f"  names a customer: offered scoped to entity:{c['about']}")
    if c.get("redacted"):
        lines.append(f"  credentials redacted: {', '.join(c['redacted'])}")
    return lines


def _print(console, found) -> None:
    for c in found.candidates:
        for line in _card(c):
            console.print(safe(line), highlight=False, soft_wrap=True)
        console.print("")


def _summary(out, found) -> None:
    n = len(found.candidates)
    read = f"{counted(found.read, 'file')} read" + (
        f", {found.unchanged} unchanged since last time" if found.unchanged else "")
    if found.dry_run:
        out.info(f"dry run: {counted(found.new, 'candidate')} found ({read}); nothing remembered")
    elif n:
        out.info(f"{counted(n, 'candidate')} wait ({found.new} new; {read}): vmem harvest --accept ID "
                 "proposes one, --dismiss ID forgets it")
    else:
        out.info(f"no candidates ({read})")


def _interactive(s, project, candidates: list[dict]) -> None:
    from vmem.cli.review import Keys
    from vmem.errors import VmemError
    from vmem.ops import harvest as ops

    console = s.out.console
    keys = Keys()
    done = {"proposed": 0, "dismissed": 0, "skipped": 0}
    for n, c in enumerate(candidates, 1):
        console.print(f"[bold]{n}/{len(candidates)}[/]", highlight=False)
        for line in _card(c):
            console.print(safe(line), highlight=False, soft_wrap=True)
        while True:
            pressed = keys.key(plain("[p]ropose  [e]dit  [d]ismiss  [s]kip  [q]uit"))
            try:
                if pressed == "q":
                    _done(console, done)
                    return
                if pressed == "s":
                    done["skipped"] += 1
                elif pressed == "d":
                    ops.dismiss(project, [c["id"]])
                    done["dismissed"] += 1
                    console.print(f"dismissed {c['id']}")
                elif pressed in ("p", "e"):
                    words = None
                    if pressed == "e":
                        words = keys.line("statement") or None
                        if not words:
                            console.print("no words given; nothing changed")
                            continue
                    about = None
                    if len(c.get("customers") or []) > 1:
                        about = keys.line(f"which customer ({', '.join(c['customers'])})") or None
                    row = ops.accept(s.store, project, [c["id"]], about=about, statement=words)[0]
                    done["proposed"] += row["action"] == "created"
                    console.print(safe(_decided(row)), highlight=False, soft_wrap=True)
                    for note in row.get("notes") or []:
                        console.print(safe(note), highlight=False, soft_wrap=True)
                else:
                    console.print(f"{safe(repr(pressed))} is not an action; press p, e, d, s or q")
                    continue
            except VmemError as exc:
                console.print(f"[red]{safe(exc.message)}[/]" + (f"\n  {safe(exc.hint)}" if exc.hint else ""),
                              soft_wrap=True)
                continue
            break
    _done(console, done)


def _done(console, done: dict) -> None:
    console.print(", ".join(f"{v} {k}" for k, v in done.items()))
