"""vmem hook install: a Claude Code SessionStart hook (merged into .claude/settings.json) and a git post-merge hook."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from vmem.errors import UsageError

HOOK_COMMAND = "vmem sync --hook"
_POST_MERGE = """#!/bin/sh
# vmem: re-sync the agent's rules after a pull ({marker})
command -v vmem >/dev/null 2>&1 && vmem sync --store "$(git rev-parse --show-toplevel)" --dir "{target}" >/dev/null 2>&1
exit 0
"""


def install_claude(project: Path, command: str = HOOK_COMMAND) -> tuple[Path, bool]:
    """Add the SessionStart hook to PROJECT/.claude/settings.json, keeping every other setting; idempotent."""
    path = project / ".claude" / "settings.json"
    settings: dict = {}
    if path.exists():
        try:
            settings = json.loads(path.read_text(encoding="utf-8") or "{}")
        except ValueError as exc:
            raise UsageError(f"{path} is not valid JSON ({exc})", "fix it by hand; vmem will not overwrite it") from None
        if not isinstance(settings, dict):
            raise UsageError(f"{path} does not hold a JSON object", "fix it by hand; vmem will not overwrite it")
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.setdefault("SessionStart", []), list):
        raise UsageError(f"{path}: hooks.SessionStart is not a list", "fix it by hand; vmem will not overwrite it")
    groups = hooks["SessionStart"]
    present = any(isinstance(group, dict) and any(isinstance(h, dict) and h.get("command") == command
                                                  for h in group.get("hooks") or [])
                  for group in groups)
    if present:
        return path, False
    groups.append({"hooks": [{"type": "command", "command": command, "timeout": 30}]})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.vmem-tmp")
    tmp.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path, True


def install_git(store_root: Path, target: Path) -> tuple[Path, bool]:
    """A post-merge hook in the store so a `git pull` re-syncs TARGET; an existing foreign hook is not replaced."""
    hooks = store_root / ".git" / "hooks"
    path = hooks / "post-merge"
    marker = "vmem post-merge hook"
    script = _POST_MERGE.format(marker=marker, target=str(target).replace('"', '\\"'))
    if path.exists():
        current = path.read_text(errors="replace")
        if marker not in current:
            raise UsageError(f"{path} already exists and is not vmem's", "add this line to it yourself: "
                             f"vmem sync --dir {target}")
        if current == script:
            return path, False
    hooks.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path, True
