"""Delivery under attack (SPEC 15): what a hostile or careless teammate with push access can do to the team's
remote — force-push main past a reviewer's decision, slip a rename of the policy into a proposals branch,
force-push over another clone's proposals — is refused or reported, never re-delivered under someone else's
name and never lost silently. Each attack runs through a bare remote, the real `vmem` console script and git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_team_flow import PROTECT, TEAM_URL, _remote_statements, crew  # noqa: F401 - crew is a fixture

from vmem import model


def _remote_git(remote: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(remote), *args], capture_output=True, text=True, check=check)


def _contains(remote: Path, commit: str, ref: str = "main") -> bool:
    return _remote_git(remote, "merge-base", "--is-ancestor", commit, ref, check=False).returncode == 0


def _protect(remote: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(PROTECT)
    hook.chmod(0o755)


def _managed(person) -> Path:
    """PERSON's managed clone of the team's store (what their projects use)."""
    from vmem.store.remote import mirror_path

    return Path(person.env()["XDG_DATA_HOME"]) / "vmem" / "stores" / mirror_path(TEAM_URL).name


def _proposal_branches(remote: Path) -> dict[str, str]:
    listed = _remote_git(remote, "for-each-ref", "--format=%(refname:strip=2) %(objectname)",
                         "refs/heads/vmem/proposals/").stdout
    return dict(line.split() for line in listed.splitlines())


def _propose(person, where: Path, text: str) -> str:
    return json.loads(person.vmem(where, "propose", text, "--json").stdout)["data"]["item"]["id"]


# -- a force-push past a reviewer's decision ---------------------------------------------------------------------


@pytest.mark.parametrize("how", ["rewound", "rewritten", "rewritten-while-a-proposal-waits",
                                 "rewritten-and-fetched-by-hand"])
def test_a_force_push_that_drops_a_reviewers_revoke_is_reported_and_never_redelivered_by_the_analyst(crew, how):
    """Rita approves, then revokes; Alice's clone takes the revoke in; Bob force-pushes main to the approval (or to
    a commit of his own on it). Alice's next session start neither replays the revoke as her commit nor pushes it
    back: her clone follows the remote, delivers only her own commits, and every status names what was dropped
    until a reviewer restores it. (Not covered: main rewound and then fetched by plain git before vmem looks; the
    revoke then goes back unchanged, still Rita's commit, as it would after Rita merged it back herself.)"""
    remote, rita, clone, alice, project, bob, _ = crew
    base = remote.parent
    claim = _propose(alice, project, "Refund exports include every test transaction.")
    rita.vmem(clone, "sync", "--pull", "--dir", str(base / "rita-rules"))
    rita.vmem(clone, "approve", claim)
    approved = rita.git(clone, "rev-parse", "HEAD").strip()
    rita.vmem(clone, "revoke", claim, "--reason", "test transactions are filtered out now")
    revoked = rita.git(clone, "rev-parse", "HEAD").strip()
    assert _contains(remote, revoked)
    alice.session_start(project)  # Alice's managed clone takes the revoke in
    assert alice.git(_managed(alice), "rev-parse", "HEAD").strip() == revoked

    raw = base / "bob-raw"  # Bob, with push access to main
    bob.git(base, "clone", "-q", TEAM_URL, str(raw))
    bob.git(raw, "reset", "-q", "--hard", approved)
    if how != "rewound":
        (raw / "README.md").write_text((raw / "README.md").read_text() + "\nBob was here.\n")
        bob.git(raw, "commit", "-qam", "README: a note")
    bob.git(raw, "push", "-q", "--force", "origin", "HEAD:main")
    waiting_text = "Chargebacks are filed within thirty days."
    if how.endswith("waits"):
        _propose(alice, project, waiting_text)
    if how.endswith("by-hand"):  # a plain `git fetch` takes the new head in before vmem sees it (the reflog tells)
        alice.git(_managed(alice), "fetch", "-q", "origin")
    pulled = alice.vmem(project, "sync", "--pull")

    log = [line.split("\t") for line in _remote_git(remote, "log", "--format=%H\t%ce\t%s", "main").stdout.splitlines()]
    assert not [row for row in log if row[1] == alice.email and row[2].startswith(f"vmem: revoke {claim}")], log
    assert not _contains(remote, revoked)  # nor pushed back as it was: restoring it is a reviewer's call
    if how.endswith("waits"):  # her own proposal went, as her commit
        assert waiting_text in _remote_statements(remote)
        assert any(row[1] == alice.email and "Chargebacks" in row[2] for row in log)
    assert revoked[:10] in pulled.stderr and "dropped" in pulled.stderr, pulled.stderr

    for _ in range(2):  # said again by every status until it is settled
        data = json.loads(alice.vmem(project, "status", "--json").stdout)["data"]
        [gone] = data["dropped"]
        assert gone["commit"].startswith(revoked[:10]) and gone["subject"].startswith(f"vmem: revoke {claim}")
        assert "Rita Reviewer" in gone["committer"]
        human = alice.vmem(project, "status").stdout
        assert revoked[:10] in human and "Rita Reviewer" in human and "dropped" in human, human
    assert "dropped" in alice.vmem(project, "propose", "Refunds settle in five days.").stderr  # after a write too

    # the reviewer sees it too, and restores the revoke the way the message says
    told = rita.vmem(clone, "status").stdout
    assert revoked[:10] in told and f"git merge {revoked[:10]}" in told, told
    rita.git(clone, "merge", "-q", "--no-edit", revoked)
    rita.vmem(clone, "status")  # delivers the merge
    assert _contains(remote, revoked)
    data = json.loads(alice.vmem(project, "status", "--json").stdout)["data"]
    assert data["dropped"] == [] and "dropped" not in alice.vmem(project, "status").stdout


# -- a proposals branch that reaches beyond open items -----------------------------------------------------------


def test_a_proposals_branch_that_renames_deletes_or_decides_anything_is_not_merged(crew):
    """A teammate pushes proposals branches that move vmem.yaml, the CI file or .gitattributes into episodes/ (a
    rename lists only its new name to a plain diff), delete or edit an approved claim, or add a claim that says
    it is approved. The reviewer's `vmem review` merges none of them and names the paths; an honest proposal
    pushed at the same time is merged."""
    remote, rita, clone, alice, project, bob, _ = crew
    base = remote.parent
    approved = _propose(rita, clone, "Invoices are issued on the first business day.")
    rita.vmem(clone, "approve", approved)
    _protect(remote)
    path = model.item_path(approved)

    raw = base / "bob-raw"
    bob.git(base, "clone", "-q", TEAM_URL, str(raw))

    def branch(name: str, change) -> None:
        bob.git(raw, "checkout", "-q", "-B", name, "origin/main")
        change()
        bob.git(raw, "add", "-A")
        bob.git(raw, "commit", "-qm", f"proposals: {name}")
        bob.git(raw, "push", "-q", "origin", f"HEAD:refs/heads/vmem/proposals/bob-example.com/{name}")

    def edit_approved() -> None:
        (raw / path).write_text((raw / path).read_text().replace("first business day", "last business day"))

    def add_as_approved() -> None:
        fresh = "c-0123456789ab"
        text = (raw / path).read_text().replace(approved, fresh).replace("first business day", "second Tuesday")
        (raw / model.item_path(fresh)).parent.mkdir(parents=True, exist_ok=True)
        (raw / model.item_path(fresh)).write_text(text)

    offending = {
        "policy-moved": (lambda: bob.git(raw, "mv", "vmem.yaml", "episodes/notes.yaml"), "vmem.yaml"),
        "ci-moved": (lambda: bob.git(raw, "mv", ".github/workflows/vmem.yml", "episodes/ci.yaml"),
                     ".github/workflows/vmem.yml"),
        "attributes-moved": (lambda: bob.git(raw, "mv", ".gitattributes", "episodes/tidewell/x.yaml"),
                             ".gitattributes"),
        "approved-deleted": (lambda: bob.git(raw, "rm", "-q", path), path),
        "approved-edited": (edit_approved, path),
        "added-as-approved": (add_as_approved, model.item_path("c-0123456789ab")),
    }
    for name, (change, _) in offending.items():
        branch(name, change)
    honest = "Dunning emails pause during a payment dispute."
    _propose(alice, project, honest)

    taken = rita.vmem(clone, "review", "--list").stderr
    for name, (_, named) in offending.items():
        [row] = [line for line in taken.splitlines() if f"bob-example.com/{name}:" in line]
        assert "not merged" in row and named in row and "git -C" in row, row
    main = _remote_git(remote, "ls-tree", "-r", "--name-only", "main").stdout.split()
    assert {"vmem.yaml", ".github/workflows/vmem.yml", ".gitattributes", path} <= set(main)
    assert not [p for p in main if p.startswith("episodes/") and p.count("/") == 1 and p != "episodes/.gitkeep"]
    assert "first business day" in _remote_git(remote, "show", f"main:{path}").stdout
    assert model.item_path("c-0123456789ab") not in main
    assert honest in _remote_statements(remote)  # the honest branch still goes in


# -- proposals branches: one per clone, never overwritten ---------------------------------------------------------


def test_two_clones_of_one_writer_propose_with_main_protected_and_the_reviewer_takes_in_both(crew):
    """Alice's project (the managed clone) and her own `vmem clone` both propose while main is protected: neither
    overwrites the other's proposals, and the reviewer's `vmem review` takes in all of them."""
    remote, rita, clone, alice, project, _, _ = crew
    _protect(remote)
    own = remote.parent / "alice-store"
    alice.vmem(remote.parent, "clone", TEAM_URL, str(own))
    texts = ["Dunning emails pause during a payment dispute.", "Credit notes are numbered per legal entity.",
             "Refund lag is measured in business days."]
    _propose(alice, project, texts[0])
    _propose(alice, own, texts[1])
    _propose(alice, project, texts[2])
    branches = _proposal_branches(remote)
    assert len(branches) == 2 and all(b.startswith("vmem/proposals/alice-example.com/") for b in branches)
    for where in (project, own):
        checked = json.loads(alice.vmem(where, "status", "--json").stdout)["data"]["on_remote"]
        assert checked["checked"] and checked["missing"] == 0 and checked["held"] >= 1, checked
    rita.vmem(clone, "review", "--list")
    assert set(texts) <= _remote_statements(remote)


@pytest.mark.parametrize("via", ["status", "sync"])
def test_a_proposals_branch_wiped_by_a_teammate_is_noticed_and_delivered_again(crew, via):
    """Bob force-pushes main over Alice's proposals branch: her next status (or session start) checks the remote,
    says her proposal was no longer there, and delivers it again; the reviewer takes it in."""
    remote, rita, clone, alice, project, bob, _ = crew
    _protect(remote)
    text = "Dunning emails pause during a payment dispute."
    _propose(alice, project, text)
    [(name, mine)] = _proposal_branches(remote).items()
    raw = remote.parent / "bob-raw"
    bob.git(remote.parent, "clone", "-q", TEAM_URL, str(raw))
    bob.git(raw, "push", "-q", "--force", "origin", f"origin/main:refs/heads/{name}")
    assert not _contains(remote, mine, name)
    if via == "status":
        data = json.loads(alice.vmem(project, "status", "--json").stdout)["data"]
        assert data["on_remote"]["lost"] == 1 and data["on_remote"]["missing"] == 0, data
        told = alice.vmem(project, "status").stdout  # now all there again
        assert "1 proposal on origin" in told, told
    else:
        said = alice.vmem(project, "sync", "--pull").stderr
        assert "no longer on origin" in said, said
    assert _contains(remote, mine, name)
    rita.vmem(clone, "review", "--list")
    assert text in _remote_statements(remote)


def test_a_teammates_commits_on_a_proposals_branch_are_never_overwritten(crew):
    """Bob force-pushes a commit of his own over Alice's proposals branch. Alice's clone does not push --force
    over what it lacks: status says her proposal is not on the remote and names the fix; after it, her proposal
    goes to a branch of its own and the reviewer takes it in; Bob's commit is still where he put it."""
    remote, rita, clone, alice, project, bob, _ = crew
    _protect(remote)
    text = "Dunning emails pause during a payment dispute."
    _propose(alice, project, text)
    [name] = _proposal_branches(remote)
    raw = remote.parent / "bob-raw"
    bob.git(remote.parent, "clone", "-q", TEAM_URL, str(raw))
    (raw / "README.md").write_text((raw / "README.md").read_text() + "\nBob was here.\n")
    bob.git(raw, "commit", "-qam", "README: a note")
    bobs = bob.git(raw, "rev-parse", "HEAD").strip()
    bob.git(raw, "push", "-q", "--force", "origin", f"HEAD:refs/heads/{name}")

    data = json.loads(alice.vmem(project, "status", "--json").stdout)["data"]
    assert data["on_remote"]["missing"] == 1 and data["delivery"]["state"] == "waiting", data
    assert "config --unset vmem.cloneid" in data["delivery"]["hint"], data["delivery"]
    told = alice.vmem(project, "status").stdout
    assert "not on origin" in told and "everything is delivered" not in told, told
    assert _proposal_branches(remote)[name] == bobs  # not overwritten

    alice.git(_managed(alice), "config", "--unset", "vmem.cloneid")  # the fix the message names
    alice.vmem(project, "status")
    assert len(_proposal_branches(remote)) == 2 and _proposal_branches(remote)[name] == bobs
    taken = rita.vmem(clone, "review", "--list").stderr
    assert text in _remote_statements(remote)
    assert "README.md" in taken and "Bob was here." not in _remote_git(remote, "show", "main:README.md").stdout


# -- a proposal that claims more trust than its source gives -----------------------------------------------------------


@pytest.mark.parametrize("source, confidence", [({"type": "analyst"}, 0.95), ({"type": "admin_mandate"}, 1.0),
                                                ({"type": "session_transcript", "kind": "confirmation"}, 0.9)])
def test_a_hand_written_proposal_with_inflated_confidence_is_refused_at_approval(crew, tmp_path, source, confidence):
    """Bob writes a proposed claim by hand with a base confidence (or a source) no vmem command would give it and
    pushes it; Rita's approval is refused with the reason and the way out, so a reviewer's 'yes' to the words never
    serves the inflated trust (SPEC 9: base confidence by source)."""
    remote, rita, clone, _, _, bob, _ = crew
    raw = tmp_path / "bob-raw"
    bob.git(tmp_path, "clone", "-q", str(remote), str(raw))
    item = model.normalize_item({
        "id": model.new_id("claim"), "kind": "claim", "statement": "Refund exports run at 02:00 UTC every night.",
        "status": "proposed", "confidence": confidence, "created_at": model.now(), "valid_from": model.now(),
        "source": {"user": bob.email, "episode": None, **source}})
    from vmem.store import codec

    path = raw / model.item_path(item["id"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(codec.dump(item))
    bob.git(raw, "add", "-A")
    bob.git(raw, "commit", "-qm", "a fact")
    bob.git(raw, "push", "-q", "origin", "HEAD:main")
    rita.vmem(clone, "sync", "--pull", "--dir", str(tmp_path / "rita-rules"))
    refused = rita.vmem(clone, "approve", item["id"], code=1).stderr
    assert "edited by hand" in refused and f"vmem reject {item['id']}" in refused
    shown = json.loads(rita.vmem(clone, "show", item["id"], "--json").stdout)["data"]
    assert (shown.get("item") or shown)["status"] == "proposed"
