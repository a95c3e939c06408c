"""The one output object: rich for people, `{"schema_version": 1, ...}` JSON for scripts; data on stdout."""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from typing import Any, Callable

SCHEMA_VERSION = 1
_CONTROL = {c: f"^{chr(c + 64)}" for c in range(32) if chr(c) not in "\n\t"}
_CONTROL[127] = "^?"
_CONTROL.update({c: "\ufffd" for c in range(0x80, 0xA0)})  # C1 controls, e.g. a single-byte CSI
# Invisible format characters that change what a terminal shows: bidi embeddings, overrides and isolates (U+202E
# shows "txt.exe" as "exe.txt"), directional and zero-width marks, line and paragraph separators, and the tag
# characters that carry text nobody sees. Shown by their code point, never obeyed or hidden.
_CONTROL.update({c: f"<U+{c:04X}>" for c in (0x061C, 0x180E, *range(0x200B, 0x2010), 0x2028, 0x2029,
                                             *range(0x202A, 0x202F), *range(0x2060, 0x2065), *range(0x2066, 0x2070),
                                             0xFEFF, *range(0xFFF9, 0xFFFC), 0xE0001, *range(0xE0020, 0xE0080))})


def counted(count: int, word: str, many: str | None = None) -> str:
    """COUNT and WORD, plural unless one ("1 alias", "2 aliases", "0 entries"): the one way every message counts.
    MANY: the plural where adding s is wrong; words ending in s, x, ch or sh take es, consonant + y takes ies."""
    if count == 1:
        return f"{count} {word}"
    if many is None:
        if word.endswith(("s", "x", "ch", "sh")):
            many = word + "es"
        elif word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
            many = word[:-1] + "ies"
        else:
            many = word + "s"
    return f"{count} {many}"


def plain(text: Any) -> str:
    """User text made harmless for a terminal without rich: control characters shown, not obeyed."""
    return str(text).translate(_CONTROL)


def safe(text: Any) -> str:
    """User text made harmless for a terminal: no escape sequences, no rich markup."""
    from rich.markup import escape

    return escape(str(text).translate(_CONTROL))


class Output:
    def __init__(self, as_json: bool = False) -> None:
        self.as_json = as_json
        self._out = None
        self._err = None

    @property
    def console(self):
        if self._out is None:
            self._out = _console(sys.stdout)
        return self._out

    @property
    def err(self):
        if self._err is None:
            self._err = _console(sys.stderr)
        return self._err

    def result(self, data: Any, human: Callable[[Any], None] | None = None) -> None:
        if self.as_json:
            _write_json({"schema_version": SCHEMA_VERSION, "data": data})
        elif human is not None:
            human(self.console)

    def line(self, text: str) -> None:
        """One plain line on stdout (no rich import: write commands stay fast in hooks and scripts)."""
        if not self.as_json:
            sys.stdout.write(plain(text) + "\n")

    def info(self, message: str) -> None:
        """A hint or progress note for people: stderr, and silent under --json."""
        if not self.as_json:
            self.err.print(message, highlight=False, soft_wrap=True)

    def note(self, message: str) -> None:
        """Something the user must act on: stderr, also under --json (scripts parse stdout only)."""
        sys.stderr.write(plain(message) + "\n")

    def warn(self, message: str) -> None:
        self.err.print(f"[yellow]warning:[/] {message}", highlight=False, soft_wrap=True)

    def fail(self, exc) -> int:
        """A VmemError as every command-line face reports it (one message, its hint; JSON under --json): its exit
        code (1; 2 for usage). VMEM_DEBUG=1 lets it through, with its traceback."""
        if os.environ.get("VMEM_DEBUG"):
            raise exc
        self.error(exc.message, exc.hint)
        return exc.exit_code

    def error(self, message: str, hint: str | None) -> None:
        if self.as_json:
            _write_json({"schema_version": SCHEMA_VERSION, "error": message, "hint": hint})
            return
        # never wrapped by us: a hint is often a command to copy, and the terminal wraps it without breaking it
        self.err.print(f"[bold red]error:[/] {safe(message)}", highlight=False, soft_wrap=True)
        if hint:
            self.err.print(f"  {safe(hint)}", highlight=False, soft_wrap=True)


def _console(stream):
    from rich.console import Console

    width = int(os.environ["VMEM_WIDTH"]) if os.environ.get("VMEM_WIDTH", "").isdigit() else None
    try:
        piped = width is None and not stream.isatty()
    except (AttributeError, ValueError):
        piped = False
    # to a pipe, a line is never wrapped at 80 columns (grep sees whole lines); panels keep their width
    return Console(file=stream, width=width, soft_wrap=piped, highlight=False,
                   no_color=bool(os.environ.get("NO_COLOR")) or None)


def _write_json(payload: dict) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()
