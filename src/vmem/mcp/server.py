"""`vmem mcp`: the CLI's commands as MCP tools over stdio, each a few lines over ops/agent.py.

Every tool answers with its CLI command's `--json` data (`vmem recall|show|list|blame|log|propose|verify`):
the same keys and ids, as structured content and as the JSON text the CLI prints (`list`, a JSON array in the
CLI, is `{"result": [...]}` as structured content, the SDK's form for a value that is not an object). What the
CLI prints on stderr (notes, warnings) follows as further text blocks, "note: ...". A vmem error is a tool
error whose text is the CLI's message and hint on one line (VmemError.described), never a crash of the server. Arguments
are checked against the tool's published schema before the SDK's own validation, as the CLI checks its options:
an unknown argument, a missing or mistyped one or text that is not UTF-8 is one such line, and nothing runs.
Resources: the mandatory rules sync delivers to this scope, as Markdown and as JSON. No tool deletes or reviews
anything.
"""

from __future__ import annotations

import functools
import json
from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from vmem.ops.agent import LIMITS, LIST_LIMITS

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False)


def _text(name: str, description: str, default: Any = ..., **kwargs) -> Any:
    """A string argument whose limit the schema publishes; the check (and its clear error) is ops/agent.py's."""
    return Field(default, description=description, json_schema_extra={"maxLength": LIMITS[name]}, **kwargs)


def _int(default: int, most: int, description: str) -> Any:
    """A count whose bounds the schema publishes; checked by ops/agent.py with a clear error (not pydantic's)."""
    return Field(default, description=description, json_schema_extra={"minimum": 1, "maximum": most})


def _strings(name: str, description: str) -> Any:
    most, each = LIST_LIMITS[name]
    return Field(None, description=description, json_schema_extra={"maxItems": most, "items": {
        "type": "string", "maxLength": each}})


class _Open(BaseModel):
    """The CLI's object: these keys always, and the rest of what the command reports."""
    model_config = ConfigDict(extra="allow")


class Recalled(_Open):
    coverage: Literal["covered", "partial", "uncovered"]
    coverage_reason: Optional[str] = None
    missing: list[str] = []
    stale: list[dict] = []
    results: list[dict]
    awaiting_review: Optional[int] = None


class Shown(_Open):
    id: str
    kind: str
    status: str
    statement: str
    computed: dict
    card: dict


class Listed(_Open):
    result: list[dict]


class History(_Open):
    chain: list[str]
    events: list[dict]


class Changes(_Open):
    changes: list[dict]
    scanned: int
    truncated: bool


class Proposal(_Open):
    action: str
    item: dict
    commit: Optional[str] = None
    contradictions: list[dict]
    prior_rejections: list[dict] = []


class Offered(_Open):
    id: str
    kind: str
    statement: str
    queued: bool
    state: Optional[str] = None


class Verified(_Open):
    action: str
    item: dict
    commit: Optional[str] = None
    corrected: Optional[dict] = None


def version() -> str:
    """vmem's version: the installed distribution's, else the package's own."""
    from vmem import DISTRIBUTION, __version__

    try:
        from importlib.metadata import PackageNotFoundError, version as installed

        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return __version__


def answer(data: Any, notes: list[str] | tuple = ()) -> CallToolResult:
    """DATA as the CLI's --json prints it (text) and as structured content; each note as the CLI's stderr line."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    content = [TextContent(type="text", text=text)] + [TextContent(type="text", text=f"note: {n}") for n in notes]
    return CallToolResult(content=content, structured_content=data if isinstance(data, dict) else {"result": data})


def refused(exc) -> CallToolResult:
    """A VmemError as a tool error: the CLI's message and hint on one line."""
    return CallToolResult(content=[TextContent(type="text", text=exc.described())], is_error=True)


# What a JSON value is, in the words of an error ("limit must be a whole number, not text").
_WANTED = {"string": "text", "integer": "a whole number", "array": "a list of text", "null": "null"}


