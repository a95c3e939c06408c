"""What recall adds to an `uncovered` answer: how many items that would answer the question still await review
(proposed claims, candidate or eligible knowledge) in the asker's scope; never their text (SPEC 4: honest
outputs, and nothing unreviewed reaches an agent)."""

from __future__ import annotations
from vmem.output import counted

MATCH_COSINE = 0.45  # below recall's partial threshold (0.55): the bundled static model scores a plain paraphrase ~0.5


def awaiting_review(index, qv, who, product=None) -> int:
    """Items in the index, in WHO's scope and audience, not personal, still in review, whose cosine to the
    question's vector QV reaches MATCH_COSINE: counted on the index's columns, never by reading the items.
    PRODUCT: every row's cosine to QV, when the caller has it; else only the rows awaiting review in WHO's scope
    are multiplied (the index's blocks, when it has them), or every row. A light index (a one-shot process) is
    counted in plain Python (_waiting), the same rule and the same kernel's cosines."""
    from vmem.index.local import dot, products
    from vmem.ops.scope import codes

    if not index.order:
        return 0
    entity_code, group_code = codes(index, who)
    if index.light:
        values = products(index.vectors, qv).tolist() if product is None else product
        waiting = _waiting(index.columns, entity_code, group_code)
        return sum(1 for row, value in enumerate(values) if value >= MATCH_COSINE and waiting(row))
    import numpy as np

    blocks = index.awaiting_blocks() if product is None else None
    if blocks is not None:
        _, cosines, c = blocks.take(entity_code, qv)
    else:
        cosines, c = (dot(index.vectors, qv) if product is None else product), index.columns
    return int(np.count_nonzero(_in_review(c, entity_code, group_code) & (cosines >= MATCH_COSINE)))


def _in_review(c, entity_code: int, group_code: int):
    """The rows of columns C that await review in the scope of ENTITY_CODE and GROUP_CODE, as a numpy mask."""
    return ((c["present"] == 1) & (c["personal"] == 0) & (c["awaiting"] == 1)
            & ((c["audience"] == 0) | (c["audience"] == group_code))
            & ((c["knowledge"] == 1) | (c["scope"] == 0) | (c["scope"] == entity_code)))


def _waiting(c, entity_code: int, group_code: int):
    """_in_review one row at a time in plain Python: row -> bool (tests/test_recall_fast.py holds them equal)."""
    present, personal, awaiting = c["present"], c["personal"], c["awaiting"]
    audience, knowledge, scope = c["audience"], c["knowledge"], c["scope"]

    def waiting(row: int) -> bool:
        return (present[row] == 1 and personal[row] == 0 and awaiting[row] == 1 and audience[row] in (0, group_code)
                and (knowledge[row] == 1 or scope[row] in (0, entity_code)))

    return waiting


def coverage_line(result: dict) -> str:
    """The first line of a human recall answer: the coverage, what is missing (partial), what the store used to
    answer with ("we used to know": named, never quoted), and for `uncovered` whether answers await review."""
    waiting = result.get("awaiting_review") or 0
    line = result["coverage"]
    if result.get("missing"):
        line += " — missing: " + "; ".join(result["missing"])
    elif result.get("coverage_reason") and not result.get("stale"):  # the stale ones are named below
        line += f" — {result['coverage_reason']}"
    stale = result.get("stale") or []
    if stale:
        line += " — no longer live: " + ", ".join(f"{s['id']} ({s['why']})" for s in stale[:3])
    if result["coverage"] == "uncovered" and waiting:
        line += (f" — {counted(waiting, 'matching item')} {'awaits' if waiting == 1 else 'await'} review "
                 "(a reviewer: vmem review)")
    return line
