"""Human renderings of items, lists, histories and reports (rich); every piece of user text goes through safe()."""

from __future__ import annotations


from vmem.output import counted, safe

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Any


def one_line(headline: str, item: dict, commit: str | None) -> str:
    """The confirmation a write prints: what happened, to which item, in which commit (plain text, no rich)."""
    categories = item.get("categories") or []
    where = item.get("scope") or (categories[0] + (f" +{len(categories) - 1}" if len(categories) > 1 else "")
                                  if categories else "no category")
    statement = " ".join(item["statement"].split())
    if len(statement) > 100:
        statement = statement[:99] + "…"
    suffix = f"  [{commit[:10]}]" if commit else ""
    return f"{item['id']} {headline} ({item['kind']}, {where}): {statement}{suffix}"

STATUS_STYLE = {
    "proposed": "yellow", "candidate": "yellow", "eligible": "cyan", "approved": "green", "mandatory": "bold green",
    "published": "bold green", "rejected": "red", "revoked": "red", "quarantined": "red", "invalidated": "red",
    "superseded": "dim", "expired": "dim", "merged": "dim",
}


def status(value: str) -> str:
    return f"[{STATUS_STYLE.get(value, 'white')}]{value}[/]"


def _where(item: dict) -> str:
    """A claim's scope, a learning's first category (+ how many more)."""
    categories = item.get("categories") or []
    return item.get("scope") or (categories[0] + (f" +{len(categories) - 1}" if len(categories) > 1 else "")
                                 if categories else "")


def item_table(console, items: list[dict]) -> None:
    from rich.table import Table

    if not items:
        console.print("no items")
        return
    if not console.is_terminal:  # a pipe: one record per line, tab-separated, nothing wrapped or cut (grep, cut)
        from vmem.output import plain

        for item in items:  # written as is (rich would expand the tabs)
            console.file.write("\t".join(plain(" ".join(str(v).split())) for v in (
                item["id"], item["status"], _where(item), item["statement"])) + "\n")
        return
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("id", no_wrap=True, min_width=14)
    table.add_column("status", no_wrap=True, min_width=11)
    table.add_column("scope", no_wrap=True, max_width=24)
    table.add_column("statement", overflow="fold", ratio=1)
    for item in items:
        table.add_row(item["id"], status(item["status"]), safe(_where(item)), safe(_shorten(item["statement"], 110)))
    console.print(table)
    console.print(f"[dim]{counted(len(items), 'item')}[/]")


def item_panel(console, item: dict, headline: str | None = None) -> None:
    from rich.panel import Panel
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column(overflow="fold")
    skip = {"id", "kind", "statement", "computed", "canonical"}
    defaults = {"personal": False, "audience": "all"}
    for key, value in item.items():
        if key in skip or value in (None, [], {}) or defaults.get(key, object()) == value:
            continue
        grid.add_row(key, status(value) if key == "status" else _value(value))
    for key, value in (item.get("computed") or {}).items():
        if value is not None:
            grid.add_row(f"[dim]{key}[/]", f"[dim]{safe(value)}[/]")
    title = f"{item['kind']} {item['id']}" + (f" — {headline}" if headline else "")
    from rich.console import Group
    from rich.text import Text

    body = Group(Text(item["statement"].translate({c: " " for c in range(32) if c != 10})), "", grid)
    console.print(Panel(body, title=safe(title), title_align="left", expand=False))


def _value(value: Any) -> str:
    if isinstance(value, list):
        if value and isinstance(value[0], dict):
            return "\n".join(_value(v) for v in value)
        return safe(", ".join(map(str, value)))
    if isinstance(value, dict):
        return safe(", ".join(f"{k}: {v}" for k, v in value.items() if v is not None))
    return safe(value)


