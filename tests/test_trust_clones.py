"""Trust across clones (SPEC 12, issue 28): what a teammate with a clone and push access can bring in through the
shared remote — a fork from before reviewers existed, an orphan history, a hand-committed policy, hand-edited
provenance, a deleted entity file — is refused or reported, never served. Every attack runs through a bare
remote and two clones with the real CLI (and the MCP server), and is checked where agents are served: sync's
rules and hook context, recall, MCP, and `vmem check --governance`."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import REVIEWER, Made
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_team import run, vmem_cli

from vmem import model

RITA = f"Rita <{REVIEWER[1]}>"  # the store's one reviewer
ALICE = "Alice Analyst <alice@example.com>"  # an analyst with push access


def _git_env() -> dict:
    """The test's environment (its HOME and identity), with this interpreter's vmem on PATH for the merge driver."""
    return {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}


class Team:
    """A store on a bare remote, Alice's clone and Rita's (the reviewer's), each through `vmem clone`: under HOME
    (the test's TMP_PATH unless given), while what a test adds (fresh clones, rules directories) goes in TMP_PATH."""

    def __init__(self, seeded, tmp_path: Path, home: Path | None = None) -> None:
        self.tmp = tmp_path
        self.bare, self.alice, self.rita = self.paths(home or tmp_path)
        run("git", "clone", "-q", "--bare", str(seeded.root), str(self.bare))
        for clone in (self.alice, self.rita):
            vmem_cli(tmp_path, "clone", str(self.bare), str(clone))

    @staticmethod
    def paths(home: Path) -> tuple[Path, Path, Path]:
        return home / "remote.git", home / "alice", home / "rita"

    @classmethod
    def restored(cls, made: Made, make: Callable[["Team"], Any], seeded, tmp_path: Path, monkeypatch):
        """The team MAKE left (it gets a new one under MADE's base), made once and restored for each test
        (conftest.Made); returns the team, for the test at TMP_PATH, and MAKE's value."""
        home = made.base
        value = made.restore(lambda: make(cls(seeded, tmp_path, home)), monkeypatch, *cls.paths(home))
        team = cls.__new__(cls)
        team.tmp = tmp_path
        team.bare, team.alice, team.rita = cls.paths(home)
        return team, value

    def git(self, clone: Path, *args: str, check: bool = True):
        return run("git", *args, cwd=clone, env=_git_env(), check=check)

    def vmem(self, clone: Path, *args: str, who: str | None = None, check: bool = True):
        return vmem_cli(clone, *args, who=who or (RITA if clone == self.rita else ALICE), check=check)

    def json(self, clone: Path, *args: str, who: str | None = None, code: int = 0) -> dict:
        done = self.vmem(clone, *args, "--json", who=who, check=False)
        assert done.returncode == code, done.stdout + done.stderr
        return json.loads(done.stdout)["data"]

    def propose(self, clone: Path, text: str, *extra: str, who: str | None = None) -> str:
        return self.json(clone, "propose", text, *extra, who=who)["item"]["id"]

    def pull(self, clone: Path) -> None:
        done = self.git(clone, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", check=False)
        assert done.returncode == 0, done.stdout + done.stderr

    def served(self, clone: Path, query: str) -> dict:
        """Everything an agent in CLONE's project could be given: the rules files, the hook's context, recall."""
        rules = self.tmp / f"rules-{clone.name}"
        synced = self.json(clone, "sync", "--dir", str(rules))
        text = "\n".join(p.read_text() for p in sorted(rules.rglob("*.md")))
        hook = vmem_cli(clone, "sync", "--hook", "--dir", str(rules)).stdout
        recalled = self.json(clone, "recall", query, "-k", "50")["results"]
        return {"items": set(synced["items"]), "text": text + hook,
                "recall": {row["id"] for row in recalled} | {json.dumps(recalled)}}

    def governance_errors(self, clone: Path) -> list[dict]:
        return self.json(clone, "check", "--governance", code=1)["errors"]


@pytest.fixture(scope="module")
def made_team(tmp_path_factory) -> Made:
    return Made(tmp_path_factory.mktemp("team"))


@pytest.fixture
def team(seeded, tmp_path, made_team, monkeypatch) -> Team:
    """A bare remote of the seeded store and two `vmem clone`s of it: made once per module, restored for each test
    as they were left, caches included (conftest.Made)."""
    return Team.restored(made_team, lambda team: None, seeded, tmp_path, monkeypatch)[0]


def _never_served(team: Team, clone: Path, item: str, words: str) -> None:
    served = team.served(clone, words)
    assert item not in served["items"] and item not in served["recall"]
    assert words not in served["text"] and words not in " ".join(served["recall"])


# -- 1. a fork from before reviewers existed --------------------------------------------------------------------


@pytest.mark.parametrize("order", ["fork-merged-into-main", "main-merged-into-fork-then-fast-forwarded"])
def test_a_fork_from_before_reviewers_cannot_vouch_for_what_it_merges_in(team, order):
    """The store's first commit has `reviewers: []` (anyone may review). Alice branches from it, proposes and
    mandates there (allowed under that policy), merges, pushes. Either parent order: a merge's author picks it,
    and main-merged-into-fork is a fast-forward push."""
    root = team.git(team.alice, "rev-list", "--max-parents=0", "HEAD").stdout.split()
    assert len(root) == 1
    team.git(team.alice, "checkout", "-q", "-b", "fork", root[0])
    words = "refund exports include every test transaction"
    claim = team.propose(team.alice, words)
    team.vmem(team.alice, "mandate", claim)  # anyone may, under the root's policy
    if order == "fork-merged-into-main":
        team.git(team.alice, "checkout", "-q", "main")
        team.git(team.alice, "merge", "-q", "--no-edit", "fork")
        team.git(team.alice, "push", "-q", "origin", "main")
    else:
        team.git(team.alice, "merge", "-q", "--no-edit", "main")
        team.git(team.alice, "push", "-q", "origin", "fork:main")
    merge = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.pull(team.rita)
    assert (team.rita / model.item_path(claim)).is_file()
    _never_served(team, team.rita, claim, words)
    # a fresh clone (no cache of what it attested before) sees the same
    fresh = team.tmp / "fresh"
    vmem_cli(team.tmp, "clone", str(team.bare), str(fresh))
    _never_served(team, fresh, claim, words)
    errors = team.governance_errors(team.rita)
    assert any(merge[:10] in e["path"] + e["message"] for e in errors), errors
    assert any(e["path"] == model.item_path(claim) for e in errors)
    shown = team.json(team.rita, "show", claim)["computed"]
    assert shown["attested_status"] in (None, "proposed")


def test_a_reviewers_approval_on_a_branch_still_counts_after_the_merge(team):
    """The lawful twin of the attack: Rita approves on a topic branch; merged into main, it is served."""
    words = "invoices are issued in UTC"
    claim = team.propose(team.alice, words)
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    team.git(team.rita, "checkout", "-q", "-b", "review")
    team.vmem(team.rita, "approve", claim)
    team.git(team.rita, "checkout", "-q", "main")
    other = team.propose(team.rita, "refunds settle daily", who=ALICE)  # main moved meanwhile
    team.git(team.rita, "merge", "-q", "--no-edit", "review", "-m", "merge the review branch")
    assert claim in team.served(team.rita, words)["items"]
    assert other not in team.served(team.rita, "refunds settle daily")["items"]
    assert team.json(team.rita, "check", "--governance")["errors"] == []


# -- 2. an orphan history -------------------------------------------------------------------------------------


def test_an_orphan_history_cannot_take_over_review(team):
    """`git checkout --orphan`, a vmem.yaml naming Alice as reviewer, merged with --allow-unrelated-histories
    -X theirs and pushed: Rita stays the reviewer, Alice's approval counts for nothing, check names the merge."""
    claim = team.propose(team.alice, "trial accounts are excluded from ARR")
    team.git(team.alice, "push", "-q", "origin", "main")
    team.git(team.alice, "checkout", "-q", "--orphan", "evil")
    team.git(team.alice, "rm", "-rqf", ".")
    (team.alice / "vmem.yaml").write_text("version: 1\nreviewers: [alice@example.com]\n")
    team.git(team.alice, "add", "vmem.yaml")
    team.git(team.alice, "commit", "-qm", "reviewers")
    team.git(team.alice, "checkout", "-q", "main")
    team.git(team.alice, "merge", "-q", "--no-edit", "--allow-unrelated-histories", "-X", "theirs", "evil")
    assert "alice@example.com" in (team.alice / "vmem.yaml").read_text()
    merge = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    refused = team.vmem(team.alice, "approve", claim, check=False)
    assert refused.returncode == 1 and "not a reviewer" in refused.stderr
    team.pull(team.rita)
    errors = team.governance_errors(team.rita)
    assert any(e["path"] == "vmem.yaml" and merge[:10] in e["message"] for e in errors), errors
    team.vmem(team.rita, "approve", claim)  # the real reviewer still approves
    assert claim in team.served(team.rita, "trial accounts are excluded from ARR")["items"]


def test_an_orphan_merged_as_first_parent_and_fast_forwarded_takes_over_nothing_in_a_clone_that_knew_the_store(
        team):
    claim = team.propose(team.alice, "trial accounts are excluded from ARR")
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    assert team.json(team.rita, "check", "--governance")["errors"] == []  # Rita's clone has seen the store
    early = team.tmp / "early"  # a clone made before the attack that never ran vmem since: `vmem clone` pinned
    vmem_cli(team.tmp, "clone", str(team.bare), str(early))  # the store's root in its git config
    team.git(team.alice, "checkout", "-q", "--orphan", "evil")
    team.git(team.alice, "rm", "-rqf", ".")
    (team.alice / "vmem.yaml").write_text("version: 1\nreviewers: [alice@example.com]\n")
    team.git(team.alice, "add", "vmem.yaml")
    team.git(team.alice, "commit", "-qm", "reviewers")
    team.git(team.alice, "merge", "-q", "--no-edit", "--allow-unrelated-histories", "-X", "ours", "main")
    refused = team.vmem(team.alice, "mandate", claim, check=False)  # her clone knows the store: refused here
    assert refused.returncode == 1 and "not a reviewer" in refused.stderr
    path = team.alice / model.item_path(claim)  # so she writes it by hand, with vmem's own commit message
    path.write_text(re.sub(r"(?m)^status: \S+$", "status: mandatory", path.read_text()))
    team.git(team.alice, "commit", "-qam", f"vmem: mandate {claim}\n\nVmem-Action: mandate\nVmem-Item: {claim}\n")
    team.git(team.alice, "push", "-q", "origin", "evil:main")  # a fast-forward of main
    team.pull(team.rita)
    team.pull(early)
    for clone in (team.rita, early):
        _never_served(team, clone, claim, "trial accounts are excluded from ARR")
    errors = team.governance_errors(early)
    assert any("unrelated to the store" in e["message"] for e in errors), errors
    refused = team.vmem(team.rita, "approve", claim, check=False)  # Rita is still the reviewer: mandatory in the
    assert "not a reviewer" not in refused.stderr  # file, proposed by history: she is told to restore it, not refused


# -- 4, 5. a hand-committed policy ----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_hand_committed_policy_is_ignored_whole_by_every_consumer(team):
    """Alice commits vmem.yaml by hand: sync scoped to one customer and the finance group, a judge command that
    runs a shell, weakened gates. Pushed and pulled, Rita's sync, hook, recall, MCP and consolidate go on with the
    policy she attested; nothing runs; check names the commit."""
    org = team.propose(team.rita, "refunds settle three days after payment", who=ALICE)
    tide = team.propose(team.rita, "tidewell's invoices are issued on the first", "--about", "tidewell", who=ALICE)
    fin = team.propose(team.rita, "the finance close runs on day five", "--audience", "group:finance", who=ALICE)
    for claim in (org, tide, fin):
        team.vmem(team.rita, "approve", claim)
    team.git(team.rita, "push", "-q", "origin", "main")
    before = team.served(team.rita, "invoices refunds finance close")["items"]
    assert org in before and tide not in before and fin not in before
    team.pull(team.alice)
    marker = team.tmp / "ran"
    text = (team.alice / "vmem.yaml").read_text()
    text = re.sub(r"(?m)^  scope: .*$", "  scope: entity:tidewell", text)
    text = re.sub(r"(?m)^  audience: .*$", "  audience: group:finance", text)
    text = re.sub(r"(?m)^    command: .*$", f"    command: [sh, -c, 'touch {marker}; echo not json']", text)
    text = re.sub(r"(?m)^  writers_min: .*$", "  writers_min: 1", text)
    text = re.sub(r"(?m)^  category_floor: .*$", "  category_floor: 0", text)
    for needle in ("scope: entity:tidewell", "audience: group:finance", str(marker), "writers_min: 1"):
        assert needle in text, needle  # the template still has each key where the attack expects it
    (team.alice / "vmem.yaml").write_text(text)
    team.git(team.alice, "commit", "-qam", "tune the policy")
    attack = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    served = team.served(team.rita, "invoices refunds finance close")
    assert served["items"] == before
    assert "tidewell's invoices" not in served["text"] and "finance close" not in served["text"]
    assert tide not in served["recall"] and fin not in served["recall"]
    # the gates: one analyst's learning about three customers stays a candidate (writers_min 2 attested)
    for entity in ("tidewell", "corvane", "larkspur-health"):
        team.propose(team.rita, "Healthcare buyers ask for audit logs before security review.", "--from", entity,
                     "-c", "industry:healthcare", who=ALICE)
    for entity in ("tidewell", "corvane"):  # two more paraphrases, so the judge would be asked
        team.propose(team.rita, "Healthcare buyers want audit logs before the security review.", "--from", entity,
                     "-c", "industry:healthcare", who=ALICE)
    result = team.json(team.rita, "consolidate")
    assert result["eligible"] == [] and not marker.exists()
    errors = team.governance_errors(team.rita)
    assert any(e["path"] == "vmem.yaml" and attack[:10] in e["message"] for e in errors), errors
    # the MCP server in Rita's clone serves the same set
    import anyio
    from test_mcp import _with_server

    class _Store:
        root = team.rita

    _, _, results = anyio.run(_with_server, _Store, team.tmp, [("recall", {"query": "invoices finance close"})])
    answer = json.dumps(results[0].structured_content)
    assert tide not in answer and fin not in answer


# -- 6. provenance read from the file ---------------------------------------------------------------------------


def _edit(path: Path, fn) -> None:
    path.write_text(fn(path.read_text()))


def test_hand_edited_provenance_is_not_served_what_history_attests_is(team):
    """Alice edits review.by, the base confidence and a verification on Rita's approved claim, and types seven
    more customers into a published learning's evidence. Agents keep being told who really reviewed it, how sure
    it is and how much support it has; check names the commits."""
    claim = team.propose(team.rita, "refunds settle three days after payment", who=ALICE)
    team.vmem(team.rita, "approve", claim)
    statement = "Healthcare buyers ask for audit logs before security review."
    for entity, writer in (("tidewell", ALICE), ("corvane", "Bob <bob@example.com>"),
                           ("larkspur-health", "Chen <chen@example.com>")):
        learning = team.propose(team.rita, statement, "--from", entity, "-c", "industry:healthcare", who=writer)
    team.json(team.rita, "consolidate")
    team.vmem(team.rita, "publish", learning)
    team.git(team.rita, "push", "-q", "origin", "main")
    honest = team.served(team.rita, "refunds audit logs")
    assert "rita@example.com" in honest["text"] and "support: emerging" in honest["text"]
    team.pull(team.alice)
    _edit(team.alice / model.item_path(claim), lambda t: re.sub(r"(?m)^confidence: .*$", "confidence: 1.0",
          t.replace("rita@example.com", "ceo@example.com")).replace(
          "verifications: []", "verifications:\n- user: ceo@example.com\n  kind: confirmation\n"
                                "  at: '2026-12-01T00:00:00Z'"))
    extra = "".join(f"- entity: {e}\n  writer: w{n}@example.com\n  episode: null\n  at: '2026-11-01T00:00:00Z'\n"
                    f"  tier: 2\n" for n, e in enumerate(("northwind", "acme", "globex", "initech", "umbrella",
                                                          "hooli", "vandelay")))
    _edit(team.alice / model.item_path(learning), lambda t: t.replace("evidence:\n", "evidence:\n" + extra, 1))
    team.git(team.alice, "commit", "-qam", "fix provenance")
    edit = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    assert "ceo@example.com" in (team.rita / model.item_path(claim)).read_text()
    served = team.served(team.rita, "refunds audit logs")
    assert served["items"] == honest["items"]
    assert "ceo@example.com" not in served["text"] and "rita@example.com" in served["text"]
    assert "confidence 1.00" not in served["text"] and "support: extensive" not in served["text"]
    assert "ceo@example.com" not in " ".join(served["recall"])
    errors = team.governance_errors(team.rita)
    assert {e["path"] for e in errors if edit[:10] in e["message"]} == {model.item_path(claim),
                                                                        model.item_path(learning)}, errors


# -- 8. a customer deleted from the lexicon by hand -------------------------------------------------------------


def _a_learning_naming_tidewell(team: Team) -> dict:
    """Three analysts propose a learning that names Tidewell, from other customers; consolidated in Rita's clone."""
    statement = "Tidewell asks for audit logs before every security review."
    for entity, writer in (("corvane", ALICE), ("larkspur-health", "Bob <bob@example.com>"),
                           ("corvane", "Chen <chen@example.com>")):
        learning = team.propose(team.rita, statement, "--from", entity, "-c", "industry:healthcare", who=writer)
    team.json(team.rita, "consolidate")
    return team.json(team.rita, "show", learning)


def test_an_entity_file_deleted_by_hand_still_feeds_the_de_id_gate(team):
    """Alice deletes entities/tidewell.yaml and its episodes with a plain commit and pushes; a learning naming
    Tidewell, proposed afterwards in Rita's clone, is still quarantined, and check names the commit."""
    assert (team.alice / "entities" / "tidewell.yaml").is_file()
    team.git(team.alice, "rm", "-rq", "entities/tidewell.yaml", "episodes/tidewell")
    team.git(team.alice, "commit", "-qm", "tidy up customers")
    removal = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    shown = _a_learning_naming_tidewell(team)
    assert shown["status"] == "quarantined" and shown["gate"]["checks"]["deid"] is False, shown
    refused = team.vmem(team.rita, "publish", shown["id"], check=False)
    assert refused.returncode == 1
    errors = team.governance_errors(team.rita)
    assert any(e["path"] == "entities/tidewell.yaml" and removal[:10] in e["message"] for e in errors), errors


# -- the property: branches, merges, orphans and policy edits never widen what is served ------------------------

STRATEGIES = ([], ["-s", "ours"], ["-X", "theirs"], ["-X", "ours"])


@st.composite
def team_histories(draw):
    ops = []
    branches = 0
    for _ in range(draw(st.integers(2, 9))):
        kind = draw(st.sampled_from(["fork", "orphan", "hand-approve", "alice-policy", "alice-approve",
                                     "rita-approve", "merge", "octopus"]))
        if kind in ("fork", "orphan"):
            branches += 1
            ops.append((kind, draw(st.integers(0, 6))))
        elif kind in ("merge", "octopus"):
            ops.append((kind, draw(st.sampled_from(range(len(STRATEGIES)))), draw(st.booleans())))
        else:
            ops.append((kind, draw(st.integers(0, 3))))
    return ops


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(ops=team_histories())
@example(ops=[("fork", 0), ("alice-approve", 1), ("merge", 0, True)])  # attack 1, fast-forwarded
@example(ops=[("orphan", 0), ("hand-approve", 0), ("merge", 2, True)])  # attack 2, orphan as first parent
def test_branches_merges_orphans_and_policy_edits_never_widen_what_is_served(tmp_path_factory, ops):
    """Oracle: what Rita's own vmem commands approved on main. Whatever Alice does on forks (from any commit,
    the root included) and orphan histories — vmem commands, hand edits with forged trailers, a vmem.yaml naming
    herself — and however it is merged (any strategy, octopus, either parent order with a fast-forward of main),
    sync serves nothing Rita did not approve there, and the policy in force names Rita alone: in the clone that
    followed along, and in one replaying everything with only the pinned root."""
    import shutil

    import pygit2

    from vmem.errors import VmemError
    from vmem.ops.govern import set_status
    from vmem.ops.init import init_store
    from vmem.ops.merge import pin_root
    from vmem.ops.sync import sync
    from vmem.store import codec
    from vmem.store.attest import cache_path
    from vmem.store.repo import Store

    path = tmp_path_factory.mktemp("team") / "store"
    config = pygit2.init_repository(str(path), initial_head="main").config
    config["user.name"], config["user.email"] = "Alice Analyst", "alice@example.com"
    store = init_store(path, solo=True)  # the import below names the reviewers
    with store.acting_as(RITA), store.transaction("import", summary="reviewers") as tx:
        raw = codec.load((path / "vmem.yaml").read_text(), "vmem.yaml")
        raw["reviewers"] = [REVIEWER[1]]
        tx.write_file("vmem.yaml", raw)
    claims = []
    for n in range(4):
        store._policy = None
        item = model.normalize_item({"id": model.new_id("claim"), "kind": "claim", "status": "proposed",
                                     "statement": f"fact number {n} about orders", "created_at": model.now(),
                                     "expires_at": "2099-01-01T00:00:00Z"})
        with store.transaction("propose", items=[item["id"]], summary=item["statement"]) as tx:
            tx.write(item)
        claims.append(item["id"])
    pin_root(store.repo)

    def env(who: str) -> dict:
        name, email = who[:-1].split(" <")
        return {**_git_env(), "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
                "GIT_COMMITTER_EMAIL": email}

    def git(*args, who=ALICE, check=True):
        return run("git", *args, cwd=path, env=env(who), check=check)

    def fresh() -> Store:
        return Store.open(path)

    legit: set[str] = set()
    branches: list[str] = []
    for op in ops:
        kind = op[0]
        if kind == "fork":
            history = git("rev-list", "--first-parent", "--reverse", "main").stdout.split()
            branches.append(f"b{len(branches)}")
            git("checkout", "-q", "-b", branches[-1], history[min(op[1], len(history) - 1)])
        elif kind == "orphan":
            branches.append(f"b{len(branches)}")
            git("checkout", "-q", "--orphan", branches[-1])
            git("rm", "-rqf", ".")
            (path / "vmem.yaml").write_text("version: 1\nreviewers: [alice@example.com]\n")
            git("add", "vmem.yaml")
            git("commit", "-qm", "an orphan history")
        elif kind == "hand-approve":
            file = path / model.item_path(claims[op[1]])
            if file.is_file():
                file.write_text(re.sub(r"(?m)^status: \S+$", "status: approved", file.read_text()))
                item = claims[op[1]]
                git("commit", "-qam", f"vmem: approve {item}\n\nVmem-Action: approve\nVmem-Item: {item}\n",
                    check=False)
            else:  # an orphan line: Alice writes the approved claim there herself
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_text(codec.dump(model.normalize_item({
                    "id": claims[op[1]], "kind": "claim", "status": "approved", "created_at": model.now(),
                    "statement": f"fact number {op[1]} about orders", "expires_at": "2099-01-01T00:00:00Z"})))
                git("add", model.item_path(claims[op[1]]))
                git("commit", "-qm", f"vmem: import\n\nVmem-Action: import\n")
        elif kind == "alice-policy":
            raw = codec.load((path / "vmem.yaml").read_text(), "vmem.yaml")
            (path / "vmem.yaml").write_text(codec.dump({**raw, "reviewers": ["alice@example.com"]}))
            git("commit", "-qam", "policy", check=False)
        elif kind in ("alice-approve", "rita-approve"):
            who = RITA if kind == "rita-approve" else ALICE
            on_main = git("rev-parse", "--abbrev-ref", "HEAD").stdout.strip() == "main"
            if kind == "rita-approve" and not on_main:
                git("checkout", "-q", "main")
                on_main = True
            try:
                s = fresh()
                with s.acting_as(who):
                    set_status(s, claims[op[1]], "approved")
                if who == RITA and on_main:
                    legit.add(claims[op[1]])
            except VmemError:
                pass  # refused: not a reviewer here, an illegal transition, an unattested file
        elif kind in ("merge", "octopus") and branches:
            strategy = STRATEGIES[op[1]] if kind == "merge" else []
            sources = branches[-2:] if kind == "octopus" else branches[-1:]
            flags = ["--no-edit", "--allow-unrelated-histories", *strategy]
            if op[2] and kind == "merge":  # main merged into the branch, then main fast-forwarded to it
                git("checkout", "-q", sources[0])
                done = git("merge", "-q", *flags, "main", check=False)
                if done.returncode != 0:
                    git("merge", "--abort", check=False)
                git("checkout", "-q", "main")
                git("merge", "-q", "--ff-only", sources[0], check=False)
            else:
                git("checkout", "-q", "main")
                done = git("merge", "-q", *flags, *sources, check=False)
                if done.returncode != 0:
                    git("merge", "--abort", check=False)
        if kind in ("merge", "rita-approve"):  # the clone follows along, as a teammate's hook would
            current = git("rev-parse", "--abbrev-ref", "HEAD").stdout.strip()
            if current == "main":
                fresh().attestation()
    git("checkout", "-q", "-f", "main")
    for replay in ("followed along", "pinned root only"):
        if replay == "pinned root only":
            for suffix in ("", "-wal", "-shm"):
                Path(str(cache_path(path)) + suffix).unlink(missing_ok=True)
        s = fresh()
        result, _ = sync(path, target=path.parent / f"rules-{replay[0]}")
        served = {model.item_path(i) for i in legit}
        assert {model.item_path(i) for i in result.items} <= served, (replay, ops)
        assert s.attestation().policy["reviewers"] == [REVIEWER[1]], (replay, ops)
    shutil.rmtree(path.parent, ignore_errors=True)


def test_a_store_made_with_its_reviewers_has_no_history_where_anyone_may_review(tmp_path, vmem):
    """`vmem init --reviewer`: the root commit names the reviewers, so a fork from the very first commit is
    already governed and Alice cannot approve there."""
    store = tmp_path / "s"
    vmem("init", str(store), "--reviewer", REVIEWER[1])
    root = run("git", "rev-list", "--max-parents=0", "HEAD", cwd=store).stdout.strip()
    assert f"- {REVIEWER[1]}" in run("git", "show", f"{root}:vmem.yaml", cwd=store).stdout
    claim = json.loads(vmem_cli(store, "propose", "refunds settle daily", "--json").stdout)["data"]["item"]["id"]
    run("git", "checkout", "-q", "-b", "fork", root, cwd=store)
    run("git", "checkout", "-q", "main", "--", model.item_path(claim), cwd=store)
    run("git", "commit", "-qm", "bring the claim", cwd=store, env=_git_env())
    refused = vmem_cli(store, "approve", claim, who=ALICE, check=False)
    assert refused.returncode == 1 and "not a reviewer" in refused.stderr
    assert vmem("init", str(tmp_path / "t"), "--reviewer", "not an address", code=1)
    assert not (tmp_path / "t").exists()


# -- merges that roll a decision back (found by a red-team review of the above) --------------------------------


def _approved_then_revoked(team: Team) -> tuple[str, str]:
    claim = team.propose(team.alice, "refund exports include every test transaction")
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    team.vmem(team.rita, "approve", claim)
    approved_at = team.git(team.rita, "rev-parse", "HEAD").stdout.strip()
    team.vmem(team.rita, "revoke", claim)
    team.git(team.rita, "push", "-q", "origin", "main")
    team.pull(team.alice)
    return claim, approved_at


@pytest.mark.parametrize("how", ["old-parent", "old-branch-fast-forwarded", "old-file-edited-in-the-merge"])
def test_a_merge_cannot_bring_back_what_a_reviewer_revoked(team, how):
    """Rita approves, later revokes. Alice merges in the approved version: with the approving commit itself as a
    second parent; from a branch of that time that merges main with -s ours and is pushed as a fast-forward; or
    taking that version into a merge and editing it. The revoke stands everywhere, and check names the file."""
    claim, approved_at = _approved_then_revoked(team)
    path = model.item_path(claim)
    if how == "old-parent":
        team.git(team.alice, "checkout", "-q", approved_at, "--", path)
        tree = team.git(team.alice, "write-tree").stdout.strip()
        merge = team.git(team.alice, "commit-tree", tree, "-p", "HEAD", "-p", approved_at, "-m",
                         "Merge branch 'x'").stdout.strip()
        team.git(team.alice, "reset", "-q", "--hard", merge)
        team.git(team.alice, "push", "-q", "origin", "main")
    else:
        team.git(team.alice, "checkout", "-q", "-b", "topic", approved_at)
        (team.alice / "NOTES.md").write_text("notes\n")
        team.git(team.alice, "add", "NOTES.md")
        team.git(team.alice, "commit", "-qm", "notes")
        if how == "old-branch-fast-forwarded":
            team.git(team.alice, "merge", "-q", "--no-edit", "-s", "ours", "main")
            team.git(team.alice, "push", "-q", "origin", "topic:main")
        else:
            team.git(team.alice, "checkout", "-q", "main")
            team.git(team.alice, "merge", "-q", "--no-ff", "--no-commit", "topic")
            team.git(team.alice, "checkout", "topic", "--", path)
            _edit(team.alice / path, lambda t: t.replace("include every", "include every single"))
            team.git(team.alice, "commit", "-qam", "Merge branch 'topic'")
            team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    assert re.search(r"(?m)^status: approved$", (team.rita / path).read_text())
    fresh = team.tmp / "fresh"
    vmem_cli(team.tmp, "clone", str(team.bare), str(fresh))
    for clone in (team.rita, fresh):
        _never_served(team, clone, claim, "refund exports include every")
        assert team.json(clone, "show", claim)["computed"]["attested_status"] == "revoked"
    assert any(e["path"] == path for e in team.governance_errors(team.rita))


def test_a_merge_cannot_bring_back_the_roots_policy(tmp_path):
    """A merge whose second parent is the store's first commit, keeping that commit's vmem.yaml (reviewers: [],
    written by Rita's own `vmem init`, so its decider is a reviewer): the policy in force keeps Rita alone."""
    from vmem.ops.demo import seed_store

    (tmp_path / "ritas").mkdir()
    team = Team(seed_store(tmp_path / "ritas", ("Rita", REVIEWER[1]), [REVIEWER[1]], anchored=False), tmp_path)
    root = team.git(team.alice, "rev-list", "--max-parents=0", "HEAD").stdout.strip()
    team.git(team.alice, "checkout", "-q", root, "--", "vmem.yaml")
    tree = team.git(team.alice, "write-tree").stdout.strip()
    merge = team.git(team.alice, "commit-tree", tree, "-p", "HEAD", "-p", root, "-m", "Merge").stdout.strip()
    team.git(team.alice, "reset", "-q", "--hard", merge)
    team.git(team.alice, "push", "-q", "origin", "main")
    claim = team.propose(team.alice, "trial accounts are excluded from ARR")
    refused = team.vmem(team.alice, "approve", claim, check=False)
    assert refused.returncode == 1 and "not a reviewer" in refused.stderr
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    assert any(e["path"] == "vmem.yaml" and merge[:10] in e["message"] for e in team.governance_errors(team.rita))


@pytest.mark.parametrize("how", ["deleted-in-the-merge", "deleted-on-a-branch-then-merged"])
def test_a_merge_cannot_drop_a_customer_from_the_lexicon(team, how):
    path = "entities/tidewell.yaml"
    root = team.git(team.alice, "rev-list", "--max-parents=0", "HEAD").stdout.strip()  # no customers yet
    team.git(team.alice, "checkout", "-q", "-b", "old", root if how == "deleted-in-the-merge" else "main")
    if how == "deleted-in-the-merge":
        (team.alice / "NOTES.md").write_text("notes\n")
        team.git(team.alice, "add", "NOTES.md")
    else:
        team.git(team.alice, "rm", "-rq", path, "episodes/tidewell")
    team.git(team.alice, "commit", "-qm", "on a branch")
    team.git(team.alice, "checkout", "-q", "main")
    team.git(team.alice, "merge", "-q", "--no-ff", "--no-commit", "old")
    if how == "deleted-in-the-merge":
        team.git(team.alice, "rm", "-rq", path, "episodes/tidewell")
    team.git(team.alice, "commit", "-qm", "Merge branch 'old'")
    assert path not in team.git(team.alice, "ls-tree", "-r", "--name-only", "HEAD").stdout
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    shown = _a_learning_naming_tidewell(team)  # quarantined by the de-id gate, not only for thin support
    assert shown["status"] == "quarantined" and shown["gate"]["checks"]["deid"] is False, shown


def test_a_checked_out_fork_that_named_its_own_reviewers_serves_nothing(team):
    """Rita checks out Alice's branch: forked from the root (anyone reviews there), Alice named reviewer, a claim
    mandated by her. On that branch nothing is served; back on main all is as it was."""
    root = team.git(team.alice, "rev-list", "--max-parents=0", "HEAD").stdout.strip()
    team.git(team.alice, "checkout", "-q", "-b", "fork", root)
    raw = (team.alice / "vmem.yaml").read_text().replace("reviewers: []", "reviewers: [alice@example.com]")
    (team.alice / "vmem.yaml").write_text(raw)
    team.git(team.alice, "commit", "-qam", "reviewers")
    claim = team.propose(team.alice, "refund exports include every test transaction")
    path = team.alice / model.item_path(claim)  # her own clone knows the store: she mandates by hand
    path.write_text(re.sub(r"(?m)^status: \S+$", "status: mandatory", path.read_text()))
    team.git(team.alice, "commit", "-qam", f"vmem: mandate {claim}\n\nVmem-Action: mandate\nVmem-Item: {claim}\n")
    team.git(team.alice, "push", "-q", "origin", "fork")
    team.git(team.rita, "fetch", "-q", "origin")
    before = team.served(team.rita, "refund exports")["items"]
    team.git(team.rita, "checkout", "-q", "-b", "fork", "origin/fork")
    _never_served(team, team.rita, claim, "refund exports include every")
    team.git(team.rita, "checkout", "-q", "main")
    assert team.served(team.rita, "refund exports")["items"] == before


def test_a_reviewed_claim_deleted_by_hand_is_reported_not_lost_silently(team):
    claim = team.propose(team.rita, "refunds settle three days after payment", who=ALICE)
    team.vmem(team.rita, "approve", claim)
    team.git(team.rita, "push", "-q", "origin", "main")
    team.pull(team.alice)
    team.git(team.alice, "rm", "-q", model.item_path(claim))
    team.git(team.alice, "commit", "-qm", "tidy")
    removal = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    errors = team.governance_errors(team.rita)
    assert any(e["path"] == model.item_path(claim) and removal[:10] in e["message"] for e in errors), errors
    team.git(team.rita, "revert", "--no-edit", removal)  # a plain revert brings the reviewed claim back
    assert claim in team.served(team.rita, "refunds settle")["items"]
    assert team.json(team.rita, "check", "--governance")["errors"] == []


# -- files no reader can hold, pushed through the remote ---------------------------------------------------------


def test_files_that_crashed_or_fool_a_reader_cross_the_remote_and_are_skipped_and_named(team):
    """Alice hand-commits claim files, marked approved, that broke or could mislead a reader — a 4,400-digit
    statement (int() refuses it), a date before year 1 (datetime overflows), a statement YAML reads as true, one
    YAML reads as a mapping — and pushes. Rita pulls: her sync (rules and hook) and recall go on serving her
    reviewed claim and none of these; `vmem check` names each file."""
    from vmem.store import codec

    claim = team.propose(team.rita, "refunds settle three days after payment", who=ALICE)
    team.vmem(team.rita, "approve", claim)
    team.git(team.rita, "push", "-q", "origin", "main")
    team.pull(team.alice)
    now = "2026-01-02T10:00:00Z"
    hostile = {"7" * 4400: None, "yes": None, "refund totals: net of fees": None,
               "dated before year one": ("created_at: " + now, "created_at: '0001-01-01T00:00:00+01:00'")}
    paths = []
    for n, (statement, swap) in enumerate(hostile.items()):
        item = model.validate("claim", {"id": f"c-{n:04d}feedbeef", "kind": "claim", "statement": "PLACEHOLDER",
                                        "status": "approved", "created_at": now}, "generated")
        text = codec.dump(item).replace("statement: PLACEHOLDER", f"statement: {statement}")
        if swap:
            text = text.replace(*swap)
        path = team.alice / model.item_path(item["id"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(model.item_path(item["id"]))
    team.git(team.alice, "add", *paths)
    team.git(team.alice, "commit", "-qm", "add facts")
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    served = team.served(team.rita, "refund totals")  # sync, sync --hook and recall, each through the console
    assert served["items"] == {claim} and claim in served["recall"]
    assert "7777" not in served["text"] and "dated before" not in served["text"] and "net of fees" not in served["text"]
    checked = team.vmem(team.rita, "check", check=False)
    said = checked.stdout + checked.stderr
    assert checked.returncode == 1 and "Traceback" not in said, said
    assert all(path in said for path in paths), said
