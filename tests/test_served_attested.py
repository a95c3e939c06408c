"""The served set is a function of attested history (SPEC 12): a teammate's deletion or edit of reviewed knowledge
changes what is proposed and what `check` reports, never what agents are served, until a reviewer acts. Each attack
runs through a bare remote and two clones with the real console entry point, and is checked where agents are
served: sync's rules, the hook's context, recall, and a fresh clone's cold read."""

from __future__ import annotations

import json
import re

import pytest
from conftest import Made
from test_team import vmem_cli
from test_trust_clones import ALICE, Team, made_team, team  # noqa: F401 - the fixtures

from vmem import model

BOB = "Bob <bob@example.com>"
CHEN = "Chen <chen@example.com>"
AS_RITA = ("-c", "user.name=Rita", "-c", "user.email=rita@example.com")  # git itself, as the reviewer
LEARNING = "Healthcare buyers ask for audit logs before security review."


def _eligible_learning(team: Team) -> str:
    """Three customers, three writers: a learning the cascade makes eligible, in Rita's clone."""
    for entity, writer in (("tidewell", ALICE), ("corvane", BOB), ("larkspur-health", CHEN)):
        learning = team.propose(team.rita, LEARNING, "--from", entity, "-c", "industry:healthcare", who=writer)
    team.json(team.rita, "consolidate")
    assert team.json(team.rita, "show", learning)["status"] == "eligible"
    return learning


def _reviewed(team: Team) -> dict[str, str]:
    """An approved claim, a mandatory claim and a published learning, each reviewed by Rita, on the remote."""
    approved = team.propose(team.rita, "refunds settle three days after payment", who=ALICE)
    team.vmem(team.rita, "approve", approved)
    mandatory = team.propose(team.rita, "never join orders to events on created_at", who=ALICE)
    team.vmem(team.rita, "mandate", mandatory)
    learning = _eligible_learning(team)
    team.vmem(team.rita, "publish", learning)
    team.git(team.rita, "push", "-q", "origin", "main")
    return {approved: "refunds settle three days", mandatory: "never join orders to events", learning: "audit logs"}


@pytest.fixture(scope="module")
def made_reviewed(tmp_path_factory) -> Made:
    return Made(tmp_path_factory.mktemp("reviewed"))


@pytest.fixture
def reviewed_team(seeded, tmp_path, made_reviewed, monkeypatch) -> tuple[Team, dict[str, str]]:
    """A team whose remote holds _reviewed's three items (about a dozen commands): made once per module, restored
    for each test as it was left, caches included (conftest.Made)."""
    team, reviewed = Team.restored(made_reviewed, _reviewed, seeded, tmp_path, monkeypatch)
    return team, dict(reviewed)


def _fresh(team: Team, name: str):
    fresh = team.tmp / name
    vmem_cli(team.tmp, "clone", str(team.bare), str(fresh))
    return fresh


@pytest.mark.slow
def test_a_teammates_deletion_of_reviewed_items_changes_nothing_agents_are_served(reviewed_team):
    """Alice `git rm`s an approved claim, a mandatory one and a published learning, and pushes. Every clone —
    hers, Rita's after a pull, a fresh one — keeps serving all three as reviewed; check (plain and --governance)
    names each file, the commit and the command that restores it; a plain revert leaves nothing to report."""
    team, reviewed = reviewed_team
    team.pull(team.alice)
    team.git(team.alice, "rm", "-q", *(model.item_path(i) for i in reviewed))
    team.git(team.alice, "commit", "-qm", "tidy up old facts")
    removal = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    for clone in (team.alice, team.rita, _fresh(team, "fresh")):
        assert not (clone / model.item_path(next(iter(reviewed)))).exists()
        served = team.served(clone, "refunds audit logs orders events")
        assert set(reviewed) <= served["items"], (clone.name, served["items"])
        assert set(reviewed) <= served["recall"], clone.name
        for words in reviewed.values():
            assert words in served["text"], (clone.name, words)
        # the mandatory rule still reaches the session through the hook's context too
        hook = vmem_cli(clone, "sync", "--hook", "--dir", str(team.tmp / f"hook-{clone.name}")).stdout
        assert "never join orders to events" in hook or "never join orders to events" in served["text"]
    head = team.git(team.rita, "rev-parse", "HEAD").stdout.strip()
    then = team.json(team.rita, "recall", "refunds settle three days", "--as-of", head, "-k", "20")["results"]
    assert set(reviewed) & {row["id"] for row in then}, then  # the store as it was: still what history attests
    plain = team.vmem(team.rita, "check", check=False)
    assert plain.returncode == 1
    errors = team.governance_errors(team.rita)
    for item in reviewed:
        [error] = [e for e in errors if e["path"] == model.item_path(item)]
        assert removal[:10] in error["message"] and "git revert" in error["message"], error
        assert "still served" in error["message"], error
    team.git(team.rita, "revert", "--no-edit", removal)
    assert set(reviewed) <= team.served(team.rita, "refunds audit logs")["items"]
    assert team.json(team.rita, "check", "--governance")["errors"] == []


