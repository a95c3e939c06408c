"""Agent targets (SPEC 13): one module per agent's rule format behind one small interface.

A target renders a packed Bundle into files relative to its directory and says which file names it may prune;
the one writer (vmem.ops.writer) applies any target's files all or nothing and touches only what it owns.
A new agent format is one module here (a Target with its name, directory, render, the rules files `vmem import`
reads and its MCP config, as TARGET) and one line in REGISTRY; everything else (sync, hook, `vmem targets`, the .vmem.yaml check, help texts, shell completion)
reads the registry.
"""

from __future__ import annotations

import os
from pathlib import Path

# name -> its module under vmem.targets, imported only when that target is used (the hook's start-up path)
REGISTRY = {
    "claude": "claude",
    "agents-md": "agents_md",
    "cursor": "cursor",
    "copilot": "copilot",
}
NAMES = tuple(REGISTRY)
DEFAULT = "claude"  # what a project syncs when nothing names a target

# Which agent reads which files in a project, as their makers document it (late 2026; sources in docs/sync.md,
# "Which agent reads which file"). target -> (the agent it serves, the files that agent reads, when it also reads
# AGENTS.md). Sync uses the last column so that one rule never reaches one agent twice (served_elsewhere).
READERS = {
    "claude": ("Claude Code", "CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, .claude/rules/**/*.md",
               "when the project has no CLAUDE.md (Claude Code 2.1.277 and later, its default setting; not yet on "
               "Bedrock, Vertex or Foundry), and wherever a CLAUDE.md imports @AGENTS.md"),
    "cursor": ("Cursor", ".cursor/rules/**/*.mdc", "always"),
    "copilot": ("GitHub Copilot", ".github/copilot-instructions.md (every surface), "
                ".github/instructions/**/*.instructions.md (all but Eclipse's chat)",
                "in VS Code, the Copilot CLI and the cloud agent; not in JetBrains IDEs, Visual Studio, Xcode or "
                "Eclipse"),
    "agents-md": ("Codex, Gemini CLI, Amp, Jules and others", "AGENTS.md", "always"),
}
CLAUDE_MD = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")  # any of them: Claude Code reads no AGENTS.md


def served_elsewhere(names: list[str], project: Path) -> dict[str, str]:
    """The targets among NAMES whose files would hand their agent every rule a second time, because that agent
    reads the AGENTS.md section too: name -> why. Sync writes none of their files (and prunes what it wrote
    before); AGENTS.md carries every rule, path-scoped ones naming their files. Copilot is never among them: its
    JetBrains, Visual Studio, Xcode and Eclipse surfaces read no AGENTS.md (the section says the rules are the
    same ones instead). Claude Code is, where the project gives it no CLAUDE.md or one that imports AGENTS.md."""
    if "agents-md" not in names:
        return {}
    out = {}
    if "cursor" in names:
        out["cursor"] = "Cursor reads AGENTS.md"
    if "claude" in names:
        why = _claude_reads_agents_md(project)
        if why:
            out["claude"] = f"Claude Code reads AGENTS.md ({why})"
    return out


def read_by_claude_code(names: list[str], project: Path, skipped: dict[str, str]) -> str | None:
    """Which of the targets NAMES the Claude Code session that runs the hook reads its rules from: the claude
    target's files; else vmem's section of AGENTS.md, where Claude Code reads AGENTS.md; else none (SKIPPED:
    served_elsewhere's answer for NAMES)."""
    if "claude" in names and "claude" not in skipped:
        return "claude"
    if "agents-md" in names and ("claude" in skipped or _claude_reads_agents_md(project)):
        return "agents-md"
    return None


def _claude_reads_agents_md(project: Path) -> str | None:
    import re

    found = [name for name in CLAUDE_MD if os.path.lexists(project / name)]
    if not found:
        return "the project has no CLAUDE.md"
    imports = re.compile(r"(?<![\w`])@(?:\./)?AGENTS\.md\b")
    for name in found:
        path = project / name
        if path.is_symlink() and path.resolve() == (project / "AGENTS.md").resolve():
            return f"{name} is a link to AGENTS.md"
        if not path.is_file():  # a FIFO or a device is never opened
            continue
        with open(path, "rb") as handle:
            data = handle.read(256_000)  # an import sits near the top; a huge file is not read whole
        fenced = False
        for line in data.decode("utf-8", "replace").splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and imports.search(line):
                return f"{name} imports @AGENTS.md"
    return None


