"""Claim governance: guarded transitions, one commit each, reviewers only, verification, expiry."""

from __future__ import annotations

import json
import re

from conftest import REVIEWER, commit_count, commit_file, git

from vmem import model

REVIEW_AS = f"Rita <{REVIEWER[1]}>"


def _claim(vmem, store, text="orders lag placement by 3 days", *extra):
    return vmem.json("propose", text, *extra, store=store)["data"]["item"]["id"]


def test_approve_mandate_revoke_each_one_commit_by_a_reviewer(seeded, vmem):
    item = _claim(vmem, seeded)
    assert "not a reviewer" in vmem("approve", item, code=1, store=seeded).stderr
    for command, status in (("approve", "approved"), ("mandate", "mandatory"), ("approve", "approved"),
                            ("revoke", "revoked")):
        before = commit_count(seeded)
        data = vmem.json(command, item, "--reason", f"{command} it", who=REVIEW_AS, store=seeded)["data"]
        assert data["item"]["status"] == status and data["item"]["review"]["by"] == REVIEWER[1]
        assert commit_count(seeded) == before + 1
        assert f"Vmem-Action: {command}" in git(seeded, "log", "-1", "--format=%B")
    assert vmem.json("show", item)["data"]["valid_to"] is not None  # revoked: no longer valid
    before = commit_count(seeded)
    refused = vmem("approve", item, who=REVIEW_AS, code=1, store=seeded)
    assert f"{item} is revoked; it cannot become approved" in refused.stderr
    assert commit_count(seeded) == before


def test_approving_a_revision_supersedes_the_old_claim_in_the_same_commit(seeded, vmem):
    old = _claim(vmem, seeded)
    vmem("approve", old, who=REVIEW_AS, store=seeded)
    new = _claim(vmem, seeded, "orders lag placement by 1 day", "--supersedes", old)
    assert vmem.json("show", old)["data"]["status"] == "approved"  # live until the revision is approved
    before = commit_count(seeded)
    data = vmem.json("approve", new, who=REVIEW_AS, store=seeded)["data"]
    assert commit_count(seeded) == before + 1
    assert data["previous"]["status"] == "superseded" and data["previous"]["superseded_by"] == new
    assert vmem.json("blame", new)["data"]["chain"] == [old, new]
    assert vmem.json("check")["data"]["errors"] == []


def test_reject_claims_needs_a_reason_and_knowledge_is_not_approved(seeded, vmem):
    item = _claim(vmem, seeded)
    assert vmem.json("reject", item, "--reason", "wrong table",
                     who=REVIEW_AS, store=seeded)["data"]["item"]["status"] == "rejected"
    learning = vmem.json("propose", "Fintech buyers want SOC 2 first", "--from", "meridale",
                         "-c", "industry:financial_services", store=seeded)["data"]["item"]["id"]
    assert "vmem publish" in vmem("approve", learning, who=REVIEW_AS, code=2, store=seeded).stderr


def test_verification_raises_effective_confidence(seeded, vmem):
    item = _claim(vmem, seeded)
    vmem("approve", item, who=REVIEW_AS, store=seeded)
    base = vmem.json("show", item)["data"]["computed"]["effective_confidence"]
    vmem("verify", item, "--kind", "confirmation", who="Bob <bob@example.com>", store=seeded)
    vmem("verify", item, "--kind", "confirmation", who="Cy <cy@example.com>", store=seeded)
    after = vmem.json("show", item)["data"]
    assert [v["user"] for v in after["verifications"]] == ["bob@example.com", "cy@example.com"]
    assert after["computed"]["effective_confidence"] == round(base + 0.20 + 0.05, 4)
    assert "unknown verification kind" in vmem("verify", item, "--kind", "gossip", code=2).stderr


def test_expired_claims_are_never_live_and_the_sweep_records_them(seeded, vmem):
    item = _claim(vmem, seeded)
    vmem("approve", item, who=REVIEW_AS, store=seeded)
    with seeded.transaction("edit", items=[item]) as tx:
        current = tx.snapshot.item(item)
        current["expires_at"] = "2020-01-01T00:00:00Z"
        tx.write(current)
    shown = vmem.json("show", item)["data"]
    assert shown["status"] == "approved" and shown["computed"]["live"] is False  # read-time check
    before = commit_count(seeded)
    assert vmem.json("expire", store=seeded)["data"] == {"expired": [item]}
    assert commit_count(seeded) == before + 1
    assert vmem.json("show", item)["data"]["status"] == "expired"
    assert vmem.json("expire", store=seeded)["data"] == {"expired": []}
    assert commit_count(seeded) == before + 1


