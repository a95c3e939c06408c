"""The verdict every merge judge returns, and the bounds on an external judge's answer (shared by the judge and its
adapters)."""

from __future__ import annotations

import re
from collections import namedtuple

# An external judge's answer is one small JSON object; anything bigger or deeper is refused unread.
MAX_ANSWER_BYTES = 1_000_000
MAX_ANSWER_DEPTH = 32


class Verdict(namedtuple("Verdict", "same reason judge failed", defaults=(False,))):
    """same (bool), reason, judge: "deterministic" | "command"; failed: an external judge gave no answer (it timed
    out, failed or answered malformed), so the "not the same" is fail-closed, not its opinion."""

    __slots__ = ()


# a JSON string (possibly unterminated), or one bracket; the unrolled string loop stays linear on any input
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def json_deeper_than(text: str, limit: int) -> bool:
    """Whether TEXT opens more than LIMIT arrays/objects inside each other (brackets in strings do not count).

    A cheap guard before json.loads, whose recursive decoder fails on deep input; stops at the first excess."""
    if text.count("[") + text.count("{") <= limit:  # every real answer: one flat object
        return False
    depth = 0
    for token in _JSON_NESTING.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False
