"""The grammar of vmem commit messages: `vmem: <action> <id>: <statement>` plus Vmem-* trailers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SUBJECT_WIDTH = 72
_TRAILER = re.compile(r"^(Vmem-[A-Za-z-]+): (.*)$")
_SUBJECT = re.compile(r"^vmem: (?P<action>[a-z-]+)(?: (?P<item>[ck]-[0-9a-f]{12}))?(?:: (?P<summary>.*))?$")


def one_line(text: str | None) -> str:
    """Collapse whitespace (and any control character) so a value cannot forge extra lines or trailers."""
    if not text:
        return ""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def shorten(text: str, width: int) -> str:
    text = one_line(text)
    return text if len(text) <= width else text[: max(width - 1, 1)].rstrip() + "…"


@dataclass
class Message:
    action: str
    items: list[str] = field(default_factory=list)
    summary: str = ""
    reason: str | None = None
    supersedes: str | None = None
    body: list[str] = field(default_factory=list)
    extra: dict[str, str] = field(default_factory=dict)
    subject_item: str | None = None  # the id named in the subject; defaults to the only item

    def render(self) -> str:
        head = f"vmem: {self.action}"
        named = self.subject_item or (self.items[0] if len(self.items) == 1 else None)
        if named:
            head += f" {named}"
        if self.summary:
            head += ": "
            head = head + shorten(self.summary, max(SUBJECT_WIDTH - len(head), 20))
        lines = [head, ""]
        if self.body:
            lines += [line.rstrip() for line in self.body] + [""]
        lines.append(f"Vmem-Action: {self.action}")
        lines += [f"Vmem-Item: {item}" for item in self.items]
        if self.supersedes:
            lines.append(f"Vmem-Supersedes: {self.supersedes}")
        if self.reason:
            lines.append(f"Vmem-Reason: {one_line(self.reason)}")
        lines += [f"Vmem-{key}: {one_line(value)}" for key, value in self.extra.items()]
        return "\n".join(lines) + "\n"


def trailers(message: str) -> dict[str, list[str]]:
    """The Vmem-* trailers of a commit message (the last paragraph), key -> values in order."""
    paragraphs = message.rstrip("\n").split("\n\n")
    out: dict[str, list[str]] = {}
    for line in paragraphs[-1].splitlines() if len(paragraphs) > 1 else []:
        match = _TRAILER.match(line)
        if match:
            out.setdefault(match.group(1), []).append(match.group(2))
    return out


def parse(message: str) -> Message | None:
    """Read a vmem commit message back; None for commits that vmem did not write."""
    found = trailers(message)
    if "Vmem-Action" not in found:
        return None
    match = _SUBJECT.match(message.splitlines()[0]) if message else None
    return Message(
        action=found["Vmem-Action"][0],
        items=found.get("Vmem-Item", []),
        summary=(match.group("summary") or "") if match else "",
        reason=(found.get("Vmem-Reason") or [None])[0],
        supersedes=(found.get("Vmem-Supersedes") or [None])[0],
    )
