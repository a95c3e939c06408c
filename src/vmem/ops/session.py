"""Below the faces: which store a command serves (and with which project config), shared by the CLI's sync path
and the MCP server, so no rule about finding a store lives in cli/ or mcp/."""

from __future__ import annotations

import os
from pathlib import Path


def project_dir() -> Path:
    """The agent's project: Claude Code names it in CLAUDE_PROJECT_DIR (hooks and MCP servers); else here."""
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or ".").absolute()


class Located:
    """Which store a command acts on, and why: ROOT; PROJECT and its CONFIG when a project's .vmem.yaml named it;
    VIA: "option" (--store / $VMEM_STORE), "project", "store" (the nearest store) or "user" (the user config)."""

    __slots__ = ("root", "project", "config", "warnings", "via")

    def __init__(self, root: Path, project: Path | None, config: dict | None, warnings: list[str], via: str) -> None:
        self.root, self.project, self.config, self.warnings, self.via = root, project, config, warnings, via

    def aside(self) -> str | None:
        """A line that says which store is used, when it is not where the user stands (a project's store)."""
        if self.via != "project" or Path.cwd().absolute() in (self.root, *self.root.parents):
            return None
        url = ((self.config or {}).get("store") or {}).get("url")
        return f"store: {url} (clone at {self.root})" if url else f"store: {self.root}"


def resolve(store: str | None = None, start: Path | None = None, fetch: bool = False,
            network: bool = True) -> Located:
    """The store every face acts on (SPEC 15): --store, else $VMEM_STORE, else the nearest project config
    (.vmem.yaml: its relative path, or the managed clone of its URL) or store from START (default here) upward,
    whichever is nearer, else the user config. FETCH: bring the managed clone up to date first (sync, the hook
    and MCP do; a command that only reads or writes the clone uses it as the hook last left it). Without NETWORK
    (completion) a clone is never made."""
    from vmem.errors import StoreNotFound
    from vmem.ops.project import read, resolve_store
    from vmem.store.discover import find_store_root, nearest, user_store

    explicit = store or os.environ.get("VMEM_STORE")
    if explicit:  # the project's config still says targets, budget, scope for sync, the hook and MCP
        root, project, warnings, via = find_store_root(explicit).absolute(), start, [], "option"
        config = read(start) if start is not None else None
    else:
        start = (start or Path.cwd()).absolute()
        found = nearest(start)
        project, config, warnings = None, None, []
        if found is not None and found[0] == "project":
            project, config = found[1], read(found[1])
        if config is not None:
            root, warnings = resolve_store(project, config, fetch=fetch and network, network=network)
            via = "project"
        elif found is not None and found[0] == "store":
            root, via = found[1], "store"
        else:
            root, via = user_store().absolute(), "user"
    if not (root / "vmem.yaml").is_file():
        raise StoreNotFound(f"no vmem store at {root} (no vmem.yaml)",
                            "create one with: vmem init, or point at one with --store PATH")
    return Located(root, project, config, warnings, via)


def locate(store: str | None, project: Path) -> tuple[Path, dict | None, list[str]]:
    """(store root, the project's config or None, warnings) for sync, the hook and MCP, which serve PROJECT (the
    agent's): resolve from there, the managed clone fast-forwarded."""
    found = resolve(store, project, fetch=True)
    return found.root, found.config, found.warnings


def deliver(store) -> str | None:
    """After a command that wrote: deliver its commits (and any that waited) to the remote the store's branch
    tracks (vmem.store.deliver); the line a face shows when something is left to say, else None. A clone with
    `git config vmem.deliver false` keeps its commits until the user pushes."""
    if not getattr(store, "wrote", False) or not tracks_a_remote(store):
        return None  # (a local store: no process started, nothing imported)
    from vmem.store.deliver import deliver as send

    return send(store.root, store.git_dir).note()


def tracks_a_remote(store) -> bool:
    """HEAD's branch has an upstream on a remote, read from the configuration the store already holds."""
    from vmem.store.gitconfig import setting

    try:
        head = (store.git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return False
    if not head.startswith("ref: refs/heads/"):
        return False
    remote = setting(store.repo, f"branch.{head[len('ref: refs/heads/'):]}.remote")
    return bool(remote) and remote != "."
