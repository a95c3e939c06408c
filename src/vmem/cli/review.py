"""`vmem review`: the interactive review queue (a TTY, one key per action), or --list, or --yes with one action for
the whole queue."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, NoAsOpt, StoreOpt, session
from vmem.cli.fast import refuse_as
from vmem.cli.render import shorten
from vmem.output import counted, plain, safe


def review(
    ctx: typer.Context,
    list_: Annotated[bool, typer.Option("--list", help="Print the queue and exit (no TTY needed).")] = False,
    status: Annotated[Optional[str], typer.Option("--status", help="proposed, eligible, candidate (learnings "
                                                                  "with merge suggestions) or quarantined (learnings "
                                                                  "to reword, their words hidden); default the first "
                                                                  "three.")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Apply --action to every queued item without asking.")] = False,
    action: Annotated[Optional[str], typer.Option("--action", help="With --yes: approve | reject.")] = None,
    reason: Annotated[Optional[str], typer.Option("--reason", help="Reason for --action reject.")] = None,
    as_: NoAsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Review proposed claims and eligible knowledge: a full card for each (scope, diff, evidence, gates,
    prior rejections, contradictions) and one key per action."""
    with session(ctx, json_, store) as s:
        from vmem.errors import UsageError
        from vmem.model import QUEUED
        from vmem.ops.card import queue_cards, viewer_of

        refuse_as(as_, "review")
        if status is not None and status not in (*QUEUED, "candidate", "quarantined"):
            raise UsageError(f"unknown queue status {status!r}", "use --status proposed, --status eligible, "
                             "--status candidate or --status quarantined")
        if yes and action not in ("approve", "reject"):
            raise UsageError("--yes needs --action approve or --action reject", "or review interactively in a terminal")
        interactive = not list_ and not yes
        if interactive and not (sys.stdin.isatty() or os.environ.get("VMEM_ASSUME_TTY")):
            raise UsageError("vmem review is interactive and needs a terminal",
                             "use vmem review --list, or --yes --action approve|reject for scripts")
        from vmem.ops.review import take_in_proposals

        for line in take_in_proposals(s.store):  # proposals waiting on writers' branches (a protected main)
            s.out.note(line)
        cards = queue_cards(s.store, status, viewer=viewer_of(s.store))
        if list_:
            s.out.result(cards, lambda console: _print_queue(console, cards))
            return
        if yes:
            from vmem.ops.contradictions import warning

            results = [_apply(s.store, c, action, reason) for c in cards]
            rows = [{"id": c["id"], "action": a, "commit": commit} for c, (a, commit, _) in zip(cards, results)]
            if action == "approve":  # each approval checked again against what is live now
                for row, (_, _, clashes) in zip(rows, results):
                    row["contradictions"] = clashes
            s.out.result(rows)
            s.out.line(f"{counted(len(cards), 'item')}: {action}")
            for card_, (_, _, clashes) in zip(cards, results):
                for clash in clashes:
                    s.out.note(f"{card_['id']}: " + warning(clash, proposal=False))
            return
        _interactive(s, cards)


def _apply(store, card: dict, action: str, reason: str | None) -> tuple[str, str | None, list[dict]]:
    """One action on one queued item: (what happened, commit, the open items it contradicts once live)."""
    from vmem.ops.govern import set_status
    from vmem.ops.publish import publish, reject

    if action == "reject":
        done = reject(store, card["id"], reason=reason or "")
        return "rejected", done.commit, []
    if action == "mandate":
        done = set_status(store, card["id"], "mandatory")
        return "mandated", done.commit, done.contradictions or []
    if card["kind"] == "knowledge":
        from vmem.ops.card import viewer_of
        from vmem.ops.contradictions import open_with

        done = publish(store, card["id"])
        return "published", done.commit, open_with(store, done.item, viewer_of(store))
    done = set_status(store, card["id"], "approved")
    return "approved", done.commit, done.contradictions or []


