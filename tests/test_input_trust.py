"""Input that must not be trusted because of where it came from: text arguments that are not UTF-8, MCP arguments
the tool does not take, committed project configs that climb out, and plain `vmem check` on a forged approval.
Each goes through the real console script (`vmem` beside this interpreter) or, for MCP, the SDK's own client.

1. A statement (or title, reason, quote...) carrying bytes that are not UTF-8 reached argv as lone surrogates
   (Python's surrogateescape) and was committed as a YAML file with `\\uDCFF` escapes nobody could read back.
2. An MCP tool call with an argument the tool does not take was run without it (the proposal was committed), and
   a wrong type came back as a pydantic validation dump with a link to errors.pydantic.dev.
3. A committed `.vmem.yaml` could reach a store elsewhere on a colleague's machine with `store.path: ../../..`
   (no symlink needed), or with a URL whose path climbs past the user's own `insteadOf` mirror prefix
   (`https://git.example.com/team/../../private`).
4. Plain `vmem check` fails on governance errors too (SPEC 6), pointing at `vmem check --governance`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REVIEWER, commit_count
from test_trust import _set_status
from test_trust_project import SECRET, TEAM_URL, _assert_refused, _sync, other_store, project  # noqa: F401

VMEM = Path(sys.executable).with_name("vmem")  # the console script, as a user's shell runs it
RITA = f"Rita Reviewer <{REVIEWER[1]}>"


def vmem_bytes(*args: str | bytes, code: int, env: dict | None = None) -> tuple[str, str]:
    """`vmem ARGS` with ARGS passed as the bytes a shell would pass (str arguments as UTF-8): (stdout, stderr)."""
    argv = [str(VMEM), *(a if isinstance(a, bytes) else a.encode() for a in args)]
    done = subprocess.run(argv, capture_output=True, env={**os.environ, **(env or {})}, timeout=300)
    out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    assert done.returncode == code, (args, done.returncode, out, err)
    assert "Traceback" not in err, err
    return out, err


# -- 1. text arguments that are not UTF-8 -------------------------------------------------------------------------

BAD = b"ARR \xff\xfe includes fees"  # what a latin-1 terminal or a script reading a binary file passes


def _claim(seeded, vmem, text: str = "ARR excludes one-off fees") -> str:
    return vmem.json("propose", text, store=seeded)["data"]["item"]["id"]


@pytest.mark.parametrize("args, named", [
    (["propose", BAD], "TEXT"),
    (["propose", "ARR excludes fees", "--title", b"ARR \xe9"], "--title"),
    (["--json", "propose", BAD], "TEXT"),  # the typer face (a leading global option skips the typer-free one)
    (["propose", "ARR excludes fees", "--paths", b"src/\xff/*.sql"], "--paths"),
    (["propose", b"a learning \xff", "--from", "tidewell", "-c", "industry:healthcare"], "TEXT"),
    (["supersede", "{id}", BAD], "TEXT"),
    (["supersede", "{id}", "ARR excludes one-off and setup fees", "--reason", b"finance \xff said so"], "--reason"),
    (["reject", "{id}", "--reason", b"wrong \xff"], "--reason"),
    (["verify", "{id}", "--kind", "correction", "--corrected", BAD], "--corrected"),
    (["forget", "--entity", "tidewell", "--reason", b"asked \xff"], "--reason"),
    (["entity", "add", "brightfield", "--name", b"Bright\xe9field"], "--name"),
    (["episode", "add", "tidewell", "--quote", b"they said \xff"], "--quote"),
])
def test_text_that_is_not_utf8_is_a_usage_error_and_nothing_is_committed(seeded, vmem, args, named):
    """Regression (1): `vmem propose $'ARR \\xff\\xfe includes fees'` committed `statement: "ARR \\uDCFF\\uDCFE
    includes fees"`; every text argument of every command now gets one usage error naming it, exit 2."""
    claim = _claim(seeded, vmem)
    before = commit_count(seeded)
    args = [a.replace("{id}", claim) if isinstance(a, str) else a for a in args]
    as_rita = {"GIT_COMMITTER_NAME": "Rita Reviewer", "GIT_COMMITTER_EMAIL": REVIEWER[1]}
    out, err = vmem_bytes(*args, code=2, env=as_rita if args[0] in ("reject", "forget") else None)
    if "--json" in args:
        payload = json.loads(out)
        assert set(payload) == {"schema_version", "error", "hint"}, payload
        message, hint = payload["error"], payload["hint"]
    else:
        assert out == "" and len(err.splitlines()) == 2, err  # the error, then the fix
        message, hint = err.splitlines()[0], err.splitlines()[1]
        assert message.startswith("error: "), err
    assert f"{named} is not valid UTF-8" in message, message
    assert "UTF-8" in hint, hint
    assert commit_count(seeded) == before
    assert subprocess.run(["git", "-C", str(seeded.root), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""


def test_the_error_shows_the_bytes_that_are_not_utf8(seeded):
    _, err = vmem_bytes("propose", BAD, code=2)
    assert err.splitlines()[0] == "error: TEXT is not valid UTF-8 (the bytes \\xff\\xfe at character 5)", err


def test_utf8_text_and_a_store_path_that_is_not_utf8_are_still_fine(seeded, tmp_path, vmem):
    """Only text is judged: a file-system path is the machine's business (Linux allows any bytes in a name)."""
    vmem_bytes("propose", "ARR schließt Gebühren aus — ✓".encode(), code=0)
    odd = os.fsencode(tmp_path) + b"/st\xffore"
    subprocess.run([b"git", b"clone", b"-q", os.fsencode(seeded.root), odd], check=True)  # a clone, named so
    out, _ = vmem_bytes("--store", odd, "list", "--json", code=0)
    assert isinstance(json.loads(out)["data"], list)


