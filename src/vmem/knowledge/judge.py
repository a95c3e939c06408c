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
__all__ = ["BLOCKER_THRESHOLD", "MAX_ANSWER_BYTES", "MAX_ANSWER_DEPTH", "MIN_COSINE", "OPEN_RULES", "Verdict",
           "floor", "json_deeper_than", "judge_command", "judge_pair", "judge_pair_with_rule", "passes_blocker"]


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


# Refusals that leave a pair open: no detector found a decisive difference, only the wording is too far apart for
# word alignment (or the embedding's bar); and, since the floor was measured detector by detector, a detector's
# finding that does not explain the other words the two statements do not share (detectors.clear_differences).
# Measured as difference claims on the fit halves (the fixed pair-id hash), such findings were right 31 of 61
# times on the dev pairs and 1,075 of 1,438 on PAWS dev: a coin toss on our own statements, so the floor no longer
# decides them; a judge that reads meaning does (and without one they are simply not merged). The floor keeps a
# category conflict and a clear difference: a number or unit, a negation, a direction, time or modal word, or
# the same words reordered, with every other word aligned (18 of 21 right on dev fit, 1,097 of 1,446 on PAWS
# fit) -- exactly the pairs the judge prompt itself calls not the same.
OPEN_RULES = ("unaligned", "cosine")
_DETECTORS = frozenset({"number", "negation", "artifact", "direction", "temporal", "modality", "causal", "order",
                        "role", "relation", "voice", "compass", "attachment"})


def floor(a: str, b: str, categories_a: list[str], categories_b: list[str], cosine: float,
          min_cosine: float = MIN_COSINE) -> tuple[Verdict | None, str]:
    """The deterministic judge as a floor under an external one: its verdict and rule when it decides (a merge
    it is sure of, a category conflict, or a clear difference), or (None, rule) when the pair is open for a judge
    that reads meaning."""
    from vmem.knowledge.detectors import category_conflict, clear_differences

    verdict, rule = judge_pair_with_rule(a, b, categories_a, categories_b, cosine, min_cosine)
    if verdict.same or rule == "category" or category_conflict(categories_a, categories_b):
        return verdict, rule
    if rule == "cosine":
        return None, rule
    if clear_differences(a, b, categories_a, categories_b, _DETECTORS):
        return verdict, rule
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
