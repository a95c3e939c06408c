"""Agent targets (SPEC 13): one module per agent's rule format behind one small interface.

A target renders a packed Bundle into files relative to its directory and says which file names it may prune;
the one writer (vmem.ops.writer) applies any target's files all or nothing and touches only what it owns.
A new agent format is one module here (a Target with its name, directory and render, as TARGET) and one line in
REGISTRY; everything else (sync, hook, `vmem targets`, the .vmem.yaml check, help texts, shell completion)
reads the registry.
"""

from __future__ import annotations

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

    def render(self, bundle, marker: str) -> dict[str, str | None]:
        raise NotImplementedError

    def prunable(self, name: str) -> bool:
        raise NotImplementedError

    def render_empty(self) -> list[str]:
        """A section target's files, for removing its sections (uninstall)."""
        return []

    def merge(self, old: bytes | None, section: str | None, owner, path: Path) -> bytes | None:
        raise NotImplementedError


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
