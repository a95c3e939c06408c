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
