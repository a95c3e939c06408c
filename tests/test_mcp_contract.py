"""The MCP contract (SPEC 13, issue 31): every tool of the real stdio server (`vmem mcp`, the console script) answers
with what the CLI's --json prints for the same command on the same store -- the same object, keys, ids and short
id prefixes, the same errors -- narrowed only where the agent's view is narrower than a person's (never an
unreviewed, out-of-scope or personal item, never another customer's evidence), and each narrowing is stated here.
Also: the server's version, input limits checked before any work, the mandatory rules as a resource."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from test_sync import RITA, _claim, mixed  # noqa: F401 - the fixture: every status, scope, audience and personal case

pytest.importorskip("mcp")

VMEM = Path(sys.executable).with_name("vmem")  # the console script, as an agent's config starts it
SERVED = ("mandatory", "mandatory_paths", "approved", "approved_paths", "published")


def _env(store) -> dict:
    env = {k: v for k, v in os.environ.items() if k.startswith(("XDG_", "GIT_", "HOME", "PATH", "VMEM_", "NO_COLOR"))}
    return {**env, "VMEM_STORE": str(store.root)}


def _mcp(store, cwd, script, args=()):
    """Run SCRIPT(session) against `vmem mcp ARGS` over stdio with the SDK's own client; its return value."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=str(VMEM), args=["mcp", *args], env=_env(store), cwd=str(cwd))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                return init, await script(session)

    return anyio.run(main)


def _calls(store, cwd, calls, args=()):
    async def script(session):
        return [await session.call_tool(name, arguments) for name, arguments in calls]

    return _mcp(store, cwd, script, args)[1]


def _cli(store, cwd, *args) -> tuple[int, dict]:
    """`vmem ARGS --json` through the console script: (exit code, the JSON document)."""
    done = subprocess.run([str(VMEM), *args, "--json"], cwd=cwd, capture_output=True, text=True, env=_env(store))
    return done.returncode, json.loads(done.stdout)


def _data(store, cwd, *args):
    code, payload = _cli(store, cwd, *args)
    assert code == 0, payload
    return payload["data"]


def _error(store, cwd, *args) -> str:
    """The CLI's error as an MCP tool says it: the message and its hint on one line (VmemError.described)."""
    code, payload = _cli(store, cwd, *args)
    assert code in (1, 2) and "error" in payload, payload
    return payload["error"] + (f" ({payload['hint']})" if payload["hint"] else "")


