"""Questions about HEAD's tree that one `git` call answers, for a one-shot process that has not imported pygit2."""

from __future__ import annotations

from pathlib import Path


def has_file(root: Path, path: str) -> bool:
    """HEAD of the store at ROOT holds a regular file at PATH (not a folder, a symlink or a submodule); False too
    when git cannot say (no git, no commit, a timeout)."""
    import subprocess

    from vmem.store.gitenv import scrubbed_env

    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-tree", "HEAD", "--", path], capture_output=True,
                                text=True, timeout=10, env=scrubbed_env())
    except (OSError, subprocess.SubprocessError):
        return False
    return listed.returncode == 0 and listed.stdout.startswith(("100644 blob ", "100755 blob "))
