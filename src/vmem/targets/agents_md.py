"""AGENTS.md (agents.md; read by Codex, Gemini CLI, Amp, Jules and others, and by Cursor, Copilot in VS Code and
Claude Code where a project has no CLAUDE.md: see vmem.targets.READERS): a marked section inside the project's
`AGENTS.md`, created if missing. Text outside the markers is the user's and is never changed; a sync with nothing
to serve, or `vmem hook uninstall`, removes the section and the blank line it added."""

from __future__ import annotations

from vmem.targets import END, START, Section  # noqa: F401 - START/END: the markers vmem import skips
from vmem.targets.text import entry

FILE = "AGENTS.md"
MANDATORY = "### Mandatory: always follow these\n\n"
# an agent with its own vmem files that also reads AGENTS.md is told the two are one set of rules (Copilot in
# VS Code; where vmem can tell, sync writes only one of the two for an agent: vmem.targets.served_elsewhere)
SAME_RULES = ("_The same reviewed rules as vmem's files for Claude Code (`.claude/rules/vmem/`), Cursor "
              "(`.cursor/rules/vmem/`) and GitHub Copilot (`.github/copilot-instructions.md`): an agent that has "
              "read those has these already._\n\n")


def _for_files(rule: dict) -> dict:
    """AGENTS.md has no path scoping: a path-scoped rule names its files in its title."""
    if not rule["paths"]:
        return rule
    globs = ", ".join("`" + p.replace("`", "") + "`" for p in rule["paths"])
    return {**rule, "statement": f"{rule['statement']} (only for files matching {globs})"}


class AgentsMd(Section):
    name = "agents-md"
    version = 2  # the same-rules line
    default_dir = "."
    import_globs = ("AGENTS.md",)
    file = FILE

    def render(self, bundle, marker: str) -> dict[str, str | None]:
        if not bundle.mandatory and not bundle.ranked:
            return {FILE: None}
        body = "## What the team knows (vmem)\n\n" + SAME_RULES
        if bundle.mandatory:
            body += MANDATORY + "".join(entry(_for_files(r)) for r in bundle.mandatory) + "\n"
        general = [r for r in bundle.ranked if not r["paths"]]
        scoped = [r for r in bundle.ranked if r["paths"]]
        if general:
            body += "### Reviewed facts and published patterns, most trusted first\n\n" + \
                    "".join(entry(r) for r in general) + "\n"
        if scoped:
            body += "### Only when working on matching files\n\n" + "".join(entry(_for_files(r)) for r in scoped) + "\n"
        return {FILE: self.wrap(marker, body)}

    def held(self, rule: dict, before: dict[str, bytes | None]) -> bool:
        if FILE not in before:
            return True  # the file was there, as it is, when the session started
        old = (before[FILE] or b"").decode("utf-8", "replace")
        section = old[old.find(START):old.find(END)] if START in old and END in old else ""
        if MANDATORY not in section:
            return False
        part = section[section.index(MANDATORY) + len(MANDATORY):].split("\n### ", 1)[0]
        line = entry(_for_files(rule)).split("\n", 1)[0]  # its text; the provenance line below may change
        return f"\n{line}\n" in "\n" + part


TARGET = AgentsMd()
