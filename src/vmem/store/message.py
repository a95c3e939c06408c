"""The grammar of vmem commit messages: `vmem: <action> <id>: <statement>` plus Vmem-* trailers."""

from __future__ import annotations

import re

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


class Message:
    """A commit message: subject, body and trailers."""

    __slots__ = ("action", "items", "summary", "reason", "supersedes", "body", "extra", "subject_item")

    def __init__(self, action: str, items: list[str] | None = None, summary: str = "", reason: str | None = None,
                 supersedes: str | None = None, body: list[str] | None = None, extra: dict[str, str] | None = None,
                 subject_item: str | None = None) -> None:
        self.action, self.summary, self.reason, self.supersedes = action, summary, reason, supersedes
        self.items: list[str] = [] if items is None else items
        self.body: list[str] = [] if body is None else body
        self.extra: dict[str, str] = {} if extra is None else extra
        self.subject_item = subject_item  # the id named in the subject; defaults to the only item

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return "Message(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"

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
