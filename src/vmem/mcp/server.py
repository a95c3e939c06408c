"""`vmem mcp`: tools recall, show, blame, list and propose over stdio, each a few lines over ops/agent.py.

Typed inputs and structured outputs (pydantic models, as the SDK publishes them as JSON schemas); a vmem error
becomes a tool error with its message and hint, never a crash of the server.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, Field

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


class Hit(BaseModel):
    id: str
    kind: str
    title: Optional[str] = None
    statement: str
    scope: str
    status: str
    confidence: Optional[float] = None
    support_tier: Optional[str] = None
    score: Optional[float] = None


class Recalled(BaseModel):
    coverage: Literal["covered", "partial", "uncovered"]
    scope: str
    results: list[Hit]


class Item(BaseModel):
    id: str
    kind: str
    title: Optional[str] = None
    statement: str
    scope: str
    status: str
    paths: Optional[list[str]] = None
    domain: Optional[str] = None
    valid_from: Optional[str] = None
    expires_at: Optional[str] = None
    confidence: Optional[float] = None
    support_tier: Optional[str] = None
    reviewed_by: Optional[str] = None
    reviewed_at: Optional[str] = None
    correct_with: str


class Listed(BaseModel):
    scope: str
    total: int
    items: list[Item]


class Event(BaseModel):
    commit: str
    at: str
    action: str
    item: str
    author: Optional[str] = None
    reason: Optional[str] = None


class History(BaseModel):
    id: str
    chain: list[str]
    events: list[Event]


class Clash(BaseModel):
    id: str
    reason: str
    rules: list[str]
    statement: str


class Proposal(BaseModel):
    """`vmem propose --json`'s result (action, item, commit, contradictions) with its notes, narrowed to the
    agent's view; id, kind, status, outcome and next say the same in short."""
    action: str
    item: dict
    commit: Optional[str] = None
    contradictions: list[Clash]
    prior_rejections: list[dict] = []  # rejected claims it restates: {id, statement, reason, by, at, match, why}
    notes: list[str]
    id: str
    kind: str
    status: str
    outcome: str
    next: str


def build(view) -> MCPServer:
    from vmem.errors import VmemError

    server = MCPServer("vmem", log_level="WARNING", instructions=(
        "The team's reviewed knowledge (vmem). recall before answering questions about the team's data, "
        f"definitions and customers; it serves only reviewed items in scope {view.scope}. propose what you "
        "learn: a reviewer decides."))

    def call(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except VmemError as exc:
            raise ToolError(exc.described()) from None

    @server.tool(annotations=READ)
    def recall(query: str = Field(description="A question in plain words."),
               k: int = Field(5, ge=1, le=50, description="How many results.")) -> Recalled:
        """Search the team's reviewed facts and published patterns; says covered, partial or uncovered."""
        return Recalled(**call(view.recall, query, k))

    @server.tool(annotations=READ)
    def show(id: str = Field(description="An item id, e.g. c-0123456789ab.")) -> Item:
        """One served item with who reviewed it, its confidence or support tier, and how to correct it."""
        return Item(**call(view.show, id))

    @server.tool(annotations=READ)
    def blame(id: str = Field(description="An item id.")) -> History:
        """How a served item came to be: the commits that proposed, reviewed and superseded it."""
        return History(**call(view.blame, id))

    @server.tool(name="list", annotations=READ)
    def list_(kind: Optional[Literal["claim", "knowledge"]] = None,
              limit: int = Field(50, ge=1, le=500)) -> Listed:
        """Everything served in this scope, mandatory rules first."""
        return Listed(**call(view.list, kind, limit))

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                             openWorldHint=False))
    def propose(text: str = Field(description="The fact or learning, one statement."),
                title: Optional[str] = None, domain: Optional[str] = None,
                paths: Optional[list[str]] = Field(None, description="Globs the fact applies to."),
                about: Optional[str] = Field(None, description="The server's own entity, for an entity fact."),
                learning_from: Optional[str] = Field(None, description="The server's own entity: propose a "
                                                     "learning (with categories) instead of a fact."),
                categories: Optional[list[str]] = Field(None, description="FACET:VALUE, for a learning.")) -> Proposal:
        """Propose a fact or a learning for human review (never approves anything)."""
        return Proposal(**call(view.propose, text, title=title, domain=domain, paths=paths, about=about,
                               learning_from=learning_from, categories=categories))

    return server


def serve(view) -> None:
    build(view).run("stdio")
