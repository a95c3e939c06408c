"""A team (SPEC 15): the store on a git host (a bare remote behind an https URL that each machine's git maps to
it), code projects whose committed .vmem.yaml names it, analysts working from their project directories through
the real console entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TEAM_URL = "https://git.example.com/team/memory.git"


def git(cwd: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, check=False)
    if check:
        assert done.returncode == 0, done.stderr
    return done.stdout


def vmem(cwd: Path, *args: str, code: int = 0, env: dict | None = None) -> subprocess.CompletedProcess:
    """`vmem ARGS` as a teammate types it in CWD: the console script, no VMEM_STORE, no --store."""
    environ = {k: v for k, v in os.environ.items() if k != "VMEM_STORE"}
    done = subprocess.run([str(Path(sys.executable).with_name("vmem")), *args], cwd=cwd, capture_output=True,
                          text=True, env={**environ, **(env or {})}, timeout=300)
    assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
    return done


@pytest.fixture
def team(seeded, tmp_path, monkeypatch):
    """The seeded store pushed to a bare remote; a project with the committed config naming TEAM_URL."""
    monkeypatch.delenv("VMEM_STORE")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seeded.root), str(remote)], check=True)
    home = Path(os.environ["HOME"])
    with open(home / ".gitconfig", "a") as config:
        config.write(f'[url "{remote.as_uri()}"]\n\tinsteadOf = {TEAM_URL}\n')
    project = tmp_path / "project"
    (project / "src" / "deep").mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    (project / ".vmem.yaml").write_text(f'store:\n  url: "{TEAM_URL}"\ntargets: [claude]\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "vmem config")
    return remote, project


def test_the_cli_in_a_project_acts_on_the_store_its_config_names(team):
    """Issue 27, finding 1: propose, show, recall and the `correct:` line of every synced rule work from a project
    (and any folder below it), on the managed clone the hook keeps, and say which store they used."""
    remote, project = team
    deep = project / "src" / "deep"
    proposed = vmem(deep, "propose", "Invoices are issued on the first business day of the month.")
    assert proposed.stdout.startswith("c-") and f"store: {TEAM_URL}" in proposed.stderr
    as_json = json.loads(vmem(deep, "propose", "Credit notes are numbered per legal entity.", "--json").stdout)
    item = as_json["data"]["item"]["id"]
    shown = json.loads(vmem(project, "show", item, "--json").stdout)["data"]
    assert shown["statement"] == "Credit notes are numbered per legal entity." and shown["status"] == "proposed"
    recalled = json.loads(vmem(deep, "recall", "how are credit notes numbered", "--json").stdout)["data"]
    assert recalled["coverage"] in ("covered", "partial", "uncovered")  # answered from the team's store
    from vmem.store.remote import mirror_path

    clone = mirror_path(TEAM_URL)
    assert item in git(clone, "log", "-1", "--format=%B")
    # the `correct:` line a synced rule prints, run as printed, from the project
    vmem(project, "propose", "--supersedes", item, "Credit notes are numbered per legal entity and year.")


def test_a_store_nearer_than_the_project_config_wins(team, seeded):
    """Standing in a store (a reviewer's clone inside the project tree) acts on that store, not the config's."""
    _, project = team
    inner = project / "review-clone"
    subprocess.run(["git", "clone", "-q", str(seeded.root), str(inner)], check=True)
    git(inner, "config", "user.email", "rita@example.com")
    git(inner, "config", "user.name", "Rita")
    done = vmem(inner, "propose", "A fact proposed in the reviewer's own clone.", "--json")
    assert "store:" not in done.stderr
    assert json.loads(done.stdout)["data"]["item"]["id"] in git(inner, "log", "-1", "--format=%B")


# -- a team of three through the real console entry point and MCP client ----------------------------------------

RITA = ("Rita Reviewer", "rita@example.com")
ALICE = ("Alice Analyst", "alice@example.com")
BOB = ("Bob Builder", "bob@example.com")


class Person:
    """One teammate on their own machine: a HOME with their git identity and the team URL mapped to the remote."""

    def __init__(self, base: Path, who: tuple[str, str], remote: Path) -> None:
        self.name, self.email = who
        self.home = base / f"home-{self.name.split()[0].lower()}"
        self.home.mkdir()
        (self.home / ".gitconfig").write_text(f"[user]\n\tname = {self.name}\n\temail = {self.email}\n"
                                              f'[url "{remote.as_uri()}"]\n\tinsteadOf = {TEAM_URL}\n'
                                              "[init]\n\tdefaultBranch = main\n")

    def env(self, **more: str) -> dict:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "VMEM_STORE", "XDG_"))}
        return {**keep, "HOME": str(self.home), "XDG_DATA_HOME": str(self.home / "data"),
                "XDG_CACHE_HOME": str(self.home / "cache"), "XDG_CONFIG_HOME": str(self.home / "config"),
                "GIT_CONFIG_NOSYSTEM": "1", **more}

    def vmem(self, cwd: Path, *args: str, code: int = 0, **env: str) -> subprocess.CompletedProcess:
        done = subprocess.run([str(Path(sys.executable).with_name("vmem")), *args], cwd=cwd, capture_output=True,
                              text=True, env=self.env(**env), timeout=300)
        assert done.returncode == code, (self.name, args, done.returncode, done.stdout, done.stderr)
        return done

    def git(self, cwd: Path, *args: str, check: bool = True) -> str:
        done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, env=self.env())
        assert not check or done.returncode == 0, done.stderr
        return done.stdout

    def project(self, base: Path) -> Path:
        """A code project whose committed config names the team's store (as `vmem hook install` writes it)."""
        project = base / f"project-{self.name.split()[0].lower()}"
        project.mkdir()
        self.git(project, "init", "-q")
        self.vmem(project, "hook", "install", "--store", TEAM_URL, "--target", "claude")
        self.git(project, "add", "-A")
        self.git(project, "commit", "-q", "-m", "vmem hook")
        return project

    def session_start(self, project: Path) -> dict:
        """The committed SessionStart hook, as Claude Code runs it."""
        settings = json.loads((project / ".claude" / "settings.json").read_text())
        [command] = [h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"]]
        env = self.env(CLAUDE_PROJECT_DIR=str(project),
                       PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
        done = subprocess.run(["/bin/sh", "-c", command], cwd=project, input="{}", capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


def _rules(project: Path) -> str:
    """What the agent in PROJECT reads: its rules files, as the last session start wrote them."""
    return "\n".join(p.read_text() for p in sorted((project / ".claude" / "rules" / "vmem").glob("*.md")))


def _remote_statements(remote: Path) -> set[str]:
    """Every item statement on the remote's main, read with git itself."""
    listed = subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main"],
                            capture_output=True, text=True, check=True).stdout.split()
    out = set()
    for path in listed:
        if path.startswith(("claims/", "knowledge/")) and path.endswith(".yaml"):
            text = subprocess.run(["git", "--git-dir", str(remote), "show", f"main:{path}"], capture_output=True,
                                  text=True, check=True).stdout
            for line in text.splitlines():
                if line.startswith("statement:"):
                    out.add(line.split(":", 1)[1].strip().strip("'\""))
    return out


@pytest.fixture
def crew(seeded, tmp_path, monkeypatch):
    """The seeded store (Rita reviews) on a bare remote; Rita's clone; Alice's and Bob's projects."""
    monkeypatch.delenv("VMEM_STORE")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seeded.root), str(remote)], check=True)
    rita, alice, bob = (Person(tmp_path, who, remote) for who in (RITA, ALICE, BOB))
    clone = tmp_path / "rita-store"
    rita.vmem(tmp_path, "clone", TEAM_URL, str(clone))
    return remote, rita, clone, alice, alice.project(tmp_path), bob, bob.project(tmp_path)


