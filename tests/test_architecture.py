"""The architecture in .importlinter (layers, no circles, pygit2 only in store/, no interpreter-private regex
modules), enforced by the suite: CI runs `python -m pytest`, so a broken contract fails it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    # the console script of this interpreter's environment; import-linter is in the test extra, so a missing one
    # is a broken set-up, not a reason to skip
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, f"no lint-imports beside {sys.executable}: pip install -e '.[test]'"
    done = subprocess.run([lint, "--no-cache", "--no-logo", str(ROOT / ".importlinter")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
