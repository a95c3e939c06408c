"""A newcomer's first hour: short ids, customers without hand-written YAML, hints that copy-paste."""

from __future__ import annotations

import itertools

import pytest

from vmem import model


@pytest.fixture
def twin_ids(monkeypatch):
    """Claims proposed from here on get ids that share their first four hex digits."""
    ids = iter(["c-abcd11111111", "c-abcd22222222", "c-0123456789ab"] + [model.new_id("claim") for _ in range(20)])
    real = model.new_id
    monkeypatch.setattr(model, "new_id", lambda kind: next(ids) if kind == "claim" else real(kind))


def test_a_unique_prefix_stands_for_the_whole_id(vmem, store, twin_ids):
    for text in ("Refunds lag a day.", "Demos run long.", "Exports spike before churn."):
        vmem("propose", text, store=store)
    shown = vmem.json("show", "c-abcd1")["data"]
    assert shown["id"] == "c-abcd11111111"
    assert vmem.json("show", "c-0123")["data"]["statement"] == "Exports spike before churn."
    assert vmem.json("blame", "c-abcd2")["data"]["chain"] == ["c-abcd22222222"]
    revised = vmem.json("propose", "Refunds lag two days.", "--supersedes", "c-abcd1", store=store)["data"]
    assert revised["item"]["supersedes"] == "c-abcd11111111"


def test_an_ambiguous_prefix_lists_the_candidates_and_exits_2(vmem, store, twin_ids):
    vmem("propose", "Refunds lag a day.", store=store)
    vmem("propose", "Demos run long.", store=store)
    result = vmem("show", "c-abcd", code=2)
    assert "c-abcd is ambiguous: c-abcd11111111, c-abcd22222222" in result.stderr
    assert "type more of the id" in result.stderr


@pytest.mark.parametrize(("text", "code", "message"), [
    ("c-ffff", 1, "no item id starts with c-ffff"),
    ("k-abcd", 1, "no item id starts with k-abcd"),
    ("c-abc", 2, "invalid item id 'c-abc'"),   # fewer than 4 hex digits, as git
    ("c-ABCD", 2, "invalid item id"),
    ("../c-abcd", 2, "invalid item id"),
])
def test_a_prefix_that_matches_nothing_or_is_too_short_says_so(vmem, store, twin_ids, text, code, message):
    vmem("propose", "Refunds lag a day.", store=store)
    result = vmem("show", text, code=code)
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2