def _same(a, b, path="data"):
    """A equals B; numbers computed from the clock (ages) or by another kernel (scores) within a small tolerance."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), (path, sorted(set(a) ^ set(b)))
        for key in a:
            _same(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), (path, a, b)
        for n, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{n}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-4, abs_tol=0.02), (path, a, b)
    else:
        assert a == b, (path, a, b)


def _result(result):
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == (result.structured_content.get("result", result.structured_content)
                                                  if set(result.structured_content) == {"result"}
                                                  else result.structured_content)  # the text is the JSON
    return result.structured_content


def _no_evidence(item: dict) -> dict:
    """The org agent's narrowing of a learning: no customer's evidence (sync never prints lineage either)."""
    return {**item, "evidence": []} if item["kind"] == "knowledge" else item


def test_every_read_tool_answers_with_the_cli_json_of_the_same_command(mixed, tmp_path):  # noqa: F811
    store, items = mixed
    served = {items[n]["id"] for n in SERVED}
    approved, published = items["approved"]["id"], items["published"]["id"]
    short = approved[:6]  # c- and 4 hex digits: the shortest prefix the CLI accepts
    query = "fact pattern rumour detail shortcut arr trials"
    calls = [("recall", {"query": query, "k": 50}),
             ("show", {"id": short}),
             ("show", {"id": published}),
             ("list", {"limit": 500}),
             ("list", {"kind": "claim", "status": "mandatory"}),
             ("blame", {"id": short}),
             ("changes", {"limit": 50})]
    results = _calls(store, tmp_path, calls)
    recalled, shown, learning, listed, mandatory, blamed, changed = (_result(r) for r in results)

    _same(recalled, _data(store, tmp_path, "recall", query, "-k", "50"))
    assert {r["id"] for r in recalled["results"]} == served
    _same(shown, _data(store, tmp_path, "show", short))  # a short prefix, as the CLI takes it
    cli_learning = _data(store, tmp_path, "show", published)
    assert learning["card"]["evidence"] == [] and cli_learning["card"]["evidence"]  # the one narrowing here
    _same({**learning, "card": {**learning["card"], "evidence": cli_learning["card"]["evidence"],
                                "proposer": cli_learning["card"]["proposer"]}}, _no_evidence(cli_learning))
    everything = _data(store, tmp_path, "list")
    _same(listed["result"], [_no_evidence(i) for i in everything if i["id"] in served])
    _same(mandatory["result"], [i for i in _data(store, tmp_path, "list", "--kind", "claim", "--status", "mandatory")
                                if i["id"] in served])
    person = _data(store, tmp_path, "blame", short)
    _same(blamed, {**person, "events": [e for e in person["events"] if e["action"] != "git"]})
    log = _data(store, tmp_path, "log", "-n", "50")
    assert [c["commit"] for c in changed["changes"]] == [c["commit"] for c in log["changes"]
                                                         if set(c["items"]) & served]
    assert changed["changes"] and all(set(c["items"]) <= served for c in changed["changes"])
    assert "PROPOSED" not in json.dumps(changed) and "ELIGIBLE" not in json.dumps(changed)


def test_every_error_is_the_cli_error_and_an_unserved_item_is_absent(mixed, tmp_path):  # noqa: F811
    store, items = mixed
    proposed, other = items["proposed"]["id"], items["other_scope"]["id"]
    absent = "c-ffffffffffff"
    calls = [("show", {"id": absent}), ("show", {"id": "c-ffff"}), ("show", {"id": "../../etc/passwd"}),
             ("blame", {"id": absent}), ("verify", {"id": absent}), ("recall", {"query": "   "}),
             ("changes", {"since": "the day before"}),
             ("verify", {"id": items["published"]["id"]}),
             ("show", {"id": proposed}), ("blame", {"id": other}), ("verify", {"id": proposed[:8]})]
    results = _calls(store, tmp_path, calls)
    assert all(r.is_error for r in results)
    said = [r.content[0].text for r in results]
    assert said[:8] == [_error(store, tmp_path, "show", absent), _error(store, tmp_path, "show", "c-ffff"),
                        _error(store, tmp_path, "show", "../../etc/passwd"), _error(store, tmp_path, "blame", absent),
                        _error(store, tmp_path, "verify", absent), _error(store, tmp_path, "recall", "   "),
                        _error(store, tmp_path, "log", "--since", "the day before"),
                        _error(store, tmp_path, "verify", items["published"]["id"])]
    # an item that exists but is not served is absent to the agent, in the CLI's words for an absent one
    assert said[8:] == [f"no item {proposed} in this store (list items with: vmem list)",
                        f"no item {other} in this store (list items with: vmem list)",
                        f"no item id starts with {proposed[:8]} in this store (list items with: vmem list)"]


def test_an_ambiguous_prefix_names_only_served_items():
    from vmem.errors import UsageError
    from vmem.ops.agent import AgentView

    served = {"c-abcd00000000": {}, "c-abcd11111111": {}}
    with pytest.raises(UsageError, match="c-abcd is ambiguous: c-abcd00000000, c-abcd11111111$"):
        AgentView.resolve(None, "c-abcd", served)
    assert AgentView.resolve(None, "c-abcd1", served) == "c-abcd11111111"


def _reset(store, commit: str) -> None:
    subprocess.run(["git", "-C", str(store.root), "reset", "-q", "--hard", commit], check=True)


def _skeleton(value):
    """Keys and types: what two writes of the same command share (ids, times and commits differ)."""
    if isinstance(value, dict):
        return {k: _skeleton(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_skeleton(v) for v in value[:1]]
    return type(value).__name__


def test_the_write_tools_answer_like_vmem_propose_and_vmem_verify(mixed, tmp_path):  # noqa: F811
    """propose and verify: on the same start, the same object as the CLI (keys all the way down, and every value
    that is not an id, a time or a commit); a verification is a commit that records it, never a status change."""
    store, items = mixed
    approved = items["approved"]["id"]
    base = subprocess.run(["git", "-C", str(store.root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    text = "APPROVED arr excludes trials and refunds"
    cases = [("propose", {"statement": text, "title": "ARR", "paths": ["models/**"]},
              ["propose", text, "--title", "ARR", "--paths", "models/**"]),
             ("verify", {"id": approved[:6]}, ["verify", approved[:6]]),
             ("verify", {"id": approved, "kind": "correction", "corrected": "ARR excludes trials and credits"},
              ["verify", approved, "--kind", "correction", "--corrected", "ARR excludes trials and credits"])]
    for name, arguments, argv in cases:
        _reset(store, base)
        agent = _result(_calls(store, tmp_path, [(name, arguments)])[0])
        _reset(store, base)
        person = _data(store, tmp_path, *argv)
        assert _skeleton(agent) == _skeleton(person), name
        for key in ("action", "contradictions", "prior_rejections"):
            assert agent.get(key) == person.get(key), (name, key)
        fixed = ("id", "created_at", "valid_from", "expires_at", "verifications", "source")
        assert {k: v for k, v in agent["item"].items() if k not in fixed} == \
            {k: v for k, v in person["item"].items() if k not in fixed}, name
        if name == "verify":
            assert agent["item"]["status"] == "approved" and agent["item"]["verifications"][-1]["kind"] == \
                arguments.get("kind", "confirmation")
    assert agent["corrected"]["status"] == "proposed" and agent["corrected"]["supersedes"] == approved


def test_the_server_says_its_version_and_serves_the_mandatory_rules(mixed, tmp_path):  # noqa: F811
    from importlib.metadata import version

    store, items = mixed

    async def script(session):
        listed = await session.list_resources()
        text = await session.read_resource("vmem://rules/mandatory")
        data = await session.read_resource("vmem://rules/mandatory.json")
        return listed, text.contents[0].text, json.loads(data.contents[0].text)

    init, (listed, text, data) = _mcp(store, tmp_path, script)
    assert init.server_info.version == version("vmem-cli") != ""
    assert {str(r.uri) for r in listed.resources} == {"vmem://rules/mandatory", "vmem://rules/mandatory.json"}
    assert [r["id"] for r in data["rules"]] == sorted([items["mandatory"]["id"], items["mandatory_paths"]["id"]])
    assert data["scope"] == "org" and all(r["by"] == "rita@example.com" for r in data["rules"])
    assert "MANDATORY never join orders on email" in text and "applies to files matching: `**/*.sql`" in text
    for never in ("APPROVED", "PROPOSED", "PUBLISHED", "SCOPED", "PERSONAL"):
        assert never not in text


def test_oversized_arguments_are_refused_before_any_work(mixed, tmp_path):  # noqa: F811
    """A 3.5 MB question (once accepted, 6 s of work) is refused at once, with the limit; a statement over the
    item limit gets `vmem propose`'s own error."""
    store, _ = mixed
    huge = "how is revenue defined " * 150_000  # 3.45 MB

    async def script(session):
        await session.call_tool("list", {"limit": 1})  # the server is warm
        started = time.perf_counter()
        refused = await session.call_tool("recall", {"query": huge})
        took = time.perf_counter() - started
        long_text = await session.call_tool("propose", {"statement": "x" * 4001})
        many = await session.call_tool("propose", {"statement": "ok", "paths": ["a"] * 51})
        counts = [await session.call_tool(name, {**arguments, key: 1000}) for name, key, arguments in (
            ("recall", "k", {"query": "revenue"}), ("list", "limit", {}), ("changes", "limit", {}))]
        return refused, took, long_text, many, counts

    _, (refused, took, long_text, many, counts) = _mcp(store, tmp_path, script)
    assert [c.content[0].text for c in counts] == ["k must be between 1 and 50 (e.g. k=5)",
                                                   "limit must be between 1 and 500 (e.g. limit=100)",
                                                   "the limit must be between 1 and 500 (e.g. -n 20)"]
    assert refused.is_error and refused.content[0].text == \
        f"query is {len(huge)} characters; the limit is 2000 (ask one question in a sentence or two)"
    assert took < 1.0, took  # measured: ~0.1 s, most of it moving 3.5 MB through the pipe and the JSON parser
    assert long_text.is_error and long_text.content[0].text == _error(store, tmp_path, "propose", "x" * 4001)
    assert many.is_error and many.content[0].text.startswith("paths has 51 entries; the limit is 50")


