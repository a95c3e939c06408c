"""`vmem mcp install`: register the server in the project's MCP configs (each target's mcp_file: Claude Code's
`.mcp.json`, Cursor's `.cursor/mcp.json`), merged with what is there, idempotent, with no path of this machine in
them."""

from __future__ import annotations

import json
from pathlib import Path

from vmem.errors import UsageError



def _configs(cursor: bool = True) -> list[tuple[str, dict]]:
    """(file, vmem's entry) for every agent that reads MCP servers from a project file (the target registry)."""
    from vmem.targets import every

    return [(t.mcp_file, t.mcp_entry) for t in every() if t.mcp_file and (cursor or t.name != "cursor")]


def _merge(path: Path, entry: dict, project: Path) -> str | None:
    """The new text of PATH with vmem's entry merged in; None when it is there already (checked, not written)."""
    from vmem.ops.hook import read_settings
    from vmem.ops.writer import check_dir

    check_dir(path.parent, project)
    config = read_settings(path)
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise UsageError(f"{path}: mcpServers is not an object", "fix it by hand; vmem will not overwrite it")
    if servers.get("vmem") == entry:
        return None
    if "vmem" in servers:
        raise UsageError(f"{path} already has a server named vmem, configured differently",
                         "remove or rename it, then retry: vmem mcp install")
    servers["vmem"] = entry
    return json.dumps(config, indent=2) + "\n"


def install(project: Path, cursor: bool = True) -> dict:
    """Both files are checked before either is written: a refusal in one leaves the other untouched."""
    from vmem.ops.hook import write_file

    planned = {project / name: _merge(project / name, entry, project) for name, entry in _configs(cursor)}
    for path, text in planned.items():
        if text is not None:
            write_file(path, text)
    return {"files": {str(path): text is not None for path, text in planned.items()}}


def _unmerge(path: Path, entry: dict, project: Path) -> str | None | bool:
    """The new text of PATH without vmem's entry; "" to delete it; False when there is nothing of ours in it."""
    from vmem.ops.hook import read_settings
    from vmem.ops.writer import check_dir, lstat

    check_dir(path.parent, project)
    if lstat(path) is None:
        return False
    config = read_settings(path)
    servers = config.get("mcpServers")
    if not isinstance(servers, dict) or servers.get("vmem") != entry:
        return False  # absent, or configured by hand: not ours to remove
    del servers["vmem"]
    if not servers:
        del config["mcpServers"]
    return json.dumps(config, indent=2) + "\n" if config else ""


def uninstall(project: Path) -> dict:
    """Remove exactly what install added: vmem's entry (as install wrote it) from both files, both checked first."""
    from vmem.ops.hook import write_file

    planned = {project / name: _unmerge(project / name, entry, project) for name, entry in _configs()}
    for path, text in planned.items():
        if text == "":
            path.unlink()
        elif text:
            write_file(path, text)
    return {"files": {str(path): text is not False for path, text in planned.items()}}