def _shorten(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


_JOINERS = frozenset("\u200c\u200d\ufe0e\ufe0f")  # zero-width (non-)joiner, variation selectors


def shorten(text: str, width: int) -> str:
    """TEXT on one line in at most WIDTH terminal cells (a wide character counts two): cut at a word boundary
    with an ellipsis, or inside a word longer than half the room, never between a character and the marks that
    combine with it."""
    import unicodedata

    from rich.cells import cell_len

    text = " ".join(text.split())
    if cell_len(text) <= width:
        return text
    room, used, end = max(width - 1, 0), 0, 0
    for end, char in enumerate(text):  # noqa: B007 - END is where the room runs out
        used += cell_len(char)
        if used > room:
            break
    while end > 0 and (unicodedata.combining(text[end]) or text[end] in _JOINERS):
        end -= 1  # the character this mark belongs to goes too
    cut = text[:end]
    space = cut.rfind(" ")
    if space > 0 and cell_len(cut[:space]) >= room // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-—") + "…"


def blame_table(console, history: dict) -> None:
    console.print("[bold]chain:[/] " + " → ".join(history["chain"]))
    for event in history["events"]:
        author = event["author"].split(" <")[0]
        console.print(f"\n[dim]{event['commit'][:10]}[/]  {event['at'].replace('T', ' ').rstrip('Z')}  "
                      f"[bold]{safe(event['action']):<10}[/] {event['item']}  {safe(author)}")
        if event["statement"]:
            console.print(f"    {safe(_shorten(event['statement'], 300))}", soft_wrap=True)
        if event["reason"]:
            console.print(f"    [italic]reason: {safe(event['reason'])}[/]", soft_wrap=True)


def check_report(console, report: dict) -> None:
    for kind, style in (("errors", "red"), ("warnings", "yellow")):
        for entry in report[kind]:
            console.print(f"[{style}]{kind[:-1]}[/] {safe(entry['path'])}: {safe(entry['message'])}",
                          soft_wrap=True)  # a message often ends in a command to copy: never wrapped by us
    errors, warnings = len(report["errors"]), len(report["warnings"])
    verdict = "[red]store has errors[/]" if errors else "[green]store is valid[/]"
    console.print(f"{verdict} ({counted(errors, 'error')}, {counted(warnings, 'warning')})")


def card_lines(card: dict) -> list[str]:
    """A review card as rich-markup lines (every user string through safe()); the same for review and show."""
    lines = [safe(card["statement"]), ""]
    if card.get("title"):
        lines.insert(0, f"[bold]{safe(card['title'])}[/]")
    if card["personal"]:
        lines.append(f"[bold magenta]PERSONAL[/] — private to {safe(card['proposer'] or '?')}; never synced or "
                     "recalled for anyone else")
    knowledge = card["kind"] == "knowledge"
    # a learning reaches as far as its categories (what `vmem list` shows in its scope column)
    reach = (f"scope {safe(card['scope'])}" if card["scope"] else None) if not knowledge else \
        f"categories {safe(', '.join(card['categories']))}" if card["categories"] else "no category"
    where = [reach, f"audience {safe(card['audience'])}" if card.get("audience") else None,
             f"domain {safe(card['domain'])}" if card.get("domain") else None,
             f"class {safe(card['class'])}" if card.get("class") else None]
    lines.append("  ".join(w for w in where if w) or "no scope")
    if card["categories"] and not knowledge:
        lines.append(f"categories {safe(', '.join(card['categories']))}")
    if card["paths"]:
        lines.append(f"paths {safe(', '.join(card['paths']))}")
    who = "proposed by" if card["kind"] == "claim" else "first noticed by"
    lines.append(f"{who} {safe(card['proposer'] or '?')}, {card['age_days']} days ago"
                 + (f"; expires {card['expires_at'][:10]}" if card.get("expires_at") else "")
                 + f"; confidence {card['effective_confidence']:.2f}")
    if card.get("harvested"):
        said = card["harvested"]
        lines.append(f"harvested from {safe(said['session'] or 'a session')} ({safe(said['kind'] or '?')}): "
                     f"“{safe(shorten(said['quote'] or '', 200))}”")
    if card.get("edited_by"):
        edit = card["edited_by"]
        lines.append(f"[bold yellow]edited by {safe(edit['by'])}[/] (commit {edit['commit'][:10]}): the words are "
                     "not the proposer's alone")
    if card.get("supersedes"):
        old = card["supersedes"]
        lines.append(f"revises {old['id']} ({old['status'] or 'missing'}):")
        lines.append("  " + "".join(_diff_run(op, text) for op, text in old["diff"]).strip())
    if card["kind"] == "knowledge":
        customers, writers, entries = card["distinct_entities"], card["writers"], card["evidence_count"]
        lines.append(f"support {card['support_tier']}: {counted(customers, 'distinct customer')}, "
                     f"{counted(writers, 'writer')}, {counted(entries, 'evidence entry')}")
        if card.get("evidence_hidden"):
            lines.append("evidence quotes hidden (quarantined: they identify a customer)")
        for ev in card.get("evidence") or []:
            lines.append(f"  evidence {safe(ev['entity'])}" + (f"/{safe(ev['episode'])}" if ev.get("episode") else "")
                         + f" by {safe(ev['writer'])}")
            for quote in ev["quotes"]:
                lines.append(f"    “{safe(shorten(quote, 200))}”")
        gate = card.get("gate")
        if gate:
            checks = ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in gate["checks"].items())
            lines.append(f"gate {'passed' if gate['passed'] else 'not passed'}"
                         + (f" ({safe(checks)})" if checks else "") + (f": {safe(gate['reason'])}" if gate.get("reason") else ""))
        else:
            lines.append("gate not run yet")
        if card.get("unknown_words"):  # words no rule read as a name may still be one: the reviewer decides
            lines.append(f"[yellow]words no dictionary knows[/]: {safe(', '.join(card['unknown_words']))} "
                         "(is any a customer's name?)")
        for merge in card["merges"]:
            lines.append(f"merged {merge['from']} [{safe(merge['judge'])}]: {safe(merge['reason'] or '')}")
    for v in card.get("verifications") or []:
        lines.append(f"{safe(v['kind'])} by {safe(v['user'])} at {safe(v['at'])}")
    if card.get("review"):
        r = card["review"]
        lines.append(f"{safe(r.get('action') or 'reviewed')} by {safe(r.get('by'))} at {safe(r.get('at'))}"
                     + (f": {safe(r['reason'])}" if r.get("reason") else ""))
    for old in card["prior_rejections"]:
        lines.append(f"[red]rejected before[/] as {old['id']}" + (f" by {safe(old['by'])}" if old.get("by") else "")
                     + f": {safe(old.get('reason') or 'no reason recorded')}"
                     + (f" (in other words: {safe(shorten(old['statement'], 160))})" if old.get("statement") else ""))
    for other in card["contradictions"]:
        lines.append(f"[yellow]contradicts[/] {other['id']} ({other['status']}; {safe(other['reason'])}): "
                     f"{safe(shorten(other['statement'], 160))}")
    for other in card.get("related") or []:  # near, but a detector calls them different: never a merge key
        lines.append(f"related, differs in: {safe(other['differs'])} ({other['id']}, {other['status']}: "
                     f"{safe(shorten(other['statement'], 160))})")
    return lines