def test_every_argument_is_named_as_the_cli_names_it(mixed, tmp_path):  # noqa: F811
    """An agent's arguments are the CLI's words: the command's argument (query, id, statement) or one of its
    options (--from, --about, --kind, ...), so what a person types and what an agent sends read the same; a name
    from another dialect is refused in one line."""
    store, _ = mixed
    command = {"changes": "log", "list": "list", "recall": "recall", "show": "show", "blame": "blame",
               "propose": "propose", "verify": "verify", "harvest": "harvest"}
    positional = {"recall": "query", "show": "id", "blame": "id", "propose": "statement", "verify": "id",
                  "harvest": "statement"}
    # the only names that are not a long option: the CLI's --category is repeated, and its JSON key is categories;
    # an agent's list is bounded (limit) where a person's terminal is not; harvest's kind and quote are what the
    # session said, which the CLI reads from the transcript itself
    own = {("propose", "categories"), ("list", "limit"), ("harvest", "kind"), ("harvest", "quote")}

    async def script(session):
        tools = (await session.list_tools()).tools
        wrong = [await session.call_tool("propose", {"text": "x"}),
                 await session.call_tool("propose", {"statement": "x", "learning_from": "acme"})]
        return tools, wrong

    _, (tools, wrong) = _mcp(store, tmp_path, script)
    assert {tool.name for tool in tools} == set(command)
    for tool in tools:
        helped = subprocess.run([str(VMEM), command[tool.name], "--help"], capture_output=True, text=True,
                                env={**os.environ, "VMEM_WIDTH": "200"}).stdout
        for name in tool.input_schema["properties"]:
            if name == positional.get(tool.name) or (tool.name, name) in own:
                continue
            assert f"--{name} " in helped or f"-{name} " in helped, (tool.name, name)
    assert set(next(t for t in tools if t.name == "propose").input_schema["properties"]) == {
        "statement", "title", "domain", "paths", "about", "from", "categories"}
    for result in wrong:
        assert result.is_error and len(result.content) == 1 and "\n" not in result.content[0].text
    assert "statement" in wrong[0].content[0].text and "learning_from" in wrong[1].content[0].text
