"""Human renderings of items, lists, histories and reports (rich); every piece of user text goes through safe()."""

from __future__ import annotations

from typing import Any

from vmem.output import safe


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


def item_table(console, items: list[dict]) -> None:
    from rich.table import Table

    if not items:
        console.print("no items")
        return
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("id", no_wrap=True, min_width=14)
    table.add_column("status", no_wrap=True, min_width=11)
    table.add_column("scope", no_wrap=True, max_width=24)
    table.add_column("statement", overflow="fold", ratio=1)
    for item in items:
        categories = item.get("categories") or []
        scope = item.get("scope") or (categories[0] + (f" +{len(categories) - 1}" if len(categories) > 1 else "")
                                      if categories else "")
        table.add_row(item["id"], status(item["status"]), safe(scope), safe(_shorten(item["statement"], 110)))
    console.print(table)
    console.print(f"[dim]{len(items)} item{'s' if len(items) != 1 else ''}[/]")


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
            console.print(f"[{style}]{kind[:-1]}[/] {safe(entry['path'])}: {safe(entry['message'])}")
    errors, warnings = len(report["errors"]), len(report["warnings"])
    verdict = "[red]store has errors[/]" if errors else "[green]store is valid[/]"
    console.print(f"{verdict} ({errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)})")