# -- 2. MCP: unknown arguments and wrong types ------------------------------------------------------------------

needs_mcp = pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="the mcp extra is not installed")


def _mcp_env(store) -> dict:
    env = {k: v for k, v in os.environ.items() if k.startswith(("XDG_", "GIT_", "HOME", "PATH", "VMEM_", "NO_COLOR"))}
    return {**env, "VMEM_STORE": str(store.root)}


def _over_stdio(store, cwd, calls):
    """CALLS [(tool, arguments)] against `vmem mcp` over stdio with the SDK's own client: their results."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=str(VMEM), args=["mcp"], env=_mcp_env(store), cwd=str(cwd))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return [await session.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(main)


def _said(result) -> str:
    assert result.is_error, result
    [block] = result.content
    return block.text


PROPOSE_ARGS = "statement, title, domain, paths, about, from, categories"


@needs_mcp
def test_an_unknown_mcp_argument_is_refused_and_nothing_is_written(seeded, tmp_path):
    """Regression (2): `propose {"text": ..., "foo": 1}` proposed the text and dropped foo without a word; an agent
    that misspells `title` (`titel`) never learns its title was lost."""
    before = commit_count(seeded)
    results = _over_stdio(seeded, tmp_path, [
        ("propose", {"statement": "ARR excludes one-off fees", "foo": 1}),
        ("propose", {"statement": "ARR excludes one-off fees", "titel": "ARR"}),
        ("recall", {"query": "ARR", "scope": "entity:tidewell"}),
        ("show", {"id": "c-0123", "ID": "c-0123"}),
        ("remember", {"text": "x"}),
    ])
    assert [_said(r) for r in results] == [
        f"unknown argument 'foo' for propose (known: {PROPOSE_ARGS})",
        f"unknown argument 'titel' for propose (known: {PROPOSE_ARGS})",
        "unknown argument 'scope' for recall (known: query, k)",
        "unknown argument 'ID' for show (known: id)",
        "unknown tool 'remember' (known: recall, show, blame, list, changes, propose, verify, harvest)",
    ]
    assert commit_count(seeded) == before


@needs_mcp
def test_a_wrong_mcp_argument_type_is_one_line_never_a_validation_dump(seeded, tmp_path):
    before = commit_count(seeded)
    results = _over_stdio(seeded, tmp_path, [
        ("list", {"limit": "many"}),
        ("recall", {"query": 5}),
        ("propose", {"statement": ["ARR", "excludes fees"]}),
        ("propose", {"statement": "ARR excludes fees", "paths": "src/*.sql"}),
        ("propose", {"statement": "ARR excludes fees", "categories": ["industry:healthcare", 7]}),
        ("list", {"kind": "nope"}),
        ("verify", {"id": "c-0123", "kind": None}),
        ("list", {"limit": True}),
        ("propose", {}),
    ])
    said = [_said(r) for r in results]
    assert said == [
        "limit must be a whole number, not text (e.g. limit=100)",
        'query must be text, not a number (e.g. query="...")',
        'statement must be text, not a list (e.g. statement="...")',
        'paths must be a list of text, not text (e.g. paths=["..."])',
        'categories must be a list of text, not a list holding a number (e.g. categories=["..."])',
        'kind must be one of claim, knowledge (e.g. kind="claim")',
        'kind must be one of confirmation, correction, not null (e.g. kind="confirmation")',
        "limit must be a whole number, not true/false (e.g. limit=100)",
        'propose needs statement (e.g. statement="...")',
    ]
    assert not any("pydantic" in s or "validation error" in s or "\n" in s for s in said), said
    assert commit_count(seeded) == before


@needs_mcp
def test_mcp_text_that_is_not_unicode_is_refused_like_the_cli(seeded):
    """JSON may carry a lone surrogate (`"\\udcff"`); a transport that delivers one to the tool (the SDK's own
    in-memory client here) gets the CLI's error, naming the argument, and nothing is written."""
    import anyio
    from mcp import Client

    from vmem.mcp.server import build
    from vmem.ops.agent import AgentView

    before = commit_count(seeded)

    async def main():
        async with Client(build(AgentView(seeded.root))) as client:
            return [await client.call_tool("propose", arguments) for arguments in (
                {"statement": "ARR \udcff\udcfe includes fees"},
                {"statement": "ARR excludes fees", "title": "ARR \ud800"},
                {"statement": "ARR excludes fees", "paths": ["src/*.sql", "src/\udcff/*.sql"]},
            )]

    said = [_said(r) for r in anyio.run(main)]
    assert said == [
        "statement is not valid UTF-8 (the bytes \\xff\\xfe at character 5) (give it as UTF-8 text: check the "
        "encoding of the terminal, script or file it came from)",
        "title is not valid UTF-8 (a lone surrogate U+D800 at character 5) (give it as UTF-8 text: check the "
        "encoding of the terminal, script or file it came from)",
        "paths is not valid UTF-8 (the bytes \\xff at character 5) (give it as UTF-8 text: check the encoding "
        "of the terminal, script or file it came from)",
    ]
    assert commit_count(seeded) == before


