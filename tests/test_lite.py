"""The pygit2-free write path (vmem.store.lite): the same objects as pygit2, HEAD never moved over someone else's
commit, a fall back to pygit2 before anything is written, and the three commonest writes without pygit2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_clean, commit_count, git
from vmem.errors import VmemError
from vmem.ops.propose import propose_claim
from vmem.store import lite
from vmem.store.repo import PENDING_FILE, Store


def test_a_commit_is_byte_for_byte_what_pygit2_writes(store):
    repo = store.repo
    tree = repo.head.peel(pygit2.Commit).tree.id
    parent = repo.head.target
    for offset in (0, 60, -300, 330, -570):
        message = "vmem: propose c-0123456789ab: ünïcode…\n\nVmem-Action: propose\n"
        theirs = repo.create_commit_string(pygit2.Signature("Ann Analyst", "ann@example.com", 1_790_000_000, offset),
                                           pygit2.Signature("Rita", "rita@example.com", 1_790_000_123, offset),
                                           message, tree, [parent])
        ours = lite.Repository(store.root).write_commit(
            str(tree), [str(parent)], lite.Signature("Ann Analyst", "ann@example.com", 1_790_000_000, offset),
            lite.Signature("Rita", "rita@example.com", 1_790_000_123, offset), message)
        assert repo[ours].read_raw() == theirs.encode("utf-8")


NAMES = st.sampled_from(["a", "a.b", "a-b", "a0", "b", "ab", "é", "Z", "a.yaml", "c-0123456789ab.yaml"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.lists(NAMES, min_size=1, max_size=3), st.binary(max_size=40)), min_size=1,
                        max_size=6))
def test_trees_are_the_ones_pygit2_builds(store, changes):
    """Paths that sort differently as files and as folders (a, a.b, a-b, a/...), unicode names, new folders and
    existing ones: the tree lite writes has the id of pygit2's TreeBuilder result."""
    repo, objects = store.repo, lite.Repository(store.root)
    base = repo.head.peel(pygit2.Commit).tree
    writes: dict[str, bytes] = {}
    for parts, data in changes:
        path = "/".join(parts)
        if any(p == path or p.startswith(path + "/") or path.startswith(p + "/") for p in writes):
            continue  # a file and a folder of one name cannot both exist
        if any(path.startswith(top + "/") or path == top for top in ("claims", "vmem.yaml")):
            continue
        writes[path] = data
    theirs = _build_tree(repo, base, {p: repo.create_blob(d) for p, d in writes.items()})
    ours = objects.write_tree(objects[str(base.id)], {p: objects.write("blob", d) for p, d in writes.items()})
    assert str(theirs) == str(ours)
    objects.close()


def _build_tree(repo, base, changes):
    """The oracle: pygit2's TreeBuilder on the changed subtrees (what vmem's pygit2 writer did until issue 29 made
    the plumbing writer the only one)."""
    from collections import defaultdict

    here, below = {}, defaultdict(dict)
    for path, oid in changes.items():
        head, _, rest = path.partition("/")
        if rest:
            below[head][rest] = oid
        else:
            here[head] = oid
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    for name, oid in here.items():
        builder.insert(name, oid, pygit2.GIT_FILEMODE_BLOB)
    for name, sub in below.items():
        subtree = repo[base[name].id] if base is not None and name in base and base[name].type_str == "tree" else None
        builder.insert(name, _build_tree(repo, subtree, sub), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


HOSTILE_NAMES = st.one_of(
    st.sampled_from(["c-0123456789ab.yaml", "100644 c-0123456789ab.yaml", "x 100644 c-0123456789ab.yaml",
                     "40000 c-0123456789ab.yaml", "0", "1 1", "c-0123456789ab.yaml 1", " ", "a\u00e9"]),
    st.text(st.sampled_from("ac-01 9.y\u00e9"), min_size=1, max_size=12))
ENTRIES = st.dictionaries(HOSTILE_NAMES, st.tuples(st.sampled_from([0o100644, 0o100755, 0o40000, 0o120000]),
                                                   st.binary(min_size=20, max_size=20)), max_size=12)


def _raw_tree(entries: dict) -> bytes:
    return b"".join(b"%o %s\0%s" % (mode, name.encode(), oid) for name, (mode, oid) in entries.items())


@settings(max_examples=300, deadline=None)
@given(ENTRIES, HOSTILE_NAMES)
def test_a_tree_searched_for_one_name_answers_as_the_parsed_tree(entries, other):
    """The search that spares a big shard its parse: names that contain another entry's whole text (mode and
    all), ids that contain NULs, spaces and digits, absent names. Any disagreement with the parse would let a
    crafted tree show vmem another file than git shows."""
    raw = _raw_tree(entries)
    parsed = {name: (mode, oid) for mode, name, oid in lite._ENTRY.findall(raw)}
    for name in [*entries, other]:
        assert lite.find_entry(raw, name.encode()) == parsed.get(name.encode())


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=ENTRIES, updates=st.dictionaries(HOSTILE_NAMES, st.binary(min_size=20, max_size=20), min_size=1,
                                              max_size=4), shuffle=st.booleans())
