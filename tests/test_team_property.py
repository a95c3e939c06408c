"""Served = attested across a team, as a property (SPEC 12, 15): random sequences of proposals by two analysts, a
reviewer's approvals and revocations, analysts' force-pushes of main to an older commit (or rewritten from it) and
hand deletions of reviewed files, with main protected or not, through a bare remote and three clones driven by the
real console entry point. Whatever the order:

- no governance decision on the remote's main is committed by anyone but the reviewer (a replay never re-commits
  a reviewer's decision under an analyst's name);
- every clone serves exactly the claims whose last decision in its own history is the reviewer's approval (a
  deletion by hand unserves nothing; a force-push that dropped the approval is what the history now says);
- no proposal is lost: each is on the remote's main, on a proposals branch, waiting in its writer's clone, or named
  there as dropped by a force-push.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_team import run
from test_team_flow import PROTECT  # only the reviewer's commits may land on main

from vmem import model

RITA = "Rita <rita@example.com>"
ANALYSTS = {"alice": "Alice Analyst <alice@example.com>", "bob": "Bob <bob@example.com>"}
GOVERNANCE = ("approve", "mandate", "revoke", "reject", "publish")


class Crew:
    def __init__(self, seeded_root: Path, base: Path, protected: bool) -> None:
        self.base = base
        self.bare = base / "remote.git"
        run("git", "clone", "-q", "--bare", str(seeded_root), str(self.bare))
        if protected:
            hook = self.bare / "hooks" / "pre-receive"
            hook.write_text(PROTECT)
            hook.chmod(0o755)
        self.clones = {name: base / name for name in ("rita", *ANALYSTS)}
        for clone in self.clones.values():
            self.vmem(self.base, "clone", str(self.bare), str(clone))
        self.proposals: list[tuple[str, str]] = []  # (id, writer)

    @staticmethod
    def who(name: str) -> str:
        return RITA if name == "rita" else ANALYSTS[name]

    def env(self, name: str | None, clone: Path) -> dict:
        env = {**os.environ, "VMEM_STORE": str(clone),
               "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
        if name is not None:
            person, email = self.who(name)[:-1].split(" <")
            env.update(GIT_AUTHOR_NAME=person, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=person,
                       GIT_COMMITTER_EMAIL=email)
        return env

    def vmem(self, clone: Path, *args: str, name: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "vmem", *args], capture_output=True, text=True, timeout=300,
                              env=self.env(name, clone), cwd=clone if clone.is_dir() else self.base)

    def git(self, name: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(self.clones[name]), *args], capture_output=True, text=True,
                              env=self.env(name, self.clones[name]))

    def sync(self, name: str) -> dict:
        """The session start in NAME's clone: deliver, catch up, serve."""
        done = self.vmem(self.clones[name], "sync", "--pull", "--dir", str(self.base / f"rules-{name}"), "--json",
                         name=name)
        assert done.returncode == 0, (name, done.stderr)
        return json.loads(done.stdout)["data"]

    def status_of(self, name: str, item: str) -> str | None:
        path = self.clones[name] / model.item_path(item)
        if not path.is_file():
            return None
        return next((line.split(": ", 1)[1] for line in path.read_text().splitlines()
                     if line.startswith("status: ")), None)


def _decisions(where: list[str], ref: str) -> list[tuple[str, str, list[str]]]:
    """(committer, action, items) of every commit on REF's history in the repository WHERE names, oldest first."""
    listed = subprocess.run(["git", *where, "log", "--reverse", "--format=%x1e%ce%x1f%(trailers:key=Vmem-Action,"
                             "valueonly,separator=)%x1f%(trailers:key=Vmem-Item,valueonly,separator=%x2c)", ref],
                            capture_output=True, text=True, check=True).stdout
    out = []
    for record in listed.split("\x1e")[1:]:
        committer, action, items = (record.strip("\n").split("\x1f") + ["", ""])[:3]
        out.append((committer, action.strip(), [i.strip() for i in items.split(",") if i.strip()]))
    return out


def _approved_by_history(decisions) -> set[str]:
    """Claims whose last governance decision on this history is the reviewer's approval (or mandate)."""
    last: dict[str, tuple[str, str]] = {}
    for committer, action, items in decisions:
        if action in GOVERNANCE:
            for item in items:
                last[item] = (committer, action)
    return {i for i, (who, action) in last.items() if who == "rita@example.com" and action in ("approve", "mandate")}


STEPS = st.tuples(st.sampled_from(["propose", "propose", "approve", "revoke", "force", "rewrite", "delete",
                                   "sync"]),
                  st.sampled_from(sorted(ANALYSTS)), st.integers(0, 3))


