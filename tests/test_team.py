"""Teams over a git remote: two clones, a bare repository, the merge driver, sync --pull."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pygit2

from vmem import model
from vmem.ops.merge import merge_items


def run(*args, cwd=None, env=None, check=True):
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, check=check)


def vmem_cli(store_dir, *args, check=True, who=None):
    env = {**os.environ, "VMEM_STORE": str(store_dir)}
    if who is not None:  # that person running vmem in this clone, as git sees them
        name, email = who[:-1].split(" <")
        env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    done = run(sys.executable, "-m", "vmem", *args, env=env, check=False)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_two_clones_reinforce_the_same_item_and_merge_to_the_union(seeded, tmp_path):
    bare = tmp_path / "remote.git"
    run("git", "clone", "-q", "--bare", str(seeded.root), str(bare))
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        vmem_cli(tmp_path, "clone", str(bare), str(clone))
        assert pygit2.Repository(str(clone)).config["merge.vmem.driver"].startswith("vmem merge-driver")
        run("git", "config", "vmem.deliver", "false", cwd=clone)  # git's own flow, by hand: push, pull, merge
    first = json.loads(vmem_cli(a, "propose", "Healthcare buyers ask for audit logs early.", "--from",
                                "tidewell", "-c", "industry:healthcare", "--json").stdout)["data"]["item"]
    run("git", "push", "-q", "origin", "main", cwd=a)
    run("git", "pull", "-q", "--no-rebase", "origin", "main", cwd=b)
    # both clones reinforce the same item with different customers, concurrently
    vmem_cli(a, "propose", "healthcare buyers ask for audit logs early", "--from", "corvane",
             "-c", "industry:healthcare", who="Bob <bob@example.com>")
    vmem_cli(b, "propose", "Healthcare buyers ask for audit logs, early.", "--from", "larkspur-health",
             "-c", "industry:healthcare", "-c", "stage:security_review", who="Chen <chen@example.com>")
    run("git", "push", "-q", "origin", "main", cwd=a)
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    pulled = run("git", "pull", "--no-rebase", "--no-edit", "origin", "main", cwd=b, env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    merged = json.loads(vmem_cli(b, "show", first["id"], "--json").stdout)["data"]
    assert {e["entity"] for e in merged["evidence"]} == {"tidewell", "corvane", "larkspur-health"}
    assert merged["categories"] == ["industry:healthcare", "stage:security_review"]
    assert run("git", "status", "--porcelain", cwd=b).stdout == ""
    # the other clone's sync --pull fast-forwards to the merge
    run("git", "push", "-q", "origin", "main", cwd=b)
    synced = vmem_cli(a, "sync", "--pull", "--dir", str(tmp_path / "rules"), "--json")
    assert "warning" not in synced.stderr
    head_b = run("git", "rev-parse", "HEAD", cwd=b).stdout.strip()
    assert run("git", "rev-parse", "HEAD", cwd=a).stdout.strip() == head_b


def test_conflicting_status_changes_are_left_for_a_human():
    base = model.normalize_item({"id": "c-0123456789ab", "kind": "claim", "statement": "s", "status": "proposed",
                                 "created_at": model.now()})
    ours = {**base, "status": "approved", "verifications": [{"user": "a@e.com", "kind": "confirmation",
                                                             "at": model.now()}]}
    theirs = {**base, "status": "rejected", "verifications": [{"user": "b@e.com", "kind": "confirmation",
                                                               "at": model.now()}]}
    merged, conflicts = merge_items(base, ours, theirs)
    assert conflicts == ["status: ours 'approved', theirs 'rejected' (base 'proposed')"]
    assert [v["user"] for v in merged["verifications"]] == ["a@e.com", "b@e.com"]
    clean, none = merge_items(base, ours, {**base, "title": "new title"})
    assert none == [] and clean["status"] == "approved" and clean["title"] == "new title"


def test_check_warns_when_the_driver_is_missing(store, vmem):
    del store.repo.config["merge.vmem.driver"]
    warnings = vmem.json("check")["data"]["warnings"]
    assert any("merge driver is not configured" in w["message"] for w in warnings)
    vmem("setup")
    assert not any("merge driver" in w["message"] for w in vmem.json("check")["data"]["warnings"])


def test_init_with_a_remote(tmp_path, vmem):
    bare = tmp_path / "remote.git"
    pygit2.init_repository(str(bare), bare=True)
    vmem("init", str(tmp_path / "s"), "--remote", str(bare))
    repo = pygit2.Repository(str(tmp_path / "s"))
    assert repo.remotes["origin"].url == str(bare)
    run("git", "push", "-q", "-u", "origin", "main", cwd=tmp_path / "s")


def test_a_merge_conflict_committed_as_is_fails_check(store, vmem):
    # regression: committing the merge driver's output unresolved kept its "# vmem merge conflict" notes (and
    # our side of the conflicting field) and lost their decision, with no word from `vmem check`
    item = vmem.json("propose", "refunds sync weekly", store=store)["data"]["item"]["id"]
    path = model.item_path(item)
    git = ["git", "-C", str(store.root)]
    run(*git, "branch", "theirs")
    for branch, title in (("main", "weekly, says finance"), ("theirs", "weekly, says ops")):
        run(*git, "checkout", "-q", branch)
        with store.transaction("edit", items=[item]) as tx:
            tx.write({**tx.snapshot.item(item), "title": title})
    run(*git, "checkout", "-q", "main")
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    merged = run(*git, "merge", "--no-edit", "theirs", env=env, check=False)
    assert merged.returncode != 0  # the driver reported the conflict
    text = (store.root / path).read_text()
    assert text.startswith("# vmem merge conflict: title: ours 'weekly, says finance', theirs 'weekly, says ops'")
    assert vmem.json("check")["data"]["errors"] == []  # not committed yet: vmem reads the committed state
    run(*git, "add", path)
    run(*git, "commit", "-q", "--no-edit")
    errors = vmem.json("check", code=1)["data"]["errors"]
    assert len(errors) == 1 and errors[0]["path"] == path
    assert "unresolved merge conflict" in errors[0]["message"]
    assert "title: ours 'weekly, says finance', theirs 'weekly, says ops'" in errors[0]["message"]
    # resolving it (pick a value, drop the notes) and committing clears the error
    (store.root / path).write_text("".join(line + "\n" for line in text.splitlines() if not line.startswith("# ")))
    run(*git, "commit", "-q", "-am", "resolve the title conflict")
    assert vmem.json("check")["data"]["errors"] == []


def test_a_failed_clone_leaves_nothing_and_the_retry_works(tmp_path, vmem):
    """A remote whose default branch is not a store: the clone is refused and removed, so the retry into the same
    folder is not "exists and is not an empty directory"; a folder the user made stays, empty."""
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", "-b", "main", str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=a", "-c", "user.email=a@e", "commit", "-q",
                    "--allow-empty", "-m", "not a store"], check=True)
    made = tmp_path / "made"
    made.mkdir()
    for target in (tmp_path / "new", made):
        out = vmem("clone", str(other), str(target), code=1)
        assert "holds no vmem.yaml" in out.stderr
        assert (not target.exists()) if target.name == "new" else list(target.iterdir()) == []
    vmem("init", str(tmp_path / "store"))
    assert "cloned" in vmem("clone", str(tmp_path / "store"), str(tmp_path / "new")).stdout
    assert (tmp_path / "new" / "vmem.yaml").is_file()


def test_status_shows_the_url_the_team_configured_not_what_insteadof_rewrote(tmp_path, vmem):
    bare = tmp_path / "remote.git"
    pygit2.init_repository(str(bare), bare=True)
    url = "https://git.example.com/team/memory.git"
    vmem("init", str(tmp_path / "s"), "--remote", url)
    store = tmp_path / "s"
    run("git", "config", f"url.{bare.as_uri()}.insteadOf", url, cwd=store)
    run("git", "push", "-q", "-u", "origin", "main", cwd=store)
    data = vmem.json("status", "--store", str(store))["data"]
    assert data["url"] == url and data["remote"] == "origin"
    assert f"remote: origin {url} (main)" in vmem("status", "--store", str(store)).stdout