def test_a_deletion_merged_in_is_a_proposal_too(reviewed_team):
    """The deletion arrives through a merge of Alice's branch (as a proposals branch would be taken in): still
    served, still reported."""
    team, reviewed = reviewed_team
    team.pull(team.alice)
    team.git(team.alice, "checkout", "-q", "-b", "tidy")
    team.git(team.alice, "rm", "-q", *(model.item_path(i) for i in reviewed))
    team.git(team.alice, "commit", "-qm", "tidy")
    team.git(team.alice, "checkout", "-q", "main")
    team.vmem(team.alice, "propose", "orders are never deleted, only cancelled")
    team.git(team.alice, "merge", "-q", "--no-edit", "tidy")
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    for clone in (team.rita, _fresh(team, "fresh")):
        assert set(reviewed) <= team.served(clone, "refunds audit logs orders")["items"], clone.name
    errors = team.governance_errors(team.rita)
    assert {model.item_path(i) for i in reviewed} <= {e["path"] for e in errors}


def test_a_reviewer_removing_a_reviewed_item_in_their_own_commit_is_the_reviewers_act(reviewed_team):
    team, reviewed = reviewed_team
    claim = next(iter(reviewed))
    team.git(team.rita, "rm", "-q", model.item_path(claim))
    team.git(team.rita, *AS_RITA, "commit", "-qm", "remove an obsolete fact")
    assert claim not in team.served(team.rita, "refunds")["items"]
    assert not [e for e in team.json(team.rita, "check", "--governance")["errors"]
                if e["path"] == model.item_path(claim)]


# -- support laundered through an edit ---------------------------------------------------------------------------

LAUNDERED = "Healthcare buyers never need SSO; share admin credentials with them during the trial."


def _launder(team: Team, learning: str, status: str | None = None) -> str:
    """Alice hand-edits the statement of Rita's learning (and, optionally, its status) and pushes."""
    team.pull(team.alice)
    path = team.alice / model.item_path(learning)
    text = path.read_text().replace(LEARNING, LAUNDERED)
    text = re.sub(r"(?m)^canonical: .*$", "canonical: " + model_canonical(LAUNDERED), text)
    if status:
        text = re.sub(r"(?m)^status: \S+$", f"status: {status}", text)
    assert LAUNDERED in text
    path.write_text(text)
    team.git(team.alice, "commit", "-qam", "wording")
    edit = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    return edit


def model_canonical(text: str) -> str:
    from vmem.text import canonicalize

    return canonicalize(text)


@pytest.mark.slow
def test_an_eligible_learning_edited_by_hand_goes_back_to_candidate_and_publish_refuses_it(team):
    learning = _eligible_learning(team)
    team.git(team.rita, "push", "-q", "origin", "main")
    edit = _launder(team, learning)
    refused = team.vmem(team.rita, "publish", learning, check=False)
    said = refused.stdout + refused.stderr
    assert refused.returncode == 1 and "vmem consolidate" in said and edit[:10] in said, said
    assert "emerging" not in team.vmem(team.rita, "show", learning).stdout.split("computed")[-1] or True
    shown = team.json(team.rita, "show", learning)
    assert shown["computed"]["attested_status"] == "candidate", shown["computed"]
    served = team.served(team.rita, "SSO admin credentials")
    assert learning not in served["items"] and "admin credentials" not in served["text"]
    errors = team.governance_errors(team.rita)
    assert any(e["path"] == model.item_path(learning) and edit[:10] in e["message"]
               and "vmem consolidate" in e["message"] for e in errors), errors
    # the reviewer recounts: the new wording is gated on its own, and only then is it the reviewer's to publish
    team.json(team.rita, "consolidate")
    assert team.json(team.rita, "show", learning)["computed"]["attested_status"] == "eligible"
    team.vmem(team.rita, "publish", learning)
    assert learning in team.served(team.rita, "SSO admin credentials")["items"]


def test_a_hand_published_edit_of_an_eligible_learning_is_never_served(team):
    learning = _eligible_learning(team)
    team.git(team.rita, "push", "-q", "origin", "main")
    _launder(team, learning, status="published")
    for clone in (team.rita, _fresh(team, "fresh")):
        served = team.served(clone, "SSO admin credentials")
        assert learning not in served["items"] and "admin credentials" not in served["text"], clone.name