@needs_mcp
def test_a_lone_surrogate_over_stdio_is_never_committed_and_the_server_keeps_serving(seeded, tmp_path):
    """Over stdio the SDK's reader refuses the line (its JSON parser rejects a lone surrogate escape) before any
    tool runs: nothing is committed, and the next call is answered."""
    before = commit_count(seeded)
    server = subprocess.Popen([str(VMEM), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=_mcp_env(seeded), cwd=tmp_path)
    try:
        def send(line: str) -> None:
            server.stdin.write(line.encode() + b"\n")
            server.stdin.flush()

        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
        assert json.loads(server.stdout.readline())["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(r'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "propose", '
             r'"arguments": {"text": "ARR \udcff\udcfe includes fees"}}}')
        send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "list", "arguments": {"limit": 1}}}))
        answers = {}
        while 3 not in answers:
            answer = json.loads(server.stdout.readline())
            answers[answer.get("id")] = answer
        assert answers[3]["result"]["isError"] is False
        assert 2 not in answers or "error" in answers[2] or answers[2]["result"]["isError"], answers[2]
    finally:
        server.stdin.close()
        server.wait(30)
    assert commit_count(seeded) == before


# -- 3. committed config paths and URLs may not climb out ---------------------------------------------------------


def _deep_project(tmp_path: Path) -> Path:
    """A project two levels below the colleague's home for stores (tmp_path), as ~/code/team/app is."""
    path = tmp_path / "code" / "team" / "app"
    path.mkdir(parents=True)
    return path


