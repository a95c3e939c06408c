"""The git layer: one operation = one commit, only changed subtrees rewritten, crash recovery, time travel."""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pygit2
import pytest
from conftest import assert_clean, commit_count, git

from vmem import model
from vmem.errors import ItemNotFound
from vmem.ops.propose import propose_claim
from vmem.store.repo import PENDING_FILE, Store


def _claim(statement: str = "a fact") -> dict:
    now = model.now()
    return model.validate("claim", {"id": model.new_id("claim"), "kind": "claim", "statement": statement,
                                    "status": "proposed", "created_at": now}, "x")


def test_init_makes_one_commit_with_the_template(store):
    assert commit_count(store) == 1
    files = set(git(store, "ls-files").split())
    assert {"vmem.yaml", "README.md", ".gitattributes", "claims/.gitkeep", "knowledge/.gitkeep",
            "entities/.gitkeep", "episodes/.gitkeep"} <= files
    assert "Vmem-Action: init" in git(store, "log", "-1", "--format=%B")
    assert_clean(store)


def test_template_policy_lists_every_policy_key_with_a_comment(store):
    from vmem.policy import DEFAULTS
    from vmem.store import codec

    text = (store.root / "vmem.yaml").read_text()
    assert codec.load(text, "vmem.yaml").keys() == DEFAULTS.keys()
    assert store.policy == {**DEFAULTS, "reviewers": ["alice@example.com"]}  # init names its creator

    def leaves(tree, prefix=""):
        for key, value in tree.items():
            if isinstance(value, dict):
                yield from leaves(value, f"{prefix}{key}.")
            else:
                yield key
    for key in leaves(DEFAULTS):
        line = next(line for line in text.splitlines() if line.strip().startswith(f"{key}:"))
        assert "#" in line or key == "version", f"{key} has no comment"


def test_no_commit_when_nothing_changed_and_none_on_error(store):
    item = _claim()
    with store.transaction("propose", items=[item["id"]]) as tx:
        tx.write(item)
    assert commit_count(store) == 2
    with store.transaction("propose", items=[item["id"]]) as tx:
        tx.write(store.head().item(item["id"]))
    assert tx.commit_id is None and commit_count(store) == 2
    with pytest.raises(RuntimeError):
        with store.transaction("propose") as tx:
            tx.write(_claim("never"))
            raise RuntimeError("boom")
    assert commit_count(store) == 2
    assert_clean(store)


def test_a_commit_rewrites_only_the_trees_on_its_path(store):
    items = [_claim(f"fact {i}") for i in range(40)]
    with store.transaction("import") as tx:
        for item in items:
            tx.write(item)
    before = store.head().tree
    new = _claim("one more")
    with store.transaction("propose", items=[new["id"]]) as tx:
        tx.write(new)
    after = store.head().tree
    shard = new["id"][2:4]
    for name in ("vmem.yaml", "entities", "knowledge"):
        assert before[name].id == after[name].id
    for entry in before["claims"]:
        if entry.name != shard:
            assert after["claims"][entry.name].id == entry.id
    assert git(store, "show", "--name-only", "--format=", "HEAD").split() == [model.item_path(new["id"])]
    assert_clean(store)


def test_identity_comes_from_git_config_and_as_is_the_author_only(store):
    result = propose_claim(store, "a fact", as_="Bob Builder <bob@example.com>")
    commit = store.repo[result.commit]
    assert (commit.author.name, commit.author.email) == ("Bob Builder", "bob@example.com")
    assert (commit.committer.name, commit.committer.email) == ("Alice Analyst", "alice@example.com")
    assert "Vmem-On-Behalf-Of: Bob Builder <bob@example.com>" in commit.message
    assert result.item["source"]["user"] == "alice@example.com"  # the writer vmem records is the committer


