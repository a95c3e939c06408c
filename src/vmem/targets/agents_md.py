"""AGENTS.md (agents.md; read by Codex, Gemini CLI, Amp, Jules and others): a marked section inside the
project's `AGENTS.md`, created if missing. Text outside the markers is the user's and is never changed; a sync
with nothing to serve, or `vmem hook uninstall`, removes the section and the blank line it added."""

from __future__ import annotations

from pathlib import Path

from vmem.errors import UsageError
from vmem.targets import Target
from vmem.targets.text import MARKER, entry

START = MARKER + "start"
END = MARKER + "end -->"
FILE = "AGENTS.md"


def _for_files(rule: dict) -> dict:
    """AGENTS.md has no path scoping: a path-scoped rule names its files in its title."""
    if not rule["paths"]:
        return rule
    globs = ", ".join("`" + p.replace("`", "") + "`" for p in rule["paths"])
    return {**rule, "statement": f"{rule['statement']} (only for files matching {globs})"}


class AgentsMd(Target):
    name = "agents-md"
    default_dir = "."
    section = True

    def render(self, bundle, marker: str) -> dict[str, str | None]:
        if not bundle.mandatory and not bundle.ranked:
            return {FILE: None}
        body = "## What the team knows (vmem)\n\n"
        if bundle.mandatory:
            body += "### Mandatory: always follow these\n\n" + "".join(entry(_for_files(r)) for r in bundle.mandatory) \
                + "\n"
        general = [r for r in bundle.ranked if not r["paths"]]
        scoped = [r for r in bundle.ranked if r["paths"]]
        if general:
            body += "### Reviewed facts and published patterns, most trusted first\n\n" + \
                    "".join(entry(r) for r in general) + "\n"
        if scoped:
            body += "### Only when working on matching files\n\n" + "".join(entry(_for_files(r)) for r in scoped) + "\n"
        start = marker.replace(MARKER, START, 1)
        return {FILE: f"{start}\n{body}{END}\n"}

    def render_empty(self) -> list[str]:
        return [FILE]

    def prunable(self, name: str) -> bool:
        return False  # never a whole file: merge removes the section

    def merge(self, old: bytes | None, section: str | None, owner, path: Path) -> bytes | None:
        try:
            text = old.decode("utf-8") if old is not None else ""
        except UnicodeDecodeError:
            raise UsageError(f"{path} is not UTF-8 text; vmem will not edit it", "fix its encoding, or drop "
                             "the agents-md target") from None
        lines = text.splitlines(keepends=True)
        starts = [n for n, line in enumerate(lines) if line.startswith(START)]
        ends = [n for n, line in enumerate(lines) if line.rstrip("\r\n") == END]
        if not starts and not ends:
            if section is None:
                return old
            if not text:
                return section.encode()
            sep = "" if text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
            return (text + sep + section).encode()
        if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
            raise UsageError(f"{path} has a damaged vmem section (markers missing, repeated or out of order); "
                             "vmem will not guess which text is yours", f"fix or remove the lines starting "
                             f"with {MARKER} by hand")
        if not owner.owns(lines[starts[0]].encode()):
            raise UsageError(f"{path} holds a vmem section from another store; refusing to overwrite it",
                             "remove that section by hand, or sync this store into another project")
        before, after = "".join(lines[:starts[0]]), "".join(lines[ends[0] + 1:])
        if section is not None:
            return (before + section + after).encode()
        if not after and before.endswith("\n\n"):
            before = before[:-1]  # the blank line the section was added with
        rest = before + after
        return rest.encode() if rest else None


TARGET = AgentsMd()