def _diff_run(op: str, text: str) -> str:
    if op == "=":
        return f"{safe(text)} "
    if op == "-":
        return f"[red strike][-{safe(text)}-][/] "
    return f"[green]{{+{safe(text)}+}}[/] "


def actions_line(actions: list[str]) -> str:
    from vmem.ops.card import ACTION_KEYS

    return "  ".join(f"[{ACTION_KEYS[a]}]{a[1:]}" if a[0] == ACTION_KEYS[a] else f"{a} [{ACTION_KEYS[a]}]"
                     for a in actions)


def card_panel(console, card: dict, heading: str) -> None:
    from rich.panel import Panel

    console.print(Panel("\n".join(card_lines(card)), title=safe(heading), title_align="left"))


def show_panel(console, data: dict) -> None:
    """`vmem show`: the card, then what every consumer computes, in words (no Python reprs)."""
    computed = data.get("computed") or {}
    card = data["card"]
    lines = card_lines(card)
    lines.append("")
    attested = computed.get("attested_status")
    lines.append(f"[dim]served now: {'yes' if computed.get('live') else 'no'}; status {safe(data['status'])}"
                 + (f" (history attests {safe(attested)})" if attested and attested != data["status"] else "")
                 + f"; age {computed.get('age_days')} days[/]")
    if computed.get("unattested"):
        u = computed["unattested"]
        lines.append(f"[red]status {safe(u['status'])} is not attested by history (commit {safe(u['commit'][:10])}); "
                     "vmem check --governance[/]")
    if computed.get("unattested_edit"):
        lines.append(f"[red]hand edit in commit {safe(computed['unattested_edit']['commit'][:10])} is not served; "
                     "the reviewed text is[/]")
    if data.get("superseded_by"):
        lines.append(f"superseded by {data['superseded_by']}")
    from rich.panel import Panel

    console.print(Panel("\n".join(lines), title=safe(f"{data['kind']} {data['id']} ({data['status']})"),
                        title_align="left"))


def detector_table(by_detector: dict):
    """`vmem eval merge`'s precision of each detector's finding as a difference claim, by fixed half: a rich
    Table (the floor refuses only on the rows marked "refuses")."""
    from rich.table import Table

    def cell(part: dict) -> str:
        return f"{part['right']}/{part['refused']} {part['precision']:.2f}" if part["refused"] else "-"

    table = Table("finding (detector:shape)", "fit half", "report half", "all", "floor", box=None,
                  title="precision as a difference claim (right = labeled different / refused)", title_justify="left")
    for shape, row in by_detector.items():
        table.add_row(shape, cell(row["fit"]), cell(row["report"]), cell(row),
                      "refuses" if row["refuses"] else "opens")
    return table
