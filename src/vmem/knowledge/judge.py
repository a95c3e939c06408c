"""The merge judge: decides whether two knowledge proposals say the same thing, failing closed.

Two judges share one verdict type. The built-in deterministic judge merges only a
*token-aligned paraphrase*: after normalisation (abbreviations, number formats,
inflection, a small table of general synonyms) every content word of one statement
is found in the other, and no decisive feature differs — numbers with their units,
negation, direction (higher/lower), temporal order (before/after), modality
(can/must), named artifacts (DPA, SOC 2, ...), conflicting category facets, the
order of the shared words (every occurrence) beyond one clause move (which is how
"prefer X to Y" and "prefer Y to X" differ although they hold the same words), or a
shared word taking another role ("from X to Y" vs "from Y to X"). The external judge runs a
command from policy (or a ready adapter for an LLM tool, adapters.py) and treats anything but a well-formed answer
as "no merge"; floor() says which pairs the deterministic judge leaves open for it.

The word tables live in tables.py, statement parsing in parsing.py, the detectors in
detectors.py; this module holds the verdicts (the Verdict type and the answer bounds live in verdict.py, shared with
adapters.py).
"""

from __future__ import annotations

import json

from vmem.knowledge.detectors import category_conflict, named_differences
from vmem.knowledge.parsing import parse
from vmem.knowledge.verdict import MAX_ANSWER_BYTES, MAX_ANSWER_DEPTH, Verdict, json_deeper_than
from vmem.text import canonicalize


# The blocker (recall only) hands the judge pairs at or above this cosine that share a category.
BLOCKER_THRESHOLD = 0.5
# The judge's own cosine bar. The lexical checks carry the decision; the bar is a second,
# independent opinion that refuses pairs the embedding calls far apart.
MIN_COSINE = 0.75
__all__ = ["BLOCKER_THRESHOLD", "MAX_ANSWER_BYTES", "MAX_ANSWER_DEPTH", "MIN_COSINE", "OPEN_RULES", "REFUSING",
           "Verdict", "floor", "floor_refusal", "json_deeper_than", "judge_command", "judge_pair",
           "judge_pair_with_rule", "passes_blocker"]


def passes_blocker(cosine: float, categories_a: list[str], categories_b: list[str],
                   threshold: float = BLOCKER_THRESHOLD) -> bool:
    """Whether the blocker sends a pair to the judge: close enough in embedding space and a category in common."""
    return cosine >= threshold and bool(set(categories_a) & set(categories_b))


def judge_pair(a: str, b: str, categories_a: list[str], categories_b: list[str], cosine: float,
               min_cosine: float = MIN_COSINE) -> Verdict:
    """The built-in judge: merge a token-aligned paraphrase with no decisive difference, else refuse."""
    return judge_pair_with_rule(a, b, categories_a, categories_b, cosine, min_cosine)[0]


def judge_pair_with_rule(a: str, b: str, categories_a: list[str], categories_b: list[str], cosine: float,
                         min_cosine: float = MIN_COSINE) -> tuple[Verdict, str]:
    """judge_pair and the rule that decided: "canonical" or "aligned" for a merge, else the refusing detector
    (category, number, negation, ..., order, role) or "cosine"."""
    conflict = category_conflict(categories_a, categories_b)
    if conflict:  # the same words about another industry or region are another claim
        return Verdict(False, f"not merged: {conflict}", "deterministic"), "category"
    if canonicalize(a) == canonicalize(b):
        return Verdict(True, "merged: identical after canonicalization", "deterministic"), "canonical"
    found = named_differences(a, b, categories_a, categories_b)
    if found:
        rule, reason = found[0]
        return Verdict(False, f"not merged: {reason}", "deterministic"), rule
    if cosine < min_cosine:
        return Verdict(False, f"not merged: cosine {cosine:.2f} below {min_cosine:.2f}", "deterministic"), "cosine"
    numbers = "numbers equal" if parse(a).quantities else "no numbers"
    return Verdict(True, f"merged: token-aligned paraphrase (cosine {cosine:.2f}, {numbers}, "
                         "no negation/order/artifact difference)", "deterministic"), "aligned"