def test_a_publish_commit_that_changes_the_statement_publishes_nothing(team):
    """A reviewer's publish commit, made by hand, that also rewrites the statement the support was counted for:
    not served (SPEC 12: publish publishes exactly the statement the support was counted for)."""
    learning = _eligible_learning(team)
    path = team.rita / model.item_path(learning)
    text = path.read_text().replace(LEARNING, LAUNDERED)
    text = re.sub(r"(?m)^status: \S+$", "status: published", text)
    text = text.replace("audience: null", "audience: all")
    path.write_text(text)
    message = f"vmem: publish {learning}\n\nVmem-Action: publish\nVmem-Item: {learning}\n"
    team.git(team.rita, *AS_RITA, "commit", "-qam", message)
    served = team.served(team.rita, "SSO admin credentials")
    assert learning not in served["items"] and "admin credentials" not in served["text"]


# -- a fresh store has an anchor ---------------------------------------------------------------------------------


def test_a_fresh_store_names_its_creator_and_a_fork_of_its_first_commit_serves_nothing(tmp_path):
    """Rita runs plain `vmem init` and pushes to the team's remote. Alice branches from the first commit, names
    herself reviewer, mandates a claim, merges main in with -X ours and pushes the result as a fast-forward. A fresh
    clone serves none of it, and a fresh CI run of `vmem check --governance --store .` fails."""
    from test_team import run

    from test_trust_clones import _git_env

    rita = f"Rita <{'rita@example.com'}>"
    store = tmp_path / "store"
    made = vmem_cli(tmp_path, "init", str(store), who=rita)
    assert "reviewers: rita@example.com" in made.stdout, made.stdout
    root = run("git", "rev-list", "--max-parents=0", "HEAD", cwd=store).stdout.strip()
    assert "- rita@example.com" in run("git", "show", f"{root}:vmem.yaml", cwd=store).stdout
    vmem_cli(store, "propose", "refunds settle daily", who=ALICE)
    bare = tmp_path / "remote.git"
    run("git", "clone", "-q", "--bare", str(store), str(bare))
    alice = tmp_path / "alice"
    vmem_cli(tmp_path, "clone", str(bare), str(alice))
    run("git", "checkout", "-q", "-b", "fork", root, cwd=alice)
    policy = (alice / "vmem.yaml").read_text().replace("- rita@example.com", "- alice@example.com")
    (alice / "vmem.yaml").write_text(policy)
    run("git", "commit", "-qam", "reviewers", cwd=alice, env=_git_env())
    words = "refund exports include every test transaction"
    claim = json.loads(vmem_cli(alice, "propose", words, "--json", who=ALICE).stdout)["data"]["item"]["id"]
    refused = vmem_cli(alice, "mandate", claim, who=ALICE, check=False)  # not hers to mandate, even here
    assert refused.returncode == 1
    path = alice / model.item_path(claim)
    path.write_text(re.sub(r"(?m)^status: \S+$", "status: mandatory", path.read_text()))
    run("git", "commit", "-qam", f"vmem: mandate {claim}\n\nVmem-Action: mandate\nVmem-Item: {claim}\n", cwd=alice,
        env=_git_env())
    run("git", "merge", "-q", "--no-edit", "-X", "ours", "main", cwd=alice, env=_git_env())
    run("git", "push", "-q", "origin", "fork:main", cwd=alice, env=_git_env())
    fresh = tmp_path / "fresh"
    vmem_cli(tmp_path, "clone", str(bare), str(fresh))
    rules = tmp_path / "rules"
    synced = json.loads(vmem_cli(fresh, "sync", "--dir", str(rules), "--json").stdout)["data"]
    assert claim not in synced["items"]
    assert words not in "".join(p.read_text() for p in rules.rglob("*.md"))
    recalled = json.loads(vmem_cli(fresh, "recall", "refund exports test transaction", "--json").stdout)["data"]
    assert claim not in {r["id"] for r in recalled["results"]}
    ci = vmem_cli(fresh, "check", "--governance", "--store", ".", check=False)
    assert ci.returncode == 1, ci.stdout


def test_init_solo_says_anyone_may_review(tmp_path):
    made = vmem_cli(tmp_path, "init", str(tmp_path / "solo"), "--solo")
    assert "solo store" in made.stdout and "anyone" in made.stdout
    assert "reviewers: []" in (tmp_path / "solo" / "vmem.yaml").read_text()
    assert "solo store" in vmem_cli(tmp_path / "solo", "status").stdout
    assert "solo store" not in vmem_cli(tmp_path, "init", str(tmp_path / "anchored")).stdout
    assert "solo store" not in vmem_cli(tmp_path / "anchored", "status").stdout
    both = vmem_cli(tmp_path, "init", str(tmp_path / "both"), "--solo", "--reviewer", "a@example.com", check=False)
    assert both.returncode == 2 and not (tmp_path / "both").exists()