def every() -> list:
    """Every target, in registry order (each module imported)."""
    return [get(name) for name in NAMES]


def listed(default: bool = False) -> str:
    """The names for a help text: `claude, agents-md, cursor or copilot`; DEFAULT marked with `(default)`."""
    words = [f"{n} (default)" if default and n == DEFAULT else n for n in NAMES]
    return ", ".join(words[:-1]) + " or " + words[-1]


class Target:
    """The interface. `render` maps file names (inside `directory`) to content; `prunable` names the files a
    sync may delete once they carry this store's marker. A `section` target owns a marked section of one
    file instead (its `merge` splices it in); its render maps that file to the section, or None to remove it."""

    name = ""
    version = 1  # bumped when the rendering changes: part of the bundle cache key
    default_dir = "."  # relative to the project
    configured_dir = False  # True: vmem.yaml's sync.dir places it instead (and `vmem sync --dir`); one target only
    section = False
    owned_glob = ""  # which files of its directory are its own, for .gitignore ("": all of it)
    import_globs: tuple[str, ...] = ()  # the agent's own rules files, relative to the project, for `vmem import`
    mcp_file: str | None = None  # where the agent reads MCP servers (relative to the project), for `vmem mcp install`
    mcp_entry: dict | None = None  # vmem's server entry there (no path of this machine)

    def render(self, bundle, marker: str) -> dict[str, str | None]:
        raise NotImplementedError

    def prunable(self, name: str) -> bool:
        raise NotImplementedError

    def render_empty(self) -> list[str]:
        """A section target's files, for removing its sections (uninstall)."""
        return []

    def held(self, rule: dict, before: dict[str, bytes | None]) -> bool:
        """Whether the session of an agent reading this target's files had mandatory RULE from them when it
        started. BEFORE: file name (as in `render`) -> the bytes it held then (None: nothing the session can
        have read); a file not in it was there, as it is now, before the session started. A rule counts as held
        when its text was there as a mandatory rule: new provenance alone (a confidence that decayed, a second
        reviewer) does not make it new to the agent."""
        return False

    def merge(self, old: bytes | None, section: str | None, owner, path: Path) -> bytes | None:
        raise NotImplementedError

    def parts(self) -> list[tuple[str, "Target"]]:
        """Where this target writes: (a directory relative to its own, the target that writes there). Most write
        one place; Copilot writes a section of `.github/copilot-instructions.md` and files under
        `.github/instructions/`. A part's file names carry its directory (`instructions/NAME`) in `render`."""
        return [(".", self)]

    def nothing(self) -> dict[str, None]:
        """What `render` returns when a project gets none of this target's rules: its sections to remove (its
        owned files go because they are not named)."""
        return {(name if sub == "." else f"{sub}/{name}"): None
                for sub, part in self.parts() if part.section for name in part.render_empty()}


def placed(target: Target, files: dict, directory: Path) -> list[tuple[Path, Target, dict]]:
    """FILES (one target's render) split by the part that writes them: (directory, part, its files)."""
    out = []
    for sub, part in target.parts():
        if sub == ".":
            mine = {n: c for n, c in files.items() if "/" not in n}
        else:
            mine = {n[len(sub) + 1:]: c for n, c in files.items() if n.startswith(sub + "/")}
        out.append((directory if sub == "." else directory / sub, part, mine))
    return out


