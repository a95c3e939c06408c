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

import pytest
from conftest import REVIEWER
from test_team import run, vmem_cli

from vmem import model

RITA = f"Rita <{REVIEWER[1]}>"  # the store's one reviewer
ALICE = "Alice Analyst <alice@example.com>"  # an analyst with push access


def _git_env() -> dict:
    """The test's environment (its HOME and identity), with this interpreter's vmem on PATH for the merge driver."""
    return {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}


class Team:
    """A store on a bare remote, Alice's clone and Rita's (the reviewer's), each through `vmem clone`."""

    def __init__(self, seeded, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.bare = tmp_path / "remote.git"
        run("git", "clone", "-q", "--bare", str(seeded.root), str(self.bare))
        self.alice, self.rita = tmp_path / "alice", tmp_path / "rita"
        for clone in (self.alice, self.rita):
            vmem_cli(tmp_path, "clone", str(self.bare), str(clone))

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


@pytest.fixture
def team(seeded, tmp_path) -> Team:
    return Team(seeded, tmp_path)


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


def test_an_entity_file_deleted_by_hand_still_feeds_the_de_id_gate(team):
    """Alice deletes entities/tidewell.yaml and its episodes with a plain commit and pushes; a learning naming
    Tidewell, proposed afterwards in Rita's clone, is still quarantined, and check names the commit."""
    assert (team.alice / "entities" / "tidewell.yaml").is_file()
    team.git(team.alice, "rm", "-rq", "entities/tidewell.yaml", "episodes/tidewell")
    team.git(team.alice, "commit", "-qm", "tidy up customers")
    removal = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    statement = "Tidewell asks for audit logs before every security review."
    for entity, writer in (("corvane", ALICE), ("larkspur-health", "Bob <bob@example.com>"),
                           ("corvane", "Chen <chen@example.com>")):
        learning = team.propose(team.rita, statement, "--from", entity, "-c", "industry:healthcare", who=writer)
    team.json(team.rita, "consolidate")
    shown = team.json(team.rita, "show", learning)
    assert shown["status"] == "quarantined", shown
    refused = team.vmem(team.rita, "publish", learning, check=False)
    assert refused.returncode == 1
    errors = team.governance_errors(team.rita)
    assert any(e["path"] == "entities/tidewell.yaml" and removal[:10] in e["message"] for e in errors), errors