def test_a_tree_edited_in_place_is_the_tree_built_anew(store, base, updates, shuffle):
    """Editing a canonical tree's bytes in place (a write to a shard of thousands of files) gives the bytes the
    full rebuild gives; a tree that is not canonical (out of order here) is rebuilt, never spliced."""
    objects = lite.Repository(store.root)
    ordered = sorted(base.items(), key=lambda kv: kv[0].encode() + (b"/" if kv[1][0] == 0o40000 else b""))
    if shuffle:
        ordered = ordered[::-1]
    raw = _raw_tree(dict(ordered))
    tree = lite.Tree(objects, lite.hash_object("tree", raw), raw=raw)
    here = {name.encode(): oid for name, oid in updates.items()}
    spliced = objects._spliced(tree, here, {})
    entries = {name: (mode, oid) for mode, name, oid in lite.parse_tree(raw)}
    entries.update({name: (lite.FILEMODE_BLOB, oid) for name, oid in here.items()})
    rebuilt = lite.serialize_tree([(mode, name, oid) for name, (mode, oid) in entries.items()])
    canonical = not shuffle or len(ordered) < 2
    becomes_file = any(base.get(name, (0,))[0] == 0o40000 for name in updates)  # a folder replaced by a file
    if canonical and not becomes_file:
        assert spliced == rebuilt
    else:
        assert spliced is None
    objects.close()


@settings(max_examples=70, deadline=None)
@given(ENTRIES, ENTRIES)
def test_a_diff_of_raw_entries_finds_what_the_full_parse_finds(before, after):
    """tree_changes compares two big trees by their raw entries (sets, in C) and parses only the ones that
    differ: the same changes as comparing the parsed trees."""
    from vmem.store import changes

    class Raw:
        def __init__(self, raw):
            self._raw, self.id = raw, type("Id", (), {"raw": b"x" * 20})()

        def read_raw(self):
            return self._raw

    a, b = Raw(_raw_tree(before)), Raw(_raw_tree(after))
    was, now = changes._entries(a), changes._entries(b)
    expected = {n: (was.get(n), now.get(n)) for n in was.keys() | now.keys() if was.get(n) != now.get(n)}
    d_was, d_now = changes._differing(a, b)
    assert {n: (d_was.get(n), d_now.get(n)) for n in d_was.keys() | d_now.keys()} == expected


def test_lite_store_reads_what_pygit2_reads(seeded):
    full, light = seeded, Store.open(seeded.root, lite=True)
    assert light.lite and not full.lite
    a, b = full.head(), light.head()
    assert a.commit_id == b.commit_id
    for kind in ("entity", "episode"):
        assert [(x.path, x.oid, x.item) for x in a.files(kind)] == [(x.path, x.oid, x.item) for x in b.files(kind)]
    assert full.identity().email == light.identity().email


def test_many_paths_read_in_one_request_are_what_one_by_one_reads(seeded):
    """Snapshot.blobs through lite (one pipelined `COMMIT:PATH` request) against pygit2's path-by-path read:
    the same files, nothing for a folder, a missing file or a hostile path; a symbolic link is never followed."""
    os.symlink("../vmem.yaml", seeded.root / "entities" / "link.yaml")
    git(seeded, "add", "-A")
    git(seeded, "commit", "-qm", "a link")
    full, light = seeded.head(), Store.open(seeded.root, lite=True).head()
    names = sorted(p for p, _ in full.walk("entities"))
    asked = names + ["entities", "entities/missing.yaml", "../vmem.yaml", "entities/x\nHEAD", "", "entities/link.yaml"]
    ours, theirs = light.blobs(asked), full.blobs(asked)
    assert ours.keys() - {"entities/link.yaml"} == theirs.keys() == set(names) and len(names) > 3
    assert all(ours[p] == theirs[p] for p in names)
    assert ours["entities/link.yaml"][1] == b"../vmem.yaml"  # the link's own text, not vmem.yaml's
    oids = [oid for oid, _ in theirs.values()] + ["0" * 40]
    assert light.blob_data(oids) == full.blob_data(oids) == [d for _, d in theirs.values()] + [None]


