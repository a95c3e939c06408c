"""Talking to the store's remote with git itself (no shell, bounded in time, nothing left running)."""

from __future__ import annotations

import os
from pathlib import Path


def pull(root: Path, timeout_s: float = 5.0) -> str | None:
    """Fast-forward the store from its remote; any failure is a warning (returned), never an error. On timeout
    the whole process group is ended: git's own children (ssh, a credential helper) included."""
    import shutil

    from vmem.process import run_bounded

    git = shutil.which("git")
    if git is None:
        return "git is not installed; syncing the local state"
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="", SSH_ASKPASS="")
    done = run_bounded([git, "-C", str(root), "pull", "--ff-only", "--quiet"], timeout_s=timeout_s, env=env,
                       max_output=256_000)
    if done.outcome == "timeout":
        return f"git pull took longer than {timeout_s:g}s; syncing the local state"
    if done.outcome != "exited":
        return f"git pull failed ({done.detail or done.outcome}); syncing the local state"
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"git pull failed ({(lines or ['no remote?'])[-1]}); syncing the local state"
    return None
