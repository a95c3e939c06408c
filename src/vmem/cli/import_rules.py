"""`vmem import`: the team's existing agent rules become proposals (one commit), for review like any other."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.output import counted

# what each outcome is called in the listing (the JSON says `outcome`)
_LABEL = {"propose": "new", "known": "known", "revoked": "revoked", "rejected": "rejected", "near": "near",
          "boilerplate": "skip", "setup": "setup", "project": "project", "not_a_rule": "skip", "too_short": "skip",
          "too_long": "too long", "repeated": "repeat"}
_SUMMARY = (("known", "already in the store"), ("revoked", "revoked"), ("rejected", "rejected"),
            ("near", "near an open claim"), ("setup", "set-up steps"), ("project", "about this project"),
            ("boilerplate", "boilerplate"), ("not_a_rule", "not rules"), ("too_short", "too short"),
            ("too_long", "too long"), ("repeated", "repeated"))


def import_(
    ctx: typer.Context,
    files: Annotated[Optional[list[str]], typer.Argument(metavar="[FILE]...", help="Rules files inside the project "
                                                         "(default: CLAUDE.md, AGENTS.md, .claude/rules/**, "
                                                         ".cursor/rules/**).", show_default=False)] = None,
    project: Annotated[Path, typer.Option("--project", help="The agent's project (default: here).")] = Path("."),
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List every statement and what would happen to it; "
                                                            "write nothing.")] = False,
    limit: Annotated[int, typer.Option("--limit", metavar="N", help="Refuse (writing nothing) if more than N "
                                                                    "statements would be proposed.")] = 500,
    also_near: Annotated[bool, typer.Option("--also-near", help="Also propose statements only close to an "
                                                                "existing claim (never one that restates it).")
                         ] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Propose the bullets and paragraphs of existing rules files as facts, in one commit. Known, revoked,
    rejected and near-duplicate statements, generators' boilerplate and this project's set-up steps are listed,
    not proposed."""
    with session(ctx, json_, store) as s:
        from vmem.ops.import_rules import import_rules

        data = import_rules(s.store, project, files, dry_run, limit, also_near)
        s.out.result(data)
        source = None
        for entry in data["statements"]:
            if not dry_run and entry["outcome"] in ("boilerplate", "not_a_rule", "too_short", "repeated"):
                continue  # a real run lists what it wrote and what needs a look; --dry-run lists everything
            if entry["source"] != source:
                source = entry["source"]
                s.out.line(source)
            s.out.line(_line(entry))
        counts = data["counts"]
        others = "; ".join(f"{counts[key]} {what}" for key, what in _SUMMARY if counts[key])
        verb = "would propose" if dry_run else "proposed"
        files = len(data["sources"])
        s.out.line(f"{verb} {len(data['proposed'])} of {len(data['statements'])} statements from "
                   + counted(files, 'file') + (f" ({others})" if others else "")
                   + (f" [{data['commit'][:10]}]" if data["commit"] else "")
                   + ("; nothing written" if dry_run else ""))
        if data["skipped"]:
            s.out.line(f"not read (a symlink or not a plain file): {', '.join(data['skipped'])}")
        if data["proposed"] and not dry_run:
            s.out.line("next: a reviewer works the queue: vmem review")


def _line(entry: dict) -> str:
    label = _LABEL[entry["outcome"]]
    if entry["outcome"] == "propose" and entry["id"]:
        label = entry["id"]
    text = entry["statement"] or ""
    text = text if len(text) <= 100 else text[:99] + "…"
    head = f"{entry['line']:>5}  {label:<8} {text}"
    lines = [head]
    if entry["reason"]:
        lines.append(f"{'':>16}{entry['reason']}")
    if entry["match"] and entry["match"]["how"] != "equal":
        lines.append(f"{'':>16}{entry['match']['id']}: {entry['match']['statement'][:100]}")
    for found in entry["contradictions"]:
        lines.append(f"{'':>16}contradicts {found['id']} ({found['status']}): {found['reason']}")
    return "\n".join(lines)