def _seen(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return "text"
    if isinstance(value, float) and not value.is_integer():
        return "a fraction"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        odd = [v for v in value if not isinstance(v, str)]
        return f"a list holding {_seen(odd[0])}" if odd else "a list"
    return "an object"


def _fits(value: Any, shape: dict) -> bool:
    kind = shape.get("type")
    if kind == "null":
        return value is None
    if kind == "string":
        return isinstance(value, str) and ("enum" not in shape or value in shape["enum"])
    if kind == "integer":  # 5.0 is the JSON number 5 (pydantic takes it too); true is not a number
        return not isinstance(value, bool) and (isinstance(value, int) or isinstance(value, float)
                                                and value.is_integer())
    if kind == "array":
        return isinstance(value, list) and all(_fits(v, shape.get("items") or {}) for v in value)
    return False


def check_arguments(tool: str, arguments: dict, schema: dict) -> None:
    """ARGUMENTS as TOOL's published input SCHEMA takes them, or a UsageError in the CLI's words, the first problem
    only: an unknown argument (`vmem propose --foo` is refused too, never dropped), a missing one, a wrong type or
    a value outside its choices, text that is not UTF-8 (vmem.model.check_text, the CLI's own check). What the
    schema allows the SDK's validation allows; limits on sizes and ranges are the bodies' (vmem.ops.agent)."""
    from vmem.errors import UsageError
    from vmem.model import check_text

    known = schema.get("properties") or {}
    for name in arguments:
        if name not in known:
            raise UsageError(f"unknown argument {name!r} for {tool}", f"known: {', '.join(known)}")
    for name in schema.get("required") or ():
        if name not in arguments:
            raise UsageError(f"{tool} needs {name}", _example(name, known[name]))
    for name, value in arguments.items():
        shapes = known[name].get("anyOf") or [known[name]]
        if not any(_fits(value, shape) for shape in shapes):
            [shape] = [s for s in shapes if s.get("type") != "null"] or shapes
            wanted = f"one of {', '.join(shape['enum'])}" if "enum" in shape else _WANTED.get(shape.get("type"),
                                                                                             "something else")
            right_type = "enum" in shape and isinstance(value, str)
            raise UsageError(f"{name} must be {wanted}" + ("" if right_type else f", not {_seen(value)}"),
                             _example(name, known[name]))
        for text in value if isinstance(value, list) else (value,):
            if isinstance(text, str):
                check_text(text, name)


def _example(name: str, spec: dict) -> str:
    shape = next((s for s in spec.get("anyOf") or [spec] if s.get("type") != "null"), spec)
    if spec.get("default") is not None:
        value = spec["default"]
    elif "enum" in shape:
        value = shape["enum"][0]
    else:
        value = {"integer": 1, "array": ["..."]}.get(shape.get("type"), "...")
    return f"e.g. {name}={json.dumps(value, ensure_ascii=False)}"


class _Server(MCPServer):
    """The SDK's server, with every tool call's arguments checked first (check_arguments) and any validation the
    SDK still refuses said in one line, never pydantic's multi-line report."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        from vmem.errors import UsageError, VmemError

        tools = {tool.name: tool for tool in await self.list_tools()}
        try:
            if name not in tools:
                raise UsageError(f"unknown tool {name!r}", f"known: {', '.join(tools)}")
            check_arguments(name, arguments, tools[name].input_schema)
        except VmemError as exc:
            return refused(exc)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            first = exc.__cause__.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the arguments"
            return refused(UsageError(f"{where} is not valid for {name}", "see the tool's input schema"))


def build(view) -> MCPServer:
    from vmem.errors import VmemError

    server = _Server("vmem", version=version(), log_level="WARNING", instructions=(
        "The team's reviewed knowledge (vmem). recall before answering questions about the team's data, "
        f"definitions and customers; it serves only reviewed items in scope {view.scope}. The mandatory rules "
        "are the resource vmem://rules/mandatory. propose what you learn, and verify (confirm or correct) an "
        "item you checked: a reviewer decides. Every tool answers with `vmem <command> --json`'s data."))

    def call(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except VmemError as exc:
            raise ToolError(exc.described()) from None

    def reply(fn, *args, **kwargs) -> CallToolResult:
        """FN's data (and notes) as the CLI's --json; a VmemError as the CLI's one line: its message (hint)."""
        try:
            done = fn(*args, **kwargs)
        except VmemError as exc:
            return refused(exc)
        return answer(*done) if isinstance(done, tuple) else answer(done)

    @server.tool(annotations=READ)
    def recall(query: str = _text("query", "A question in plain words."),
               k: int = _int(5, 50, "How many results.")) -> Annotated[CallToolResult,
                                                                                         Recalled]:
        """Search the team's reviewed facts and published patterns; says covered, partial or uncovered
        (`vmem recall QUERY -k K --json`)."""
        return reply(view.recall, query, k)

    @server.tool(annotations=READ)
    def show(id: str = _text("id", "An item id, or a unique prefix of one (c-f3d5).")) -> Annotated[
            CallToolResult, Shown]:
        """One served item as its review card, with who reviewed it, its confidence or support tier and what
        contradicts it (`vmem show ID --json`)."""
        return reply(view.show, id)

    @server.tool(annotations=READ)
    def blame(id: str = _text("id", "An item id, or a unique prefix of one.")) -> Annotated[CallToolResult,
                                                                                            History]:
        """How a served item came to be: the commits that proposed, reviewed and superseded it
        (`vmem blame ID --json`)."""
        return reply(view.blame, id)

    @server.tool(name="list", annotations=READ)
    def list_(kind: Optional[Literal["claim", "knowledge"]] = None,
              status: Optional[Literal["approved", "mandatory", "published"]] = None,
              limit: int = _int(100, 500, "How many, oldest first.")) -> Annotated[
            CallToolResult, Listed]:
        """Everything served in this scope, oldest first (`vmem list [--kind K] [--status S] --json`)."""
        return reply(view.list, kind, status, limit)

    @server.tool(annotations=READ)
    def changes(limit: int = _int(20, 500, "How many changes, newest first."),
                since: Optional[str] = _text("since", "Only after this: a date, a timestamp or '3 days ago'.",
                                             None)) -> Annotated[CallToolResult, Changes]:
        """What changed recently among the items served here: proposals, approvals, mandates, publications,
        verifications and supersessions, newest first (`vmem log -n N --since WHEN --json`)."""
        return reply(view.changes, limit, since)

    def propose(statement: str = _text("statement", "The fact or learning, one statement."),
                title: Optional[str] = _text("title", "A one-line title.", None),
                domain: Optional[str] = _text("domain", "A domain partition, e.g. finance.", None),
                paths: Optional[list[str]] = _strings("paths", "Globs the fact applies to."),
                about: Optional[str] = _text("about", "The server's own entity, for an entity fact.", None),
                from_: Optional[str] = _text("from", "The server's own entity: propose a learning noticed there "
                                             "(with categories) instead of a fact.", None, alias="from"),
                categories: Optional[list[str]] = _strings("categories", "FACET:VALUE, for a learning.")) -> Annotated[
            CallToolResult, Proposal]:
        """Propose a fact or a learning for human review (`vmem propose --json`); never approves anything."""
        return reply(view.propose, statement, title=title, domain=domain, paths=paths, about=about, from_=from_,
                     categories=categories)

    @server.tool(name="propose", annotations=WRITE)
    @functools.wraps(propose)
    def propose_called(**arguments):
        # `from`, the CLI's --from, is a Python keyword: the schema publishes the alias and the SDK passes it
        arguments["from_"] = arguments.pop("from", None)
        return propose(**arguments)

    @server.tool(annotations=WRITE)
    def verify(id: str = _text("id", "A served claim's id, or a unique prefix of one."),
               kind: Literal["confirmation", "correction"] = "confirmation",
               corrected: Optional[str] = _text("corrected", "With kind correction: what is true instead "
                                                "(proposed as its revision, for a reviewer).", None)) -> Annotated[
            CallToolResult, Verified]:
        """Feedback on a served claim you checked: a confirmation raises its confidence, a correction lowers it
        and may propose the corrected text (`vmem verify ID --kind K --json`); never a status change."""
        return reply(view.verify, id, kind, corrected)

    @server.tool(annotations=WRITE)
    def harvest(statement: str = _text("statement", "What the person told you that teammates' agents should "
                                       "know, standing alone (names the table, column or metric)."),
                kind: Literal["correction", "definition", "confirmation"] = "correction",
                quote: Optional[str] = _text("quote", "The person's own words.", None)) -> Annotated[
            CallToolResult, Offered]:
        """Offer a correction, definition or confirmation the person gave you for their review: it waits in
        their harvest queue (`vmem harvest`) and is proposed only if they accept it. Never proposes anything."""
        return reply(view.harvest, statement, kind, quote)

    @server.resource("vmem://rules/mandatory", name="mandatory-rules", mime_type="text/markdown",
                     description="The mandatory team rules sync delivers to this scope (always apply them).")
    def mandatory_rules() -> str:
        return call(view.mandatory)["text"]

    @server.resource("vmem://rules/mandatory.json", name="mandatory-rules-json", mime_type="application/json",
                     description="The same rules as data: id, statement, scope, paths, who approved them, when.")
    def mandatory_json() -> str:
        data = call(view.mandatory)
        return json.dumps({k: data[k] for k in ("scope", "commit", "rules")}, ensure_ascii=False, indent=2)

    return server


def serve(view) -> None:
    build(view).run("stdio")
