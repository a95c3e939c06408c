"""`vmem mcp install`: register the server in the project's MCP configs (Claude Code's `.mcp.json`, Cursor's
`.cursor/mcp.json`), merged with what is there, idempotent, with no path of this machine in them."""

from __future__ import annotations

import json
from pathlib import Path

from vmem.errors import UsageError

CLAUDE = {"command": "vmem", "args": ["mcp"]}  # Claude Code starts it with CLAUDE_PROJECT_DIR set
CURSOR = {"command": "vmem", "args": ["mcp", "--project", "${workspaceFolder}"]}


def _merge(path: Path, entry: dict, project: Path) -> bool:
    from vmem.ops.hook import _read_settings, _write_file
    from vmem.ops.writer import check_dir

    check_dir(path.parent, project)
    config = _read_settings(path)
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise UsageError(f"{path}: mcpServers is not an object", "fix it by hand; vmem will not overwrite it")
    if servers.get("vmem") == entry:
        return False
    if "vmem" in servers:
        raise UsageError(f"{path} already has a server named vmem, configured differently",
                         "remove or rename it, then retry")
    servers["vmem"] = entry
    _write_file(path, json.dumps(config, indent=2) + "\n")
    return True


def install(project: Path, cursor: bool = True) -> dict:
    files = {str(project / ".mcp.json"): _merge(project / ".mcp.json", CLAUDE, project)}
    if cursor:
        path = project / ".cursor" / "mcp.json"
        files[str(path)] = _merge(path, CURSOR, project)
    return {"files": files}


def _unmerge(path: Path, entry: dict, project: Path) -> bool:
    from vmem.ops.hook import _read_settings, _write_file
    from vmem.ops.writer import check_dir, lstat

    check_dir(path.parent, project)
    if lstat(path) is None:
        return False
    config = _read_settings(path)
    servers = config.get("mcpServers")
    if not isinstance(servers, dict) or servers.get("vmem") != entry:
        return False  # absent, or configured by hand: not ours to remove
    del servers["vmem"]
    if not servers:
        del config["mcpServers"]
    if config:
        _write_file(path, json.dumps(config, indent=2) + "\n")
    else:
        path.unlink()
    return True


def uninstall(project: Path) -> dict:
    """Remove exactly what install added: vmem's entry (as install wrote it) from both files."""
    return {"files": {str(project / ".mcp.json"): _unmerge(project / ".mcp.json", CLAUDE, project),
                      str(project / ".cursor" / "mcp.json"): _unmerge(project / ".cursor" / "mcp.json", CURSOR,
                                                                      project)}}