def test_identity_follows_git_environment_like_git_commit(store, monkeypatch):
    """CI jobs set GIT_COMMITTER_* / GIT_AUTHOR_* / EMAIL instead of config; vmem uses them as git would."""
    monkeypatch.setenv("GIT_COMMITTER_NAME", "CI Bot")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "ci@example.com")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Dana Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "dana@example.com")
    commit = store.repo[propose_claim(store, "a fact").commit]
    assert (commit.committer.name, commit.committer.email) == ("CI Bot", "ci@example.com")
    assert (commit.author.name, commit.author.email) == ("Dana Author", "dana@example.com")
    for name in ("GIT_COMMITTER_EMAIL", "GIT_AUTHOR_EMAIL"):
        monkeypatch.delenv(name)
    store.repo.config.delete_multivar("user.email", ".*")
    (Path(os.environ["HOME"]) / ".gitconfig").write_text("[user]\n\tname = Alice Analyst\n")
    monkeypatch.setenv("EMAIL", "from-env@example.com")
    store = Store.open(store.root)
    commit = store.repo[propose_claim(store, "another fact").commit]
    assert commit.committer.email == commit.author.email == "from-env@example.com"


def test_history_and_as_of(store):
    first = propose_claim(store, "first fact").item
    t_first = store.repo[store.repo.head.target].commit_time
    with store.transaction("edit", items=[first["id"]]) as tx:
        tx.write({**first, "statement": "first fact, edited"})
    events = list(store.history([model.item_path(first["id"])]))
    assert len(events) == 2 and events[0][0].message.startswith("vmem: edit")
    past = store.as_of(datetime.fromtimestamp(t_first, timezone.utc))
    assert past.item(first["id"])["statement"] in ("first fact", "first fact, edited")  # same second
    with pytest.raises(ItemNotFound, match="no commit before"):
        store.as_of(datetime.now(timezone.utc) - timedelta(days=3650))


@pytest.mark.parametrize("stage, lands", [("commit", False), ("ref", False), ("files", True), ("rename", True),
                                          ("journal", True)])
