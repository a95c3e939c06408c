"""vmem supersede and vmem blame: a belief's history, end to end."""

from __future__ import annotations

from conftest import REVIEWER, commit_count, git

from vmem import model


def test_supersede_links_both_versions_in_one_commit_and_blame_shows_them(store, vmem):
    old = vmem.json("propose", "orders lag placement by 3 days", "--domain", "finance", store=store)["data"]["item"]
    before = commit_count(store)
    data = vmem.json("supersede", old["id"], "orders lag placement by 1 day since the v2 ETL",
                     "--reason", "ETL fixed in v2", who="Bob Builder <bob@example.com>", store=store)["data"]
    new, previous = data["item"], data["previous"]
    assert data["action"] == "superseded"
    assert commit_count(store) == before + 1
    # two item files: the old one superseded, linked both ways
    assert previous["status"] == "superseded" and previous["superseded_by"] == new["id"]
    assert previous["valid_to"] == new["valid_from"]
    assert new["status"] == "proposed" and new["supersedes"] == old["id"]
    assert new["domain"] == "finance"
    on_disk = vmem.json("show", old["id"])["data"]
    assert on_disk["status"] == "superseded" and on_disk["computed"]["live"] is False
    changed = git(store, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == sorted([model.item_path(old["id"]), model.item_path(new["id"])])
    # trailers are readable by git itself
    actions = git(store, "log", "--format=%(trailers:key=Vmem-Action,valueonly)").split()
    assert actions[:2] == ["supersede", "propose"]
    body = git(store, "log", "-1", "--format=%B")
    assert f"Vmem-Supersedes: {old['id']}" in body and "Vmem-Reason: ETL fixed in v2" in body
    assert f"Vmem-Item: {new['id']}" in body and f"Vmem-Item: {old['id']}" in body

    history = vmem.json("blame", new["id"])["data"]
    assert history["chain"] == [old["id"], new["id"]]
    events = [(e["action"], e["item"], e["author"], e["reason"]) for e in history["events"]]
    assert events == [
        ("propose", old["id"], "Alice Analyst <alice@example.com>", None),
        ("supersede", old["id"], "Bob Builder <bob@example.com>", "ETL fixed in v2"),
        ("supersede", new["id"], "Bob Builder <bob@example.com>", "ETL fixed in v2"),
    ]
    assert history["events"][0]["statement"] == "orders lag placement by 3 days"
    assert history["events"][2]["statement"] == "orders lag placement by 1 day since the v2 ETL"
    assert all(len(e["commit"]) == 40 and e["at"].endswith("Z") for e in history["events"])
    # blame from the old end gives the same chain; the human table shows the reason
    assert vmem.json("blame", old["id"])["data"]["chain"] == [old["id"], new["id"]]
    human = vmem("blame", new["id"]).stdout
    assert "ETL fixed in v2" in human and "Bob Builder" in human and new["id"] in human


def test_superseding_a_superseded_item_is_refused_and_writes_nothing(store, vmem):
    old = vmem.json("propose", "a fact", store=store)["data"]["item"]
    vmem("supersede", old["id"], "a better fact", store=store)
    before = commit_count(store)
    result = vmem("supersede", old["id"], "another fact", code=1, store=store)
    assert f"{old['id']} is superseded; it cannot become superseded" in result.stderr
    assert commit_count(store) == before


def test_approved_claims_are_superseded_by_reviewers_only(seeded, vmem):
    old = vmem.json("propose", "ARR excludes trials", store=seeded)["data"]["item"]
    with seeded.acting_as(f"Rita <{REVIEWER[1]}>"), seeded.transaction("approve", items=[old["id"]]) as tx:
        item = tx.snapshot.item(old["id"])
        item["status"] = "approved"
        item["review"] = {"by": REVIEWER[1], "at": model.now(), "action": "approve", "reason": None}
        tx.write(item)
    refused = vmem("supersede", old["id"], "ARR excludes trials and pilots", code=1, store=seeded)
    assert "not a reviewer" in refused.stderr and f"--supersedes {old['id']}" in refused.stderr
    data = vmem.json("supersede", old["id"], "ARR excludes trials and pilots", "--reason", "pilots are free",
                     who=f"Rita <{REVIEWER[1]}>", store=seeded)["data"]
    assert data["item"]["status"] == "approved"  # the belief is never unserved in between
    assert data["item"]["review"]["action"] == "supersede"


def test_propose_supersedes_keeps_the_old_claim_live(store, vmem):
    old = vmem.json("propose", "refunds sync weekly", store=store)["data"]["item"]
    new = vmem.json("propose", "refunds sync daily", "--supersedes", old["id"], store=store)["data"]["item"]
    assert new["supersedes"] == old["id"] and new["status"] == "proposed"
    assert vmem.json("show", old["id"])["data"]["status"] == "proposed"
    assert vmem.json("check")["data"]["errors"] == []
    superseded = vmem.json("supersede", old["id"], "refunds sync hourly", store=store)["data"]["previous"]
    assert "cannot be superseded" in vmem("propose", "x", "--supersedes", superseded["id"], code=1).stderr
    assert "no item c-000000000000" in vmem("propose", "x", "--supersedes", "c-000000000000", code=1).stderr


def test_supersede_rewords_a_learning_nobody_has_decided_on_yet(seeded, vmem):
    # issue 40: a candidate (or quarantined) learning is reworded with its evidence, every gate run again
    # (tests/test_quarantine_exit.py); a superseded one is final
    item = vmem.json("propose", "Fintech buyers want SOC 2 first", "--from", "meridale",
                     "-c", "industry:financial_services", store=seeded)["data"]["item"]
    new = vmem.json("supersede", item["id"], "Fintech buyers want a SOC 2 report first", store=seeded)["data"]["item"]
    assert new["status"] == "candidate" and new["supersedes"] == item["id"] and new["evidence"] == item["evidence"]
    refused = vmem("supersede", item["id"], "x", code=1, store=seeded).stderr
    assert f"{item['id']} is superseded; only a quarantined or candidate learning" in refused and new["id"] in refused


def _acting(store, who) -> None:
    """Make the next commands run as WHO: the store's own git identity (the committer), not --as."""
    git(store, "config", "user.name", who[0])
    git(store, "config", "user.email", who[1])


def test_revisions_that_never_took_effect_leave_a_valid_store(seeded, vmem):
    # regression: rejecting a `propose --supersedes` revision left a store that `vmem check` refused as a
    # "one-sided link"; only approval retires the old claim, so a pending, rejected or lapsed revision points one way
    old = vmem.json("propose", "refunds sync weekly", store=seeded)["data"]["item"]["id"]
    rejected, lapsed, revised = (
        vmem.json("propose", f"refunds sync {when}", "--supersedes", old, store=seeded)["data"]["item"]["id"]
        for when in ("daily", "hourly", "monthly"))
    vmem("supersede", revised, "refunds sync every other month", store=seeded)  # revised while still pending
    _acting(seeded, REVIEWER)
    vmem("reject", rejected, "--reason", "still weekly", store=seeded)
    with seeded.transaction("edit", items=[lapsed]) as tx:
        tx.write({**tx.snapshot.item(lapsed), "expires_at": "2020-01-01T00:00:00Z"})
    assert vmem.json("expire", store=seeded)["data"]["expired"] == [lapsed]
    assert vmem.json("show", old)["data"]["status"] == "proposed"
    assert vmem.json("check")["data"]["errors"] == []


def test_a_one_sided_link_on_a_revision_that_took_effect_is_still_an_error(seeded, vmem):
    old = vmem.json("propose", "refunds sync weekly", store=seeded)["data"]["item"]["id"]
    new = vmem.json("propose", "refunds sync daily", "--supersedes", old, store=seeded)["data"]["item"]["id"]
    with seeded.transaction("edit", items=[new]) as tx:  # approved by hand: the old claim was never retired
        tx.write({**tx.snapshot.item(new), "status": "approved",
                  "review": {"by": REVIEWER[1], "at": model.now(), "action": "approve", "reason": None}})
    errors = [e for e in vmem.json("check", code=1)["data"]["errors"] if e["path"] != "governance"]  # by hand
    assert [(e["path"], e["message"]) for e in errors] == [
        (model.item_path(new), f"supersedes: {old}, but {old} has superseded_by: None (one-sided link)")]
    with seeded.transaction("edit", items=[new]) as tx:  # and so is one that expired after its approval
        tx.write({**tx.snapshot.item(new), "status": "expired"})
    assert len([e for e in vmem.json("check", code=1)["data"]["errors"] if e["path"] != "governance"]) == 1
