"""One install line (SPEC 15): the registry's "vmem" is another project, so the README, the hook's notice and
`vmem mcp` all name this project's distribution, the one pyproject.toml builds."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from vmem import DISTRIBUTION, INSTALL
from vmem.ops.hook import HOOK_COMMAND, NOTICE

ROOT = Path(__file__).resolve().parents[1]


def test_every_install_line_names_the_distribution_pyproject_builds():
    name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    assert name == DISTRIBUTION != "vmem"
    assert INSTALL in NOTICE and json.dumps({"systemMessage": NOTICE}) in HOOK_COMMAND
    readme = (ROOT / "README.md").read_text()
    assert INSTALL in readme and HOOK_COMMAND in readme
    for wrong in ("pipx install vmem ", "pipx install vmem`", "uv tool install vmem)", 'install "vmem['):
        assert wrong not in readme and wrong not in HOOK_COMMAND, wrong
    mcp = (ROOT / "src" / "vmem" / "cli" / "mcp.py").read_text()
    assert "{DISTRIBUTION}[mcp]" in mcp and '"vmem[mcp]"' not in mcp
