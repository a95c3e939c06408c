"""`vmem log`: what changed in the store recently, newest first -- one row per commit (who, when, what action, on
which items, why): the action and reason from the commit messages vmem writes, the items from what each commit
changed. The MCP server's `changes` tool narrows the same rows to the items its agent may see (vmem.ops.agent)."""

from __future__ import annotations

from vmem.errors import UsageError

LIMIT = 20
MAX_LIMIT = 500
SCAN = 5_000  # commits read at most per call: a narrowed log on a long history stops here and says so


def log(store, *, limit: int = LIMIT, since: str | None = None, keep=None) -> dict:
    """The newest LIMIT changes (since SINCE: a date, a timestamp or '3 days ago'). KEEP: row -> row or None, a
    narrowing applied before counting (the agent's view); None keeps every row, a hand commit (action "git")
    included. {"changes": [...], "scanned": commits read, "truncated": whether older changes were left unread}."""
    from datetime import datetime, timezone

    from vmem import model
    from vmem.store import message as messages
    from vmem.store.history import commits

    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"the limit must be between 1 and {MAX_LIMIT}", "e.g. -n 20")
    after = None
    if since is not None:
        from vmem.ops.when import moment

        after = moment(since)
        if after is None:
            raise UsageError(f"cannot read --since {since!r} as a date",
                             "e.g. --since 2026-11-01, --since 2026-11-01T09:30:00Z, --since '3 days ago', "
                             "--since 'last week'")
    changes: list[dict] = []
    scanned, truncated = 0, False
    for commit in commits(store):
        when = datetime.fromtimestamp(commit.commit_time, timezone.utc)
        if after is not None and when < after:
            break
        if scanned == SCAN:
            truncated = True
            break
        scanned += 1
        parsed = messages.parse(commit.message)
        row = {"commit": str(commit.id), "at": model.format_ts(when),
               "author": f"{commit.author.name} <{commit.author.email}>",
               "action": parsed.action if parsed else "git",
               "items": _items(commit),
               "summary": parsed.summary if parsed else messages.one_line(commit.message.splitlines()[0]
                                                                          if commit.message else ""),
               "reason": parsed.reason if parsed else None}
        row = row if keep is None else keep(row)
        if row is None:
            continue
        if len(changes) == limit:
            truncated = True
            break
        changes.append(row)
    return {"changes": changes, "scanned": scanned, "truncated": truncated}


def _items(commit) -> list[str]:
    """The items COMMIT changed from its first parent, read from the trees (not from its message, which anyone
    can write): ids in order."""
    from vmem import model
    from vmem.store.changes import tree_changes

    paths = tree_changes(commit.parents[0].tree if commit.parent_ids else None, commit.tree, ("claims", "knowledge"))
    names = (path.rsplit("/", 1)[-1] for path in paths if path.endswith(".yaml"))
    return sorted(name[:-5] for name in names if model.ITEM_ID.fullmatch(name[:-5]))


def lines(data: dict) -> list[str]:
    """The answer for people: one line per change."""
    out = []
    for row in data["changes"]:
        items = ", ".join(row["items"][:3]) + (f" +{len(row['items']) - 3}" if len(row["items"]) > 3 else "")
        text = f"{row['commit'][:10]} {row['at']} {row['action']}" + (f" {items}" if items else "")
        if row["summary"]:
            text += f": {row['summary']}"
        text += f" ({row['author']})" if row["author"] else ""
        if row["reason"]:
            text += f" -- {row['reason']}"
        out.append(text)
    if not out:
        out.append("no changes" + (" in that period" if data["scanned"] else ""))
    elif data["truncated"]:
        out.append("… older changes not shown (-n for more, --since to go back further)")
    return out