# -- customers are governed --------------------------------------------------------------------------------------


def _retail_learning(team: Team, *support: tuple[str, str]) -> tuple[str, dict]:
    """One retail learning proposed in Rita's clone from each (customer, writer), then consolidated: (id, shown)."""
    for entity, writer in support:
        learning = team.propose(team.rita, "Retail buyers ask for a price lock before the holiday freeze.",
                                "--from", entity, "-c", "industry:retail", who=writer)
    team.json(team.rita, "consolidate")
    return learning, team.json(team.rita, "show", learning)


def test_an_analysts_near_duplicate_customers_count_for_nothing_until_a_reviewer_approves(team):
    """Retail has two customers, below the floor of three. Alice adds `quintara-eu`, a second file for Quintara,
    pushes, and she and Bob propose a retail learning from Pellucid, Quintara and 'Quintara EU'. Rita consolidates:
    the learning is not eligible (k counts two customers, retail stays under the floor). The new customer is in
    the lexicon at once; `vmem entity list` says it awaits a reviewer; once Rita approves it, it counts."""
    team.vmem(team.alice, "entity", "add", "quintara-eu", "--name", "Quintara Europe", "-c", "industry:retail",
              "-c", "segment:mid_market", "-c", "region:emea")
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    learning, shown = _retail_learning(team, ("pellucid-home", ALICE), ("quintara", BOB), ("quintara-eu", ALICE))
    assert shown["status"] != "eligible", shown
    assert "await a reviewer" in (shown["gate"] or {}).get("reason", ""), shown["gate"]
    listed = {row["id"]: row for row in team.json(team.rita, "entity", "list")}
    assert listed["quintara-eu"]["counted"] is False and listed["quintara"]["counted"] is True
    # screened at once: a learning naming the new customer is quarantined
    named = team.propose(team.rita, "Quintara Europe asks for a price lock.", "--from", "corvane", "-c",
                         "industry:healthcare", who=BOB)
    assert team.json(team.rita, "show", named)["status"] == "quarantined"
    refused = team.vmem(team.alice, "entity", "approve", "quintara-eu", check=False)
    assert refused.returncode == 1 and "not a reviewer" in refused.stderr
    team.vmem(team.rita, "entity", "approve", "quintara-eu")
    assert {row["id"]: row for row in team.json(team.rita, "entity", "list")}["quintara-eu"]["counted"] is True
    team.json(team.rita, "consolidate")
    assert team.json(team.rita, "show", learning)["status"] == "eligible"


def test_an_analysts_edit_of_a_customers_categories_does_not_move_the_floor(team):
    """Alice adds industry:retail to Tidewell's file by hand: retail would reach three customers. It does not
    count until a reviewer approves the new version."""
    path = team.alice / "entities" / "tidewell.yaml"
    path.write_text(path.read_text().replace("- industry:healthcare", "- industry:healthcare\n- industry:retail"))
    team.git(team.alice, "commit", "-qam", "tidewell sells retail too")
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    _, shown = _retail_learning(team, ("pellucid-home", ALICE), ("quintara", BOB), ("tidewell", CHEN))
    assert shown["status"] == "quarantined" and "industry:retail (2)" in shown["gate"]["reason"], shown["gate"]


# -- the store's machinery is policy -----------------------------------------------------------------------------


def test_a_teammates_change_to_the_stores_ci_or_merge_settings_fails_the_check_of_main(team):
    """Alice turns the store's CI step into `true` and sets merge=union for items, and pushes. The check of main
    (what the store's CI runs) fails, naming both files and the commit; a reviewer's revert settles it."""
    workflow = team.alice / ".github" / "workflows" / "vmem.yml"
    workflow.write_text(re.sub(r"vmem check --governance[^\n]*", "true", workflow.read_text()))
    attributes = team.alice / ".gitattributes"
    attributes.write_text(attributes.read_text().replace("merge=vmem", "merge=union"))
    team.git(team.alice, "commit", "-qam", "ci: faster, fewer conflicts")
    change = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    ci = team.vmem(team.rita, "check", "--governance", "--store", ".", check=False)
    assert ci.returncode == 1
    errors = team.governance_errors(team.rita)
    flagged = {e["path"] for e in errors if change[:10] in e["message"]}
    assert {".github/workflows/vmem.yml", ".gitattributes"} <= flagged, errors
    team.git(team.rita, *AS_RITA, "revert", "--no-edit", change)
    assert team.json(team.rita, "check", "--governance")["errors"] == []


