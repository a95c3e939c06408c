"""A fresh clone's replay does less, never otherwise (issue 28): the look-ahead parse on two processes, the diffs
remembered across it, and the stable-layout reader give exactly what the plain path gives."""

from __future__ import annotations

import pygit2
import pytest
from conftest import REVIEWER, commit_file

from vmem import model
from vmem.store import attest, changes, codec, parse


def _items(store) -> list[tuple[str, str, str]]:
    repo = pygit2.Repository(str(store.root))
    commits = list(repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE))
    return [("claim" if path.startswith("claims/") else "knowledge", path, change.oid)
            for path, change in changes.changed_files(commits, ("claims", "knowledge"))
            if path.endswith(".yaml") and change.is_file]


def _populated(seeded, vmem, broken: bool = True):
    claims = [vmem.json("propose", f"orders lag placement by {n + 2} days")["data"]["item"]["id"] for n in range(6)]
    vmem("approve", claims[0], who=f"Rita <{REVIEWER[1]}>")
    if broken:
        commit_file(seeded, model.item_path("c-0123456789ab"), b"id: c-0123456789ab\nkind: claim\nstatus: [\n")
    return seeded


def test_the_second_process_parses_what_this_one_would(seeded, vmem, monkeypatch):
    store = _populated(seeded, vmem)
    wanted = _items(store)
    repo = pygit2.Repository(str(store.root))
    parse.PARSED.clear()
    monkeypatch.setattr(parse, "SHARE_FROM", 1)
    monkeypatch.setattr(parse, "_cores", lambda: 2)
    parse.parse_ahead(wanted, lambda oid: repo[oid].data, lambda: (lambda oid: repo[oid].data))
    shared = dict(parse.PARSED)
    parse.PARSED.clear()
    monkeypatch.setattr(parse, "SHARE_FROM", 10**9)
    parse.parse_ahead(wanted, lambda oid: repo[oid].data, lambda: None)
    assert shared == parse.PARSED and len(shared) == len(wanted) - 1  # the broken file is left to its reader
    assert [list(item) for item in shared.values()] == [list(item) for item in parse.PARSED.values()]


def test_a_second_process_that_dies_costs_only_time(seeded, vmem, monkeypatch):
    store = _populated(seeded, vmem, broken=False)
    wanted = _items(store)
    repo = pygit2.Repository(str(store.root))
    parse.PARSED.clear()
    monkeypatch.setattr(parse, "SHARE_FROM", 1)
    monkeypatch.setattr(parse, "_cores", lambda: 2)

    def dies():
        raise OSError("no repository here")

    parse.parse_ahead(wanted, lambda oid: repo[oid].data, dies)
    assert 0 < len(parse.PARSED) < len(wanted)  # this process's half; the rest is parsed when asked for
    assert all(parse.parse_blob(kind, path, oid, repo[oid].data) for kind, path, oid in wanted)


@pytest.mark.parametrize("shared", [False, True])
def test_a_replay_attests_the_same_with_and_without_the_look_ahead(seeded, vmem, monkeypatch, shared):
    store = _populated(seeded, vmem)
    repo = pygit2.Repository(str(store.root))
    head = repo.head.peel(pygit2.Commit)
    parse.PARSED.clear()
    monkeypatch.setattr(attest, "_parse_ahead", lambda repo, commits: None)
    plain = attest._walk(repo, head, None, store.root)
    monkeypatch.undo()
    parse.PARSED.clear()
    if shared:
        monkeypatch.setattr(parse, "SHARE_FROM", 1)
        monkeypatch.setattr(parse, "_cores", lambda: 2)
    ahead = attest._walk(repo, head, None, store.root)
    paths = plain.changed_paths() | ahead.changed_paths()
    assert paths and {p: plain.row(p) for p in paths} == {p: ahead.row(p) for p in paths}
    assert plain.globals() == ahead.globals()


def test_remembered_diffs_are_the_diffs_and_are_forgotten_after(seeded, vmem):
    store = _populated(seeded, vmem)
    repo = pygit2.Repository(str(store.root))
    head = repo.head.peel(pygit2.Commit)
    tops = ("claims", "knowledge")
    fresh = changes.tree_changes(head.parents[0].tree, head.tree, tops)
    with changes.remembering():
        first = changes.tree_changes(head.parents[0].tree, head.tree, tops)
        first.clear()  # a caller's copy: what is remembered is not touched
        again = changes.tree_changes(head.parents[0].tree, head.tree, tops)
    assert again == fresh and changes._REMEMBERED is None


@pytest.mark.parametrize("text", [
    "a:\n- x: 1\n  y:\n  - p\n  - q\n- x: 2\n  y: []\nb: c\n",  # an entry's key opening a sequence
    "a:\n  b:\n    c: 1\n  d:\n  - 1\n  - 2\ne: null\n",  # mappings in mappings, then a sequence
    "a:\n- 'x: y'\n- b: 1\n",  # a quoted value behind "- " is a value, not an entry's key
])
def test_the_stable_layout_reader_agrees_with_yaml_on_nesting(text):
    yaml, loader, _ = codec.yaml_loader()
    expected = yaml.load(text, Loader=loader)
    found = codec._load_fast(text)
    assert found is None or found == expected
    assert codec.load(text, "x.yaml") == expected


@pytest.mark.parametrize("text", [
    "a:\nb: 1\n",  # an empty block
    "a:\n    b: 1\n",  # indented otherwise than the writer does
    "a:\n  - b\n",  # an indented sequence: YAML reads it, the line reader declines it
    "a: 1\n\nb: 2\n",  # an empty line
])
def test_the_stable_layout_reader_declines_what_the_writer_never_writes(text):
    assert codec._load_fast(text) is None


def test_a_deep_file_is_still_refused_by_the_bounds():
    text = "".join("  " * n + f"k{n}:\n" for n in range(40)) + "  " * 40 + "v: 1\n"
    with pytest.raises(Exception, match="nested deeper"):
        codec.load(text, "x.yaml")


def test_no_second_process_is_forked_while_other_threads_run():
    import threading

    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert parse._cores() == 1
    finally:
        release.set()
        other.join()