@pytest.mark.parametrize("rel", ["../../../seeded", "memory/../../../../seeded", "./../../.././seeded"])
def test_a_store_path_may_not_climb_above_the_projects_parent(other_store, tmp_path, rel):
    """Regression (3): `store: {path: ../../../seeded}` (no symlink anywhere) reached the colleague's private
    store three levels up and the hook put its mandatory rule into every session."""
    project = _deep_project(tmp_path)
    (project / "memory").mkdir()  # a real directory: no symlink for the older check to find
    assert (project / rel / "vmem.yaml").is_file()  # the attack reaches it
    (project / "memory").rmdir()  # the refusal is lexical (normalised first); _assert_refused counts every file
    (project / ".vmem.yaml").write_text(f"store: {{path: {json.dumps(rel)}}}\n")
    _assert_refused(project, tmp_path)
    first = _sync(project, tmp_path).stderr.splitlines()[0]
    assert "store.path" in first and "climbs out" in first, first


def test_every_consumer_refuses_a_climbing_store_path_alike(other_store, tmp_path, vmem, monkeypatch):
    monkeypatch.delenv("VMEM_STORE")
    project = _deep_project(tmp_path)
    (project / ".vmem.yaml").write_text("store: {path: ../../../seeded}\n")
    said = {vmem(*argv, code=2).stderr.splitlines()[0] for argv in (
        ["mcp", "--project", str(project)], ["targets", "list", "--project", str(project)])}
    monkeypatch.chdir(project)
    said.add(vmem("list", code=2).stderr.splitlines()[0])  # CLI resolution from inside the project
    assert len(said) == 1, said
    [line] = said
    assert line.startswith("error: ") and ".vmem.yaml: store.path '../../../seeded' climbs out" in line, line


@pytest.mark.parametrize("rel", ["../seeded", "../stores/../seeded", "src/../../seeded", "memory"])
def test_a_store_inside_or_beside_the_project_is_still_served(other_store, project, tmp_path, rel):
    """The rule's other side: the project's own directory and its parent's (sibling checkouts, ../team-memory)."""
    (tmp_path / "stores").mkdir()
    (project / "src").mkdir()
    if rel == "memory":  # the store checked out inside the project
        subprocess.run(["git", "clone", "-q", str(other_store.root), str(project / "memory")], check=True)
    (project / ".vmem.yaml").write_text(f"store: {{path: {json.dumps(rel)}}}\n")
    hook = _sync(project, tmp_path, "--hook")
    assert hook.returncode == 0 and SECRET in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]


def _mirror_prefix(tmp_path: Path) -> Path:
    """The user's own git config maps the team's URL prefix to a local mirror directory (air-gapped teams, tests):
    https://git.example.com/team/ -> file://TMP/mirrors/team/."""
    mirrors = tmp_path / "mirrors" / "team"
    mirrors.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(tmp_path / "seeded"), str(mirrors / "memory.git")],
                   check=True)
    with open(Path(os.environ["HOME"]) / ".gitconfig", "a") as config:
        config.write(f'[url "{mirrors.as_uri()}/"]\n\tinsteadOf = https://git.example.com/team/\n')
    return mirrors


@pytest.mark.parametrize("url", [
    "https://git.example.com/team/../../seeded",
    "https://git.example.com/team/%2e%2e/%2E%2E/seeded",
    "https://git.example.com/team/.%2e/%2e./seeded",
    "https://git.example.com/team/%252e%252e/%252e%252e/seeded",
    "https://git.example.com/team/memory.git/../../../seeded",
    "https://git.example.com/team/./../../seeded",
])
def test_a_url_may_not_climb_past_the_users_insteadof_mirror(other_store, project, tmp_path, url):
    """Regression (3): the committed URL is https, but after the user's own insteadOf its path climbed out of the
    mirror directory to the colleague's private store."""
    _mirror_prefix(tmp_path)
    (project / ".vmem.yaml").write_text(f"store: {{url: {json.dumps(url)}}}\n")
    _assert_refused(project, tmp_path)
    first = _sync(project, tmp_path).stderr.splitlines()[0]
    assert "'..'" in first and "store URL" in first, first
    assert not (tmp_path / "data" / "vmem" / "stores").exists() or \
        not any((tmp_path / "data" / "vmem" / "stores").iterdir())  # nothing cloned


