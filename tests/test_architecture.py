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


def test_private_names_stay_private():
    """A name with a leading underscore is its module's own: no other vmem module imports it (`from vmem.x import
    _y`) or reaches for it (`x._y`). What another module needs is public, named as such."""
    import ast

    src = ROOT / "src" / "vmem"
    modules = {".".join(p.relative_to(src.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in src.rglob("*.py")}
    short = {name.rsplit(".", 1)[-1] for name in modules}
    found = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vmem") and node.level == 0:
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{name}: from {node.module} import {alias.name}")
                    elif f"{node.module}.{alias.name}" in modules:
                        aliases.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                    and node.attr.startswith("_") and not node.attr.startswith("__") and node.value.id in short:
                found.append(f"{name}: {node.value.id}.{node.attr}")
    assert found == [], found
