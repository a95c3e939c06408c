"""Hostile input: each gets a clear error or a safe outcome, and nothing is written half-way."""

from __future__ import annotations

import os

import pytest
from conftest import commit_count, commit_file, git


@pytest.mark.parametrize("name, data, message", [
    ("huge", b"id: c-aa0000000001\nstatement: " + b"x" * (50 * 1024 * 1024) + b"\n", "items are limited"),
    ("object tag", b"id: !!python/object/apply:os.system ['touch /tmp/vmem-pwned']\n", "malformed YAML"),
    ("alias bomb", b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                   b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                   b"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
     "alias expansion"),
    ("deep nesting", b"a: " + b"[" * 200 + b"]" * 200 + b"\n", "nested deeper"),
    ("non-UTF-8", b"id: c-aa0000000001\nstatement: \xff\xfe\n", "not UTF-8"),
    ("NUL", b"id: c-aa0000000001\x00\n", "NUL bytes"),
], ids=["huge", "object-tag", "alias-bomb", "deep-nesting", "non-utf8", "nul"])  # a 50 MB id overflows exec's env
def test_hostile_item_files_are_skipped_with_a_named_error(store, vmem, name, data, message):
    good = vmem.json("propose", "a good fact", store=store)["data"]["item"]["id"]
    commit_file(store, "claims/aa/c-aa0000000001.yaml", data)
    listed = vmem("list", "--json")
    assert "claims/aa/c-aa0000000001.yaml" in listed.stderr and message in listed.stderr
    import json
    assert [i["id"] for i in json.loads(listed.stdout)["data"]] == [good]
    errors = vmem.json("check", code=1)["data"]["errors"]
    assert errors[0]["path"] == "claims/aa/c-aa0000000001.yaml" and message in errors[0]["message"]
    assert not os.path.exists("/tmp/vmem-pwned")


def test_a_bom_file_is_read(store, vmem):
    item = vmem.json("propose", "a fact", store=store)["data"]["item"]
    from vmem import model

    path = model.item_path(item["id"])
    commit_file(store, path, b"\xef\xbb\xbf" + (store.root / path).read_bytes())
    assert vmem.json("show", item["id"])["data"]["statement"] == "a fact"


@pytest.mark.parametrize("entity", ["../etc", "acme\nx", "acme\x00", "ACME", "a" * 65, "-acme"])
def test_hostile_entity_and_episode_ids_never_become_paths(seeded, vmem, entity):
    before = commit_count(seeded)
    for args in (["propose", "x y z", "--from", entity, "-c", "a:b"], ["propose", "x", "--about", entity],
                 ["forget", "--entity", entity, "--reason", "r"], ["propose", "x y", "--from", "tidewell",
                                                                  "-c", "a:b", "--episode", entity]):
        result = vmem(*args, code=2)
        assert "invalid" in result.stderr and "Traceback" not in result.stderr
    assert commit_count(seeded) == before


def test_symlinked_item_file_pointing_outside_is_not_followed(store, vmem, tmp_path):
    outside = tmp_path / "secret.yaml"
    outside.write_text("id: c-bb0000000001\nkind: claim\nstatement: secret\nstatus: approved\n"
                       "created_at: 2026-01-01T00:00:00Z\n")
    (store.root / "claims" / "bb").mkdir(parents=True)
    os.symlink(outside, store.root / "claims" / "bb" / "c-bb0000000001.yaml")
    git(store, "add", "claims/bb/c-bb0000000001.yaml")
    git(store, "commit", "-q", "-m", "symlink")
    assert vmem.json("list")["data"] == []
    assert "no item c-bb0000000001" in vmem("show", "c-bb0000000001", code=1).stderr
