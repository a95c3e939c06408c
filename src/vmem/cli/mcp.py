"""`vmem mcp`: the MCP server over stdio; `vmem mcp install`: register it for Claude Code and Cursor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, session

app = typer.Typer(help="The MCP server (stdio) for agents that call tools.", invoke_without_command=True)


@app.callback()
def mcp(
    ctx: typer.Context,
    scope: Annotated[Optional[str], typer.Option("--scope", metavar="entity:E", help="The one scope served "
                                                 "(default: .vmem.yaml's, else org).")] = None,
    audience: Annotated[Optional[str], typer.Option("--audience", help="all or group:NAME.")] = None,
    project: Annotated[Optional[Path], typer.Option("--project", help="The agent's project (default: "
                                                    "$CLAUDE_PROJECT_DIR, else here).")] = None,
) -> None:
    """Serve recall, show, list, blame, changes, propose and verify (and the mandatory rules) over stdio (Model
    Context Protocol): each answers with its CLI command's --json data, narrowed to what the scope serves."""
    if ctx.invoked_subcommand is not None:
        return
    with session(ctx) as s:
        from vmem.ops.agent import AgentView
        from vmem.ops.session import locate, project_dir

        where = project.absolute() if project else project_dir()
        root, config, warnings = locate(s.store_path, where)
        for warning in warnings:
            s.out.warn(warning)
        view = AgentView(root, scope or (config or {}).get("scope"), audience or (config or {}).get("audience"))
    try:
        from vmem.mcp.server import serve
    except ImportError:
        from vmem import DISTRIBUTION
        from vmem.errors import UsageError

        line = f'pipx install "{DISTRIBUTION}[mcp]" (or: uv tool install "{DISTRIBUTION}[mcp]")'
        with session(ctx):
            raise UsageError("the MCP server needs the mcp package", f"install it: {line}")
    serve(view)


@app.command("install")
def install(
    ctx: typer.Context,
    project: Annotated[Path, typer.Option("--project", help="The agent's project (default: here).")] = Path("."),
    cursor: Annotated[bool, typer.Option("--cursor/--no-cursor", help="Also .cursor/mcp.json.")] = True,
    json_: JsonOpt = False,
) -> None:
    """Register `vmem mcp` in .mcp.json (Claude Code) and .cursor/mcp.json (Cursor), merged, idempotent."""
    with session(ctx, json_) as s:
        from vmem.ops.mcp_config import install as run

        data = run(project.absolute(), cursor)
        s.out.result(data)
        for path, added in data["files"].items():
            s.out.line(f"{'added' if added else 'already present'}: vmem in {path} (commit it)")


@app.command("uninstall")
def uninstall(
    ctx: typer.Context,
    project: Annotated[Path, typer.Option("--project", help="The agent's project (default: here).")] = Path("."),
    json_: JsonOpt = False,
) -> None:
    """Remove what install added: the vmem server from .mcp.json and .cursor/mcp.json (if unchanged)."""
    with session(ctx, json_) as s:
        from vmem.ops.mcp_config import uninstall as run

        data = run(project.absolute())
        s.out.result(data)
        for path, removed in data["files"].items():
            s.out.line(f"{'removed' if removed else 'not there'}: vmem in {path}")