def test_kill_9_anywhere_in_a_write_leaves_a_valid_store(store, stage, lands):
    """SIGKILL at each point of a transaction: the store stays valid, with or without the operation, and the
    next command finishes or discards the killed one (work tree clean, no stray files)."""
    env = {**os.environ, "VMEM_STORE": str(store.root), "VMEM_TEST_KILL_AT": stage}
    proc = subprocess.run([sys.executable, "-m", "vmem", "propose", "crashed fact", "--json"], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == -9
    subprocess.run(["git", "-C", str(store.root), "fsck", "--no-dangling"], check=True, capture_output=True)
    landed = commit_count(store) == 2
    assert landed == lands
    propose_claim(store, "next fact")  # takes the lock and recovers
    assert not (store.git_dir / PENDING_FILE).exists()
    assert_clean(store)
    statements = sorted(loaded.item["statement"] for loaded in store.head().files("claim"))
    assert statements == (["crashed fact", "next fact"] if lands else ["next fact"])
    from vmem.ops.check import check

    assert check(store).errors == []


@pytest.mark.slow
def test_concurrent_writers_lose_nothing(store):
    """8 processes x 20 proposals on one store: 160 commits, 160 items, a valid store."""
    script = ("import sys\nfrom vmem.ops.propose import propose_claim\nfrom vmem.store.repo import Store\n"
              "store = Store.open(sys.argv[1])\n"
              "for n in range(20):\n    propose_claim(store, f'writer {sys.argv[2]} fact {n}')\n")
    env = {**os.environ, "VMEM_LOCK_TIMEOUT": "120"}
    procs = [subprocess.Popen([sys.executable, "-c", script, str(store.root), str(w)], env=env,
                              stderr=subprocess.PIPE, text=True) for w in range(8)]
    errors = [p.communicate()[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    assert commit_count(store) == 1 + 160
    statements = {loaded.item["statement"] for loaded in store.head().files("claim")}
    assert statements == {f"writer {w} fact {n}" for w in range(8) for n in range(20)}
    assert_clean(store)
    subprocess.run(["git", "-C", str(store.root), "fsck", "--no-dangling"], check=True, capture_output=True)


@pytest.mark.slow
def test_concurrent_cli_writers_lose_nothing(store):
    """The path users take: 8 `vmem propose` loops x 10 through the console entry point (the fast reader, the
    plumbing backend) on one store: 80 kept, 81 commits, a valid store (SPEC 15: writers serialise)."""
    vmem = Path(sys.executable).with_name("vmem")
    script = ("for n in $(seq 1 10); do \"$0\" propose \"writer $1 fact $n\" --json >/dev/null || "
              "echo \"refused $1 $n\" >&2; done")
    env = {**os.environ, "VMEM_LOCK_TIMEOUT": "120"}
    procs = [subprocess.Popen(["bash", "-c", script, str(vmem), str(w)], env=env, cwd=store.root,
                              stderr=subprocess.PIPE, text=True) for w in range(8)]
    errors = [p.communicate()[1] for p in procs]
    refused = [line for text in errors for line in text.splitlines() if line.startswith(("refused", "error"))]
    assert all(p.returncode == 0 for p in procs) and not refused, refused
    assert commit_count(store) == 1 + 80
    statements = {loaded.item["statement"] for loaded in Store.open(store.root).head().files("claim")}
    assert statements == {f"writer {w} fact {n}" for w in range(8) for n in range(1, 11)}
    subprocess.run(["git", "-C", str(store.root), "fsck", "--no-dangling"], check=True, capture_output=True)


def test_symlinks_in_the_tree_are_not_followed(store, tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("id: c-aaaaaaaaaaaa\n")
    os.symlink(secret, store.root / "claims" / "link.yaml")
    git(store, "add", "claims/link.yaml")
    git(store, "commit", "-q", "-m", "symlink")
    assert [loaded.path for loaded in store.head().files("claim")] == []
    assert store.head().blob("claims/link.yaml") is None


def test_bare_or_plain_directories_are_not_stores(tmp_path):
    from vmem.errors import StoreNotFound

    with pytest.raises(StoreNotFound, match="no vmem store"):
        Store.open(tmp_path)
    (tmp_path / "vmem.yaml").write_text("version: 1\n")
    with pytest.raises(StoreNotFound, match="not a git repository"):
        Store.open(tmp_path)
    pygit2.init_repository(str(tmp_path / "bare"), bare=True)


def test_without_a_git_binary_libgit2_stages_the_files(store, monkeypatch):
    import shutil

    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "git" else real_which(name, *a, **k))
    propose_claim(store, "staged by libgit2")
    assert_clean(store)


def test_tree_changes_agree_with_git_diff(store):
    """The walk that skips unchanged subtrees reports what libgit2's tree diff reports, adds, edits, deletes,
    mode and type changes included, and nothing outside the folders asked for."""
    from vmem.store.changes import Change, tree_changes

    def oracle(old, new, tops):  # the libgit2 diff this walk replaced
        def wanted(path):
            return any(path == top or path.startswith(top + "/") for top in tops)
        changed = {}
        for delta in old.diff_to_tree(new).deltas:
            if delta.status_char() != "A" and wanted(delta.old_file.path):
                changed[delta.old_file.path] = Change(None)
            if delta.status_char() != "D" and wanted(delta.new_file.path):
                changed[delta.new_file.path] = Change(str(delta.new_file.id), delta.new_file.mode)
        return changed

    files = {"claims/aa/one.yaml": b"1", "claims/aa/two.yaml": b"2", "claims/bb/three.yaml": b"3",
             "knowledge/cc/four.yaml": b"4", "claims/dd/gone.yaml": b"5", "claims/ee": b"a file, then a folder"}
    for path, data in files.items():
        (store.root / path).parent.mkdir(parents=True, exist_ok=True)
        (store.root / path).write_bytes(data)
    git(store, "add", "-A")
    git(store, "commit", "-q", "-m", "before")
    (store.root / "claims/aa/one.yaml").write_bytes(b"1 edited")
    (store.root / "claims/aa/new.yaml").write_bytes(b"new")
    (store.root / "knowledge/cc/four.yaml").write_bytes(b"4 edited")
    git(store, "rm", "-q", "-r", "claims/dd", "claims/ee")
    (store.root / "claims/ee").mkdir()
    (store.root / "claims/ee/inside.yaml").write_bytes(b"now a folder")
    (store.root / "claims/ee/deeper").mkdir()
    (store.root / "claims/ee/deeper/down.yaml").write_bytes(b"two folders down")
    (store.root / "claims/aa/link.yaml").symlink_to("one.yaml")
    git(store, "add", "-A")
    git(store, "update-index", "--chmod=+x", "claims/bb/three.yaml")
    git(store, "commit", "-q", "-m", "after")
    head = store.repo.head.peel(pygit2.Commit)
    old, new = head.parents[0].tree, head.tree
    empty = store.repo[store.repo.TreeBuilder().write()]
    for tops in (("claims",), ("claims", "knowledge"), ("knowledge",), ("episodes",)):
        assert tree_changes(old, new, tops) == oracle(old, new, tops)
        # from nothing (a fresh clone's replay and full read): every file, modes, links and nested folders as git
        assert tree_changes(None, new, tops) == oracle(empty, new, tops)
    assert tree_changes(None, new, ("claims",))["claims/aa/link.yaml"].mode == pygit2.GIT_FILEMODE_LINK
    assert set(tree_changes(old, new, ("claims",))) == {
        "claims/aa/one.yaml", "claims/aa/new.yaml", "claims/aa/link.yaml", "claims/bb/three.yaml",
        "claims/dd/gone.yaml", "claims/ee", "claims/ee/inside.yaml", "claims/ee/deeper/down.yaml"}
    assert tree_changes(old, new, ("claims",))["claims/ee"] == Change(None)
    everything = tree_changes(None, new, ("knowledge",))
    assert set(everything) == {"knowledge/.gitkeep", "knowledge/cc/four.yaml"}
    four = new["knowledge/cc/four.yaml"]
    assert everything["knowledge/cc/four.yaml"] == Change(str(four.id), pygit2.GIT_FILEMODE_BLOB)


@pytest.mark.parametrize("value", [None, "/tmp/vmem-xdg", "", "  "])
def test_cache_home_agrees_with_platformdirs_without_importing_it(monkeypatch, value):
    from platformdirs import user_cache_dir

    from vmem.store.cache import cache_home

    if value is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", value)
    assert cache_home() == Path(user_cache_dir("vmem"))


def test_a_hand_commit_right_after_vmem_never_drops_its_item_even_on_a_big_index(store):
    """SPEC 15: nothing vmem leaves running holds git's index.lock after it returns, and a hand commit made at
    once -- without hooks (--no-verify, core.hooksPath) -- records vmem's item, not its deletion. The index is
    made big (26k entries, over the size where vmem used to defer its index update to a background flusher)."""
    blob = subprocess.run(["git", "-C", str(store.root), "hash-object", "-w", "--stdin"], input=b"x\n",
                          capture_output=True, check=True).stdout.decode().strip()
    listing = "".join(f"100644 {blob}\tnotes/{n // 1000:02d}/n{n}.txt\n" for n in range(26_000))
    subprocess.run(["git", "-C", str(store.root), "update-index", "--index-info"], input=listing.encode(),
                   check=True)
    git(store, "commit", "-q", "-m", "many notes")
    git(store, "checkout", "-q", "--", ".")
    assert (store.git_dir / "index").stat().st_size >= 2 << 20
    vmem = Path(sys.executable).with_name("vmem")
    for n in range(3):
        done = subprocess.run([str(vmem), "propose", f"fact number {n} about invoices", "--json"], cwd=store.root,
                              capture_output=True, text=True, env={**os.environ, "VMEM_STORE": str(store.root)})
        assert done.returncode == 0, done.stderr
        path = model.item_path(__import__("json").loads(done.stdout)["data"]["item"]["id"])
        assert not (store.git_dir / "index.lock").exists()
        git(store, "-c", "core.hooksPath=/dev/null", "commit", "--no-verify", "--allow-empty", "-q", "-m", "hand")
        assert path in git(store, "ls-tree", "-r", "--name-only", "HEAD", "--", path)
    assert git(store, "status", "--porcelain") == ""