def test_a_long_list_of_reads_is_sent_in_batches_that_never_fill_the_pipe(seeded):
    light = Store.open(seeded.root, lite=True).head()
    names = sorted(p for p, _ in seeded.head().walk("entities"))
    many = (names * 2000)[:5000]  # ~5000 requests of ~70 bytes: several batches of at most 32 KB
    got = light.repo.lookup_many([f"{light.commit_id}:{p}" for p in many])
    assert len(got) == 5000 and all(g is not None and g[1] == "blob" for g in got)


_SMALL_PIPES = """
import fcntl, os, sys
from pathlib import Path
real = os.pipe
def pipe():
    read, write = real()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)  # one page: what Linux gives past a user's pipe quota
    return read, write
os.pipe = pipe
from vmem.store import lite
repo = lite.Repository(Path(sys.argv[1]))
oids = sys.argv[2:]
found = repo.lookup_many(oids)
print(sum(len(f[2]) for f in found if f))
"""


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_SETPIPE_SZ"), reason="pipe sizes are set only on Linux")
def test_batched_reads_never_deadlock_on_one_page_pipes(store):
    """lookup_many writes a batch of requests before reading answers: with pipes of one page that used to fill
    both pipes (git waiting for its answers to be read, vmem for its requests to be taken) and hang forever."""
    blobs = [lite.Repository(store.root).write("blob", (f"{n:04d}" * 400).encode()) for n in range(300)]
    done = subprocess.run([sys.executable, "-c", _SMALL_PIPES, str(store.root), *map(str, blobs)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == 300 * 1600


def test_git_started_early_is_what_the_repository_reads_with(seeded, tmp_path):
    """lite.start_early: the configuration and object reader started before the command's imports are the ones
    the store's Repository adopts, and they answer as processes started at open do; another root's are left."""
    lite.start_early(seeded.root)
    lite.start_early(tmp_path)  # no .git: nothing started
    assert list(lite._EARLY) == [str(seeded.root.absolute())]
    config, reader = lite._EARLY[str(seeded.root.absolute())]
    early = lite.Repository(seeded.root)
    assert lite._EARLY == {} and early._batch is reader and config.returncode == 0  # adopted, config read
    late = lite.Repository(seeded.root)
    assert early.config._values == late.config._values and late._batch is not reader
    head = early.head_id()
    assert early.lookup(str(head))[:2] == late.lookup(str(head))[:2]
    early.close()
    late.close()


def test_git_started_early_but_never_adopted_is_ended(seeded):
    """A command that stops before it opens the store (a usage error) leaves no git processes behind: a
    long-lived process (tests, a server) would otherwise keep one reader and one finished child per such call."""
    from vmem.cli.fast import run_on_store
    from vmem.errors import UsageError

    def refuses(out, store):
        raise UsageError("no", "fix it")

    with pytest.raises(UsageError):
        run_on_store(refuses, None, str(seeded.root))
    assert lite._EARLY == {}
    assert run_on_store(lambda out, store: store().head().commit_id is not None, None, str(seeded.root)) is True
    assert lite._EARLY == {}


def test_head_moved_meanwhile_is_never_overwritten(store):
    """A commit made by someone else between vmem's read and its ref update: vmem refuses, the other commit
    stays, nothing of vmem's is left in the work tree."""
    light = Store.open(store.root, lite=True)
    before = commit_count(store)
    with pytest.raises(VmemError, match="HEAD moved"):
        with light.transaction("propose", summary="lost race") as tx:
            tx.write_file("claims/00/c-00aaaaaaaaaa.yaml", {"note": "vmem's"})
            git(store, "commit", "-q", "--allow-empty", "-m", "someone else's commit")
    assert commit_count(store) == before + 1
    assert git(store, "log", "-1", "--format=%s").strip() == "someone else's commit"
    assert not (store.root / "claims/00/c-00aaaaaaaaaa.yaml").exists()
    assert not (store.git_dir / PENDING_FILE).exists()


def test_a_locked_branch_is_reported_as_such_and_nothing_is_written(store):
    light = Store.open(store.root, lite=True)
    branch = git(store, "symbolic-ref", "HEAD").strip()
    lock = store.git_dir / f"{branch}.lock"
    lock.write_text("")  # a git that is updating the branch
    before = commit_count(store)
    with pytest.raises(VmemError, match="could not move HEAD"):
        with light.transaction("propose", summary="locked") as tx:
            tx.write_file("claims/00/c-00bbbbbbbbbb.yaml", {"note": "vmem's"})
    lock.unlink()
    assert commit_count(store) == before and not (store.root / "claims/00/c-00bbbbbbbbbb.yaml").exists()


def test_replace_refs_from_a_teammate_do_not_change_what_vmem_reads(seeded):
    """`git replace` swaps what git shows for an object (and replace refs travel with a fetch); libgit2 and so
    pygit2 ignore them, and lite must too, or a teammate could make a reviewed item read as something else."""
    entity = next(x for x in seeded.head().files("entity") if x.item)
    forged = subprocess.run(["git", "-C", str(seeded.root), "hash-object", "-w", "--stdin"],
                            input=b"id: forged\nname: Forged\n", capture_output=True, check=True).stdout.decode().strip()
    git(seeded, "replace", entity.oid, forged)
    light = Store.open(seeded.root, lite=True)
    found = light.head().blob(entity.path)
    assert found is not None and found[0] == entity.oid and b"forged" not in found[1]


def test_a_worktree_is_read_and_written_through_git_itself(store, tmp_path):
    """.git is a file there (gitdir: …) and the objects live in the common directory: one writer for every store
    (issue 29: no second backend to fall back on), so a linked worktree is written the same way."""
    git(store, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    opened = Store.open(tmp_path / "wt", lite=True)
    assert opened.lite
    from vmem.ops.propose import propose_claim

    done = propose_claim(opened, "a fact proposed in a linked worktree")
    assert done.commit == git(store, "rev-parse", "side").strip()
    subprocess.run(["git", "-C", str(store.root), "fsck", "--no-dangling"], check=True, capture_output=True)


def test_without_git_vmem_says_so(store, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    from vmem.errors import VmemError

    with pytest.raises(VmemError, match="git is not installed"):
        Store.open(store.root, lite=True)


BLOCK_PYGIT2 = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "pygit2" or name.startswith("pygit2."):
            raise ImportError("pygit2 imported on the lite path")
sys.meta_path.insert(0, Block())
sys.argv = ["vmem", *sys.argv[1:]]
from vmem.cli.entry import main
main()
"""


def _run(store, *args: str, block: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "VMEM_STORE": str(store.root)}
    argv = [sys.executable, "-c", BLOCK_PYGIT2, *args] if block else [sys.executable, "-m", "vmem", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True)


def _settle(store) -> None:
    from vmem.store import stage

    import time

    deadline = time.monotonic() + 30
    while not stage.settled(store.git_dir):
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_propose_learning_and_supersede_never_import_pygit2(seeded):
    """The three writes an analyst waits for run without pygit2 and leave git clean and consistent (once the
    attestation exists: its first replay reads the whole store, which pygit2 does)."""
    seeded.attestation()
    done = _run(seeded, "propose", "The orders feed lags by a day on Mondays", "--domain", "finance", "--json")
    assert done.returncode == 0, done.stderr
    claim = json.loads(done.stdout)["data"]["item"]
    entity = next(x.item for x in seeded.head().files("entity") if x.item)["id"]
    done = _run(seeded, "propose", "Teams that reconcile weekly report fewer billing disputes", "--from", entity,
                "-c", "industry:healthcare", "--json")
    assert done.returncode == 0, done.stderr
    learning = json.loads(done.stdout)["data"]["item"]
    done = _run(seeded, "supersede", claim["id"], "The orders feed lags by two days on Mondays", "-r", "measured",
                "--json")
    assert done.returncode == 0, done.stderr
    new = json.loads(done.stdout)["data"]["item"]
    _settle(seeded)
    assert_clean(seeded)
    assert git(seeded, "diff") == ""
    subprocess.run(["git", "-C", str(seeded.root), "fsck", "--no-dangling", "--strict"], check=True,
                   capture_output=True)
    head = Store.open(seeded.root).head()  # read back with pygit2
    assert head.item(claim["id"])["status"] == "superseded"
    assert head.item(new["id"])["supersedes"] == claim["id"]
    assert head.item(learning["id"])["status"] in ("candidate", "quarantined")
    assert git(seeded, "reflog", "-1", "--format=%gs").startswith("vmem: supersede")


def test_a_merge_in_history_falls_back_to_pygit2_and_writes_once(store):
    """Attestation across a merge is pygit2's walk: lite gives up before committing and the command runs again on
    pygit2 - one commit, not two."""
    first = propose_claim(store, "the refunds table is rebuilt nightly").item
    store.attestation()  # stored at this commit: the merge below is what lite cannot walk
    git(store, "checkout", "-q", "-b", "side")
    git(store, "commit", "-q", "--allow-empty", "-m", "side work")
    git(store, "checkout", "-q", "main")
    git(store, "commit", "-q", "--allow-empty", "-m", "main work")
    git(store, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    before = commit_count(store)
    done = _run(store, "supersede", first["id"], "the refunds table is rebuilt hourly", "--json", block=False)
    assert done.returncode == 0, done.stderr
    assert commit_count(store) == before + 1
    _settle(store)
    assert_clean(store)


def test_a_hand_edit_between_lite_proposals_is_refused_not_overwritten(store):
    store.attestation()
    done = _run(store, "propose", "the churn metric excludes trials", "--json")
    item = json.loads(done.stdout)["data"]["item"]
    _settle(store)
    path = store.root / "claims" / item["id"][2:4] / f"{item['id']}.yaml"
    path.write_text(path.read_text() + "# my note\n")
    done = _run(store, "supersede", item["id"], "the churn metric excludes trials and pilots")
    assert done.returncode == 1 and "uncommitted changes" in done.stderr
    assert path.read_text().endswith("# my note\n")


def test_a_big_attestation_save_leaves_no_write_ahead_log_behind(seeded, monkeypatch):
    """Commands end with os._exit, so a replay's rows must not stay in SQLite's write-ahead log for the next
    process to read and copy (0.6 s at 1M items): the process that wrote them checkpoints and truncates it."""
    from vmem.store import attest

    db = attest.cache_path(seeded.root)
    wal = db.with_name(db.name + "-wal")
    monkeypatch.setattr(attest.AttestDB, "save", _save_without_checkpoint(attest.AttestDB.save))
    kept = seeded.attestation()  # without the checkpoint the rows stay in the log  # (its connection stays open, as in a command that ends with os._exit)
    assert wal.stat().st_size > 0
    monkeypatch.undo()
    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    kept = seeded.attestation()
    assert kept.commit and (not wal.exists() or wal.stat().st_size == 0)



class _NoCheckpoint:
    """A connection that skips checkpoints, as the cache did before: a replay's rows stay in the log."""

    def __init__(self, db) -> None:
        self._db = db

    def __getattr__(self, name: str):
        return getattr(self._db, name)

    def execute(self, sql: str, *args):
        return None if "wal_checkpoint" in sql else self._db.execute(sql, *args)


def _save_without_checkpoint(save):
    def patched(self, since, state):
        real, self.db = self.db, _NoCheckpoint(self.db)
        try:
            return save(self, since, state)
        finally:
            self.db = real
    return patched


def test_an_old_unreachable_object_written_again_survives_gc(store):
    """vmem starts `git gc --auto` after its commits, and gc prunes unreachable loose objects older than two
    weeks. An object a write finds already there (the same text proposed, withdrawn and proposed again) is
    freshened, as git and libgit2 do, so a prune between the write and the commit cannot take it from under
    HEAD."""
    light = Store.open(store.root, lite=True)
    data = b"note: the same bytes, written twice, weeks apart\n"
    oid = str(light.repo.write("blob", data))
    path = store.git_dir / "objects" / oid[:2] / oid[2:]
    three_weeks_ago = path.stat().st_mtime - 21 * 86400
    os.utime(path, (three_weeks_ago, three_weeks_ago))
    assert str(light.repo.write("blob", data)) == oid  # the second write: the object is there already
    assert path.stat().st_mtime > three_weeks_ago + 20 * 86400
    git(store, "prune", "--expire=2.weeks.ago")
    assert git(store, "cat-file", "-p", oid) == data.decode()

    os.utime(path, (three_weeks_ago, three_weeks_ago))  # the same object, not written again: git prunes it
    git(store, "prune", "--expire=2.weeks.ago")
    assert not path.exists()
