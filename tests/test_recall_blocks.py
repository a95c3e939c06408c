"""A long-lived index multiplies only the rows a scope may see (LocalIndex.blocks): every answer must be the one
the full product gives, and stay inside the scope rule (SPEC 8)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_recall import EMBED, _oracle, stores
from vmem import model
from vmem.index.local import LocalIndex
from vmem.ops import recall

WORDS = ["orders", "revenue", "trials", "settlement", "churn", "renewal", "procurement", "invoice", "refund",
         "margin", "cohort", "latency"]
SCOPES = [(None, "all"), ("acme", "all"), ("globex", "group:finance"), (None, "group:finance"), ("nobody", "all")]


def _store(path, items):
    import pygit2

    from vmem.ops.init import init_store

    config = pygit2.init_repository(str(path), initial_head="main").config
    config["user.name"], config["user.email"] = "Alice", "alice@example.com"
    store = init_store(path)
    with store.transaction("import", summary="random store") as tx:
        for entity_id in ("acme", "globex"):
            tx.write_file(f"entities/{entity_id}.yaml", model.validate("entity", {"id": entity_id,
                                                                                  "name": entity_id}, entity_id))
        for item in items:
            tx.write(item)
    return store


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=stores(), queries=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
                                        min_size=1, max_size=4))
def test_blocks_answer_as_the_full_product_does(tmp_path_factory, monkeypatch, items, queries):
    store = _store(tmp_path_factory.mktemp("random-store"), items)
    monkeypatch.setattr(recall.time, "time", lambda: 1_900_000_000.0)  # one moment for both: confidence decays
    long_lived = LocalIndex.open(store, EMBED, model_id=str(EMBED.path))
    recall.search(long_lived, "warm up", recall.Scope(None, "all"), False, 5, EMBED)
    by_id = {i["id"]: i for i in items}
    for query in queries:
        for entity, audience in SCOPES:
            for stale in (False, True):
                who = recall.Scope(entity, audience)
                once = LocalIndex.open(store, EMBED, model_id=str(EMBED.path))  # its first query: every row
                full = recall.search(once, query, who, stale, 50, EMBED)
                assert once._blocks is None
                blocked = recall.search(long_lived, query, who, stale, 50, EMBED)
                assert blocked == full
                served = [row["id"] for row in blocked["results"]]
                assert all(_oracle(by_id[i], entity, audience, stale) for i in served)
    assert long_lived._blocks is not None or not long_lived.order


def test_an_uncovered_answer_counts_what_awaits_review_without_reading_items(seeded, vmem, monkeypatch):
    for text, extra in (("the office carpet is blue in the north wing", []),
                        ("the office carpet is green in the south wing", ["--about", "meridale"]),
                        ("the office carpet colour is a secret", ["--personal"])):
        vmem("propose", text, *extra, store=seeded)
    index = LocalIndex.open(seeded, EMBED, model_id=str(EMBED.path))
    counts = {}
    for n in range(2):  # the first query multiplies every row, the second only the blocks
        for entity in (None, "meridale"):
            result = recall.search(index, "what colour is the office carpet", recall.Scope(entity, "all"), False, 5,
                                   EMBED)
            counts.setdefault(entity, []).append(result.get("awaiting_review"))
    assert index._blocks is not None and index._awaiting is not None
    assert counts == {None: [1, 1], "meridale": [2, 2]}

    def unread(*args):
        raise AssertionError("awaiting_review read an item")

    monkeypatch.setattr(type(index.items), "__getitem__", unread)
    from vmem.ops.pending import awaiting_review

    assert awaiting_review(index, EMBED(["what colour is the office carpet"])[0], recall.Scope("meridale", "all")) == 2


@pytest.mark.parametrize("values,rows,depth,expected", [
    ([0.5, 0.9, 0.5, 0.7, 0.5], [40, 10, 30, 20, 0], 3, [1, 3, 4]),  # ties at the edge: the lowest row
    ([0.5, 0.9, 0.5], [2, 1, 0], 5, [1, 2, 0]),
])
def test_nearest_breaks_ties_by_row(values, rows, depth, expected):
    import numpy as np

    assert recall._nearest(np.array(rows), np.array(values, dtype=np.float32), depth).tolist() == expected


def test_blocks_leave_out_what_has_ended_and_step_aside_if_the_clock_goes_back(seeded, vmem, monkeypatch):
    """A claim past expires_at when the blocks were built is left out of them; a clock set back (where it might
    be live again) gets the full product."""
    from test_sync import RITA, _claim

    with seeded.acting_as(RITA), seeded.transaction("import", summary="two facts") as tx:
        tx.write(_claim("the warehouse refresh runs nightly at two", expires_at="2030-01-01T00:00:00Z"))
        tx.write(_claim("the warehouse refresh runs hourly on weekdays"))
    index = LocalIndex.open(seeded, EMBED, model_id=str(EMBED.path))
    who = recall.Scope(None, "all")
    answers = {}
    for moment in (1_800_000_000.0, 1_950_000_000.0, 1_950_000_000.0, 1_800_000_000.0):  # 2027, 2031, 2031, 2027
        monkeypatch.setattr(recall.time, "time", lambda: moment)
        result = recall.search(index, "how often does the warehouse refresh run", who, False, 5, EMBED)
        answers.setdefault(moment, []).append([row["statement"] for row in result["results"]])
    assert index._blocks is not None and index._blocks.built == 1_950_000_000.0
    assert answers[1_800_000_000.0][0] == answers[1_800_000_000.0][1]  # full product both times
    assert "the warehouse refresh runs nightly at two" in answers[1_800_000_000.0][1]
    assert "the warehouse refresh runs nightly at two" not in answers[1_950_000_000.0][1]
    assert answers[1_950_000_000.0][0] == answers[1_950_000_000.0][1]