# The floor refuses a pair on its own only where a detector has earned it: each finding has a shape
# (detectors.finding_shapes: "number:unit", "negation:alone", "order:clear", "role:reworded", ...), and a shape
# refuses when its precision as a difference claim (of the labeled pairs it refuses, the share that are truly
# different) reached 0.9 on the fit half of both the dev pairs and PAWS-Wiki dev (the fixed pair-id hash,
# knowledge.suggest.split_of), wherever it refused at all. `vmem eval merge` prints the table (by_detector); fitted
# on the fit halves, right/refused:
#   number:unit   6/6 dev            number:clear  3/3 dev, 18/19 PAWS      negation:alone  2/2 dev
#   relation:*    111/117, 123/135, 1/1 PAWS     compass:*   27/28, 16/17 PAWS        voice:reworded  3/3 PAWS
#   agent:*       53/55, 43/44 PAWS ("produced by X and directed by Y" vs "produced and directed by Y"; it never fired
#                 on the dev pairs, and its "alone" shape, stricter than "clear", never fired on either)
# A category conflict (same facet, no shared value) always refuses: it is the items' metadata, not a reading of
# their words, and SPEC 7.1 names a different segment among the decisive differences (as labels, 5/6 on dev fit).
# Everything else leaves the pair open for a judge that reads meaning (and, without one, it is simply not merged):
# word order (0.72-0.87 PAWS, 0.26-0.83 dev), roles (0.31-0.87), attachment
# (0.74-0.89), direction, time, modality, cause, artifacts, a number stated on one side only or with a unit on one
# side only ("3" vs "3 years": 2/12 PAWS), and the wording too far apart for word alignment ("unaligned", "cosine").
REFUSING = frozenset({"number:unit", "number:clear", "negation:alone", "relation:alone", "relation:clear",
                      "relation:reworded", "compass:clear", "compass:reworded", "voice:reworded", "agent:alone",
                      "agent:clear", "agent:reworded"})
OPEN_RULES = ("unaligned", "cosine")


def floor_refusal(a: str, b: str, categories_a: list[str], categories_b: list[str]) -> tuple[str, str] | None:
    """(detector:shape, reason) of the first finding the floor refuses on (REFUSING), else None."""
    from vmem.knowledge.detectors import finding_shapes

    return next(((shape, reason) for shape, reason in finding_shapes(a, b, categories_a, categories_b)
                 if shape in REFUSING), None)


def floor(a: str, b: str, categories_a: list[str], categories_b: list[str], cosine: float,
          min_cosine: float = MIN_COSINE) -> tuple[Verdict | None, str]:
    """The deterministic judge as a floor under an external one: its verdict and rule when it decides (a merge
    it is sure of, or a difference of a shape measured precise enough, REFUSING), or (None, rule) when the pair is
    open for a judge that reads meaning."""
    from vmem.knowledge.detectors import category_conflict

    verdict, rule = judge_pair_with_rule(a, b, categories_a, categories_b, cosine, min_cosine)
    if verdict.same:
        return verdict, rule
    refusal = floor_refusal(a, b, categories_a, categories_b)
    if refusal:
        shape, reason = refusal
        return Verdict(False, f"not merged: {reason}", "deterministic"), shape.split(":")[0]
    # a category conflict is metadata, not a reading of words: a learning about one segment is another
    # generalization than one about a different segment (SPEC 7.1's decisive differences), whatever a judge reads
    conflict = category_conflict(categories_a, categories_b)
    if conflict:
        return Verdict(False, f"not merged: {conflict}", "deterministic"), "category"
    return None, rule


def judge_command(command: list[str], a: dict, b: dict, timeout_s: float) -> Verdict:
    """External judge: run `command` (a list, NO shell) with the pair as JSON on stdin ({"a": {...}, "b": {...}}),
    expect {"same": bool, "reason": str} on stdout; timeout, non-zero exit, malformed JSON, wrong types, an answer
    over MAX_ANSWER_BYTES or nested deeper than MAX_ANSWER_DEPTH => Verdict(False, "<why>", "command")."""
    def refuse(why: str) -> Verdict:
        return Verdict(False, f"not merged: judge command {why}", "command", True)

    if not isinstance(command, list) or not command or not all(isinstance(part, str) for part in command):
        return refuse("is not a non-empty list of strings")
    from vmem.policy import ADAPTER_MARK

    if command[0] == ADAPTER_MARK:  # a ready adapter (knowledge.judge.adapter): an LLM tool behind a fixed prompt
        from vmem.knowledge.adapters import ask

        return ask(command[1:], a, b, timeout_s)
    from vmem.process import run_bounded  # subprocess, signal, threading: only when a judge command is set

    done = run_bounded(command, input=json.dumps({"a": a, "b": b}), timeout_s=timeout_s, max_output=MAX_ANSWER_BYTES)
    if done.outcome == "timeout":
        return refuse(f"timed out after {timeout_s:g}s")
    if done.outcome == "too_large":
        return refuse(f"printed {done.detail}")
    if done.outcome != "exited":
        return refuse(f"could not run ({done.detail})")
    if done.returncode != 0:
        return refuse(f"exited with status {done.returncode}")
    text = done.stdout.decode("utf-8", "replace")
    if json_deeper_than(text, MAX_ANSWER_DEPTH):
        return refuse(f"answered JSON nested deeper than {MAX_ANSWER_DEPTH} levels")
    try:
        answer = json.loads(text)
    except (ValueError, RecursionError, MemoryError):  # the depth guard makes the last two unlikely, not impossible
        return refuse("printed malformed JSON")
    if not isinstance(answer, dict) or not isinstance(answer.get("same"), bool) \
            or not isinstance(answer.get("reason"), str):
        return refuse('answered without {"same": bool, "reason": str}')
    reason = " ".join(answer["reason"].split())[:500] or "(no reason given)"
    return Verdict(answer["same"], f"{'merged' if answer['same'] else 'not merged'}: {reason}", "command")