@pytest.mark.slow
def test_a_proposal_from_a_project_reaches_the_reviewer_and_comes_back_as_a_rule(crew):
    remote, rita, clone, alice, project, _, _ = crew
    text = "Invoices are issued on the first business day of the month."
    item = json.loads(alice.vmem(project, "propose", text, "--json").stdout)["data"]["item"]["id"]
    assert text in _remote_statements(remote)  # delivered at once: a reviewer can see it
    assert json.loads(alice.vmem(project, "status", "--json").stdout)["data"]["waiting"] == 0
    rita.vmem(clone, "sync", "--pull", "--dir", str(clone.parent / "rita-rules"))
    queue = json.loads(rita.vmem(clone, "review", "--list", "--json").stdout)["data"]
    assert item in {card["id"] for card in queue}
    rita.vmem(clone, "approve", item)  # delivered too
    alice.session_start(project)
    assert text in _rules(project)


def test_an_offline_proposal_waits_is_counted_and_goes_with_the_next_command(crew):
    """Made offline (the MCP path included), then the remote moves: the next session start delivers it and
    serves the reviewer's change; nothing freezes."""
    remote, rita, clone, alice, project, _, _ = crew
    away = remote.with_name("away.git")
    remote.rename(away)
    text = "Credit notes are numbered per legal entity."
    done = alice.vmem(project, "propose", text, "--json")
    assert "1 commit not yet delivered" in done.stderr
    status = json.loads(alice.vmem(project, "status", "--json").stdout)["data"]
    assert status["waiting"] == 1 and status["delivery"]["state"] == "waiting"
    away.rename(remote)
    # meanwhile the reviewer changes the remote: approves a fact of her own
    fact = json.loads(rita.vmem(clone, "propose", "Refund lag is measured in business days.", "--json").stdout)
    rita.vmem(clone, "approve", fact["data"]["item"]["id"])
    context = alice.session_start(project)  # delivers, replays, serves the newest state
    assert "Refund lag is measured in business days." in _rules(project)
    assert "systemMessage" not in context, context
    assert text in _remote_statements(remote)
    assert json.loads(alice.vmem(project, "status", "--json").stdout)["data"]["waiting"] == 0


