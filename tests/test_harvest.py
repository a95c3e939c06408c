"""vmem harvest (SPEC 16): candidates from real-format Claude Code and Codex transcripts and CLAUDE.local.md, through
the console script; nothing reaches the store without the analyst's accept; nothing is offered twice; credentials
never survive into output, the queue or the store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git
from test_team_flow import crew  # noqa: F401 - a fixture

BOB = ("Bob Builder", "bob@example.com")

from vmem.harvest import transcripts
from vmem.harvest.detect import find, judge_turn

VMEM = Path(sys.executable).with_name("vmem")


# -- transcripts as the agents write them ----------------------------------------------------------------------


class Claude:
    """A Claude Code session file, line by line as Claude Code writes it."""

    def __init__(self, session: str = "5b1e2c3d-0000-4000-8000-000000000001", cwd: str = "/work/project") -> None:
        self.session, self.cwd, self.lines, self.n = session, cwd, [], 0

    def _base(self, kind: str, **more) -> dict:
        self.n += 1
        return {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": self.cwd,
                "sessionId": self.session, "version": "2.0.14", "gitBranch": "main", "type": kind,
                "uuid": f"00000000-0000-4000-8000-{self.n:012d}", "timestamp": f"2026-11-02T10:{self.n:02d}:00.000Z",
                **more}

    def user(self, text: str, blocks: bool = False, **more) -> "Claude":
        content = [{"type": "text", "text": text}] if blocks else text
        self.lines.append(self._base("user", message={"role": "user", "content": content}, **more))
        return self

    def assistant(self, text: str, tool: bool = False) -> "Claude":
        content = [{"type": "thinking", "thinking": "the user wants…", "signature": "x"}, {"type": "text", "text": text}]
        if tool:
            content.append({"type": "tool_use", "id": f"toolu_{self.n}", "name": "Bash", "input": {"command": "ls"}})
        self.lines.append(self._base("assistant", message={"id": f"msg_{self.n}", "type": "message",
                                                           "role": "assistant", "model": "claude-sonnet-4-5",
                                                           "content": content}, requestId="req_1"))
        return self

    def tool_result(self, text: str) -> "Claude":
        self.lines.append(self._base("user", message={"role": "user", "content": [
            {"tool_use_id": f"toolu_{self.n}", "type": "tool_result", "content": text}]},
            toolUseResult={"stdout": text}))
        return self

    def raw(self, entry: dict | str) -> "Claude":
        self.lines.append(entry)
        return self

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in self.lines))
        return path


class Codex:
    """A Codex CLI rollout file (session_meta, response_item messages, the event_msg copies, function calls)."""

    def __init__(self, cwd: str, session: str = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b") -> None:
        self.lines = [{"timestamp": "2026-11-03T09:00:00.000Z", "type": "session_meta", "payload": {
            "id": session, "timestamp": "2026-11-03T09:00:00.000Z", "cwd": cwd, "originator": "codex_cli_rs",
            "cli_version": "0.46.0", "instructions": None}}]
        self.n = 0

    def _item(self, payload: dict, kind: str = "response_item") -> None:
        self.n += 1
        self.lines.append({"timestamp": f"2026-11-03T09:{self.n:02d}:00.000Z", "type": kind, "payload": payload})

    def user(self, text: str) -> "Codex":
        self._item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
        self._item({"type": "user_message", "message": text, "images": []}, "event_msg")
        return self

    def context(self, cwd: str) -> "Codex":
        self._item({"type": "message", "role": "user", "content": [{"type": "input_text", "text":
                    f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
                    "</environment_context>"}]})
        return self

    def assistant(self, text: str) -> "Codex":
        self._item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Checking**"}],
                    "encrypted_content": "gAAAA"})
        self._item({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"ls\"]}",
                    "call_id": f"call_{self.n}"})
        self._item({"type": "function_call_output", "call_id": f"call_{self.n}",
                    "output": "{\"output\":\"ARR means annual recurring revenue\\n\"}"})
        self._item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
        self._item({"type": "agent_message", "message": text}, "event_msg")
        return self

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


def run(cwd: Path, *args: str, code: int = 0, stdin: str | None = None, env: dict | None = None):
    """`vmem ARGS` through the console script, as the analyst types it in CWD."""
    done = subprocess.run([str(VMEM), *args], cwd=cwd, capture_output=True, text=True, input=stdin,
                          env={**os.environ, **(env or {})}, timeout=120)
    assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
    return done


def harvested(cwd: Path, *args: str) -> dict:
    return json.loads(run(cwd, "harvest", *args, "--json").stdout)["data"]


def correction_session(cwd: str = "/work/project") -> Claude:
    return (Claude(cwd=cwd)
            .raw({"type": "summary", "summary": "Order timing chart", "leafUuid": "x"})
            .user("chart daily orders for October")
            .assistant("I'll use `orders.completed_at` as the order time.", tool=True)
            .tool_result("completed_at is always UTC and settles late")  # tool output: never a candidate
            .assistant("Here is the chart by completed_at.")
            .user("no, `completed_at` is settlement time — use `placed_at` for when the order was made"))


# -- reading -----------------------------------------------------------------------------------------------------


def test_claude_transcript_turns_skip_tools_meta_commands_sidechains_and_broken_lines(tmp_path):
    session = (correction_session()
               .raw("{not json")
               .user("Caveat: The messages below were generated by the user while running local commands.",
                     isMeta=True)
               .user("<command-name>/clear</command-name>\n<command-message>clear</command-message>")
               .user("<local-command-stdout>ARR excludes one-time fees</local-command-stdout>")
               .user("FYI the events table is deduplicated on (user_id, event_id)", isSidechain=True)
               .raw({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
                     "uuid": "c1", "timestamp": "2026-11-02T11:00:00Z", "isSidechain": False})
               .user("This session is being continued from a previous conversation. Note that ARR excludes fees.",
                     isCompactSummary=True)
               .user("yes exactly")  # after a compaction: nothing it could confirm
               .user("FYI, ARR excludes one-time implementation fees.", blocks=True)
               .write(tmp_path / "s.jsonl"))
    read = transcripts.read_claude(session)
    assert read.problems == ["s.jsonl:7: not JSON, skipped"]
    users = [t.text for t in read.turns if t.role == "user"]
    assert users == ["chart daily orders for October",
                     "no, `completed_at` is settlement time — use `placed_at` for when the order was made",
                     "yes exactly", "FYI, ARR excludes one-time implementation fees."]
    found = find(read)
    assert [(f.kind, f.statement) for f in found] == [
        ("correction", "`completed_at` is settlement time — use `placed_at` for when the order was made."),
        ("definition", "ARR excludes one-time implementation fees.")]


def test_codex_rollout_turns_skip_context_calls_reasoning_and_event_copies(tmp_path):
    path = (Codex("/work/project").context("/work/project").user("what does ARR mean here?")
            .assistant("ARR here is annual recurring revenue, including one-time implementation fees, right?")
            .user("no - ARR excludes one-time implementation fees")
            .write(tmp_path / "rollout-2026-11-03T09-00-00-x.jsonl"))
    read = transcripts.read_codex(path)
    assert [t.role for t in read.turns] == ["user", "assistant", "user"]  # one of each message, no context
    assert read.cwd == "/work/project" and read.id.startswith("0199a1b2")
    assert [(f.kind, f.statement) for f in find(read)] == [("correction", "ARR excludes one-time implementation fees.")]


def test_notes_and_turn_shapes_that_are_never_candidates():
    assert judge_turn("thanks, looks great!", "I'll use `orders.completed_at`.") is None
    assert judge_turn("now rename the chart title and push it", "Done.") is None
    assert judge_turn("I prefer shorter answers with bullet points", None) is None
    assert judge_turn("what does `refunds.amount` hold for chargebacks?", None) is None
    assert judge_turn("no, don't push yet", "Pushing the branch now.") is None
    assert judge_turn("yes, go ahead", "Shall I rerun the backfill for October?") is None
    kind, statement, _, _ = judge_turn("yes, exactly", "So `refunds.amount` is negative for chargebacks, right?")
    assert (kind, statement) == ("confirmation", "`refunds.amount` is negative for chargebacks.")


def test_discovery_follows_each_agents_layout_and_the_project(tmp_path, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    folder = tmp_path / "claude" / "projects" / transcripts.claude_folder_name(project.resolve())
    mine = correction_session(str(project)).write(folder / "a.jsonl")
    correction_session(str(project)).write(folder / "agent-1234.jsonl")  # a sub-agent's transcript
    below = correction_session(str(project / "sub")).write(Path(str(folder) + "-sub") / "b.jsonl")
    sibling = tmp_path / "proj-2"  # a folder whose name starts like ours
    correction_session(str(sibling)).write(Path(str(folder) + "-2") / "c.jsonl")
    day = tmp_path / "codex" / "sessions" / "2026" / "11" / "03"
    ours = Codex(str(project)).user("hi").write(day / "rollout-2026-11-03T09-00-00-a.jsonl")
    Codex(str(sibling)).user("hi").write(day / "rollout-2026-11-03T09-00-00-b.jsonl")
    (project / "CLAUDE.local.md").write_text("# notes\n\n- ARR excludes one-time fees\n")
    assert transcripts.discover(project) == [("claude", mine), ("claude", below), ("codex", ours),
                                             ("notes", project / "CLAUDE.local.md")]


# -- the analyst's loop, through the console script ---------------------------------------------------------------


@pytest.fixture
def project(seeded, tmp_path, monkeypatch) -> Path:
    """A code project using the seeded store, with one Claude Code session in it (under a test HOME)."""
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.delenv("VMEM_STORE")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    run(project, "hook", "install", "--store", str(seeded.root), "--target", "claude")
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / transcripts.claude_folder_name(project.resolve())
    correction_session(str(project)).write(folder / "one.jsonl")
    return project


def test_accept_proposes_a_claim_with_its_evidence_and_nothing_is_offered_twice(project, seeded):
    before = git(seeded, "rev-parse", "HEAD")
    dry = harvested(project, "--dry-run")
    assert [c["kind"] for c in dry["candidates"]] == ["correction"] and dry["dry_run"] is True
    assert git(seeded, "rev-parse", "HEAD") == before
    assert harvested(project, "--dry-run")["new"] == 1  # a dry run remembered nothing
    first = harvested(project)
    (candidate,) = first["candidates"]
    assert candidate["statement"].startswith("`completed_at` is settlement time") and candidate["known"] is None
    assert git(seeded, "rev-parse", "HEAD") == before  # offered, not proposed
    again = harvested(project)
    assert again["new"] == 0 and again["unchanged"] == 1 and [c["id"] for c in again["candidates"]] == [candidate["id"]]
    done = json.loads(run(project, "harvest", "--accept", candidate["id"][:6], "--json").stdout)["data"]
    assert done[0]["action"] == "created"
    claim = json.loads(run(project, "show", done[0]["claim"], "--json").stdout)["data"]
    item = claim.get("item", claim)
    assert item["status"] == "proposed" and item["confidence"] == 0.9
    assert item["source"]["type"] == "session_transcript" and item["source"]["kind"] == "correction"
    assert "use `placed_at`" in item["source"]["quote"] and item["source"]["session"].startswith("claude:5b1e2c3d")
    assert harvested(project)["candidates"] == []  # accepted: never offered again
    # the same session read again from a copy named on the command line: still not offered
    copy = Path(candidate.get("source") or project / "x")
    assert harvested(project, *(str(p) for p in Path(os.environ["HOME"]).rglob("one.jsonl")))["new"] == 0
    del copy


def test_dismiss_is_remembered_and_accept_after_dismiss_is_refused_politely(project):
    (candidate,) = harvested(project)["candidates"]
    out = run(project, "harvest", "--dismiss", candidate["id"]).stdout
    assert "dismissed" in out and harvested(project)["candidates"] == []
    again = json.loads(run(project, "harvest", "--accept", candidate["id"], "--json").stdout)["data"]
    assert again[0]["action"] == "dismissed" and again[0]["claim"] is None
    err = run(project, "harvest", "--accept", "h-nothing", code=2).stderr
    assert "no harvest candidate 'h-nothing'" in err and "vmem harvest --list" in err


def test_a_candidate_naming_a_customer_is_offered_scoped_to_it(project, seeded, tmp_path):
    session = (Claude(cwd=str(project)).user("check the renewal numbers")
               .assistant("Renewals for Corvane land in `renewals.closed_at`.")
               .user("careful: Corvane renewals are booked on the invoice date, not the close date")
               .write(tmp_path / "corvane.jsonl"))
    (candidate,) = [c for c in harvested(project, str(session))["candidates"] if "Corvane" in c["statement"]]
    assert candidate["about"] == "corvane" and candidate["customers"] == ["corvane"]
    done = json.loads(run(project, "harvest", "--accept", candidate["id"], "--json").stdout)["data"][0]
    assert done["scope"] == "entity:corvane"
    two = (Claude(session="5b1e2c3d-0000-4000-8000-000000000002", cwd=str(project)).user("x").assistant("Tidewell and Corvane share the `claims` feed.")
           .user("no, Tidewell and Corvane each have their own `claims_v2` feed now")
           .write(tmp_path / "two.jsonl"))
    (both,) = [c for c in harvested(project, str(two))["candidates"] if "Tidewell" in c["statement"]]
    assert both["about"] is None and sorted(both["customers"]) == ["corvane", "tidewell"]
    err = run(project, "harvest", "--accept", both["id"], code=2).stderr
    assert "names 2 customers" in err and "--about ENTITY" in err
    done = json.loads(run(project, "harvest", "--accept", both["id"], "--about", "tidewell", "--json").stdout)["data"]
    assert done[0]["scope"] == "entity:tidewell"


def test_a_repeated_fact_is_one_claim_and_the_second_writer_confirms_it(project, seeded):
    text = "Refunds land in the ledger two business days after approval."
    first = json.loads(run(project, "propose", text, "--json").stdout)["data"]
    again = json.loads(run(project, "propose", text.lower().rstrip("."), "--json").stdout)["data"]
    assert again["action"] == "unchanged" and again["item"]["id"] == first["item"]["id"]
    name, email = BOB
    bob = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": email}
    third = run(project, "propose", "Refunds land in the ledger 2 business days after approval", "--json", env=bob)
    data = json.loads(third.stdout)["data"]
    assert data["action"] == "repeated" and data["item"]["id"] == first["item"]["id"]
    assert [v["user"] for v in data["item"]["verifications"]] == [email] and "repeats" in third.stderr
    other = json.loads(run(project, "propose", "Refunds land in the ledger five business days after approval",
                           "--json", env=bob).stdout)["data"]
    assert other["action"] == "created"  # a different number is another fact (and a contradiction)
    assert [c["id"] for c in other["contradictions"]] == [first["item"]["id"]]


def test_the_session_end_hook_queues_and_session_start_and_status_say_so(project, seeded):
    transcript = next(Path(os.environ["HOME"]).rglob("one.jsonl"))
    event = json.dumps({"session_id": "5b1e", "transcript_path": str(transcript), "cwd": str(project),
                        "hook_event_name": "SessionEnd", "reason": "exit"})
    done = run(project, "harvest", "--hook", stdin=event)
    assert done.stdout == "" and "1 candidate from your sessions wait" in done.stderr
    assert git(seeded, "status", "--porcelain") == ""  # never commits
    assert run(project, "harvest", "--hook", stdin="{}").returncode == 0  # a bad event never fails the session
    start = json.loads(run(project, "sync", "--hook").stdout)
    assert "1 candidate from your sessions: vmem harvest" in start["systemMessage"]
    status = json.loads(run(project, "status", "--json").stdout)["data"]
    assert status["harvest_waiting"] == 1
    assert "1 candidate from your sessions: vmem harvest" in run(project, "status").stdout


def test_hook_install_adds_the_session_end_hook_once(project, seeded):
    run(project, "hook", "install", "--store", str(seeded.root), "--target", "claude")  # again: nothing doubles
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    ends = [h["command"] for g in settings["hooks"]["SessionEnd"] for h in g["hooks"]]
    assert ends == ["if command -v vmem >/dev/null 2>&1; then vmem harvest --hook; fi"]
    run(project, "hook", "uninstall")
    assert "SessionEnd" not in json.loads((project / ".claude" / "settings.json").read_text()
                                          if (project / ".claude" / "settings.json").exists() else "{}").get("hooks", {})


def test_interactive_keys_propose_edit_dismiss(project, seeded, tmp_path):
    session = (Claude(cwd=str(project)).user("x").assistant("ok")
               .user("FYI the `events` table is in UTC")
               .user("note that `sessions.ended_at` is null for open sessions")
               .write(tmp_path / "more.jsonl"))
    harvested(project, str(session))
    keys = "e\nThe `events` table stores timestamps in UTC.\nd\np\n"
    done = run(project, "harvest", stdin=keys, env={"VMEM_ASSUME_TTY": "1"})
    assert "proposed as" in done.stdout and "dismissed" in done.stdout
    listed = json.loads(run(project, "list", "--status", "proposed", "--json").stdout)["data"]
    statements = {i["statement"] for i in (listed.get("items") if isinstance(listed, dict) else listed)}
    assert "The `events` table stores timestamps in UTC." in statements
    assert harvested(project)["candidates"] == []


# -- a model drafts the statement, fail-closed to the deterministic draft -------------------------------------------

FAKE_TOOL = """#!{python}
import json, sys
prompt = sys.stdin.read()
mode = {mode!r}
assert "The person said (correction)" in prompt and "chart by completed_at" in prompt, prompt
if mode == "good":
    print("Sure! " + json.dumps({{"statement": "orders.completed_at is the settlement time; placed_at is when the order was made."}}))
