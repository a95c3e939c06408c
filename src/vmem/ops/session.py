"""Below the faces: which store a command serves (and with which project config), shared by the CLI's sync path
and the MCP server, so no rule about finding a store lives in cli/ or mcp/."""

from __future__ import annotations

import os
from pathlib import Path


def project_dir() -> Path:
    """The agent's project: Claude Code names it in CLAUDE_PROJECT_DIR (hooks and MCP servers); else here."""
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or ".").absolute()


def locate(store: str | None, project: Path) -> tuple[Path, dict | None, list[str]]:
    """(store root, PROJECT's config or None, warnings): --store, else $VMEM_STORE, else the project's
    .vmem.yaml (its relative path, or the user's clone of its URL, fast-forwarded), else the nearest parent."""
    from vmem.errors import StoreNotFound
    from vmem.ops.project import read, resolve_store
    from vmem.store.discover import find_store_root

    config = read(project)
    warnings: list[str] = []
    if store or os.environ.get("VMEM_STORE") or config is None:
        root = find_store_root(store or os.environ.get("VMEM_STORE")).absolute()
    else:
        root, warnings = resolve_store(project, config)
    if not (root / "vmem.yaml").is_file():
        raise StoreNotFound(f"no vmem store at {root} (no vmem.yaml)", "point at one with --store PATH")
    return root, config, warnings