MCP_AGENT = """
import os, sys
import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    vmem, project, who = sys.argv[1:4]
    params = StdioServerParameters(command=vmem, args=["mcp"], env=dict(os.environ), cwd=project)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for n in range(1, 13):
                done = await session.call_tool("propose", {"statement": f"{who} noticed pattern {n} in the ledgers."})
                if done.is_error:
                    sys.exit(done.content[0].text)
                for note in done.content[1:]:  # what the CLI prints on stderr: "note: ..."
                    print(note.text.removeprefix("note: "), file=sys.stderr)

anyio.run(main)
"""


@pytest.mark.slow
def test_two_analysts_propose_concurrently_while_the_reviewer_approves_and_nothing_is_lost(crew):
    """2 x 12 proposals at once from two machines -- Alice on the command line, Bob's agent through MCP -- while
    the reviewer approves: every one reaches the remote (by the next command at the latest); the remote's
    history is sound and governance-valid."""
    pytest.importorskip("mcp")
    remote, rita, clone, alice, alice_project, bob, bob_project = crew
    firsts = [json.loads(rita.vmem(clone, "propose", f"Reviewer fact {n} about ledgers.", "--json").stdout)
              ["data"]["item"]["id"] for n in range(3)]
    script = 'for n in $(seq 1 12); do "$0" propose "$1 noticed pattern $n in the ledgers." || exit 1; done'
    vmem_bin = str(Path(sys.executable).with_name("vmem"))
    runs = [subprocess.Popen(["bash", "-c", script, vmem_bin, "Alice"], cwd=alice_project, env=alice.env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            # Bob's agent, through the MCP server the project's agent starts (the official SDK's stdio client)
            subprocess.Popen([sys.executable, "-c", MCP_AGENT, vmem_bin, str(bob_project), "Bob"], cwd=bob_project,
                             env=bob.env(CLAUDE_PROJECT_DIR=str(bob_project)), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)]
    for item in firsts:  # the reviewer works meanwhile
        rita.vmem(clone, "approve", item)
    outputs = [run.communicate(timeout=600) for run in runs]
    assert all(run.returncode == 0 for run in runs), outputs
    # under contention a delivery may still wait after its retries (it says so); the next command delivers it
    waited = [line for _, err in outputs for line in err.splitlines() if "not yet delivered" in line]
    for who, project in ((alice, alice_project), (bob, bob_project)):
        assert json.loads(who.vmem(project, "status", "--json").stdout)["data"]["waiting"] == 0, waited
    statements = _remote_statements(remote)
    for who in ("Alice", "Bob"):
        missing = {f"{who} noticed pattern {n} in the ledgers." for n in range(1, 13)} - statements
        assert not missing, (missing, waited)
    subprocess.run(["git", "--git-dir", str(remote), "fsck", "--no-dangling"], check=True, capture_output=True)
    rita.vmem(clone, "sync", "--pull", "--dir", str(clone.parent / "rita-rules"))
    checked = json.loads(rita.vmem(clone, "check", "--governance", "--json").stdout)["data"]
    assert checked["errors"] == [], checked


PROTECT = """#!/bin/sh
# only the reviewer's commits may land on main (what a git host's protected branch does)
while read old new ref; do
  [ "$ref" = refs/heads/main ] || continue
  for c in $(git rev-list "$new" --not --branches); do
    [ "$(git log -1 --format=%ce "$c")" = rita@example.com ] || { echo "main is protected" >&2; exit 1; }
  done
done
"""


def test_with_main_protected_proposals_go_to_the_writers_branch_and_the_reviewer_takes_them_in(crew):
    remote, rita, clone, alice, project, _, _ = crew
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(PROTECT)
    hook.chmod(0o755)
    text = "Dunning emails pause during a payment dispute."
    done = alice.vmem(project, "propose", text, "--json")
    assert "delivered to vmem/proposals/alice-example.com" in done.stderr
    assert text not in _remote_statements(remote)
    assert json.loads(alice.vmem(project, "status", "--json").stdout)["data"]["waiting"] == 0
    queue = rita.vmem(clone, "review", "--list", "--json")  # takes the writers' branches in, then lists
    assert "merged" in queue.stderr
    assert text in _remote_statements(remote)
    item = json.loads(done.stdout)["data"]["item"]["id"]
    assert item in {card["id"] for card in json.loads(queue.stdout)["data"]}
    log = subprocess.run(["git", "--git-dir", str(remote), "log", "--format=%ce", "main"], capture_output=True,
                         text=True, check=True).stdout.split()
    assert "alice@example.com" in log  # the proposal stays its writer's commit
    rita.vmem(clone, "approve", item)
    alice.session_start(project)
    assert text in _rules(project)


def test_a_proposals_branch_that_changes_anything_but_items_is_not_merged(crew):
    """An analyst with push rights to vmem/proposals/* only cannot slip a CI change (say, the governance check
    turned off) or a vmem.yaml into main through the reviewer's vmem review: such a branch waits for a person."""
    remote, rita, clone, alice, project, _, _ = crew
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(PROTECT)
    hook.chmod(0o755)
    from vmem.store.remote import mirror_path

    alice.vmem(project, "propose", "A first, honest proposal.")
    managed = Path(alice.env()["XDG_DATA_HOME"]) / "vmem" / "stores" / mirror_path(TEAM_URL).name
    assert (managed / "vmem.yaml").is_file()
    (managed / ".gitlab-ci.yml").write_text("vmem:\n  script: [\"true\"]\n")
    alice.git(managed, "commit", "-qam", "ci: faster")
    done = alice.vmem(project, "propose", "A second proposal that carries the CI change along.")
    assert "vmem/proposals/alice-example.com" in done.stderr
    queue = rita.vmem(clone, "review", "--list", "--json")
    assert "not merged: it also changes .gitlab-ci.yml" in queue.stderr
    shown = subprocess.run(["git", "--git-dir", str(remote), "show", "main:.gitlab-ci.yml"], capture_output=True,
                           text=True, check=True).stdout
    assert "vmem check --governance" in shown
    assert "A first, honest proposal." not in _remote_statements(remote)  # the branch as a whole waits


def test_after_the_hook_pulls_an_approval_agents_recall_it_at_once_without_numpy(crew):
    """Rita approves a fact in her clone; Alice's session start pulls it; then three of Alice's agents ask at once
    from her project. The first catches her index up by the pulled commits in plain Python, the others wait for
    it: all three serve the approved fact, none loads numpy, none fails."""
    remote, rita, clone, alice, project, _, _ = crew
    alice.vmem(project, "recall", "refund lag", "--json")  # her index, as of before the change
    text = "Refund lag is measured in business days, not calendar days."
    fact = json.loads(rita.vmem(clone, "propose", text, "--json").stdout)["data"]["item"]["id"]
    rita.vmem(clone, "approve", fact)
    alice.session_start(project)
    vmem_bin = str(Path(sys.executable).with_name("vmem"))
    asking = [subprocess.Popen([vmem_bin, "recall", "how is refund lag measured", "--json"], cwd=project,
                               env=alice.env(PYTHONPROFILEIMPORTTIME="1"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for process in asking:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err[-2000:]
        assert json.loads(out)["data"]["results"][0]["id"] == fact
        imported = {line.rsplit("|", 1)[1].strip() for line in err.splitlines() if line.startswith("import time:")}
        assert "numpy" not in imported and "pygit2" not in imported