def test_the_sweep_reads_hand_written_expiry_dates_and_skips_live_ones(seeded, vmem):
    """The sweep judges vmem-written files by their bytes; anything else is parsed, so nothing is missed."""
    past, future, dated = (_claim(vmem, seeded, f"fact number {n}") for n in range(3))
    for item, stamp in ((past, "2020-01-01T00:00:00Z"), (future, "2999-01-01T00:00:00Z")):
        with seeded.transaction("edit", items=[item]) as tx:
            tx.write({**tx.snapshot.item(item), "expires_at": stamp})
    path = model.item_path(dated)
    text = re.sub(r"expires_at: .*\n", "expires_at: 2021-03-04  # hand-set\n", (seeded.root / path).read_text())
    assert "2021-03-04" in text
    commit_file(seeded, path, text.encode())
    assert sorted(vmem.json("expire", store=seeded)["data"]["expired"]) == sorted([past, dated])
    assert vmem.json("show", future)["data"]["status"] == "proposed"


def test_effective_confidence_decays_and_respects_floors():
    from datetime import datetime, timedelta, timezone

    from vmem.confidence import bundle_rank, effective_confidence

    now = datetime(2026, 11, 29, tzinfo=timezone.utc)
    year_ago = model.format_ts(now - timedelta(days=365.25))
    claim = {"kind": "claim", "status": "approved", "confidence": 0.5, "created_at": year_ago,
             "review": {"by": "r", "at": year_ago, "action": "approve"}, "verifications": []}
    assert effective_confidence(claim, now) == 0.35  # (0.5 + 0.2) x 0.5^(12/12)
    assert bundle_rank(claim, now) == 0.0  # a year old: out of the bundle ranking
    assert effective_confidence({**claim, "status": "mandatory"}, now) == 0.5  # mandated floor
    old = model.format_ts(now - timedelta(days=3650))
    verified = {**claim, "created_at": old, "review": None, "verifications": [
        {"user": "u", "kind": "confirmation", "at": old}]}
    assert effective_confidence(verified, now) == 0.4  # verified floor
    # a correction is evidence against the statement: no floor (issue 13)
    corrected = {**verified, "verifications": [{"user": "u", "kind": "correction", "at": old}]}
    assert effective_confidence(corrected, now) < 0.01


def test_governance_audit_names_commits_by_non_reviewers(seeded, vmem):
    item = _claim(vmem, seeded)
    vmem("approve", item, who=REVIEW_AS, store=seeded)
    assert vmem.json("check", "--governance")["data"]["errors"] == []
    # someone edits history locally: an approval committed by a non-reviewer (local refusal is only a courtesy)
    other = _claim(vmem, seeded, "refunds lag by a day")
    with seeded.transaction("approve", items=[other]) as tx:
        current = tx.snapshot.item(other)
        current["status"] = "approved"
        tx.write(current)
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert len(errors) == 2
    assert errors[0]["path"].startswith("commit ") and "by alice@example.com, not a reviewer" in errors[0]["message"]
    assert errors[1]["path"] == model.item_path(other) and "status approved is not attested" in errors[1]["message"]


def test_a_revision_that_reaches_further_needs_widen_scope(seeded, vmem):
    # regression: approving an org-scoped revision of an entity-scoped claim widened its scope silently
    old = _claim(vmem, seeded, "Tidewell renewals go through procurement", "--about", "tidewell",
                 "--audience", "group:sales", "--personal")
    vmem("approve", old, who=REVIEW_AS, store=seeded)
    proposed = vmem("propose", "Renewals go through procurement", "--supersedes", old, "--json", store=seeded)
    new = json.loads(proposed.stdout)["data"]["item"]["id"]  # written, with a warning
    assert f"reaches further than {old}" in proposed.stderr and "--widen-scope" in proposed.stderr
    before = commit_count(seeded)
    for command in ("approve", "mandate"):
        refused = vmem(command, new, who=REVIEW_AS, code=1, store=seeded).stderr
        assert (f"{new} reaches further than {old}, the claim it replaces: scope entity:tidewell -> org, "
                "audience group:sales -> all, personal true -> false") in refused
        assert f"vmem {command} {new} --widen-scope" in refused
    assert commit_count(seeded) == before
    assert vmem.json("show", old)["data"]["status"] == "approved"
    data = vmem.json("approve", new, "--widen-scope", who=REVIEW_AS, store=seeded)["data"]
    assert data["item"]["status"] == "approved" and data["previous"]["status"] == "superseded"
    assert "Vmem-Widens: scope entity:tidewell -> org" in git(seeded, "log", "-1", "--format=%B")
    vmem("mandate", new, who=REVIEW_AS, store=seeded)  # accepted once, at approval; not asked again
    assert vmem.json("check")["data"]["errors"] == []


def test_a_revision_with_the_same_or_a_narrower_reach_needs_no_flag(seeded, vmem):
    old = _claim(vmem, seeded, "Refunds settle in 3 days", "--audience", "group:finance")
    narrower = vmem("propose", "Tidewell refunds settle in 5 days", "--supersedes", old, "--about", "tidewell",
                    "--audience", "group:finance", "--personal", store=seeded)
    assert "reaches further" not in narrower.stderr
    new = re.match(r"(c-[0-9a-f]{12}) ", narrower.stdout).group(1)
    assert vmem.json("approve", new, who=REVIEW_AS, store=seeded)["data"]["previous"]["id"] == old
