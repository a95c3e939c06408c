"""vmem: version control for what a team and its AI agents believe."""

__version__ = "0.1.0"
# The distribution on the package registry. "vmem" there is another project ("virtual memory information"), so
# this one is published as vmem-cli (the command stays `vmem`); README, the hook's notice and `vmem mcp` say so,
# and tests/test_install_line.py holds them to pyproject.toml.
DISTRIBUTION = "vmem-cli"
INSTALL = f"pipx install {DISTRIBUTION} (or: uv tool install {DISTRIBUTION})"
