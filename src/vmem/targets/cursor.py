"""Cursor: project rules in `.cursor/rules/vmem/*.mdc`, frontmatter `description`, `globs` (comma-separated,
unquoted) and `alwaysApply` (Cursor docs, cursor.com/docs/context/rules, "Project rules", as of late 2026)."""

from __future__ import annotations

import re

from vmem.targets import Target, frontmatter_globs
from vmem.targets.text import entry, heading, one_line, provenance, quoted

_OWNED = re.compile(r"km_(?:approved|[ck]-[0-9a-f]{12})\.mdc\Z")


def _frontmatter(description: str, paths: list[str]) -> str:
    globs = ",".join(frontmatter_globs(paths)) if paths else ""
    always = "false" if paths else "true"
    return f"---\ndescription: {quoted(description)}\nglobs: {globs}\nalwaysApply: {always}\n---\n"


class Cursor(Target):
    name = "cursor"
    version = 2  # brace globs expanded instead of dropped
    default_dir = ".cursor/rules/vmem"
    import_globs = (".cursor/rules/**/*.mdc", ".cursor/rules/**/*.md")
    mcp_file = ".cursor/mcp.json"
    mcp_entry = {"command": "vmem", "args": ["mcp", "--project", "${workspaceFolder}"]}

    def render(self, bundle, marker: str) -> dict[str, str]:
        files: dict[str, str] = {}
        for rule in bundle.mandatory:
            title = heading(rule, "Mandatory team rule")
            files[f"km_{rule['id']}.mdc"] = (_frontmatter(f"Mandatory team rule (vmem): {title}", rule["paths"]) +
                                             f"{marker}\n# {title}\n\n{one_line(rule['statement'])}\n\n"
                                             f"{provenance(rule)}\n")
        lines = []
        for rule in bundle.ranked:
            if rule["paths"]:
                title = heading(rule, "For files matching " + ", ".join(frontmatter_globs(rule["paths"])))
                files[f"km_{rule['id']}.mdc"] = (_frontmatter(f"Reviewed team fact (vmem): {title}", rule["paths"])
                                                 + f"{marker}\n# {title}\n\n{entry(rule, titled=False)}")
            else:
                lines.append(entry(rule))
        if lines:
            files["km_approved.mdc"] = (_frontmatter("What the team knows: reviewed facts and published patterns "
                                                     "(vmem)", []) + f"{marker}\n# What the team knows (vmem)\n\n"
                                        "Reviewed facts and published cross-customer patterns, most trusted first."
                                        "\n\n" + "".join(lines))
        return files

    def prunable(self, name: str) -> bool:
        return bool(_OWNED.match(name))


TARGET = Cursor()