elif mode == "secret":
    print(json.dumps({{"statement": "Use the key sk_live_4eC39HqLyjWDarjtT1zdp7dc for orders."}}))
elif mode == "garbage":
    print("I think it is about settlement")
else:
    sys.stderr.write("model not found\\n")
    sys.exit(3)
"""


@pytest.mark.parametrize("mode", ["good", "secret", "garbage", "fails"])
def test_a_configured_model_drafts_the_statement_and_any_failure_keeps_ours(project, seeded, tmp_path, mode):
    from conftest import REVIEWER

    from vmem.store import codec

    tool = tmp_path / "fake-llm"
    tool.write_text(FAKE_TOOL.format(python=sys.executable, mode=mode))
    tool.chmod(0o755)
    with seeded.acting_as(f"{REVIEWER[0]} <{REVIEWER[1]}>"), seeded.transaction("policy", summary="drafting") as tx:
        raw = codec.load((seeded.root / "vmem.yaml").read_text(), "vmem.yaml")
        raw["harvest"] = {"adapter": "llm", "command": [str(tool)], "timeout_s": 20}
        tx.write_file("vmem.yaml", raw)
    (candidate,) = harvested(project)["candidates"]
    if mode == "good":
        assert candidate["statement"] == ("orders.completed_at is the settlement time; placed_at is when the order "
                                          "was made.") and candidate["drafted_by"] == "llm"
    else:
        assert candidate["statement"].startswith("`completed_at` is settlement time")  # ours, kept
        assert candidate["drafted_by"].startswith("kept ours: llm")
        assert "sk_live" not in json.dumps(candidate)
    assert harvested(project)["candidates"] == [candidate]  # asked once, remembered


# -- the team's round trip ------------------------------------------------------------------------------------------


def test_a_correction_in_alices_session_reaches_bobs_agent_after_review(crew):
    """Alice corrects her agent; her session ends (the committed SessionEnd hook queues it, commits nothing); her
    next session start says a candidate waits; she accepts it (delivered to the team's remote); Rita approves;
    Bob's next session start puts it in his agent's rules."""
    from test_team_flow import _remote_statements, _rules

    remote, rita, clone, alice, project, bob, bob_project = crew
    folder = alice.home / ".claude" / "projects" / transcripts.claude_folder_name(project.resolve())
    transcript = correction_session(str(project)).write(folder / "5b1e2c3d.jsonl")
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    [command] = [h["command"] for g in settings["hooks"]["SessionEnd"] for h in g["hooks"]]
    event = json.dumps({"session_id": "5b1e2c3d", "transcript_path": str(transcript), "cwd": str(project),
                        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
    ended = subprocess.run(["/bin/sh", "-c", command], cwd=project, input=event, capture_output=True, text=True,
                           env=alice.env(PATH=f"{VMEM.parent}:{os.environ['PATH']}"), timeout=60)
    assert ended.returncode == 0 and ended.stdout == "", ended.stderr
    assert "1 candidate from your sessions" in alice.session_start(project)["systemMessage"]
    (candidate,) = json.loads(alice.vmem(project, "harvest", "--json").stdout)["data"]["candidates"]
    accepted = json.loads(alice.vmem(project, "harvest", "--accept", candidate["id"], "--json").stdout)["data"]
    claim, statement = accepted[0]["claim"], accepted[0]["statement"]
    assert statement in _remote_statements(remote)  # delivered: a reviewer can see it
    rita.vmem(clone, "sync", "--pull", "--dir", str(clone.parent / "rita-rules"))
    card = json.loads(rita.vmem(clone, "show", claim, "--json").stdout)["data"]
    assert (card.get("item") or card)["source"]["type"] == "session_transcript"
    rita.vmem(clone, "approve", claim)
    bob.session_start(bob_project)
    assert statement in _rules(bob_project)
    assert "candidate" not in alice.session_start(project).get("systemMessage", "")  # nothing waits any more


# -- MCP: an agent offers, the person decides; MCP and CLI propose one claim ----------------------------------------


def test_an_agent_offers_a_correction_over_mcp_and_only_the_person_proposes_it(project, seeded):
    pytest.importorskip("mcp")
    from test_mcp import _run

    before = git(seeded, "rev-parse", "HEAD").strip()
    calls = [("harvest", {"statement": "The `events` table is deduplicated on (user_id, event_id); never count raw "
                                       "rows.", "kind": "definition",
                          "quote": "fyi events are deduped on user_id+event_id, token=ghp_" + "a1B2" * 9}),
             ("harvest", {"statement": "the events table is deduplicated on (user_id, event_id); never count raw rows",
                          "kind": "definition"}),
             ("harvest", {"statement": "x", "kind": "definition"}),
             ("propose", {"statement": "Chargebacks are booked as negative refunds in `refunds.amount`."})]
    _, _, results = _run(seeded, project, calls)
    offered, again, short, proposed = results
    assert offered.structured_content["queued"] is True and "a1B2" not in json.dumps(offered.structured_content)
    assert again.structured_content["queued"] is False  # the same statement: offered once
    assert short.is_error and "at least three words" in short.content[0].text
    assert git(seeded, "rev-list", "--count", f"{before}..HEAD") == "1\n"  # only propose wrote
    (candidate,) = [c for c in harvested(project)["candidates"] if c["session"] == "mcp"]
    assert candidate["statement"].startswith("The `events` table")
    # the same fact proposed from the terminal: one claim, the agent's proposal
    again = json.loads(run(project, "propose", "Chargebacks are booked as negative refunds in `refunds.amount`",
                           "--json").stdout)["data"]
    assert again["item"]["id"] == proposed.structured_content["item"]["id"] and again["action"] == "unchanged"


def test_personal_notes_and_since(project, tmp_path, monkeypatch):
    (project / "CLAUDE.local.md").write_text(
        "# my notes\n\n- TODO ask Bob about the Q3 deck\n- ARR excludes one-time implementation fees\n"
        "- I prefer seaborn for charts\n\n```sql\nselect 1 -- the events table is in UTC\n```\n")
    found = harvested(project, "--dry-run")["candidates"]
    assert [c["statement"] for c in found if c["agent"] == "notes"] == ["ARR excludes one-time implementation fees."]
    late = (Claude(session="5b1e2c3d-0000-4000-8000-000000000009", cwd=str(project))
            .user("x").assistant("I'll use `events.ts` as local time.")
            .user("no, `events.ts` is UTC")).write(tmp_path / "late.jsonl")
    assert harvested(project, str(late), "--since", "2026-11-02T10:04:00Z", "--dry-run")["new"] == 0  # said at 10:03
    assert harvested(project, str(late), "--since", "2026-11-02T10:03:00Z", "--dry-run")["new"] == 1
    assert "not a date" in run(project, "harvest", "--since", "someday", code=2).stderr


# -- found in review: each a way harvest could leak, crash, lose or swallow -------------------------------------------


def test_a_credential_cut_by_the_reply_tail_never_reaches_a_candidate(tmp_path):
    from vmem.harvest.detect import REPLY_TAIL
    from vmem.harvest.secrets import redact

    secret = "postgres://app:S3cr3tP4ssw0rd9@db.internal:5432/app"
    question = "So `refunds.settled_at` is the settlement date, right?"
    cut = 17  # the tail starts this far into the credential, inside the password
    pad = REPLY_TAIL - (len(secret) - cut) - 1 - len(question)
    reply = "The refunds job reads the replica. " * 80 + f"DATABASE_URL={secret}\n" + "x" * (pad - 1) + " " + question
    assert reply[-REPLY_TAIL:].startswith(secret[cut:])  # the cut falls inside the credential
    session = Claude().user("check the refunds").assistant(reply).user("yes, exactly").write(tmp_path / "s.jsonl")
    (found,) = find(transcripts.read_claude(session), clean=lambda text: redact(text)[0])
    assert "S3cr3tP4ssw0rd9" not in found.context + found.statement + found.quote


def test_a_lone_surrogate_neither_breaks_the_queue_nor_the_hook(project, tmp_path):
    path = tmp_path / "surrogate.jsonl"
    lines = Claude(session="5b1e2c3d-0000-4000-8000-00000000000a", cwd=str(project)).user("x").assistant(
        "I'll use `orders.completed_at`.").lines
    raw = [json.dumps(line) for line in lines]
    raw.append('{"type": "user", "sessionId": "s", "uuid": "u9", "timestamp": "2026-11-02T10:09:00Z", '
               '"message": {"role": "user", "content": "no, `completed_at` is settlement time \\ud800 not placement"}}')
    path.write_text("\n".join(raw) + "\n")
    event = json.dumps({"transcript_path": str(path), "cwd": str(project)})
    assert run(project, "harvest", "--hook", stdin=event).returncode == 0
    found = harvested(project, str(path))
    assert any("settlement" in c["statement"] for c in found["candidates"])


def test_a_note_added_above_a_dismissed_one_is_still_offered(project):
    notes = project / "CLAUDE.local.md"
    notes.write_text("- ARR excludes one-time implementation fees\n")
    (first,) = [c for c in harvested(project)["candidates"] if c["agent"] == "notes"]
    run(project, "harvest", "--dismiss", first["id"])
    notes.write_text("- Churned accounts are counted at month end only\n- ARR excludes one-time implementation fees\n")
    offered = [c["statement"] for c in harvested(project)["candidates"] if c["agent"] == "notes"]
    assert offered == ["Churned accounts are counted at month end only."]


def test_a_hand_edited_queue_entry_is_dropped_not_a_crash(project):
    from vmem.ops.harvest import project_root, state_file

    harvested(project)
    path = state_file(project_root(project))
    data = json.loads(path.read_text())
    data["candidates"]["h-x"] = None
    data["candidates"]["h-y"] = {"id": "h-y", "at": 12}
    path.write_text(json.dumps(data))
    assert len(harvested(project)["candidates"]) == 1


def test_a_personal_note_does_not_swallow_the_same_fact_for_the_team(project):
    text = "Orders lag placement by three days in the warehouse."
    mine = json.loads(run(project, "propose", text, "--personal", "--json").stdout)["data"]
    team = json.loads(run(project, "propose", text, "--json").stdout)["data"]
    assert team["action"] == "created" and team["item"]["id"] != mine["item"]["id"]


def test_a_revision_of_a_harvested_claim_can_be_approved(project, seeded):
    from conftest import REVIEWER

    (candidate,) = harvested(project)["candidates"]
    claim = json.loads(run(project, "harvest", "--accept", candidate["id"], "--json").stdout)["data"][0]["claim"]
    revised = json.loads(run(project, "supersede", claim, "`completed_at` is the settlement timestamp; "
                             "`placed_at` is when the order was made.", "--json").stdout)["data"]["item"]
    rita = {"GIT_AUTHOR_NAME": REVIEWER[0], "GIT_AUTHOR_EMAIL": REVIEWER[1], "GIT_COMMITTER_NAME": REVIEWER[0],
            "GIT_COMMITTER_EMAIL": REVIEWER[1]}
    run(project, "approve", revised["id"], env=rita)


def test_accepting_needs_every_customer_file_readable(project, seeded):
    from conftest import commit_file

    (candidate,) = harvested(project)["candidates"]
    commit_file(seeded, "entities/zz-broken.yaml", b"id: zz-broken\nname: [unclosed\n")
    err = run(project, "harvest", "--accept", candidate["id"], code=1).stderr
    assert "customer file cannot be read" in err and "vmem check" in err
