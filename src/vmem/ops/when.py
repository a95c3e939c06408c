"""`--as-of WHEN`: a commit id, an ISO date or timestamp, or a relative phrase ("yesterday", "2 weeks ago",
"3 days ago", "last month", "now") -> the snapshot to read and the moment items must be valid at."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone

from vmem import model
from vmem.errors import UsageError

HINT = ("e.g. --as-of 2026-11-01, --as-of 2026-11-01T09:30:00Z, --as-of yesterday, --as-of '2 weeks ago', "
        "or a commit id (--as-of 5cfa247)")
_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400, "month": 30 * 86400,
          "year": 365 * 86400}
_AGO = re.compile(r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
                  r"(second|minute|hour|day|week|month|year)s?\s+ago")
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10}
_HEX = re.compile(r"[0-9a-f]{4,40}")


def moment(text: str, now: datetime | None = None) -> datetime | None:
    """A date, timestamp or relative phrase as an aware UTC datetime; None when TEXT is none of them."""
    now = now or datetime.now(timezone.utc)
    phrase = " ".join(text.strip().lower().split())
    if phrase == "now":
        return now
    if phrase in ("today", "yesterday"):
        day = now.date() - timedelta(days=1 if phrase == "yesterday" else 0)
        return datetime.combine(day, time(23, 59, 59), timezone.utc) if phrase == "yesterday" else now
    if phrase.startswith("last ") and phrase[5:] in _UNITS:
        return now - timedelta(seconds=_UNITS[phrase[5:]])
    match = _AGO.fullmatch(phrase)
    if match:
        count = int(match.group(1)) if match.group(1).isdigit() else _WORDS[match.group(1)]
        return now - timedelta(seconds=count * _UNITS[match.group(2)])
    try:
        return model.parse_ts(text.strip())
    except ValueError:
        pass
    try:
        day = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if day.tzinfo is None:
        day = day.replace(tzinfo=timezone.utc)
    return day


def as_of(store, text: str):
    """(snapshot, moment): a commit id reads that commit's tree at its commit time; anything else reads the last
    commit at or before the moment (SPEC 8: transaction time and valid time)."""
    text = (text or "").strip()
    if not text:
        raise UsageError("--as-of is empty", HINT)
    at = moment(text)
    if at is not None:
        if at > datetime.now(timezone.utc) + timedelta(minutes=1):
            raise UsageError(f"--as-of {text!r} is in the future", HINT)
        return store.as_of(at), at
    if _HEX.fullmatch(text.lower()):
        from vmem.store import history

        snapshot = history.snapshot_named(store, text.lower())
        if snapshot is None:
            raise UsageError(f"--as-of {text!r} is no commit of this store", HINT)
        return snapshot, datetime.fromtimestamp(snapshot.commit.commit_time, timezone.utc)
    raise UsageError(f"--as-of {text!r} is not a date, a relative time or a commit id", HINT)