@settings(max_examples=int(os.environ.get("VMEM_PROP_EXAMPLES", 3)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(protected=st.booleans(), steps=st.lists(STEPS, min_size=3, max_size=8))
# the attack: approved, revoked, pulled by Alice; Bob forces main back past the revoke; Alice's session starts
@example(protected=False, steps=[("propose", "alice", 0), ("approve", "alice", 0), ("revoke", "alice", 0),
                                 ("sync", "alice", 0), ("rewrite", "bob", 0), ("sync", "alice", 0)])
# a deletion by hand of an approved claim, and two writers' proposals with main protected
@pytest.mark.slow
@example(protected=True, steps=[("propose", "alice", 0), ("propose", "bob", 0), ("approve", "alice", 1),
                                ("delete", "bob", 0), ("force", "alice", 0), ("propose", "alice", 0)])
def test_random_team_histories_serve_only_what_the_reviewer_attested_and_lose_no_proposal(seeded, tmp_path_factory,
                                                                                         protected, steps):
    crew = Crew(seeded.root, tmp_path_factory.mktemp("crew"), protected)
    facts = 0
    for action, name, pick in steps:
        if action == "propose":
            facts += 1
            done = crew.vmem(crew.clones[name], "propose", f"refund fact number {facts} from {name}", "--json",
                             name=name)
            assert done.returncode == 0, done.stderr
            crew.proposals.append((json.loads(done.stdout)["data"]["item"]["id"], name))
        elif action in ("approve", "revoke"):
            crew.sync("rita")
            if protected:
                crew.vmem(crew.clones["rita"], "review", "--list", name="rita")
            wanted = "proposed" if action == "approve" else "approved"
            known = [i for i, _ in crew.proposals if crew.status_of("rita", i) == wanted]
            if known:
                crew.vmem(crew.clones["rita"], action, known[pick % len(known)], name="rita")
        elif action in ("force", "rewrite"):  # a hostile or careless teammate, by plain git: main back one commit,
            crew.git(name, "fetch", "-q", "origin")  # or rewritten from there (a commit of their own on top)
            if crew.git(name, "rev-parse", "-q", "--verify", "origin/main~2").returncode == 0:
                target = "origin/main~1"
                if action == "rewrite":
                    target = crew.git(name, "commit-tree", "origin/main~1^{tree}", "-p", "origin/main~1", "-m",
                                      "wip").stdout.strip()
                crew.git(name, "push", "-q", "-f", "origin", f"{target}:refs/heads/main")
        elif action == "delete":  # a reviewed claim's file removed by hand, pushed if main lets it through
            crew.sync(name)
            reviewed = [i for i, _ in crew.proposals if crew.status_of(name, i) == "approved"]
            if reviewed:
                crew.git(name, "rm", "-q", model.item_path(reviewed[pick % len(reviewed)]))
                crew.git(name, "commit", "-qm", "tidy")
                crew.git(name, "push", "-q", "origin", "HEAD:main")
        else:
            crew.sync(name)
    # everyone's next session; the reviewer takes in what waits on proposals branches
    for name in (*ANALYSTS, "rita"):
        crew.sync(name)
    if protected:
        crew.vmem(crew.clones["rita"], "review", "--list", name="rita")
    served = {name: set(crew.sync(name)["items"]) for name in ("rita", *ANALYSTS)}

    # 1. no governance decision on the remote's main under anyone's name but the reviewer's
    on_main = _decisions(["--git-dir", str(crew.bare)], "main")
    assert all(who == "rita@example.com" for who, action, _ in on_main if action in GOVERNANCE), on_main
    # 2. every clone serves exactly what its own history says the reviewer approved
    for name, items in served.items():
        mine = {i for i in items if i.startswith("c-")}
        expected = _approved_by_history(_decisions(["-C", str(crew.clones[name])], "HEAD"))
        assert mine == expected, (name, mine, expected)
    # 3. no proposal lost
    remote = subprocess.run(["git", "--git-dir", str(crew.bare), "log", "--all", "--format=%B"], capture_output=True,
                            text=True, check=True).stdout
    for item, writer in crew.proposals:
        clone = crew.clones[writer]
        dropped = json.dumps(json.loads((clone / ".git" / "vmem-dropped.json").read_text())) \
            if (clone / ".git" / "vmem-dropped.json").is_file() else ""
        local = subprocess.run(["git", "-C", str(clone), "log", "--format=%B", "HEAD"], capture_output=True,
                               text=True, check=True).stdout
        assert item in remote or item in local or item in dropped, (item, writer)
