"""Rules in one place (SPEC 5, 7.2): every status write goes through model.transition, the status families agree
with the lifecycle table, and the gate table with the gate record."""

from __future__ import annotations

import pytest
from conftest import commit_count

from vmem import model
from vmem.errors import IllegalTransition

ANALYSTS = ["Alice <alice@example.com>", "Bob <bob@example.com>"]
CATS = ["-c", "industry:healthcare", "-c", "stage:security_review"]


def _claim(status: str) -> dict:
    return {"id": "c-7b1e0d9c4a22", "kind": "claim", "status": status, "valid_to": None, "review": None}


def test_a_status_write_the_table_does_not_allow_is_refused_and_changes_nothing():
    item = _claim("rejected")
    with pytest.raises(IllegalTransition, match="c-7b1e0d9c4a22 is rejected; it cannot become approved"):
        model.transition(item, "approved", by="rita@example.com", action="approve")
    assert item == _claim("rejected")


def test_withdrawing_a_belief_ends_its_valid_time_and_a_decision_records_who_made_it():
    revoked = model.transition(_claim("approved"), "revoked", by="rita@example.com", action="revoke", reason="wrong",
                               at="2026-12-01T10:00:00Z")
    assert revoked["status"] == "revoked" and revoked["valid_to"] == "2026-12-01T10:00:00Z"
    assert revoked["review"] == {"by": "rita@example.com", "at": "2026-12-01T10:00:00Z", "action": "revoke",
                                 "reason": "wrong"}
    superseded = model.transition(_claim("approved"), "superseded", superseded_by="c-0123456789ab")
    assert superseded["valid_to"] and superseded["superseded_by"] == "c-0123456789ab" and superseded["review"] is None
    expired = model.transition(_claim("approved"), "expired")  # time ended it: expires_at says when, nobody decided
    assert expired == {**_claim("expired")}


def test_the_status_families_agree_with_the_lifecycle_table():
    statuses = {"claim": set(model.CLAIM_STATUSES), "knowledge": set(model.KNOWLEDGE_STATUSES)}
    for kind in ("claim", "knowledge"):
        assert set(model.SERVABLE[kind]) <= set(model.OPEN[kind]) <= statuses[kind]
        assert set(model.IN_REVIEW[kind]) <= statuses[kind] - set(model.SERVABLE[kind])
        for status in model.OPEN[kind]:  # an open item can still be retired: superseded, rejected, revoked ...
            assert model.TRANSITIONS[kind][status]
    assert all("expired" in model.TRANSITIONS["claim"][status] for status in model.OPEN["claim"])
    assert set(model.AWAITING) == {s for kind in statuses for s in set(model.OPEN[kind]) - set(model.SERVABLE[kind])}
    assert set(model.QUEUED) <= set(model.AWAITING)
    for status in model.STALE + model.ENDS_VALIDITY:  # final wherever it exists, and some status leads to it
        for kind in statuses:
            if status in statuses[kind]:
                assert not model.TRANSITIONS[kind][status]
        assert any(status in moves for table in model.TRANSITIONS.values() for moves in table.values())


def test_forget_demotes_an_eligible_learning_whose_support_falls_below_k(seeded, vmem, monkeypatch):
    monkeypatch.setenv("VMEM_KNOWLEDGE_AUTO_MERGE", "0")
    text = "Healthcare buyers ask for audit-log exports before security review."
    item_id = vmem.json("propose", text, "--from", "larkspur-health", *CATS, who=ANALYSTS[0],
                        store=seeded)["data"]["item"]["id"]
    for entity, writer in (("tidewell", ANALYSTS[1]), ("corvane", ANALYSTS[0])):
        vmem.json("propose", text, "--from", entity, *CATS, who=writer, store=seeded)
    assert vmem.json("consolidate", store=seeded)["data"]["eligible"] == [item_id]
    before = commit_count(seeded)
    forgotten = vmem.json("forget", "--entity", "corvane", "--reason", "customer withdrew consent",
                          store=seeded)["data"]
    assert forgotten == {"evidence_removed": 1, "invalidated": [], "demoted": [item_id]}
    assert commit_count(seeded) == before + 1
    shown = vmem.json("show", item_id)["data"]
    assert shown["status"] == "candidate" and shown["valid_to"] is None and shown["review"] is None


def test_the_gate_table_and_the_stored_gate_record_name_the_same_gates_in_the_same_order():
    from vmem.gates.publish import GATES

    assert tuple(gate.name for gate in GATES) == tuple(field.name for field in model.GATE_CHECKS)
    assert {gate.name for gate in GATES if gate.quarantines} == {"deid", "category_floor"}
