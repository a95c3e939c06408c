"""The --json contract of every command (issue 29): read the commands from the typer app itself, run each through
the real console entry point with --json, and hold it to the envelope

    success: {"schema_version": 1, "data": ...}, exit 0; one JSON document and nothing else on stdout
    failure: {"schema_version": 1, "error": ..., "hint": ...}, exit 1 (2 for a usage error); the same on stdout

and the shape of its `data` to a snapshot: a key/type skeleton (ids, timestamps and commits vary; the contract is
which keys there are and what type each value has). A command added later with a --json option and no case here
fails test_every_json_command_has_a_contract_case; one added without --json fails it too, unless NO_JSON says why.

Change a shape on purpose with `python -m pytest tests/test_json_contract.py --snapshot-update` and review the
diff of tests/__snapshots__/test_json_contract.ambr: a key renamed or gone there breaks every script that reads it.
The xfail(strict=True) tests at the end are known breaches of the contract: when one is fixed, it passes, the
strict xfail fails, and its marker goes."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable
from unittest import mock

import pytest
from conftest import REVIEWER

from vmem import model

VMEM = Path(sys.executable).with_name("vmem")  # the console script: vmem.cli.entry:main, fast paths and all
DATA = Path(__file__).parent / "data"
REVIEW_AS = f"Rita Reviewer <{REVIEWER[1]}>"
BOB = "Bob Analyst <bob@example.com>"
MISSING = "/nonexistent/vmem-store"  # a --store that is not there
UNKNOWN = "c-ffffffffffff"  # a well-formed item id no store holds

# Commands with a --json option that cannot run headless: none today (review has --list, mcp install writes files,
# demo and map are only slow). An entry here is a gap in the contract: say why.
EXEMPT: dict[str, str] = {}

# Commands that take no --json at all, on purpose.
NO_JSON: dict[str, str] = {
    "merge-driver": "git runs it (%O %A %B %P); it answers git with its exit code, never a person or a script",
    "mcp": "`vmem mcp` is the MCP server: JSON-RPC over stdio is its whole output",
}


@dataclass
class Call:
    args: list[str]
    code: int = 0
    who: str | None = None  # 'Name <email>': run as that person (git's author and committer)
    expect: str = ""  # a failure: words its error has (it fails for the reason the case means, not another)
    env: dict = field(default_factory=dict)


@dataclass
class Ctx:
    """What a case has at hand: the test's directory, the seeded store and the in-process runner for set-up (the
    call under test itself always goes through the console script)."""

    tmp: Path
    store: object
    vmem: object

    @property
    def root(self) -> str:
        return str(self.store.root)

    def claim(self, text: str = "orders.completed_at lags placement by 3 days", approve: bool = False) -> str:
        item = self.vmem.json("propose", text)["data"]["item"]["id"]
        if approve:
            self.vmem("approve", item, who=REVIEW_AS)
        return item

    def learnings(self) -> str:
        """One learning, reinforced by three customers and two writers (consolidate makes it eligible)."""
        text = "Enterprise buyers ask for named-user audit trails before the security review."
        first = self.vmem.json("propose", text, "--from", "corvane", "-c", "segment:enterprise", "--episode",
                               "ep-corvane-01")["data"]["item"]["id"]
        self.vmem("propose", text, "--from", "meridale", "-c", "segment:enterprise", who=BOB)
        self.vmem("propose", text, "--from", "pellucid-home", "-c", "segment:enterprise")
        return first

    def eligible(self) -> str:
        item = self.learnings()
        self.vmem("consolidate")
        assert self.vmem.json("show", item)["data"]["status"] == "eligible"
        return item

    def project(self, name: str = "project") -> Path:
        path = self.tmp / name
        path.mkdir(exist_ok=True)
        return path

    def hooked(self, *targets: str, synced: bool = False) -> Path:
        """A project whose .vmem.yaml names the seeded store (and TARGETS); SYNCED: with its rules files written
        (one approved claim in them)."""
        project = self.project("hooked")
        extra = [arg for target in targets for arg in ("--target", target)]
        self.vmem("hook", "install", "--project", str(project), "--store", self.root, *extra)
        if synced:
            self.claim(approve=True)
            with contextlib.chdir(project):
                self.vmem("sync")
        return project


Case = Callable[[Ctx], Call]
OK: dict[str, Case] = {}
FAIL: dict[str, Case] = {}


def ok(name: str):
    def register(case: Case) -> Case:
        OK[name] = case
        return case
    return register


def fail(name: str):
    def register(case: Case) -> Case:
        FAIL[name] = case
        return case
    return register


# ------------------------------------------------------------------------------------------------ the cases
# Each command: one call that succeeds (set up so that its lists are not empty where that is cheap: a shape needs
# an element) and one that fails (an unknown id, a missing store, a bad option value).

@ok("init")
def _(c):
    return Call(["init", str(c.tmp / "new-store")])


@fail("init")
def _(c):
    return Call(["init", c.root], 1, expect="already a vmem store")


@ok("propose")
def _(c):
    return Call(["propose", "invoices go out from the billing system"])


@fail("propose")
def _(c):
    return Call(["propose", "x", "-c", "healthcare"], 2, expect="invalid category")  # a category is facet:value


@ok("import")
def _(c):
    c.claim("Run the test suite before every push to main.")  # a duplicate
    project = c.project()
    (project / "CLAUDE.md").write_text("# Rules\n\n- Never join orders on email; join on customer_id.\n"
                                       "- Run the test suite before every push to main.\n")
    generated = project / ".claude" / "rules" / "vmem"  # skipped: vmem wrote it
    generated.mkdir(parents=True)
    (generated / "km_approved.md").write_text("<!-- vmem: generated by `vmem sync` from store x at commit none; "
                                              "-->\n- Generated, never imported back.\n")
    return Call(["import", "--project", str(project)])


@fail("import")
def _(c):
    return Call(["import", "--project", str(c.project()), "../outside.md"], 2, expect="outside the project")


@ok("supersede")
def _(c):
    return Call(["supersede", c.claim(), "orders.completed_at lags placement by 2 days"])


@fail("supersede")
def _(c):
    return Call(["supersede", UNKNOWN, "a better fact"], 1, expect="no item")


@ok("status")
def _(c):
    return Call(["status"])


@fail("status")
def _(c):
    return Call(["status", "--store", MISSING], 1, expect="no vmem store")


@ok("show")
def _(c):
    return Call(["show", c.claim()])


@fail("show")
def _(c):
    return Call(["show", UNKNOWN], 1, expect="no item")


@ok("list")
def _(c):
    c.claim()
    return Call(["list"])


@fail("list")
def _(c):
    return Call(["list", "--status", "alive"], 2, expect="unknown status")


@ok("blame")
def _(c):
    new = c.vmem.json("supersede", c.claim(), "orders.completed_at lags placement by 2 days")["data"]["item"]["id"]
    return Call(["blame", new])


@fail("blame")
def _(c):
    return Call(["blame", UNKNOWN], 1, expect="no item")


@ok("log")
def _(c):
    c.claim(approve=True)
    return Call(["log", "-n", "5"])


@fail("log")
def _(c):
    return Call(["log", "--since", "the day before"], 2, expect="cannot read --since")


@ok("check")
def _(c):  # a warning (an uncommitted hand edit) and no error: exit 0
    path = c.store.root / model.item_path(c.claim())
    path.write_text(path.read_text().replace("3 days", "4 days"))
    return Call(["check", "--governance"])


@fail("check")
def _(c):
    return Call(["check", "--store", MISSING], 1, expect="no vmem store")


@ok("review")
def _(c):  # its headless form: the queue as data (the interactive review needs a terminal)
    c.claim()
    c.learnings()
    return Call(["review", "--list"], who=REVIEW_AS)


@fail("review")
def _(c):
    return Call(["review"], 2, expect="needs a terminal")  # neither --list nor --yes, and no terminal


@ok("contradictions")
def _(c):
    c.claim(approve=True)
    c.claim("orders.completed_at lags placement by 1 day")
    return Call(["contradictions"])


@fail("contradictions")
def _(c):
    return Call(["contradictions", "--scope", "entity:nope"], 1, expect="no entity")


@ok("approve")
def _(c):
    return Call(["approve", c.claim()], who=REVIEW_AS)


@fail("approve")
def _(c):
    return Call(["approve", UNKNOWN], 1, who=REVIEW_AS, expect="no item")


@ok("mandate")
def _(c):
    return Call(["mandate", c.claim()], who=REVIEW_AS)


@fail("mandate")
def _(c):
    return Call(["mandate", UNKNOWN], 1, who=REVIEW_AS, expect="no item")


@ok("revoke")
def _(c):
    return Call(["revoke", c.claim(approve=True), "--reason", "stale"], who=REVIEW_AS)


@fail("revoke")
def _(c):
    return Call(["revoke", UNKNOWN, "--reason", "stale"], 1, who=REVIEW_AS, expect="no item")


@ok("verify")
def _(c):
    return Call(["verify", c.claim(approve=True), "--kind", "confirmation"], who=BOB)


@fail("verify")
def _(c):
    return Call(["verify", c.claim(approve=True), "--kind", "gossip"], 2, who=BOB, expect="unknown verification")


@ok("expire")
def _(c):
    item = c.claim(approve=True)
    with c.store.transaction("edit", items=[item]) as tx:
        tx.write({**tx.snapshot.item(item), "expires_at": "2020-01-01T00:00:00Z"})
    return Call(["expire"])


@fail("expire")
def _(c):
    return Call(["expire", "--store", MISSING], 1, expect="no vmem store")


@ok("consolidate")
def _(c):
    c.learnings()
    return Call(["consolidate"])


@fail("consolidate")
def _(c):
    return Call(["consolidate", "--store", MISSING], 1, expect="no vmem store")


@ok("publish")
def _(c):
    return Call(["publish", c.eligible()], who=REVIEW_AS)


@fail("publish")
def _(c):
    return Call(["publish", "k-ffffffffffff"], 1, who=REVIEW_AS, expect="no item")


@ok("reject")
def _(c):
    return Call(["reject", c.claim(), "--reason", "wrong table"], who=REVIEW_AS)


@fail("reject")
def _(c):
    return Call(["reject", UNKNOWN, "--reason", "wrong table"], 1, who=REVIEW_AS, expect="no item")


def _two_learnings(c: Ctx) -> tuple[str, str]:
    """Two open learnings of one category (a merge suggestion's two sides), the first seen two seconds before the
    second: the older one survives a merge (a tie would go by random id). The set-up runs in-process, so its
    clock is set back for the first proposal instead of sleeping for one-second timestamps to differ."""
    earlier = model.format_ts(datetime.now(timezone.utc) - timedelta(seconds=2))
    with mock.patch.object(model, "now", lambda: earlier):
        first = c.vmem.json("propose", "Enterprise buyers want audit exports before security review.", "--from",
                            "corvane", "-c", "segment:enterprise")["data"]["item"]["id"]
    second = c.vmem.json("propose", "Large customers ask for exported audit logs ahead of the security review.",
                         "--from", "meridale", "-c", "segment:enterprise", who=BOB)["data"]["item"]["id"]
    return first, second


@ok("merge")
def _(c: Ctx) -> Call:
    return Call(["merge", *_two_learnings(c)], who=REVIEW_AS)


@fail("merge")
def _(c: Ctx) -> Call:
    return Call(["merge", *_two_learnings(c)], 1, who=BOB, expect="not a reviewer")


@ok("unmerge")
def _(c: Ctx) -> Call:
    first, second = _two_learnings(c)
    c.vmem("merge", first, second, who=REVIEW_AS)
    return Call(["unmerge", second, "--reason", "not the same after all"], who=REVIEW_AS)


@fail("unmerge")
def _(c: Ctx) -> Call:
    return Call(["unmerge", _two_learnings(c)[0], "--reason", "r"], 1, who=REVIEW_AS, expect="nothing to undo")


@ok("distinct")
def _(c: Ctx) -> Call:
    return Call(["distinct", *_two_learnings(c)], who=REVIEW_AS)


@fail("distinct")
def _(c: Ctx) -> Call:
    return Call(["distinct", UNKNOWN.replace("c-", "k-"), _two_learnings(c)[0]], 1, who=REVIEW_AS,
                expect="no item")


@ok("forget")
def _(c):
    c.eligible()
    return Call(["forget", "--entity", "corvane", "--reason", "customer withdrew consent"])


@fail("forget")
def _(c):
    return Call(["forget", "--entity", "corvane"], 2, expect="needs a reason")


@ok("sync")
def _(c):
    c.claim(approve=True)
    return Call(["sync", "--dir", str(c.tmp / "rules")])


@fail("sync")
def _(c):
    return Call(["sync", "--target", "bogus", "--dir", str(c.tmp / "rules")], 2, expect="unknown target")


@ok("recall")
def _(c):
    c.claim(approve=True)
    return Call(["recall", "how long do orders lag placement"])


@fail("recall")
def _(c):
    return Call(["recall", "renewals", "--scope", "entity:nope"], 1, expect="no entity")


@ok("index")
def _(c):
    c.claim()
    return Call(["index", "--rebuild"])


@fail("index")
def _(c):
    return Call(["index", "--store", MISSING], 1, expect="no vmem store")


@ok("clone")
def _(c):
    remote = c.tmp / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", c.root, str(remote)], check=True)
    return Call(["clone", str(remote), str(c.tmp / "clone")])


@fail("clone")
def _(c):
    return Call(["clone", str(c.tmp / "no-such-remote.git"), str(c.tmp / "clone")], 1, expect="cannot clone")


@ok("setup")
def _(c):
    return Call(["setup"])


@fail("setup")
def _(c):
    return Call(["setup", "--store", MISSING], 1, expect="no vmem store")


@ok("entity add")
def _(c):
    return Call(["entity", "add", "acme-health", "--name", "Acme Health", "--alias", "Acme", "--domain",
                 "acme.example", "-c", "industry:healthcare"])


@fail("entity add")
def _(c):
    return Call(["entity", "add", "../x", "--name", "X"], 2, expect="invalid entity id")


@ok("entity list")
def _(c):
    return Call(["entity", "list"])


@fail("entity list")
def _(c):
    return Call(["entity", "list", "--store", MISSING], 1, expect="no vmem store")


@ok("diff")
def _(c):
    return Call(["diff"])


@fail("diff")
def _(c):
    return Call(["diff", "no-such-revision"], 2, expect="neither a date nor a revision")


def _transcript(c) -> str:
    """A Claude Code session in which the person corrects the assistant (the harvest cases read it)."""
    path = c.tmp / "session.jsonl"
    lines = [{"type": "user", "sessionId": "s1", "uuid": "u1", "timestamp": "2026-11-02T10:00:00Z",
              "message": {"role": "user", "content": "chart orders by day"}},
             {"type": "assistant", "sessionId": "s1", "uuid": "a1", "timestamp": "2026-11-02T10:00:05Z",
              "message": {"id": "m1", "role": "assistant",
                          "content": [{"type": "text", "text": "I'll use `orders.completed_at` as the order time."}]}},
             {"type": "user", "sessionId": "s1", "uuid": "u2", "timestamp": "2026-11-02T10:01:00Z",
              "message": {"role": "user", "content": "no, `completed_at` is settlement time, not placement"}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


@ok("harvest")
def _(c):
    return Call(["harvest", _transcript(c), "--list", "--store", c.root], env={"XDG_DATA_HOME": str(c.tmp / "data")})


@fail("harvest")
def _(c):
    return Call(["harvest", "--accept", "h-0000000000", "--store", c.root], 2, expect="no harvest candidate",
                env={"XDG_DATA_HOME": str(c.tmp / "data")})


@ok("eval harvest")
def _(c):
    from vmem.ops.eval_harvest import bundled

    return Call(["eval", "harvest", str(bundled("fit"))])


@fail("eval harvest")
def _(c):
    return Call(["eval", "harvest", str(c.tmp / "missing.yaml")], 2, expect="cannot be read")


@ok("entity approve")
def _(c):
    return Call(["entity", "approve", "corvane"], who=REVIEW_AS)


@fail("entity approve")
def _(c):
    return Call(["entity", "approve", "corvane"], 1, expect="not a reviewer")


@ok("entity show")
def _(c):
    return Call(["entity", "show", "corvane"])


@fail("entity show")
def _(c):
    return Call(["entity", "show", "nope"], 1, expect="no entity")


@ok("episode add")
def _(c):
    return Call(["episode", "add", "corvane", "--kind", "call", "--id", "ep-contract", "--quote",
                 "We need audit trails before the pilot."])


@fail("episode add")
def _(c):
    return Call(["episode", "add", "nope", "--kind", "call", "--quote", "Hello."], 1, expect="no entity")


@ok("eval deid")
def _(c):
    return Call(["eval", "deid", str(DATA / "deid" / "cases_dev.jsonl"), "--lexicon", str(DATA / "deid" / "store")])


@fail("eval deid")
def _(c):
    bad = c.tmp / "bad.jsonl"
    bad.write_text('{"statement": "x", "leak": true}\nnot json\n')
    return Call(["eval", "deid", str(bad), "--lexicon", str(DATA / "deid" / "store")], 2, expect="not JSON")


@ok("eval merge")
def _(c):
    pairs = c.tmp / "pairs.tsv"
    pairs.write_text("1\tTickets move from legal to security .\tTickets move from security to legal .\t0\n"
                     "2\tIn 2019 , the team moved billing .\tThe team moved billing in 2019 .\t1\n", encoding="utf-8")
    return Call(["eval", "merge", str(pairs)])


@fail("eval merge")
def _(c):
    return Call(["eval", "merge", str(c.tmp / "missing.tsv")], 2, expect="no labeled pairs")


@ok("eval recall")
def _(c):
    c.claim("Refunds on annual plans are prorated credit notes, never cash", approve=True)
    queries = c.tmp / "q.yaml"
    queries.write_text('queries:\n  - {query: "how are refunds on annual plans handled", split: tune, '
                       'expect: covered, relevant: ["annual plans"]}\n')
    return Call(["eval", "recall", str(queries)])


@fail("eval recall")
def _(c):
    queries = c.tmp / "q.yaml"
    queries.write_text('queries:\n  - {query: "x", split: dev, expect: covered}\n')
    return Call(["eval", "recall", str(queries)], 2, expect="split must be")


@ok("hook install")
def _(c):
    return Call(["hook", "install", "--project", str(c.project()), "--store", c.root])


@fail("hook install")
def _(c):
    return Call(["hook", "install", "--project", str(c.project()), "--store", c.root, "--target", "bogus"], 2,
                expect="targets must be")


@ok("hook uninstall")
def _(c):
    return Call(["hook", "uninstall", "--project", str(c.hooked(synced=True))])


@fail("hook uninstall")
def _(c):
    project = c.project()
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{not json\n")
    return Call(["hook", "uninstall", "--project", str(project)], 2, expect="not valid JSON")


@ok("mcp install")
def _(c):
    return Call(["mcp", "install", "--project", str(c.project())])


@fail("mcp install")
def _(c):
    project = c.project()
    (project / ".cursor").mkdir()
    (project / ".cursor" / "mcp.json").write_text("{not json\n")
    return Call(["mcp", "install", "--project", str(project)], 2, expect="not valid JSON")


@ok("mcp uninstall")
def _(c):
    project = c.project()
    c.vmem("mcp", "install", "--project", str(project))
    return Call(["mcp", "uninstall", "--project", str(project)])


@fail("mcp uninstall")
def _(c):
    project = c.project()
    (project / ".mcp.json").write_text("{broken\n")
    return Call(["mcp", "uninstall", "--project", str(project)], 2, expect="not valid JSON")


@ok("targets list")
def _(c):
    return Call(["targets", "list", "--project", str(c.hooked("claude"))])


@fail("targets list")
def _(c):
    project = c.project()
    (project / ".vmem.yaml").write_text("targets: [claude\n")
    return Call(["targets", "list", "--project", str(project)], 1, expect="malformed YAML")


@ok("targets add")
def _(c):
    return Call(["targets", "add", "agents-md", "--project", str(c.hooked("claude"))])


@fail("targets add")
def _(c):
    return Call(["targets", "add", "../x", "--project", str(c.hooked("claude"))], 2, expect="unknown target")


@ok("targets remove")
def _(c):
    return Call(["targets", "remove", "cursor", "--project", str(c.hooked("claude", "cursor", synced=True))])


@fail("targets remove")
def _(c):
    return Call(["targets", "remove", "claude", "--project", str(c.hooked("claude"))], 2,
                expect="at least one target")


@ok("map")
def _(c):
    c.claim(approve=True)
    c.claim("orders.completed_at is set when the order ships", approve=True)
    return Call(["map", "--claims", "--svg", str(c.tmp / "map.svg")])


@fail("map")
def _(c):
    return Call(["map", "--store", MISSING], 1, expect="no vmem store")


@ok("report")
def _(c):
    c.claim(approve=True)
    c.claim("orders.completed_at lags placement by 1 day")
    return Call(["report", "--out", str(c.tmp / "site")])


@fail("report")
def _(c):
    return Call(["report", "--store", MISSING], 1, expect="no vmem store")


@ok("demo")
def _(c):
    return Call(["demo", str(c.tmp / "demo")])


@fail("demo")
def _(c):
    taken = c.tmp / "demo" / "store"
    taken.mkdir(parents=True)
    (taken / "notes.txt").write_text("someone's files")
    return Call(["demo", str(taken.parent)], 1, expect="is not empty")


# ---------------------------------------------------------------------------------------------- the machinery

def commands() -> dict[str, object]:
    """Every command the app has, by its name ("entity add"), groups and their subcommands, read from the app."""
    import typer.main

    from vmem.cli.app import app

    found = {}

    def walk(command, path: list[str]) -> None:
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            found[" ".join([*path, name])] = sub
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def has_option(command, option: str) -> bool:
    return any(option in getattr(param, "opts", ()) for param in command.params)


def json_commands() -> dict[str, object]:
    return {name: command for name, command in commands().items() if has_option(command, "--json")}


def skeleton(value, tmp: str):
    """The contract of a JSON value: dict keys (sorted) with their values' skeletons, a list by its first
    element's, a scalar by its type name. Dict keys that are paths under the test's directory are made stable."""
    if isinstance(value, dict):
        return {key.replace(tmp, "<tmp>"): skeleton(value[key], tmp) for key in sorted(value)}
    if isinstance(value, list):
        return [skeleton(value[0], tmp)] if value else []
    return type(value).__name__


def run(call: Call, cwd: Path, json_flag: bool = True) -> subprocess.CompletedProcess:
    """`vmem ARGS --json` through the installed console script, as a script would run it."""
    env = {**os.environ, **call.env}
    if call.who is not None:
        name, email = call.who[:-1].split(" <")
        env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    return subprocess.run([str(VMEM), *call.args, *(["--json"] if json_flag else [])], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def document(done: subprocess.CompletedProcess) -> dict:
    """stdout is exactly one JSON object (json.loads refuses anything before or after it), and no traceback."""
    where = f"exit {done.returncode}\nstdout: {done.stdout!r}\nstderr: {done.stderr!r}"
    assert done.stdout.strip(), f"nothing on stdout; {where}"
    try:
        payload = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        pytest.fail(f"stdout is not one JSON document ({exc}); {where}")
    assert isinstance(payload, dict), where
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, where
    return payload


def assert_error_envelope(payload: dict) -> None:
    assert set(payload) == {"schema_version", "error", "hint"}, payload
    assert payload["schema_version"] == 1
    assert isinstance(payload["error"], str) and payload["error"].strip(), payload
    assert payload["hint"] is None or isinstance(payload["hint"], str), payload


@pytest.fixture
def ctx(seeded, vmem, tmp_path) -> Ctx:
    (tmp_path / "work").mkdir()  # the commands' cwd: no store and no project config around it
    return Ctx(tmp_path, seeded, vmem)


# ------------------------------------------------------------------------------------------------- the tests

def test_every_json_command_has_a_contract_case():
    every = commands()
    with_json = set(json_commands())
    assert {"propose", "sync", "entity add", "mcp install"} <= with_json  # the walk sees groups' subcommands
    for table in (EXEMPT, NO_JSON):
        assert set(table) <= set(every), f"names no command: {sorted(set(table) - set(every))}"
    assert not set(EXEMPT) & set(OK), "a command is both exempt and covered"
    assert not (missing := with_json - set(EXEMPT) - set(OK)), f"--json and no success case here: {sorted(missing)}"
    assert not (missing := with_json - set(EXEMPT) - set(FAIL)), f"--json and no failure case here: {sorted(missing)}"
    assert not (stale := (set(OK) | set(FAIL)) - with_json), f"cases for no command with --json: {sorted(stale)}"
    # a command that runs (not a bare group of subcommands) and has no --json is one NO_JSON explains
    runnable = {name for name, command in every.items()
                if not hasattr(command, "commands") or getattr(command, "invoke_without_command", False)}
    assert not (silent := runnable - with_json - set(NO_JSON)), f"commands without --json: {sorted(silent)}"
    assert not set(NO_JSON) & with_json, "NO_JSON names a command that has --json now: cover it instead"


@pytest.mark.parametrize("command", sorted(OK))
def test_success_envelope_and_data_shape(command, ctx, snapshot):
    done = run(OK[command](ctx), ctx.tmp / "work")
    payload = document(done)
    assert done.returncode == 0, (command, done.returncode, done.stdout, done.stderr)
    assert set(payload) == {"schema_version", "data"}, payload
    assert payload["schema_version"] == 1
    assert skeleton(payload["data"], str(ctx.tmp)) == snapshot


@pytest.mark.parametrize("command", sorted(FAIL))
def test_failure_envelope_and_exit_code(command, ctx):
    call = FAIL[command](ctx)
    done = run(call, ctx.tmp / "work")
    payload = document(done)
    assert_error_envelope(payload)
    assert call.expect in payload["error"], (command, payload)
    assert done.returncode == call.code, (command, done.returncode, payload)


# ------------------------------------------------------------------------------- the same rules, swept wide

# A placeholder for each required argument or option, by its parameter name: enough for a command to reach its
# store. A new command with a required parameter not named here fails the sweep with a KeyError: name it here.
PLACEHOLDERS = {"item_id": UNKNOWN, "entity_id": "acme", "entity_ids": "acme", "text": "a fact", "query": "a question", "name": "Acme",
                "cases": "cases.jsonl", "pairs": "pairs.tsv", "queries": "queries.yaml", "other_id": "k-ffffffffffff"}
SWEEP_ARGS = {"review": ["--list"], "eval merge": ["--from-history"]}  # what gets a command to its store
STORE_IS_USAGE = {"hook install"}  # its --store is the store to record in .vmem.yaml: a wrong one is a usage error
IGNORES_STORE: dict[str, str] = {}  # (eval merge took --store and never opened it; it takes none now)


def _swept(name: str):
    marks = [pytest.mark.xfail(reason=IGNORES_STORE[name], strict=True)] if name in IGNORES_STORE else []
    return pytest.param(name, marks=marks)


@pytest.mark.parametrize("command", [_swept(name) for name, command in sorted(json_commands().items())
                                     if has_option(command, "--store")])
def test_every_command_with_store_fails_on_a_missing_store_with_the_error_envelope(command, tmp_path):
    (tmp_path / "cases.jsonl").write_text('{"id": "x", "statement": "a fact", "leak": false}\n')
    (tmp_path / "pairs.tsv").write_text("1\ta fact\tanother fact\t0\n")
    (tmp_path / "queries.yaml").write_text("queries: []\n")
    args = [*command.split(), *SWEEP_ARGS.get(command, [])]
    for param in json_commands()[command].params:
        if param.required:
            value = PLACEHOLDERS[param.name]
            args += [value] if param.param_type_name == "argument" else [param.opts[0], value]
    done = run(Call([*args, "--store", MISSING]), tmp_path)
    payload = document(done)
    assert_error_envelope(payload)
    assert MISSING in payload["error"], payload
    assert done.returncode == (2 if command in STORE_IS_USAGE else 1), (command, done.returncode, payload)


@pytest.mark.parametrize("command", ["list", "status", "propose", "recall", "sync"])
def test_the_global_json_before_the_command_is_the_same_contract(command, ctx):
    """`vmem --json CMD` as `vmem CMD --json` (the first takes typer's path where the second takes a fast one)."""
    ctx.claim(approve=True)
    args = {"propose": ["propose", "invoices go out from the billing system"], "recall": ["recall", "order lag"],
            "sync": ["sync", "--dir", str(ctx.tmp / "rules")]}.get(command, [command])
    shapes = []
    for before in (False, True):
        argv = ["--json", *args] if before else [*args, "--json"]
        done = run(Call(argv), ctx.tmp / "work", json_flag=False)
        payload = document(done)
        assert done.returncode == 0 and set(payload) == {"schema_version", "data"}, (argv, payload)
        shapes.append(skeleton(payload["data"], str(ctx.tmp)))
        if command == "propose":
            args = ["propose", "partner payouts run on the fifth business day"]  # not a repeat of a seeded claim
        if command == "sync":
            shutil.rmtree(ctx.tmp / "rules")  # the second run writes its files again, not "unchanged"
    assert shapes[0] == shapes[1]


def test_check_that_finds_errors_exits_1_with_its_findings_as_data(ctx):
    """The one deliberate exception to "exit 1 is the error envelope": check ran, and reports what is wrong as
    data (tests/test_bad_input.py reads the findings from it)."""
    path = model.item_path("c-ab0000000000")
    (ctx.store.root / path).parent.mkdir(parents=True, exist_ok=True)
    (ctx.store.root / path).write_text("id: c-ab0000000000\nkind: claim\ncolour: red\n")
    subprocess.run(["git", "-C", ctx.root, "add", path], check=True)
    subprocess.run(["git", "-C", ctx.root, "commit", "-q", "-m", "hand-committed file"], check=True)
    done = run(Call(["check"]), ctx.tmp / "work")
    payload = document(done)
    assert done.returncode == 1 and set(payload) == {"schema_version", "data"}, payload
    assert payload["data"]["errors"] and set(payload["data"]) == {"errors", "warnings"}


# -------------------------------------------------------------------- known breaches (xfail: fix, then unmark)

def _groups() -> list[str]:
    return sorted(name for name, command in commands().items()
                  if hasattr(command, "commands") and not command.invoke_without_command)


@pytest.mark.parametrize("group", _groups())
def test_a_group_without_its_subcommand_under_json_is_a_usage_error_envelope(group, tmp_path):
    done = subprocess.run([str(VMEM), "--json", group], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert_error_envelope(document(done))
    assert done.returncode == 2


def test_an_internal_error_under_json_is_still_the_error_envelope(tmp_path):
    """A bug (here an exception planted in the app) under --json: the error envelope on stdout, exit 1."""
    planted = ("import sys\nimport vmem.cli.app as app\n"
               "def boom(*args, **kwargs):\n    raise RuntimeError('planted')\n"
               "app.for_argv = lambda argv: boom\nsys.argv = ['vmem', '--json', 'list']\n"
               "from vmem.cli.entry import main\nmain()\n")
    done = subprocess.run([sys.executable, "-c", planted], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert_error_envelope(document(done))
    assert "internal error: RuntimeError: planted" in json.loads(done.stdout)["error"] and done.returncode == 1


def test_a_demo_into_a_taken_path_is_a_usage_error_envelope(tmp_path):
    taken = tmp_path / "demo"
    taken.mkdir()
    (taken / "store").write_text("a file where the demo wants its store folder")  # was FileExistsError, a crash
    done = run(Call(["demo", str(taken)]), tmp_path)
    assert_error_envelope(document(done))
    assert done.returncode == 2 and "cannot make the demo's store" in json.loads(done.stdout)["error"]


def test_recall_data_has_the_same_keys_whatever_the_answer(ctx):
    def keys(query: str) -> tuple:
        return tuple(sorted(document(run(Call(["recall", query]), ctx.tmp / "work"))["data"]))

    shapes = {keys("how long do orders lag placement")}  # nothing in the store yet
    ctx.claim(approve=True)
    shapes |= {keys("how long do orders lag placement"), keys("zebra stripes")}  # covered; uncovered
    assert len(shapes) == 1, shapes