class Section(Target):
    """A marked section of one file the user may share (AGENTS.md, .github/copilot-instructions.md): created if
    missing; the text outside the markers is the user's and is never changed; removing the section removes the
    blank line it was added with, and the file if nothing else was in it."""

    section = True
    file = ""

    def render_empty(self) -> list[str]:
        return [self.file]

    def prunable(self, name: str) -> bool:
        return False  # never a whole file: merge removes the section

    def wrap(self, marker: str, body: str) -> str:
        from vmem.targets.text import MARKER

        return f"{marker.replace(MARKER, START, 1)}\n{body}{END}\n"

    def merge(self, old: bytes | None, section: str | None, owner, path: Path) -> bytes | None:
        from vmem.errors import UsageError
        from vmem.targets.text import MARKER

        try:
            text = old.decode("utf-8") if old is not None else ""
        except UnicodeDecodeError:
            raise UsageError(f"{path} is not UTF-8 text; vmem will not edit it", "fix its encoding, or drop "
                             f"the {self.name} target") from None
        lines = text.splitlines(keepends=True)
        starts = [n for n, line in enumerate(lines) if line.startswith(START)]
        ends = [n for n, line in enumerate(lines) if line.rstrip("\r\n") == END]
        if not starts and not ends:
            if section is None:
                return old
            if not text:
                return section.encode()
            sep = "" if text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
            return (text + sep + _flagged(section, _ADDED[sep])).encode()
        if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
            raise UsageError(f"{path} has a damaged vmem section (markers missing, repeated or out of order); "
                             "vmem will not guess which text is yours", f"fix or remove the lines starting "
                             f"with {MARKER} by hand")
        if not owner.owns(lines[starts[0]].encode()):
            raise UsageError(f"{path} holds a vmem section from another store; refusing to overwrite it",
                             "remove that section by hand, or sync this store into another project")
        before, after = "".join(lines[:starts[0]]), "".join(lines[ends[0] + 1:])
        flag = lines[starts[0]][len(START):].split(" ", 1)[0]
        if section is not None:
            return (before + _flagged(section, flag) + after).encode()
        sep = {v: k for k, v in _ADDED.items()}.get(flag, "\n")
        if not after and sep and before.endswith(sep + "\n" * (sep == "\n")):
            before = before[:-len(sep)]  # what the section was added with: the user's bytes are back as they were
        rest = before + after
        return rest.encode() if rest else None


# the separator vmem put between the user's text and its section, recorded after START so that removing the
# section gives back the user's last bytes exactly (a file without a final newline keeps having none)
_ADDED = {"\n": "", "": "+0", "\n\n": "+2"}


def _flagged(section: str, flag: str) -> str:
    return section.replace(START, START + flag, 1) if flag else section


START = "<!-- vmem:start"
END = "<!-- vmem:end -->"


def get(name: str) -> Target:
    from importlib import import_module

    from vmem.errors import UsageError

    if name not in REGISTRY:
        raise UsageError(f"unknown target {name!r}", f"use one of: {', '.join(NAMES)}")
    return import_module(f"vmem.targets.{REGISTRY[name]}").TARGET


def _braces(glob: str, limit: int = 64) -> list[str]:
    """`**/*.{ts,tsx}` -> `**/*.ts`, `**/*.tsx`: brace groups expanded (innermost first), so a comma-separated
    list can carry them; a glob that expands to more than LIMIT is returned as it is (then dropped for its
    commas). Iterative and bounded: a hostile glob with many groups costs at most LIMIT steps."""
    import re
    from collections import deque

    group = re.compile(r"\{([^{}]*,[^{}]*)\}")
    out: list[str] = []
    todo = deque([glob])
    while todo:
        current = todo.popleft()
        found = group.search(current)
        if found is None:
            out.append(current)
        else:
            todo.extend(current[:found.start()] + option + current[found.end():]
                        for option in found.group(1).split(","))
        if len(out) + len(todo) > limit:
            return [glob]
    return list(dict.fromkeys(out))


def frontmatter_globs(paths: list[str]) -> list[str]:
    """Globs safe to put on one frontmatter line: no control characters, quotes or commas (list separators);
    brace groups are expanded first, so `**/*.{ts,tsx}` keeps its meaning instead of being dropped."""
    clean = []
    for glob in [g for p in paths for g in _braces(p)]:
        glob = "".join(ch for ch in glob if ch.isprintable()).strip()
        if glob and not any(ch in glob for ch in ',"\'\\'):
            clean.append(glob)
    return clean or ["**"]