class Keys:
    """One key per action on a real terminal (no Enter); a line per answer from a pipe or a test's input."""

    def __init__(self) -> None:
        self.raw = sys.stdin.isatty()

    def key(self, prompt: str) -> str:
        if self.raw:
            import termios
            import tty

            fd = sys.stdin.fileno()
            saved = termios.tcgetattr(fd)
            try:
                tty.setcbreak(fd)  # before the prompt shows: a key pressed at once is not held for a newline
                sys.stdout.write(prompt + " ")
                sys.stdout.flush()
                char = os.read(fd, 4).decode("utf-8", "replace")[:1]
            finally:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            sys.stdout.write((char if char.isprintable() else "") + "\n")
            return "q" if char in ("", "\x04", "\x1b") else char.lower()
        sys.stdout.write(prompt + " ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stdout.write("\n")
            return "q"  # end of input: stop, nothing more is decided
        key = (line.strip()[:1] or " ").lower()
        sys.stdout.write(key.strip() + "\n")
        return key

    def line(self, prompt: str) -> str:
        sys.stdout.write(prompt + ": ")
        sys.stdout.flush()
        return sys.stdin.readline().strip()


def _interactive(s, cards: list[dict]) -> None:
    from vmem.cli.render import actions_line, card_panel
    from vmem.errors import VmemError
    from vmem.ops.card import ACTION_KEYS, card, is_reviewer, viewer_of

    console = s.out.console
    keys = Keys()
    done = {"approved": 0, "published": 0, "mandated": 0, "rejected": 0, "edited": 0, "merged": 0,
            "not the same": 0, "skipped": 0}
    if not cards:
        console.print("the review queue is empty")
        return
    viewer = viewer_of(s.store)
    built_at = s.store.head().commit_id
    for n, entry in enumerate(cards, 1):
        if s.store.head().commit_id != built_at:  # an earlier action changed the store: this card may be stale
            entry = _fresh(s.store, entry, viewer)
            if entry is None:
                console.print(f"skipped {cards[n - 1]['id']}: no longer in the queue")
                continue
        card_panel(console, entry, f"{n}/{len(cards)} {entry['kind']} {entry['id']} ({entry['status']})")
        _print_suggestions(console, entry)
        while True:
            by_key = {ACTION_KEYS[a]: a for a in entry["actions"]}
            prompt = plain(actions_line(entry["actions"]))
            if entry.get("suggestion_actions"):  # a merge suggestion is decided on the card, one key like the rest
                by_key.update(m="merge", n="distinct")
                prompt = "[m]erge  [n]ot the same  " + prompt
            pressed = keys.key(prompt)
            chosen = by_key.get(pressed)
            if chosen is None:
                console.print(f"{safe(repr(pressed))} is not an action for this item; "
                              f"press one of: {safe(', '.join(sorted(by_key)))}")
                continue
            try:
                if chosen == "quit":
                    _summary(console, done)
                    return
                if chosen in ("merge", "distinct"):
                    after = _decide_suggestion(s, keys, entry, chosen, done)
                    if after is None:
                        break  # absorbed into the other: this card is done
                    entry = _rebuilt(s.store, entry, viewer) or entry
                    card_panel(console, entry, f"{n}/{len(cards)} {entry['kind']} {entry['id']} ({entry['status']})")
                    _print_suggestions(console, entry)
                    continue
                if chosen == "skip":
                    done["skipped"] += 1
                    console.print(f"skipped {entry['id']}")
                elif chosen == "reject":
                    why = keys.line("reason (required)")
                    if not why:
                        console.print("a rejection needs a reason; nothing changed")
                        continue
                    what, commit, _ = _apply(s.store, entry, "reject", why)
                    done[what] += 1
                    _confirm(console, what, entry, commit)
                elif chosen == "edit":
                    from vmem.ops.review import edit_statement

                    edited = edit_statement(s.store, entry["id"])
                    done["edited"] += 1
                    console.print(f"edited {entry['id']}: {safe(edited['statement'])}", soft_wrap=True)
                    snapshot = s.store.head()
                    # the card is built again: its contradictions are checked again against the edited words
                    entry = card(s.store, {**edited, "status": entry["status"] if edited["status"] == entry["status"]
                                           else edited["status"]}, snapshot=snapshot, viewer=viewer,
                                 reviewer=is_reviewer(s.store, viewer))
                    if entry["contradictions"]:
                        console.print(f"[yellow]still contradicts[/] " + ", ".join(
                            f"{o['id']} ({o['status']})" for o in entry["contradictions"]) + " (on the card below)")
                    card_panel(console, entry, f"{n}/{len(cards)} {entry['kind']} {entry['id']} ({entry['status']})")
                    continue  # act on the edited item next
                else:
                    what, commit, clashes = _apply(s.store, entry, chosen, None)
                    done[what] += 1
                    _confirm(console, what, entry, commit)
                    if chosen in ("approve", "mandate", "publish"):
                        _settle_contradictions(s, keys, entry, clashes)
            except VmemError as exc:
                console.print(f"[red]{safe(exc.message)}[/]" + (f"\n  {safe(exc.hint)}" if exc.hint else ""),
                              soft_wrap=True)
                continue
            break
    _summary(console, done)


def _print_suggestions(console, entry: dict) -> None:
    if entry.get("hint"):  # a quarantined learning's way out
        console.print(f"  {safe(entry['hint'])}", soft_wrap=True)
    for other in entry.get("suggestions") or []:
        near = (f"cosine {other['cosine']:.2f}, " if other.get("cosine") is not None else "") + \
            f"rank {other['score']:.2f}"
        console.print(f"  may be the same as {other['id']} ({other['status']}; {near}): "
                      f"{safe(other['statement'])}", soft_wrap=True)
        if other.get("diff"):
            console.print(f"    differs: {_differing(other['diff'])}", soft_wrap=True)


def _differing(diff: list[list[str]]) -> str:
    """The words two statements do not share, in full: -only in this one +only in the other (a word diff)."""
    parts = [f"-{safe(text)}" if op == "-" else f"+{safe(text)}" for op, text in diff if op in "-+" and text.strip()]
    return "  ".join(parts) if parts else "only punctuation or case"


def _decide_suggestion(s, keys: Keys, entry: dict, chosen: str, done: dict) -> str | None:
    """[m]erge or [n]ot the same on ENTRY's card: with several suggestions, which one (by its number). The item's
    id when it is still open after the decision, None when the merge absorbed it into the other."""
    from vmem.ops.suggest import distinct, merge

    console = s.out.console
    options = entry["suggestions"]
    other = options[0]
    if len(options) > 1:
        for number, option in enumerate(options, 1):  # in full, with the words that differ: a merge is decided here
            console.print(f"  {number}. {option['id']}: {safe(option['statement'])}", soft_wrap=True)
            if option.get("diff"):
                console.print(f"     differs: {_differing(option['diff'])}", soft_wrap=True)
        picked = keys.key(f"which one? [1-{len(options)}]")
        if not picked.isdigit() or not 1 <= int(picked) <= len(options):
            console.print("no suggestion chosen; nothing changed")
            return entry["id"]
        other = options[int(picked) - 1]
    if chosen == "distinct":
        done_ = distinct(s.store, entry["id"], other["id"])
        done["not the same"] += 1
        console.print(f"{entry['id']} and {other['id']}: not the same; never suggested again"
                      + (f"  [{done_.commit[:10]}]" if done_.commit else ""))
        return entry["id"]
    result = merge(s.store, entry["id"], other["id"])
    done["merged"] += 1
    absorbed = entry["id"] if result.survivor != entry["id"] else other["id"]
    console.print(safe(f"merged {absorbed} into {result.survivor}  [{(result.commit or '')[:10]}]; undo with: "
                       f"vmem unmerge {absorbed} --reason …"), soft_wrap=True)
    for note in result.notes:
        console.print(f"  {safe(note)}", soft_wrap=True)
    return None if absorbed == entry["id"] else entry["id"]


def _rebuilt(store, entry: dict, viewer: str | None) -> dict | None:
    from vmem import model
    from vmem.errors import VmemError
    from vmem.ops.card import card, is_reviewer

    snapshot = store.head()
    try:
        item = snapshot.item(entry["id"])
    except VmemError:
        return None
    attested = store.attestation(snapshot).status_of(model.item_path(item["id"])) or "unattested"
    return card(store, {**item, "status": attested}, snapshot=snapshot, viewer=viewer,
                reviewer=is_reviewer(store, viewer))


def _fresh(store, entry: dict, viewer: str | None) -> dict | None:
    """ENTRY's card rebuilt at HEAD, or None when the item left the queue (a resolution retired it)."""
    from vmem.errors import VmemError
    from vmem.ops.card import card, is_reviewer

    snapshot = store.head()
    try:
        item = snapshot.item(entry["id"])
    except VmemError:
        return None
    from vmem import model

    attested = store.attestation(snapshot).status_of(model.item_path(item["id"]))
    if attested != entry["status"] or item["status"] != entry["status"]:
        return None
    fresh = card(store, item, snapshot=snapshot, viewer=viewer, reviewer=is_reviewer(store, viewer))
    if fresh["status"] == "quarantined":
        from vmem.ops.card import withheld

        return withheld(fresh)  # as the queue listed it: its words may name a customer
    return fresh


def _confirm(console, what: str, entry: dict, commit: str | None) -> None:
    console.print(safe(f"{what} {entry['id']}" + (f"  [{commit[:10]}]" if commit else "")
                       + f": {shorten(entry['statement'], 80)}"), soft_wrap=True)


def _settle_contradictions(s, keys: Keys, entry: dict, clashes: list[dict]) -> None:
    """Approving one side of a contradiction asks what becomes of the other: supersede it, revoke it, or keep.
    CLASHES: the open items it contradicts, checked again once it was approved (not the card's older list)."""
    from vmem.errors import VmemError
    from vmem.model import SERVABLE
    from vmem.ops.contradictions import resolutions
    from vmem.ops.resolution import resolve

    console = s.out.console
    for other in clashes:
        try:
            keep, them = s.store.head().item(entry["id"]), s.store.head().item(other["id"])
        except VmemError:
            continue
        options = resolutions(keep, them)
        console.print(f"{entry['id']} contradicts {other['id']} ({them['status']}; {safe(other['reason'])}): "
                      f"{safe(shorten(them['statement'], 120))}", soft_wrap=True)
        if not options:
            console.print("  it stays open (vmem contradictions lists it); nothing here can retire it")
            continue
        labels = {"supersede": "[s]upersede it", "revoke": "[r]evoke it" if them["status"] in SERVABLE["claim"]
                  else "[r]eject it"}
        prompt = "  ".join(labels[o] for o in options) + "  [k]eep both"
        while True:
            pressed = keys.key(prompt)
            how = {"s": "supersede", "r": "revoke", "k": "keep", "q": "keep"}.get(pressed)
            if how == "keep":
                console.print("kept both; the contradiction stays open (vmem contradictions)")
                break
            if how not in options:
                console.print(f"{safe(repr(pressed))} is not a choice here")
                continue
            try:
                done = resolve(s.store, entry["id"], other["id"], how)
            except VmemError as exc:
                console.print(f"[red]{safe(exc.message)}[/]" + (f"\n  {safe(exc.hint)}" if exc.hint else ""),
                              soft_wrap=True)
                break
            console.print(safe(f"{done['action']} {other['id']}" + (f"  [{done['commit'][:10]}]" if done.get("commit")
                                                                   else "") + f" in favour of {entry['id']}"))
            break


def _summary(console, done: dict) -> None:
    console.print(", ".join(f"{n} {what}" for what, n in done.items() if n) or "nothing reviewed")


def _print_queue(console, cards: list[dict]) -> None:
    from vmem.cli.render import card_panel

    if not cards:
        console.print("the review queue is empty")
        return
    for n, entry in enumerate(cards, 1):
        card_panel(console, entry, f"{n}/{len(cards)} {entry['kind']} {entry['id']} ({entry['status']})")
        _print_suggestions(console, entry)