def test_the_mirrored_team_url_itself_still_works(other_store, project, tmp_path):
    _mirror_prefix(tmp_path)
    (project / ".vmem.yaml").write_text(f"store: {{url: {json.dumps(TEAM_URL)}}}\n")
    hook = _sync(project, tmp_path, "--hook")
    assert hook.returncode == 0 and SECRET in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("url", ["git@git.example.com:team/../../seeded", "ssh://git@git.example.com/team/../x",
                                 "ssh://git@git.example.com/~alice/..%2f..%2fseeded", "https://h.example/a/..",
                                 "https://h.example/a/.\\..\\x"])
def test_every_transport_refuses_dot_segments(url):
    from vmem.errors import UsageError
    from vmem.store.remote import check_url

    with pytest.raises(UsageError, match="'..'"):
        check_url(url)


@pytest.mark.parametrize("url", ["https://git.example.com/team/memory.git", "https://h.example/a..b/c.d/.git",
                                 "git@git.example.com:team/memory...git", "ssh://git@h.example:2222/~a/m.git"])
def test_dots_inside_a_name_are_fine(url):
    from vmem.store.remote import check_url

    assert check_url(url) == url


# -- 4. plain `vmem check` fails on governance errors ---------------------------------------------------------


def test_plain_check_fails_on_a_hand_committed_approval_and_points_at_the_full_report(seeded, vmem):
    """SPEC 6: "plain check exits non-zero on governance errors too; --governance adds the full report". A
    non-reviewer's `status: approved` committed with plain git is a governance error, so a store's CI fails."""
    claim = _claim(seeded, vmem, "invoices are issued in UTC")
    forged = _set_status(seeded, claim, "approved")  # sed + git commit by Alice, who is not a reviewer
    out = subprocess.run([str(VMEM), "check"], capture_output=True, text=True, env={**os.environ, "VMEM_STORE":
                                                                                      str(seeded.root)})
    assert out.returncode == 1, (out.stdout, out.stderr)
    pointer = [line for line in out.stdout.splitlines() if line.startswith("error governance:")]
    assert len(pointer) == 1, out.stdout
    assert "1 governance problem (first:" in pointer[0] and forged[:10] in pointer[0], pointer
    assert pointer[0].endswith("the full report: vmem check --governance"), pointer
    full = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert [e["path"] for e in full] == [f"claims/{claim[2:4]}/{claim}.yaml"]
    # a reviewer's approval is history's: the same check passes once the forgery is reverted and Rita approves
    subprocess.run(["git", "-C", str(seeded.root), "revert", "--no-edit", forged], check=True, capture_output=True)
    vmem("approve", claim, who=RITA, store=seeded)
    assert vmem.json("check")["data"]["errors"] == []


def test_hook_install_for_a_store_far_above_the_project_records_its_url_alone(seeded, tmp_path, vmem):
    """A store two levels up: without a network origin, `hook install` refuses it (every reader would); with one,
    the config it commits names the URL alone, never a path that climbs out."""
    import subprocess

    from vmem.ops.hook import project_config

    project = tmp_path / "deep" / "down" / "project"
    project.mkdir(parents=True)
    subprocess.run(["git", "-C", str(project), "init", "-q"], check=True)
    refused = vmem("hook", "install", "--store", str(seeded.root), "--project", str(project), code=2)
    assert "climbs out" in refused.stderr
    subprocess.run(["git", "-C", str(seeded.root), "remote", "add", "origin", "https://git.example.com/t/m.git"],
                   check=True)
    config = project_config(project, str(seeded.root), None, None)  # what install writes, before it syncs
    assert config["store"] == {"url": "https://git.example.com/t/m.git", "path": None}, config
