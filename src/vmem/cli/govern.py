"""Claim governance commands: approve, mandate, revoke, verify, expire."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, NoAsOpt, StoreOpt, session
from vmem.cli.fast import refuse_as
from vmem.cli.render import one_line
from vmem.output import counted

ID_HELP = "A claim or learning id, or a unique prefix of one (c-f3d5)."

IdArg = Annotated[str, typer.Argument(metavar="ID", help=ID_HELP)]
ReasonOpt = Annotated[Optional[str], typer.Option("--reason", "-r", help="Why (recorded in the commit).")]
WidenOpt = Annotated[bool, typer.Option("--widen-scope", help="Accept a revision that reaches further than the "
                                        "claim it replaces (wider scope or audience, or no longer personal).")]


def _set(ctx, item_id, target, reason, as_, json_, store, widen_scope=False) -> None:
    with session(ctx, json_, store) as s:
        from vmem.ops.govern import set_status

        refuse_as(as_, {"approved": "approve", "mandatory": "mandate", "revoked": "revoke"}[target])
        result = set_status(s.store, item_id, target, reason=reason, widen_scope=widen_scope)
        s.out.result(result.data())
        s.out.line(one_line(result.action, result.item, result.commit))
        if result.superseded is not None and not s.out.as_json:
            s.out.note(f"{result.superseded['id']} is now superseded by it")
        from vmem.ops.contradictions import warning

        for clash in result.contradictions or []:  # a warning: the reviewer decides which belief stands
            s.out.note(warning(clash, proposal=False))


def approve(ctx: typer.Context, item_id: IdArg, reason: ReasonOpt = None, widen_scope: WidenOpt = False,
            as_: NoAsOpt = None, json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Approve a proposed claim (reviewers only); a revision proposed with --supersedes retires the old one."""
    _set(ctx, item_id, "approved", reason, as_, json_, store, widen_scope)


def mandate(ctx: typer.Context, item_id: IdArg, reason: ReasonOpt = None, widen_scope: WidenOpt = False,
            as_: NoAsOpt = None, json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Make a claim mandatory: always synced into the agent's context, never dropped for budget."""
    _set(ctx, item_id, "mandatory", reason, as_, json_, store, widen_scope)


def revoke(ctx: typer.Context, item_id: IdArg, reason: ReasonOpt = None, as_: NoAsOpt = None,
           json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Withdraw an approved or mandatory claim; the next sync removes it."""
    _set(ctx, item_id, "revoked", reason, as_, json_, store)


def verify(
    ctx: typer.Context,
    item_id: IdArg,
    kind: Annotated[str, typer.Option("--kind", help="confirmation or correction.")] = "confirmation",
    corrected: Annotated[Optional[str], typer.Option("--corrected", metavar="TEXT",
                                                     help="With --kind correction: what is true instead (proposed "
                                                          "as its revision, base confidence 0.90).")] = None,
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Record an independent verification of a claim: a confirmation raises its effective confidence, a
    correction lowers it (SPEC 9)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.govern import verify as run

        refuse_as(as_, "verify")
        result = run(s.store, item_id, kind, corrected)
        s.out.result(result.data("corrected"))
        s.out.line(one_line(f"verified ({kind})", result.item, result.commit))
        if result.superseded is not None:
            s.out.line(one_line(f"proposed as the correction of {result.item['id']}", result.superseded, None))


def expire(ctx: typer.Context, json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Record every claim past its expires_at as expired, in one commit (reads already ignore them)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.govern import expire as run

        expired = run(s.store)
        s.out.result({"expired": expired})
        s.out.line(f"{counted(len(expired), 'claim')} recorded as expired"
                   + (": " + ", ".join(expired[:10]) if expired else "")
                   + (f" and {len(expired) - 10} more (--json lists all)" if len(expired) > 10 else ""))
