"""One visibility rule (SPEC 8): what sync writes and what recall returns are the same set, in every scope."""

from __future__ import annotations

import pytest

from test_sync import mixed  # noqa: F401 - the fixture: every status, scope, audience and personal case


@pytest.mark.parametrize("scope,audience", [(None, None), ("entity:meridale", None), (None, "group:finance"),
                                            ("entity:tidewell", "group:sales")])
def test_sync_and_recall_serve_the_same_items(mixed, vmem, tmp_path, scope, audience):  # noqa: F811
    store, items = mixed
    flags = (["--scope", scope] if scope else []) + (["--audience", audience] if audience else [])
    synced = vmem.json("sync", "--dir", str(tmp_path / "rules"), "--budget", "100000", *flags)["data"]["items"]
    recalled = vmem.json("recall", "fact pattern rumour detail shortcut", "-k", "100", *flags)["data"]["results"]
    assert sorted(synced) == sorted(r["id"] for r in recalled)
    assert synced  # the comparison is not vacuous


def test_the_predicate_is_shared_not_copied():
    from vmem.ops import bundle, recall
    from vmem.visibility import admits

    item = {"kind": "claim", "status": "approved", "scope": "entity:a", "audience": "all", "personal": False,
            "expires_at": "2099-01-01T00:00:00Z"}
    for entity in (None, "a", "b"):
        assert recall.Scope(entity, "all").admits(item) == admits(item, entity, "all") == \
            bool(bundle.select([item], entity, "all", None))
