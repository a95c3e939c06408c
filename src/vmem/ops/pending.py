"""What recall adds to an `uncovered` answer: how many items that would answer the question still await review
(proposed claims, candidate or eligible knowledge) in the asker's scope; never their text (SPEC 4: honest
outputs, and nothing unreviewed reaches an agent)."""

from __future__ import annotations

AWAITING = ("proposed", "candidate", "eligible")
MATCH_COSINE = 0.45  # below recall's partial threshold (0.55): the bundled static model scores a plain paraphrase ~0.5


def awaiting_review(index, qv, who) -> int:
    """Items in the index, in WHO's scope and audience, not personal, still in review, whose cosine to the
    question's vector QV reaches MATCH_COSINE."""
    import numpy as np

    if not index.order:
        return 0
    c = index.columns
    entity_code = index.entity_names.index(who.entity) + 1 if who.entity in index.entity_names else -2
    group = who.audience[6:] if who.audience.startswith("group:") else None
    group_code = index.group_names.index(group) + 1 if group in index.group_names else -2
    in_scope = ((c["present"] == 1) & (c["personal"] == 0) & (c["servable"] == 0)
                & ((c["audience"] == 0) | (c["audience"] == group_code))
                & ((c["knowledge"] == 1) | (c["scope"] == 0) | (c["scope"] == entity_code)))
    rows = np.flatnonzero(in_scope & ((index.vectors @ qv) >= MATCH_COSINE))
    return sum(1 for r in rows if index.items[index.order[r]]["status"] in AWAITING)


def coverage_line(result: dict) -> str:
    """The first line of a human recall answer: the coverage, and for `uncovered` whether answers await review."""
    waiting = result.get("awaiting_review") or 0
    if result["coverage"] == "uncovered" and waiting:
        return (f"uncovered — {waiting} matching item{'s' * (waiting != 1)} await{'s' * (waiting == 1)} review "
                "(a reviewer: vmem review)")
    return result["coverage"]
