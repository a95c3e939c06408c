"""`vmem mcp` end to end with the official SDK's own stdio client: initialize, list the tools, call each one,
and the scope promise: an unreviewed, hand-edited, personal or other-entity item never comes back."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest

from test_sync import RITA, _claim, mixed  # noqa: F401 - the fixture: every status, scope, audience and personal case

pytest.importorskip("mcp")


async def _with_server(store, cwd, calls, args=()):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if k.startswith(("XDG_", "GIT_", "HOME", "PATH", "VMEM_"))}
    env["VMEM_STORE"] = str(store.root)
    params = StdioServerParameters(command=sys.executable, args=["-m", "vmem", "mcp", *args], env=env, cwd=str(cwd))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            return init, tools, [await session.call_tool(name, arguments) for name, arguments in calls]


def _run(store, cwd, calls, args=()):
    return anyio.run(_with_server, store, cwd, calls, args)


def test_every_tool_over_stdio_serves_only_the_trusted_set(mixed, tmp_path):  # noqa: F811
    store, items = mixed
    every = [i["id"] for i in items.values()]
    calls = [("recall", {"query": "fact pattern rumour detail shortcut", "k": 50}),
             ("list", {}),
             ("show", {"id": items["approved"]["id"]}),
             ("blame", {"id": items["approved"]["id"]}),
             ("propose", {"text": "An agent noticed that refunds settle in two days", "title": "Refund lag"}),
             ("list", {"limit": 500})]
    calls += [("show", {"id": item_id}) for item_id in every]
    init, tools, results = _run(store, tmp_path, calls)
    assert init.server_info.name == "vmem"
    by_name = {t.name: t for t in tools.tools}
    assert sorted(by_name) == ["blame", "list", "propose", "recall", "show"]
    assert all(t.output_schema for t in by_name.values())  # structured output, typed
    assert by_name["recall"].input_schema["properties"]["query"]["type"] == "string"
    recalled, listed, shown, blamed, proposed, after = (r.structured_content for r in results[:6])
    served = {items[n]["id"] for n in ("mandatory", "mandatory_paths", "approved", "approved_paths", "published")}
    assert {r["id"] for r in recalled["results"]} == served and recalled["scope"] == "org"
    assert {i["id"] for i in listed["items"]} == served and listed["total"] == 5
    assert shown["reviewed_by"] == "rita@example.com" and shown["correct_with"].startswith("vmem propose --supersedes")
    assert [e["action"] for e in blamed["events"]] == ["import"]
    assert proposed["status"] == "proposed" and proposed["kind"] == "claim"  # a proposal, never a review
    assert proposed["id"] not in {i["id"] for i in after["items"]}  # unreviewed: not served back
    for (_, arguments), result in zip(calls[6:], results[6:]):
        if arguments["id"] in served:
            assert result.structured_content["id"] == arguments["id"]
        else:
            assert result.is_error and "visible to this agent" in result.content[0].text, arguments
    text = json.dumps([r.structured_content for r in results[:6]])
    for never in ("PROPOSED", "REJECTED", "REVOKED", "SUPERSEDED", "EXPIRED", "PERSONAL", "GROUP", "SCOPED",
                  "OTHER-SCOPE", "ELIGIBLE", "x@e.com"):
        assert never not in text, never


def test_an_entity_server_sees_its_entity_only_and_proposes_only_about_it(mixed, tmp_path):  # noqa: F811
    store, items = mixed
    calls = [("list", {}), ("show", {"id": items["other_scope"]["id"]}),
             ("propose", {"text": "Tidewell's renewal is owned by procurement", "about": "tidewell"}),
             ("show", {"id": "../../etc/passwd"})]
    _, _, (listed, other, foreign, traversal) = _run(store, tmp_path, calls, ["--scope", "entity:meridale"])
    ids = {i["id"] for i in listed.structured_content["items"]}
    assert items["scoped"]["id"] in ids and items["other_scope"]["id"] not in ids
    assert other.is_error and foreign.is_error and "serves entity:meridale" in foreign.content[0].text
    assert traversal.is_error


def test_a_hand_edit_never_reaches_an_mcp_answer(seeded, tmp_path):
    from conftest import commit_file
    from vmem import model
    from vmem.store import codec

    item = _claim("HANDEDITED unreviewed rumour about refunds", status="proposed")
    with seeded.acting_as(RITA), seeded.transaction("import", summary="one proposal") as tx:
        tx.write(item)
    path = model.item_path(item["id"])
    raw = codec.load((seeded.root / path).read_text(), path)
    raw["status"] = "approved"
    commit_file(seeded, path, codec.dump(raw).encode())
    _, _, results = _run(seeded, tmp_path, [("recall", {"query": "refunds rumour"}), ("show", {"id": item["id"]}),
                                            ("list", {})])
    assert "HANDEDITED" not in json.dumps([r.structured_content for r in results[::2]])
    assert results[1].is_error


def test_mcp_install_writes_portable_configs(store, vmem, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    first = vmem.json("mcp", "install", "--project", str(project))["data"]
    again = vmem.json("mcp", "install", "--project", str(project))["data"]
    assert list(first["files"].values()) == [True, True] and list(again["files"].values()) == [False, False]
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {
        "other": {"command": "x"}, "vmem": {"command": "vmem", "args": ["mcp"]}}}
    assert json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]["vmem"]["command"] == "vmem"
    removed = vmem.json("mcp", "uninstall", "--project", str(project))["data"]
    assert list(removed["files"].values()) == [True, True]
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {"other": {"command": "x"}}}
    assert not (project / ".cursor" / "mcp.json").exists()


def test_mcp_propose_reports_what_vmem_propose_json_reports(mixed, tmp_path):  # noqa: F811
    """One body, two faces: the same action, item, commit shape and contradictions; a contradicted item outside
    the agent's view (another customer's fact) is counted in a note, never shown."""
    import subprocess

    store, items = mixed
    three = _claim("Refunds settle three days after payment.")
    theirs = _claim("Refunds settle four days after payment for this account.", scope="entity:tidewell")
    with store.acting_as(RITA), store.transaction("import", summary="two refund facts") as tx:
        tx.write(three)
        tx.write(theirs)
    text = "Refunds settle five days after payment."
    base = subprocess.run(["git", "-C", str(store.root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    _, _, results = _run(store, tmp_path, [("propose", {"text": text})])
    agent = results[0].structured_content
    subprocess.run(["git", "-C", str(store.root), "reset", "-q", "--hard", base], check=True)  # the same start
    cli = json.loads(subprocess.run([sys.executable, "-m", "vmem", "propose", text, "--json"], cwd=tmp_path,
                                    capture_output=True, text=True, check=True).stdout)["data"]
    assert agent["action"] == cli["action"] == "created"
    assert set(cli) <= set(agent) and agent["item"].keys() == cli["item"].keys()
    assert agent["item"]["statement"] == cli["item"]["statement"] == text and len(agent["commit"]) == 40
    assert {c["id"] for c in cli["contradictions"]} == {three["id"], theirs["id"]}
    assert agent["contradictions"] == [c for c in cli["contradictions"] if c["id"] == three["id"]]
    assert any("1 item(s) outside this agent's view" in note for note in agent["notes"])
    assert "tidewell" not in json.dumps(agent).lower()


def test_recall_show_and_blame_answer_alike_on_both_faces(mixed, tmp_path):  # noqa: F811
    """One body per command: for what an agent may see, MCP's recall, show and blame say what `vmem recall`,
    `vmem show` and `vmem blame --json` (the console script) say -- same ranking and coverage, same item, same
    history -- MCP only ever narrowed to the served set."""
    import subprocess

    store, items = mixed
    served = items["approved"]["id"]
    query = "fact pattern rumour detail shortcut arr trials"
    _, _, results = _run(store, tmp_path, [("recall", {"query": query, "k": 50}), ("show", {"id": served}),
                                           ("blame", {"id": served})])
    agent_recall, agent_show, agent_blame = (r.structured_content for r in results)

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "vmem", *args, "--json"], cwd=tmp_path, capture_output=True,
                              text=True, env={**os.environ, "VMEM_STORE": str(store.root)})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["data"]

    person_recall, person_show, person_blame = cli("recall", query, "-k", "50"), cli("show", served), \
        cli("blame", served)
    assert agent_recall["coverage"] == person_recall["coverage"]
    assert [r["id"] for r in agent_recall["results"]] == [r["id"] for r in person_recall["results"]]
    assert [r["score"] for r in agent_recall["results"]] == pytest.approx([r["score"] for r in person_recall["results"]])
    for key in ("id", "kind", "title", "statement", "status", "paths", "domain", "valid_from", "expires_at"):
        assert agent_show[key] == person_show[key], key
    assert agent_show["reviewed_by"] == (person_show.get("review") or {}).get("by")
    assert [(e["commit"], e["action"], e["item"]) for e in agent_blame["events"]] == \
        [(e["commit"], e["action"], e["item"]) for e in person_blame["events"] if e["action"] != "git"]
