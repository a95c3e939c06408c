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
             ("propose", {"statement": "An agent noticed that refunds settle in two days", "title": "Refund lag"}),
             ("list", {"limit": 500})]
    calls += [("show", {"id": item_id}) for item_id in every]
    init, tools, results = _run(store, tmp_path, calls)
    assert init.server_info.name == "vmem"
    by_name = {t.name: t for t in tools.tools}
    assert sorted(by_name) == ["blame", "changes", "harvest", "list", "propose", "recall", "show", "verify"]  # no delete
    assert all(t.output_schema for t in by_name.values())  # structured output, typed
    assert by_name["recall"].input_schema["properties"]["query"]["type"] == "string"
    recalled, listed, shown, blamed, proposed, after = (r.structured_content for r in results[:6])
    served = {items[n]["id"] for n in ("mandatory", "mandatory_paths", "approved", "approved_paths", "published")}
    assert {r["id"] for r in recalled["results"]} == served
    assert {i["id"] for i in listed["result"]} == served
    assert shown["review"]["by"] == shown["card"]["review"]["by"] == "rita@example.com"
    assert [e["action"] for e in blamed["events"]] == ["import"]
    assert proposed["item"]["status"] == "proposed" and proposed["item"]["kind"] == "claim"  # never a review
    assert proposed["item"]["id"] not in {i["id"] for i in after["result"]}  # unreviewed: not served back
    for (_, arguments), result in zip(calls[6:], results[6:]):
        if arguments["id"] in served:
            assert result.structured_content["id"] == arguments["id"]
        else:
            assert result.is_error and result.content[0].text == \
                f"no item {arguments['id']} in this store (list items with: vmem list)", arguments
    text = json.dumps([r.structured_content for r in results[:6]])
    for never in ("PROPOSED", "REJECTED", "REVOKED", "SUPERSEDED", "EXPIRED", "PERSONAL", "GROUP", "SCOPED",
                  "OTHER-SCOPE", "ELIGIBLE", "x@e.com"):
        assert never not in text, never


def test_an_entity_server_sees_its_entity_only_and_proposes_only_about_it(mixed, tmp_path):  # noqa: F811
    store, items = mixed
    calls = [("list", {}), ("show", {"id": items["other_scope"]["id"]}),
             ("propose", {"statement": "Tidewell's renewal is owned by procurement", "about": "tidewell"}),
             ("show", {"id": "../../etc/passwd"}),
             ("propose", {"statement": "Finance teams ask for ARR by region before renewal", "from": "meridale",
                          "categories": ["industry:healthcare"]}),
             ("propose", {"statement": "Finance teams ask for ARR by region", "from": "tidewell",
                          "categories": ["industry:healthcare"]})]
    _, _, (listed, other, foreign, traversal, learning, elsewhere) = _run(store, tmp_path, calls,
                                                                          ["--scope", "entity:meridale"])
    # `from`, as the CLI's --from: a learning noticed at the server's own entity, never at another one
    item = learning.structured_content["item"]
    assert not learning.is_error and item["id"].startswith("k-") and item["status"] == "candidate"
    assert elsewhere.is_error and "serves entity:meridale" in elsewhere.content[0].text
    ids = {i["id"] for i in listed.structured_content["result"]}
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
    _, _, results = _run(store, tmp_path, [("propose", {"statement": text})])
    agent = results[0].structured_content
    subprocess.run(["git", "-C", str(store.root), "reset", "-q", "--hard", base], check=True)  # the same start
    cli = json.loads(subprocess.run([sys.executable, "-m", "vmem", "propose", text, "--json"], cwd=tmp_path,
                                    capture_output=True, text=True, check=True).stdout)["data"]
    assert agent["action"] == cli["action"] == "created"
    assert agent.keys() == cli.keys() and agent["item"].keys() == cli["item"].keys()  # the same object
    assert agent["item"]["statement"] == cli["item"]["statement"] == text and len(agent["commit"]) == 40
    assert {c["id"] for c in cli["contradictions"]} == {three["id"], theirs["id"]}
    assert agent["contradictions"] == [c for c in cli["contradictions"] if c["id"] == three["id"]]
    notes = [block.text for block in results[0].content[1:]]  # what the CLI prints on stderr
    assert any("contradicts 1 item outside this agent's view" in note for note in notes)
    assert "tidewell" not in json.dumps(agent).lower() + " ".join(notes).lower()


def test_a_hand_edit_of_a_reviewed_text_is_answered_as_reviewed(mixed, vmem, tmp_path):  # noqa: F811
    """show and list answer with the text history attests (what sync serves), never a hand edit committed after
    the review -- while the person's `vmem show` shows the file and flags it."""
    from conftest import commit_file
    from vmem import model

    store, items = mixed
    item = items["approved"]
    path = model.item_path(item["id"])
    raw = (store.root / path).read_text()
    commit_file(store, path, raw.replace("APPROVED arr excludes trials", "HANDEDITED arr includes trials").encode())
    _, _, (shown, listed) = _run(store, tmp_path, [("show", {"id": item["id"]}), ("list", {"limit": 500})])
    assert shown.structured_content["statement"] == shown.structured_content["card"]["statement"] == \
        "APPROVED arr excludes trials"
    assert "unattested_edit" not in shown.structured_content["computed"]
    assert "HANDEDITED" not in json.dumps([shown.structured_content, listed.structured_content])
    assert "APPROVED arr excludes trials" in json.dumps(listed.structured_content)
    person = vmem.json("show", item["id"])["data"]  # the person sees the file, flagged
    assert person["statement"].startswith("HANDEDITED") and "unattested_edit" in person["computed"]
