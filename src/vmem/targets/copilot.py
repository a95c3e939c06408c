"""GitHub Copilot: path-specific custom instructions, `.github/instructions/NAME.instructions.md` with an
`applyTo` glob (comma-separated) in the frontmatter (docs.github.com, "Adding repository custom instructions
for GitHub Copilot", path-specific instructions, as of late 2026). vmem's files are `vmem*.instructions.md`;
any other file in that directory is the team's own and never touched."""

from __future__ import annotations

import re

from vmem.targets import Target, frontmatter_globs
from vmem.targets.text import entry, heading, one_line, provenance, quoted

_OWNED = re.compile(r"vmem(?:-[ck]-[0-9a-f]{12})?\.instructions\.md\Z")


def _frontmatter(description: str, paths: list[str]) -> str:
    apply_to = ",".join(frontmatter_globs(paths)) if paths else "**"
    return f"---\napplyTo: {quoted(apply_to, raw=True)}\ndescription: {quoted(description)}\n---\n"


class Copilot(Target):
    name = "copilot"
    version = 2  # brace globs expanded instead of dropped
    default_dir = ".github/instructions"

    def render(self, bundle, marker: str) -> dict[str, str]:
        files: dict[str, str] = {}
        mandatory, general = [], []
        for rule in bundle.mandatory:
            if rule["paths"]:
                title = heading(rule, "Mandatory team rule")
                files[f"vmem-{rule['id']}.instructions.md"] = (
                    _frontmatter(f"Mandatory team rule (vmem): {title}", rule["paths"]) +
                    f"{marker}\n# {title}\n\n{one_line(rule['statement'])}\n\n{provenance(rule)}\n")
            else:
                mandatory.append(entry(rule))
        for rule in bundle.ranked:
            if rule["paths"]:
                title = heading(rule, "For files matching " + ", ".join(frontmatter_globs(rule["paths"])))
                files[f"vmem-{rule['id']}.instructions.md"] = (
                    _frontmatter(f"Reviewed team fact (vmem): {title}", rule["paths"]) +
                    f"{marker}\n# {title}\n\n{entry(rule, titled=False)}")
            else:
                general.append(entry(rule))
        if mandatory or general:
            body = "# What the team knows (vmem)\n\n"
            if mandatory:
                body += "## Mandatory: always follow these\n\n" + "".join(mandatory) + "\n"
            if general:
                body += ("## Reviewed facts and published patterns, most trusted first\n\n" + "".join(general))
            files["vmem.instructions.md"] = (_frontmatter("The team's reviewed knowledge (vmem)", []) +
                                             f"{marker}\n{body}")
        return files

    def prunable(self, name: str) -> bool:
        return bool(_OWNED.match(name))


TARGET = Copilot()