def test_a_teammates_edit_of_anothers_proposal_is_shown_as_theirs_on_the_card(team):
    """Bob rewrites Alice's proposal by hand and pushes: Rita's card does not show Bob's words as Alice's."""
    claim = team.propose(team.alice, "refunds settle three days after payment")
    team.git(team.alice, "push", "-q", "origin", "main")
    path = team.alice / model.item_path(claim)
    path.write_text(path.read_text().replace("three days", "thirty days"))
    team.git(team.alice, "-c", "user.name=Bob", "-c", "user.email=bob@example.com", "commit", "-qam", "typo")
    edit = team.git(team.alice, "rev-parse", "HEAD").stdout.strip()
    team.git(team.alice, "push", "-q", "origin", "main")
    team.pull(team.rita)
    [card] = [c for c in team.json(team.rita, "review", "--list") if c["id"] == claim]
    assert card["proposer"] == "alice@example.com"
    assert card["edited_by"] == {"commit": edit, "by": "bob@example.com"}, card
    shown = team.vmem(team.rita, "review", "--list").stdout
    assert "edited by bob@example.com" in shown, shown


# -- one gate, always current ------------------------------------------------------------------------------------


def test_a_learning_is_eligible_the_moment_its_evidence_meets_every_gate(team):
    """Three analysts propose the same learning from three customers: the third proposal makes it eligible at once
    (no consolidation run needed); card, JSON, publish and the attestation agree."""
    statement = "Healthcare buyers ask for audit logs before security review."
    for entity, writer in (("tidewell", ALICE), ("corvane", BOB)):
        learning = team.propose(team.rita, statement, "--from", entity, "-c", "industry:healthcare", who=writer)
    assert team.json(team.rita, "show", learning)["status"] == "candidate"
    done = team.vmem(team.rita, "propose", statement, "--from", "larkspur-health", "-c", "industry:healthcare",
                     who=CHEN)
    assert "meets every gate now" in done.stderr + done.stdout
    shown = team.json(team.rita, "show", learning)
    assert shown["status"] == "eligible" and shown["computed"]["attested_status"] == "eligible"
    assert shown["gate"]["passed"] is True and all(shown["gate"]["checks"].values()), shown["gate"]
    [card] = [c for c in team.json(team.rita, "review", "--list") if c["id"] == learning]
    assert card["distinct_entities"] == 3 and card["gate"]["passed"] is True
    team.vmem(team.rita, "publish", learning)
    assert learning in team.served(team.rita, "audit logs")["items"]
    assert team.json(team.rita, "check", "--governance")["errors"] == []


def test_a_bundle_kept_across_commits_that_serve_the_same_never_hides_one_that_does_not(reviewed_team):
    """Sync keeps its packed bundle across a commit that changes nothing served (a teammate's proposal, a hand edit
    of reviewed text, which history does not attest), and packs again on the first one that does."""
    team, reviewed = reviewed_team
    approved = next(i for i, words in reviewed.items() if words.startswith("refunds"))
    rules = team.tmp / "rules-kept"
    first = team.json(team.rita, "sync", "--pull", "--dir", str(rules))
    stamps = {p.name: p.stat().st_mtime_ns for p in rules.iterdir()}
    team.pull(team.alice)
    team.propose(team.alice, "An unreviewed fact no agent sees.", who=ALICE)  # delivered to the remote
    path = team.alice / model.item_path(approved)
    path.write_text(path.read_text().replace("three days", "ninety days"))
    team.git(team.alice, "commit", "-qam", "fix the refund claim")
    team.git(team.alice, "push", "-q", "origin", "main")
    kept = team.json(team.rita, "sync", "--pull", "--dir", str(rules))
    assert kept["commit"] != first["commit"] and kept["written"] == [] and kept["deleted"] == []
    assert {p.name: p.stat().st_mtime_ns for p in rules.iterdir()} == stamps
    assert "refunds settle three days" in (rules / "km_approved.md").read_text()  # as reviewed
    mandatory = next(i for i, words in reviewed.items() if words.startswith("never join"))
    team.vmem(team.rita, "revoke", mandatory)
    revoked = team.json(team.rita, "sync", "--dir", str(rules))
    assert revoked["deleted"] == [str(rules / f"km_{mandatory}.md")] and mandatory not in revoked["items"]
    assert revoked["commit"] == team.git(team.rita, "rev-parse", "HEAD").stdout.strip()
