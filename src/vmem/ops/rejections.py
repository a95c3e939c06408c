"""Rejected claims a proposal restates (issue 30): a reviewer said no to this before, in these or other words.

`vmem propose` answers with the rejection's id and reason (CLI text, --json, MCP: one body, ops.propose), and the
card shows it to the reviewer. An identical canonical statement is refused (propose.find_rejected_claim: a
rejection is remembered); a rewording lands as a proposal, flagged, because the reviewer, not a word match, decides
whether the reasons for the old "no" still hold -- the rejection is on its card.
"""

from __future__ import annotations

from pathlib import Path

from vmem import model
from vmem.errors import SchemaError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vmem.store.repo import Snapshot

# A rejected near-match: the rejected claims in the proposal's scope that share at least two content words with it
# and overlap it this much (Jaccard of content words, plural folded) are judged; at most NEAR_CANDIDATES of them,
# the closest first, and the external judge (when the policy names one) about at most NEAR_JUDGED pairs the
# deterministic floor leaves open, so a proposal waits for a judge at most NEAR_JUDGED times. The bar is low on
# purpose (the floor merges only aligned words anyway; the judge needs candidates): finding them is lexical, since
# a proposal loads no embedding model, so a rewording that shares almost no words with the rejected claim is not
# found here (consolidation's blocker is the place for meaning-level candidates).
NEAR_OVERLAP = 0.25
NEAR_CANDIDATES = 8
NEAR_JUDGED = 2


def rejected_near(snapshot: Snapshot, statement: str, scope: str, categories: list[str] | None = None, *,
                  viewer: str | None = None, judge: dict | None = None, exclude: str | None = None) -> list[dict]:
    """Rejected claims in SCOPE that STATEMENT restates in other words: the deterministic judge merges them
    (canonical, or every content word aligned with no decisive difference), or, for a pair it leaves open, the
    external JUDGE (policy's knowledge.judge) says "same". A pair with a decisive difference (a number, negation,
    direction, role ...) is another claim, never a near-match. The cosine bar is not applied: a proposal does not
    load the embedding model, and a false warning costs a reviewer a glance, never a refusal. Another person's
    personal claim is never named. An identical canonical statement is find_rejected_claim's (a refusal)."""
    from vmem.knowledge.canon import rejected_claims
    from vmem.ops.contradictions import words
    from vmem.text import canonicalize

    if snapshot.commit is None:
        return []
    mine, canonical = words(statement), canonicalize(statement)
    if not mine:
        return []
    scored = []
    for path, (text, where) in rejected_claims(snapshot, Path(snapshot.repo.workdir)).items():
        if where != scope or text == canonical or path == (model.item_path(exclude) if exclude else None):
            continue
        theirs = words(text)
        shared = len(mine & theirs)
        overlap = shared / len(mine | theirs) if theirs else 0.0
        if shared >= 2 and overlap >= NEAR_OVERLAP:
            scored.append((-overlap, path))
    if not scored:
        return []
    from vmem.knowledge.judge import floor, judge_command

    command = (judge or {}).get("command")
    if isinstance(command, str):
        import shlex

        command = shlex.split(command)
    asked, found = 0, []
    for _, path in sorted(scored)[:NEAR_CANDIDATES]:
        try:
            old = snapshot.load_file("claim", path)
        except SchemaError:
            continue
        if old is None or old["status"] != "rejected" or (old.get("personal") and
                                                          (old.get("source") or {}).get("user") != viewer):
            continue
        verdict, rule = floor(statement, old["statement"], list(categories or []), list(old.get("categories") or []),
                              1.0)
        if verdict is None and command and asked < NEAR_JUDGED:
            asked += 1
            verdict, rule = judge_command(command, {"statement": statement, "categories": list(categories or [])},
                                          {"statement": old["statement"], "categories": old.get("categories") or []},
                                          (judge or {}).get("timeout_s", 30)), "judge"
        if verdict is not None and verdict.same:
            why = {"canonical": "identical canonical statement",
                   "aligned": "every content word aligns and no number, negation, direction or role differs"}.get(
                rule, f"the merge judge says the same: {verdict.reason.removeprefix('merged: ')}")
            found.append(rejection(old, rule, why))
    return found


def rejection(item: dict, match: str, why: str) -> dict:
    review = item.get("review") or {}
    return {"id": item["id"], "statement": item["statement"], "reason": review.get("reason"), "by": review.get("by"),
            "at": review.get("at"), "match": match, "why": why}
