"""Claude Code: `.claude/rules/vmem/*.md`, loaded recursively; `paths:` frontmatter for path-scoped items
(Claude Code memory docs, code.claude.com/docs/en/memory: "Path-specific rules")."""

from __future__ import annotations

import re

from vmem.targets import Target
from vmem.targets.text import HEADER, entry, heading, one_line, provenance

_OWNED = re.compile(r"km_(?:approved|[ck]-[0-9a-f]{12})\.md\Z")


def _frontmatter(paths: list[str]) -> str:
    """`paths:` as a block list, the form Claude Code's documentation shows (its loading has been reported to
    depend on it), of double-quoted strings (JSON escapes: a newline or quote in a glob cannot end the
    frontmatter or forge a line)."""
    import json

    return "---\npaths:\n" + "".join(f"  - {json.dumps(p, ensure_ascii=False)}\n" for p in paths) + "---\n"


def _rule_text(rule: dict) -> str:
    """A mandatory rule's file without its marker and provenance: what the agent is told to do."""
    return f"# {heading(rule, 'Mandatory team rule')}\n\n{one_line(rule['statement'])}\n\n"


class Claude(Target):
    name = "claude"
    version = 3  # 3: paths as a block list
    default_dir = ".claude/rules/vmem"  # sync.dir's default in vmem.yaml
    import_globs = ("CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/**/*.md")
    mcp_file = ".mcp.json"
    mcp_entry = {"command": "vmem", "args": ["mcp"]}  # Claude Code starts it with CLAUDE_PROJECT_DIR set
    configured_dir = True

    def render(self, bundle, marker: str) -> dict[str, str]:
        files: dict[str, str] = {}
        head = marker + "\n"
        for rule in bundle.mandatory:
            top = _frontmatter(rule["paths"]) + head if rule["paths"] else head
            files[f"km_{rule['id']}.md"] = f"{top}{_rule_text(rule)}{provenance(rule)}\n"
        lines = []
        for rule in bundle.ranked:
            if rule["paths"]:
                title = heading(rule, "For files matching " + ", ".join(rule["paths"]))
                files[f"km_{rule['id']}.md"] = (_frontmatter(rule["paths"]) + head +
                                                f"# {title}\n\n{entry(rule, titled=False)}")
            else:
                lines.append(entry(rule))
        if lines:
            files["km_approved.md"] = head + HEADER + "".join(lines)
        return files

    def prunable(self, name: str) -> bool:
        return bool(_OWNED.match(name))

    def held(self, rule: dict, before: dict[str, bytes | None]) -> bool:
        name = f"km_{rule['id']}.md"
        if name not in before:
            return True  # its file was there, as it is, when the session started
        old = before[name]
        return old is not None and _rule_text(rule) in old.decode("utf-8", "replace")


TARGET = Claude()
