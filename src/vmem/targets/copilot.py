"""GitHub Copilot, in two places (docs.github.com, "Support for different types of custom instructions" and
"Adding repository custom instructions for GitHub Copilot", as of late 2026):

- repository-wide rules as a marked section of `.github/copilot-instructions.md`, which every Copilot surface
  reads (Eclipse's chat reads nothing else); the user's own text around the section is never changed;
- path-scoped rules as `.github/instructions/vmem-<id>.instructions.md` with an `applyTo` glob (comma-separated)
  in the frontmatter, read by Copilot in VS Code, Visual Studio, JetBrains IDEs, Xcode, the CLI and the cloud
  agent. Any other file in that directory is the team's own and never touched.

A rule is in exactly one of the two, so a surface that reads both sees it once."""

from __future__ import annotations

import re

from vmem.targets import Section, Target, frontmatter_globs
from vmem.targets.text import entry, heading, one_line, provenance, quoted

_OWNED = re.compile(r"vmem(?:-[ck]-[0-9a-f]{12})?\.instructions\.md\Z")  # vmem.instructions.md: before version 3
FILE = "copilot-instructions.md"
SUB = "instructions"


def _frontmatter(description: str, paths: list[str]) -> str:
    apply_to = ",".join(frontmatter_globs(paths)) if paths else "**"
    return f"---\napplyTo: {quoted(apply_to, raw=True)}\ndescription: {quoted(description)}\n---\n"


class _RepositoryWide(Section):
    name = "copilot"
    file = FILE


class _PathSpecific(Target):
    name = "copilot"
    owned_glob = "vmem*.instructions.md"  # the team's own instructions there stay committed

    def prunable(self, name: str) -> bool:
        return bool(_OWNED.match(name))


class Copilot(Target):
    name = "copilot"
    version = 3  # repository-wide rules moved into .github/copilot-instructions.md
    default_dir = ".github"
    import_globs = (".github/copilot-instructions.md", ".github/instructions/**/*.instructions.md")

    def render(self, bundle, marker: str) -> dict[str, str | None]:
        files: dict[str, str | None] = {}
        mandatory, general, scoped = [], [], 0
        for rule in bundle.mandatory:
            if rule["paths"]:
                title = heading(rule, "Mandatory team rule")
                files[f"{SUB}/vmem-{rule['id']}.instructions.md"] = (
                    _frontmatter(f"Mandatory team rule (vmem): {title}", rule["paths"]) +
                    f"{marker}\n# {title}\n\n{one_line(rule['statement'])}\n\n{provenance(rule)}\n")
                scoped += 1
            else:
                mandatory.append(entry(rule))
        for rule in bundle.ranked:
            if rule["paths"]:
                title = heading(rule, "For files matching " + ", ".join(frontmatter_globs(rule["paths"])))
                files[f"{SUB}/vmem-{rule['id']}.instructions.md"] = (
                    _frontmatter(f"Reviewed team fact (vmem): {title}", rule["paths"]) +
                    f"{marker}\n# {title}\n\n{entry(rule, titled=False)}")
                scoped += 1
            else:
                general.append(entry(rule))
        if not mandatory and not general and not scoped:
            files[FILE] = None
            return files
        body = "## What the team knows (vmem)\n\n"
        if mandatory:
            body += "### Mandatory: always follow these\n\n" + "".join(mandatory) + "\n"
        if general:
            body += "### Reviewed facts and published patterns, most trusted first\n\n" + "".join(general) + "\n"
        if scoped:  # named, not repeated: a surface that reads both files would see them twice
            body += (f"_{scoped} more rule{'s apply' if scoped != 1 else ' applies'} only to matching files: "
                     f"`.github/{SUB}/vmem-*.instructions.md`._\n\n")
        files[FILE] = _REPOSITORY_WIDE.wrap(marker, body)
        return files

    def parts(self) -> list[tuple[str, Target]]:
        return [(".", _REPOSITORY_WIDE), (SUB, _PATH_SPECIFIC)]

    def prunable(self, name: str) -> bool:
        return False  # its parts say

    def render_empty(self) -> list[str]:
        return [FILE]


_REPOSITORY_WIDE = _RepositoryWide()
_PATH_SPECIFIC = _PathSpecific()
TARGET = Copilot()
