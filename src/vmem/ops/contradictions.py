"""Contradictions (SPEC 14): two open items in overlapping scopes that say nearly the same thing but differ in a
decisive feature, found with the merge judge's detectors; and what a reviewer does about one.

An item is *open* while it is proposed or live (claims: proposed, approved, mandatory; knowledge: candidate,
eligible, published). Two items "say nearly the same thing" when their content words, once the words that carry
the decisive difference are set aside (numbers, negation, direction, before/after, modals, antonyms), overlap
by at least SIMILARITY and differ in at most RESIDUAL other words; a difference in topic (another table, another
segment) leaves residual words and is not a contradiction. Nothing is stored: a pair is open while both sides are.
"""

from __future__ import annotations

import heapq
import os
import re
from functools import lru_cache
from pathlib import Path

from vmem import model
from vmem.errors import VmemError
from vmem.lazyre import lazy
from vmem.visibility import visible_to

# the judge's detectors that make two near-identical statements disagree (SPEC 14); "unaligned", "order" and
# "role" say the wording differs, not that the beliefs do
DECISIVE = ("number", "negation", "direction", "temporal", "modality", "artifact", "causal")
# Fitted on the `split: tune` pairs of tests/data/contradictions.jsonl only (docs/contradictions.md: precision and recall on the
# held-out pairs). SIMILARITY: Jaccard of the remaining content words; RESIDUAL: differing words allowed.
SIMILARITY = 0.6
RESIDUAL = 1
# Opposites the judge's tables do not hold (they compare direction, modality and order); one word on each side
# is a decisive difference of its own.
ANTONYMS = (
    ("include", "exclude"), ("includes", "excludes"), ("included", "excluded"), ("including", "excluding"),
    ("allow", "block"), ("allows", "blocks"), ("allowed", "blocked"), ("allow", "forbid"), ("allowed", "forbidden"),
    ("accept", "reject"), ("accepts", "rejects"), ("accepted", "rejected"),
    ("enable", "disable"), ("enabled", "disabled"), ("required", "optional"), ("mandatory", "optional"),
    ("always", "never"), ("gross", "net"), ("maximum", "minimum"), ("max", "min"), ("first", "last"),
    ("earliest", "latest"), ("open", "closed"), ("public", "private"), ("internal", "external"),
    ("pass", "fail"), ("passes", "fails"), ("succeed", "fail"), ("succeeds", "fails"), ("with", "without"),
    ("inclusive", "exclusive"), ("true", "false"), ("monthly", "annual"), ("monthly", "quarterly"),
    ("quarterly", "annual"), ("daily", "weekly"), ("weekly", "monthly"), ("utc", "local"), ("start", "end"),
    ("starts", "ends"), ("same", "different"), ("sync", "async"), ("synchronous", "asynchronous"),
    ("online", "offline"), ("on", "off"), ("up", "down"), ("win", "lose"), ("wins", "loses"),
    ("renew", "churn"), ("renews", "churns"), ("supported", "unsupported"), ("deprecated", "supported"),
)
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in ANTONYMS:
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)

_STOP = frozenset("""a an the of to in on for and or by with at from as is are was were be been being it its this
that these those than then there their they them we our you your i he she his her which who whom what when where how
into onto per about over under via do does did has have had will would so such any all each every some most more
less also only just very about around roughly approximately usually typically often""".split()) - {"on", "with"}
_DECISIVE_WORDS = frozenset("""not no never none cannot can't don't doesn't isn't aren't won't without must should shall
can could may might before after earlier later higher lower more less increase increases increased decrease decreases
decreased rise rises fall falls up down faster slower longer shorter because since due therefore""".split())
_WORD = re.compile(r"[a-z0-9$€£%][a-z0-9_.$€£%'-]*[a-z0-9%]|[a-z0-9]")
_NUMBERISH = re.compile(r"^[$€£]?\d[\d.,]*(k|m|bn|%|x|d|h|s)?$")
_NUMBER_WORDS = frozenset("""zero one two three four five six seven eight nine ten eleven twelve fifteen twenty
thirty forty fifty sixty hundred thousand million billion half quarter double twice triple""".split())


_PURE_NUMBER = lazy(r"^[$€£]?\d[\d.,]*%?$")

# -- numbers written as words ----------------------------------------------------------------------------
# "one day", "forty-five days", "a dozen accounts", "two hundred seats", "an hour", "twice a day", "eight percent"
# are read as the digits they stand for, so "one day" and "3 days" differ as "1 day" and "3 days" do, and
# "twelve" and "a dozen" are the same number. A mechanism over the number words, not a list of phrases.
_SMALL = {w: n for n, w in enumerate("""zero one two three four five six seven eight nine ten eleven twelve thirteen
fourteen fifteen sixteen seventeen eighteen nineteen""".split())}
_TENS = {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_SCALE = {"dozen": 12, "hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_TIME_UNIT = r"(?:business |working |calendar )?(?:second|minute|hour|day|week|fortnight|month|quarter|year)s?\b"
_ONE_TO_NINE = "|".join(w for w, n in _SMALL.items() if 1 <= n <= 9)
_NUMBER_WORD = (r"(?:(?:" + "|".join(_TENS) + r")(?:[- ](?:" + _ONE_TO_NINE + r"))?|" + "|".join(_SMALL)
                + r"|an?(?= (?:" + "|".join(_SCALE) + r")\b))(?:[ -](?:" + "|".join(_SCALE) + r"))*")
# one number: words joined by spaces, hyphens or "and" ("one thousand two hundred and five"); never the first
# half of a compound word ("one-off", "two-factor")
_SPELLED = lazy(r"\b" + _NUMBER_WORD + r"(?:(?: and)? " + _NUMBER_WORD + r")*(?![\w-])", re.I)
_ARTICLE_UNIT = lazy(r"\b(?:an?)(?= " + _TIME_UNIT + ")", re.I)  # "an hour" is one hour, "a day" one day
_HALF = lazy(r"\bhalf (?:an?)(?= " + _TIME_UNIT + r")|\bhalf(?= of\b)", re.I)
_TIMES = lazy(r"\b(?P<n>twice|thrice)\b", re.I)
_PERCENT = lazy(r"(?<![\w.])(?P<n>\d[\d.,]*) ?(?:per ?cent|pct)\b", re.I)
# a statement holding none of these words is returned as it is (most are), after one cheap split
_LETTERS = re.compile(r"[a-z]+")
_TRIGGERS = frozenset([*_SMALL, *_TENS, *_SCALE, "half", "twice", "thrice", "percent", "cent", "pct"])
_UNIT_WORDS = frozenset("""second minute hour day week fortnight month quarter year seconds minutes hours days weeks
fortnights months quarters years""".split())


def warning(clash: dict, *, proposal: bool, agent: bool = False) -> str:
    """The one wording of a contradiction warning, for every face: after a proposal (PROPOSAL: a reviewer will see
    both; the CLI's hint is to supersede instead), or after an approval, edit or publication (both stay open until
    a reviewer retires one). AGENT: for an MCP agent, which has no CLI to run and reads the statement in the data."""
    status = f"{clash['status']}; " if clash.get("status") else ""
    head = f"warning: contradicts {clash['id']} ({status}{clash['reason']})"
    if agent:
        return f"{head}; a reviewer will see both"
    statement = " ".join(str(clash.get("statement") or "").split())
    if len(statement) > 120:
        statement = statement[:119].rsplit(" ", 1)[0] + "…"
    if proposal:
        tail = f"a reviewer will see both; to replace it instead: vmem propose TEXT --supersedes {clash['id']}"
    else:
        tail = ("both stay open (vmem contradictions lists them) until one is retired: vmem revoke ID --reason … "
                "(a proposal: vmem reject ID --reason …)")
    return f"{head}: {statement}\n  {tail}"


def _spelled(found: re.Match) -> str:
    """The digits of one run of number words; a run that is two numbers ("two three") stays two."""
    numbers: list[int] = []
    total = current = 0
    started = after_scale = False
    for word in re.split(r"[ -]+", found.group(0).lower()):
        if word == "and":
            continue
        if word in _SCALE:
            if _SCALE[word] >= 1000:  # "two thousand three hundred": the thousands are done
                total, current = total + (current or 1) * _SCALE[word], 0
            else:
                current = (current or 1) * _SCALE[word]
            after_scale = True
            continue
        value = _SMALL.get(word, _TENS.get(word, 1))  # "a"/"an" before a scale word: one
        ones_after_tens = current % 100 >= 20 and current % 10 == 0 and value < 10
        if started and not after_scale and not ones_after_tens:
            numbers.append(total + current)
            total = current = 0
        current += value
        started, after_scale = True, False
    numbers.append(total + current)
    return " ".join(map(str, numbers))


def _spelled_numbers(found: set[str]) -> bool:
    """Whether the words FOUND may hold a number written as words (else numerals() has nothing to do)."""
    return not found.isdisjoint(_TRIGGERS) or not found.isdisjoint(("a", "an")) and not found.isdisjoint(_UNIT_WORDS)


@lru_cache(maxsize=65536)
def numerals(text: str) -> str:
    """TEXT with numbers written as words put as digits: "forty-five days" -> "45 days", "a dozen" -> "12",
    "an hour" -> "1 hour", "half a day" -> "0.5 day", "half of" -> "50% of", "twice" -> "2 times",
    "eight percent" -> "8%". Words that only look like numbers in a compound ("one-off") stay."""
    if not _spelled_numbers(set(_LETTERS.findall(text.lower()))):
        return text
    text = _HALF.sub(lambda m: "0.5" if m.group(0).lower() != "half" else "50%", text)
    text = _TIMES.sub(lambda m: {"twice": "2 times", "thrice": "3 times"}[m["n"].lower()], text)
    text = _SPELLED.sub(_spelled, text)
    text = _ARTICLE_UNIT.sub("1", text)
    return _PERCENT.sub(lambda m: m["n"] + "%", text)


@lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    """Content words of TEXT, lower case, plural -s folded, numbers written as words as digits ("three" = "3")."""
    from vmem.text import visible

    out = set()
    text = visible(text)  # "AR\u2063R" is ARR, as the canonical form and the de-id gate read it
    tokens = _WORD.findall(text.lower().replace("’", "'"))
    if _spelled_numbers(set(tokens)):
        tokens = _WORD.findall(numerals(text).lower().replace("’", "'"))
    for token in tokens:
        token = token.strip(".'-")
        if not token or token in _STOP:
            continue
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        out.add(token)
    return frozenset(out)


@lru_cache(maxsize=65536)
def _plain(found: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in found if w not in _DECISIVE_WORDS and w not in _NUMBER_WORDS
                     and not _NUMBERISH.match(w))


def _decisive_token(token: str) -> bool:
    return token in _DECISIVE_WORDS or token in _NUMBER_WORDS or bool(_NUMBERISH.match(token))


class Verdict:
    __slots__ = ("contradicts", "rules", "reason", "similarity")

    def __init__(self, contradicts: bool, rules: list[str] | None = None, reason: str = "",
                 similarity: float = 0.0) -> None:
        self.contradicts, self.reason, self.similarity = contradicts, reason, similarity
        self.rules: list[str] = [] if rules is None else rules

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Verdict) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return f"Verdict({self.contradicts!r}, {self.rules!r}, {self.reason!r}, {self.similarity!r})"


def _antonyms(wa: frozenset[str], wb: frozenset[str]) -> list[tuple[str, str]]:
    return [(x, y) for x in wa - wb for y in _OPPOSITE.get(x, ()) if y in wb - wa]


_UNIT_AFTER = lazy(r"\s*([A-Za-z]+)?", re.I)  # re.I as before: also the Kelvin sign, long s, dotted I


def _with_unit(text: str, number: str) -> str:
    """NUMBER as TEXT writes it, with the word after it when that is its unit ("3 days")."""
    start = text.find(number)
    while start >= 0:  # the first occurrence standing alone: no word character or point before, no word after
        end = start + len(number)
        before, after = text[start - 1:start], text[end:end + 1]
        if not (before and (before.isalnum() or before in "_.")) and not (after and (after.isalnum() or after == "_")):
            unit = _UNIT_AFTER.match(text, end).group(1)
            return f"{number} {unit}" if unit and unit.lower() not in _STOP else number
        start = text.find(number, start + 1)
    return number


# -- qualifying clauses ----------------------------------------------------------------------------------
# A clause that says when, why or for whom a statement holds ("since the v2 ETL", "as of January", "because
# finance asked", "for enterprise plans", "when the card has expired"). One side's clause is set aside when the
# other side has no clause of that kind, and only while that brings the two statements closer: "Refunds settle
# one day after payment since the v2 ETL." is compared with "Refunds settle three days after payment." as
# "... 1 day after payment" (a number), and "... 90 days as of the 2024 audit" with "... 90 days" (the same).
# When both sides carry clauses the other lacks, each holds under its own condition (another period, another
# segment) and they do not contradict; two clauses of one kind ("for SMB" vs "for enterprise"), or about the same
# thing ("before the call" vs "after the call"), are compared whole.
QUALIFIERS = ("since", "as of", "as at", "after", "before", "for", "in", "because", "due to", "when", "whenever",
              "from", "until", "till", "following", "starting", "effective", "unless", "except", "if", "while",
              "during", "once", "now that")
# a marker standing alone: "in-app" or "follow-up" is one word, never a clause
_CLAUSE = lazy(r"(?<![\w'’-])(" + "|".join(q.replace(" ", r"\s+") for q in QUALIFIERS) + r")(?![\w'’-])", re.I)
MIN_CORE = 2  # plain content words a statement keeps once a clause is set aside


@lru_cache(maxsize=65536)
def _clauses(text: str) -> tuple[tuple[str, int] | None, tuple[tuple[str, int], ...]]:
    """TEXT's qualifying clauses: the leading one (kind, where its comma is) when TEXT opens with one ("Since the
    v2 ETL, refunds ..."), and the trailing ones (kind, where each starts), last first."""
    leading, trailing = None, []
    for found in _CLAUSE.finditer(text):
        if not text[found.end():].strip(" .,;:!?"):
            break  # nothing after the marker: no clause
        if found.start() == 0:
            comma = text.find(",")
            if comma > 0:
                leading = (" ".join(found.group(1).lower().split()), comma)
        else:
            trailing.append((" ".join(found.group(1).lower().split()), found.start()))
    return leading, tuple(trailing[::-1])


def _distance(a: str, b: str) -> int:
    return len(_plain(words(a)) ^ _plain(words(b)))


@lru_cache(maxsize=65536)
def _peel(text: str, other_kinds: frozenset[str]) -> str:
    """TEXT without its clauses whose kind OTHER_KINDS lacks, from the outside in, each kept out only while TEXT
    keeps MIN_CORE plain words."""
    leading, trailing = _clauses(text)
    if leading is not None and leading[0] not in other_kinds:
        rest = text[leading[1] + 1:].strip()
        if len(_plain(words(rest))) >= MIN_CORE:
            text = rest[:1].upper() + rest[1:]
            leading, trailing = _clauses(text)
    for kind, start in trailing:
        if kind in other_kinds:
            break
        rest = text[:start].rstrip(" ,;:—-")
        if len(_plain(words(rest))) < MIN_CORE:
            break
        text = rest + "."
    return text


@lru_cache(maxsize=65536)
def _kinds(text: str) -> frozenset[str]:
    leading, trailing = _clauses(text)
    return frozenset([k for k, _ in trailing] + ([leading[0]] if leading else []))


def cores(a: str, b: str) -> tuple[str, str] | None:
    """A and B with the qualifying clauses only one of them carries set aside (see QUALIFIERS); A and B as they
    are when setting them aside brings the two no closer; None when each carries a clause the other lacks (each
    holds under its own condition: "Since v2, refunds settle in one day" and "Before v2, ... in three days")."""
    kinds_a, kinds_b = _kinds(a), _kinds(b)
    if not kinds_a and not kinds_b:
        return a, b
    peeled_a, peeled_b = _peel(a, kinds_b), _peel(b, kinds_a)
    if peeled_a != a and peeled_b != b:
        set_aside_a = _plain(words(a)) - _plain(words(peeled_a))
        if set_aside_a != _plain(words(b)) - _plain(words(peeled_b)):
            return None
        return a, b  # one clause said two ways ("before the call" vs "after the call"): compared whole
    if (peeled_a, peeled_b) == (a, b) or _distance(peeled_a, peeled_b) > _distance(a, b):
        return a, b
    return peeled_a, peeled_b


@lru_cache(maxsize=65536)
def bare(text: str) -> frozenset[str]:
    """The plain content words of TEXT with every qualifying clause set aside (the least any comparison keeps of
    it): what the prefilters count, so a long clause on one side does not keep a pair from being judged."""
    text = numerals(text)
    leading, trailing = _clauses(text)
    if leading is not None and len(_plain(words(text[leading[1] + 1:]))) >= MIN_CORE:
        text = text[leading[1] + 1:]
        trailing = _clauses(text)[1]
    for _, start in reversed(trailing):  # the earliest cut that keeps MIN_CORE words: what peeling all would leave
        kept = _plain(words(text[:start]))
        if len(kept) >= MIN_CORE:
            return kept
    return _plain(words(text))


def judge(a: str, b: str, categories_a: list[str] | None = None, categories_b: list[str] | None = None,
          *, similarity: float = SIMILARITY, residual: int = RESIDUAL) -> Verdict:
    """Do statements A and B contradict? Nearly the same content words and one decisive difference, numbers
    written as words read as digits and a qualifying clause only one side carries set aside."""
    compared = cores(numerals(a), numerals(b))
    if compared is None:
        return Verdict(False)
    a, b = compared
    wa, wb = words(a), words(b)
    opposite = _antonyms(wa, wb)
    swapped = {w for pair in opposite for w in pair}
    pa, pb = _plain(wa) - swapped, _plain(wb) - swapped
    union = pa | pb
    sim = len(pa & pb) / len(union) if union else 1.0
    if sim < similarity or len(pa ^ pb) > residual or a.strip() == b.strip():
        return Verdict(False, similarity=round(sim, 3))
    differing = (wa ^ wb) - swapped
    if not opposite and not any(_decisive_token(w) for w in differing):
        return Verdict(False, similarity=round(sim, 3))  # only wording differs: no detector could fire
    only_a, only_b = sorted(wa - wb), sorted(wb - wa)
    if not opposite and len(only_a) == len(only_b) == 1 and _PURE_NUMBER.match(only_a[0]) \
            and _PURE_NUMBER.match(only_b[0]):
        # the same words around one plain number each (synthetic stores hold thousands): the judge's number
        # detector would say the same, at a thousandth of the cost
        return Verdict(True, ["number"], f"different numbers {_with_unit(a, only_a[0])} vs {_with_unit(b, only_b[0])}",
                       round(sim, 3))
    from vmem.knowledge.detectors import named_differences

    found = [(rule, why) for rule, why in named_differences(a, b, list(categories_a or []), list(categories_b or []))
             if rule in DECISIVE]
    if opposite:
        found.append(("antonym", f"opposite words: {opposite[0][0]} vs {opposite[0][1]}"))
    if not found:
        return Verdict(False, similarity=round(sim, 3))
    return Verdict(True, [r for r, _ in found], found[0][1], round(sim, 3))


# -- which items may contradict -----------------------------------------------------------------------


def is_open(item: dict) -> bool:
    return item["status"] in model.OPEN[item["kind"]]


def overlaps(a: dict, b: dict) -> bool:
    """Could one agent be served both? Same kind, overlapping scope and audience, the same domain when both name
    one, no conflicting categories (knowledge); a revision and what it revises, or a merge, are not a pair."""
    if a["kind"] != b["kind"] or a["id"] == b["id"]:
        return False
    linked = {a.get("supersedes"), a.get("superseded_by"), a.get("merged_into")}
    if b["id"] in linked or a["id"] in {b.get("supersedes"), b.get("superseded_by"), b.get("merged_into")}:
        return False
    if a["kind"] == "claim":
        if a["scope"] != b["scope"] and "org" not in (a["scope"], b["scope"]):
            return False
        if a.get("audience", "all") != b.get("audience", "all") and "all" not in (a.get("audience", "all"),
                                                                                   b.get("audience", "all")):
            return False
        if a.get("personal") and b.get("personal") and \
                (a.get("source") or {}).get("user") != (b.get("source") or {}).get("user"):
            return False
        if a.get("domain") and b.get("domain") and a["domain"] != b["domain"]:
            return False
    return True


def _pair(a: dict, b: dict, verdict: Verdict) -> dict:
    first, second = sorted((a, b), key=lambda i: i["id"])
    return {"a": first["id"], "b": second["id"], "kind": a["kind"], "rules": verdict.rules, "reason": verdict.reason,
            "similarity": verdict.similarity,
            "a_statement": first["statement"], "b_statement": second["statement"],
            "a_status": first["status"], "b_status": second["status"],
            "scope": first.get("scope") if first["kind"] == "claim" else None}


def against(new: dict, others, viewer: str | None = None) -> list[dict]:
    """Open items among OTHERS (dicts) that contradict NEW, closest first."""
    found = []
    mine = bare(new["statement"])
    for other in others:
        if not is_open(other) or not visible_to(other, viewer) or not overlaps(new, other):
            continue
        theirs = bare(other["statement"])
        if len(mine & theirs) < max(1, min(len(mine), len(theirs)) // 2):
            continue
        verdict = judge(new["statement"], other["statement"], new.get("categories"), other.get("categories"))
        if verdict.contradicts:
            found.append(_pair(new, other, verdict))
    return sorted(found, key=lambda p: (-p["similarity"], p["a"], p["b"]))


_STATEMENT = re.compile(rb"^statement: ?(.*(?:\n[ \t]+.*)*)", re.M)


def statement_text(data: bytes) -> str:
    """The statement's text as it sits in an item file, lower case (folded lines joined); the whole file when
    the line is not found. A prefilter only: a candidate is parsed before anything is decided."""
    found = _STATEMENT.search(data)
    return (found.group(1) if found else data).decode("utf-8", "replace").lower()


REWRITE_AFTER = 256  # files changed since the cached commit before the statement cache is written again


def _texts(snapshot, kind: str) -> dict[str, str]:
    """path -> statement text of every KIND file at SNAPSHOT, from a per-commit cache brought forward by a tree
    diff (like the canonical cache), so a proposal reads only the files changed since the last one."""
    from vmem.store import blobs
    from vmem.store.cache import cache_file, read_cache, write_cache
    from vmem.store.changes import changes_since

    top = model.ITEM_DIRS[kind]
    if snapshot.commit is None:
        return {}
    path = cache_file(Path(snapshot.repo.workdir)).with_suffix(f".statements-{kind}")
    cached = read_cache(path)
    commit = snapshot.commit_id
    if cached is not None and cached.get("commit") == commit:
        return cached["texts"]
    changes = changes_since(snapshot.repo, cached.get("commit"), snapshot.commit, (top,)) if cached else None
    if changes is None:
        texts = {name: statement_text(entry.data) for name, entry in snapshot.walk(top) if name.endswith(".yaml")}
    else:
        texts = dict(cached["texts"])
        for name, change in changes.items():
            texts.pop(name, None)
            if change.is_file and name.endswith(".yaml"):
                texts[name] = statement_text(blobs.read(snapshot, change.oid))
        if len(changes) < REWRITE_AFTER:  # rewriting the whole cache (13 MB at 100k) for one new file costs more
            return texts                  # than reading the few changed files again next time
    write_cache(path, {"commit": commit, "texts": texts})
    return texts


MAX_CANDIDATES = 16  # near-twins parsed and judged per proposal (the ones sharing most words)
INDEX_CANDIDATES = 16  # BM25 hits taken from the local index (when there is one) before the word quorum
INDEX_LAG = 2_000  # files changed since the index's commit beyond which the index is not used
# Below this many items in the store scanning the statement cache is faster than opening the index (10k: 50 vs
# 100 ms; 100k: the scan alone ~300 ms); from this many files of one kind without an index, the check is skipped
INDEX_FROM = 30_000


def estimated_count(snapshot, kind: str) -> int:
    """About how many KIND files the store holds, from one shard (ids are random, so shards fill evenly)."""
    try:
        shard = snapshot.tree[f"{model.ITEM_DIRS[kind]}/00"]
    except (KeyError, TypeError):
        return 0
    return len(shard) * 256 if shard.type_str == "tree" else 0


def _index_stamp(root: Path) -> tuple[int, int, int, int] | None:
    """What changes when the search index records another commit: the identity, size and time of its metadata
    file (SQLite rewrites the file on every commit). None when there is no index."""
    from vmem.index.local import index_dir_for

    try:
        found = os.stat(index_dir_for(root) / "meta.sqlite")
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def _since_index(snapshot, top: str) -> dict[str, tuple[str, str]] | None:
    """path -> (blob id, statement text) of every TOP file changed between the search index's commit and SNAPSHOT
    (a superset: a file changed and changed back stays listed). Kept in a small per-store cache brought forward
    one commit at a time, so a proposal reads the files of the last commit only, not everything since the index
    was last brought up to date; the cache also remembers which commit the index recorded, asked again only when
    the index's file changed. None without an index, or when it lags by more than INDEX_LAG files."""
    from vmem.store.cache import cache_file, read_cache, write_cache
    from vmem.store.changes import changes_since

    root = Path(snapshot.repo.workdir)
    stamp = _index_stamp(root)  # before reading the commit: a later write to the index changes the stamp
    if stamp is None:
        return None
    path = cache_file(root).with_suffix(f".since-index-{top}")
    cached = read_cache(path)
    if cached is not None and cached.get("stamp") == list(stamp):
        base = cached["base"]
    else:
        from vmem.index.local import recorded

        info = recorded(root, count=False)
        if info is None:
            return None
        base = info["commit"]
    commit = snapshot.commit_id
    entries: dict[str, tuple[str, str]] | None = None
    step = None
    if cached is not None and cached.get("base") == base:
        if cached.get("head") == commit:
            if cached.get("stamp") != list(stamp):
                write_cache(path, {**cached, "stamp": list(stamp)})
            return cached["entries"]
        step = changes_since(snapshot.repo, cached.get("head"), snapshot.commit, (top,))
        if step is not None:
            entries = dict(cached["entries"])
    if entries is None:
        step, entries = changes_since(snapshot.repo, base, snapshot.commit, (top,)), {}
        if step is None:
            return None
    fresh = []
    for name, change in step.items():
        entries.pop(name, None)
        if change.is_file and name.endswith(".yaml"):
            fresh.append((name, str(change.oid)))
    if len(entries) + len(fresh) > INDEX_LAG:
        return None
    for (name, oid), data in zip(fresh, snapshot.blob_data([oid for _, oid in fresh]), strict=True):
        if data is None:
            return None  # an object the repository lacks (a partial or damaged clone): scan instead, cache nothing
        entries[name] = (oid, statement_text(data))
    write_cache(path, {"base": base, "head": commit, "stamp": list(stamp), "entries": entries})
    return entries


def _indexed_texts(snapshot, new: dict, mine: list[str],
                   problems: list[str] | None = None) -> dict[str, tuple[str, str, bytes | None]] | None:
    """path -> (statement text, blob id, bytes or None) of NEW's nearest neighbours by BM25 in the local search
    index (the one `vmem recall` keeps), plus every file of NEW's kind changed since the index's commit (their
    bytes are read only if they become candidates): what a proposal needs to judge, in time that does not grow
    with the store. None when there is no usable index (then the statement cache is scanned). The index is only
    a way to find candidates: each one is read from SNAPSHOT and judged as it is there. An index that is there
    but fails to answer adds why to PROBLEMS (the note then says so, not that there is no index)."""
    try:
        if snapshot.commit is None:
            return None
        total = estimated_count(snapshot, "claim") + estimated_count(snapshot, "knowledge")
        if total < INDEX_FROM:
            return None  # a small store: its statement cache is faster to scan than the index is to open
        changed = _since_index(snapshot, model.ITEM_DIRS[new["kind"]])
        if changed is None:
            return None
        from vmem.index.local import bm25_hits, open_text_index

        prefix = model.PREFIX[new["kind"]] + "-"
        ids = [i for i, _ in bm25_hits(open_text_index(Path(snapshot.repo.workdir)), mine, INDEX_CANDIDATES)]
        paths = {model.item_path(i) for i in ids if i.startswith(prefix) and model.ITEM_ID.fullmatch(i)}
        # brought forward to SNAPSHOT's commit: the file there is this blob
        out: dict[str, tuple[str, str, bytes | None]] = {
            name: (text, oid, None) for name, (oid, text) in changed.items()}
        for path, (oid, data) in snapshot.blobs(sorted(paths - set(changed))).items():
            out[path] = (statement_text(data), oid, data)
        return out
    except Exception as error:  # noqa: BLE001 - a missing, locked or damaged index only means: no index
        if problems is not None:
            problems.append(" ".join(f"{type(error).__name__}: {error}".split())[:120])
        return None


def at_propose(snapshot, new: dict, viewer: str | None, notes: list[str] | None = None) -> list[dict]:
    """Open items of NEW's kind that contradict it (among near_open's)."""
    return against(new, near_open(snapshot, new, notes), viewer)


def near_open(snapshot, new: dict, notes: list[str] | None = None) -> list[dict]:
    """The items of NEW's kind whose statements hold most of its words, parsed (at most MAX_CANDIDATES, the closest
    first): what a proposal may contradict or repeat. Candidates are found from the local search index on a big
    store, else from the statement cache, and only those are parsed. On a big store without a current index
    nothing is returned, with a note in NOTES, rather than reading every file: a proposal's cost does not grow with
    the store (`vmem contradictions` still scans everything)."""
    from vmem.store.parse import parse_blob

    # the quorum is counted on the words any comparison keeps of NEW (a clause of its own may be set aside); the
    # files sharing most of all its words are the ones judged
    mine = sorted(bare(new["statement"]), key=len, reverse=True)
    extra = sorted(_plain(words(new["statement"])) - set(mine))
    if not mine:
        return []
    quorum = max(1, int(len(mine) * SIMILARITY))
    # a file that holds none of any (len - quorum + 1) of the words holds at most quorum - 1 of them: one C-level
    # search for the longest few rules out almost every file before any word is counted
    probe = re.compile("|".join(re.escape(w) for w in mine[:len(mine) - quorum + 1]))
    problems: list[str] = []
    read = _indexed_texts(snapshot, new, mine + extra, problems)
    if read is None:
        count = estimated_count(snapshot, new["kind"])
        if count >= INDEX_FROM:
            if notes is not None and problems:
                notes.append(f"note: contradiction check skipped: about {count:,} {new['kind']} files and the search "
                             f"index failed to answer ({problems[0]}); vmem index --rebuild builds it anew")
            elif notes is not None:
                notes.append(f"note: contradiction check skipped: about {count:,} {new['kind']} files and no current "
                             "search index; run vmem index once (then each proposal is checked in constant time)")
            return []
        texts = _texts(snapshot, new["kind"])
    else:
        texts = {name: text for name, (text, _, _) in read.items()}
    scored: list[tuple[int, str]] = []
    for name, text in texts.items():
        if probe.search(text) is None:
            continue
        hits = sum(w in text for w in mine)
        if hits >= quorum:
            scored.append((hits + sum(w in text for w in extra), name))
    # a contradiction is a near-twin: the files sharing the most words are the ones worth parsing and judging.
    # Bounded, so a store of templated statements (thousands past the quorum) costs a proposal no more than
    # MAX_CANDIDATES parses; `vmem contradictions` still scans the whole store.
    candidates = [name for _, name in heapq.nlargest(MAX_CANDIDATES, scored)]
    if read is not None:  # the changed files' bytes, for those that are candidates: one request
        unread = [name for name in candidates if read[name][2] is None]
        for name, data in zip(unread, snapshot.blob_data([read[name][1] for name in unread]), strict=True):
            read[name] = (read[name][0], read[name][1], data)
    others = []
    for name in candidates:
        try:
            if read is not None:  # bytes already read for the prefilter: parsed from them, not read again
                _, oid, data = read[name]
                if data is None:
                    continue
                item = parse_blob(new["kind"], name, oid, data)
            else:
                item = snapshot.load_file(new["kind"], name)
        except VmemError:
            continue
        if item is not None and item["id"] != new.get("id"):
            others.append(item)
    return others


def other_side(pair: dict, item_id: str) -> dict:
    """The item PAIR sets against ITEM_ID: {id, statement, status, rules, reason}."""
    other = "b" if pair["a"] == item_id else "a"
    return {"id": pair[other], "statement": pair[f"{other}_statement"], "status": pair[f"{other}_status"],
            "rules": pair["rules"], "reason": pair["reason"]}


def open_with(store, item: dict, viewer: str | None = None, notes: list[str] | None = None) -> list[dict]:
    """The open items ITEM contradicts at HEAD, as VIEWER may see them (other_side() of each pair): checked again
    after every edit and every approval, so a contradiction with a live item is never silently lost."""
    if not is_open(item):
        return []
    return [other_side(pair, item["id"]) for pair in at_propose(store.head(), item, viewer, notes)]


def scan(items: list[dict], viewer: str | None = None, scope: str | None = None) -> list[dict]:
    """Every open contradicting pair among ITEMS (one pass: a word index, then the judge on close pairs)."""
    open_items = [i for i in items if is_open(i) and visible_to(i, viewer)
                  and (scope is None or i["kind"] != "claim" or i["scope"] in (scope, "org"))]
    if scope is not None:
        open_items = [i for i in open_items if i["kind"] == "claim"]
    plain = [_plain(words(i["statement"])) for i in open_items]
    # which may have a clause set aside when compared (judge() then compares a part of it with the other whole):
    # the quorum and the residual below are bounded for that comparison too
    clausy = [bool(_kinds(numerals(i["statement"]))) for i in open_items]
    kept = [bare(i["statement"]) if c else p for i, c, p in zip(open_items, clausy, plain)]
    postings: dict[str, list[int]] = {}
    for n, found in enumerate(plain):
        for w in found:
            postings.setdefault(w, []).append(n)
    # pairs are found through the words they share that few items hold: a word on 1 % of the store ("customers",
    # "days") says nothing about which two statements are about the same thing, and costs a quadratic blow-up
    limit = max(50, len(open_items) // 100)
    rare = [frozenset(w for w in found if len(postings[w]) <= limit) for found in plain]
    sizes = [len(r) for r in rare]
    pairs: list[dict] = []
    for n, found in enumerate(rare):
        shared: dict[int, int] = {}
        for w in found:
            for m in postings[w]:
                if m > n:
                    shared[m] = shared.get(m, 0) + 1
        mine = sizes[n]
        for m, count in shared.items():
            # the side compared whole bounds what must be shared: the larger one, or the one that keeps its words
            # while the other's clause is set aside (a part of a statement shares no more than the whole does)
            theirs = sizes[m]
            size = mine if mine > theirs else theirs
            if clausy[n] or clausy[m]:
                size = min(mine, theirs) if clausy[n] and clausy[m] else theirs if clausy[n] else mine
            if count < max(1, int(SIMILARITY * size) - RESIDUAL):
                continue
            a, b = open_items[n], open_items[m]
            pa, pb = plain[n], plain[m]
            both = len(pa & pb)
            differing = len(pa) + len(pb) - 2 * both
            if clausy[n]:  # setting a part of A aside leaves B's own words differing
                differing = min(differing, len(pb) - both)
            if clausy[m]:
                differing = min(differing, len(pa) - both)
            if differing > RESIDUAL + 2:  # antonyms may account for two more
                continue
            if len(pa) + len(pb) - 2 * both > RESIDUAL + 2 and not (
                    clausy[n] and len(kept[n] ^ pb) <= RESIDUAL + 2 or clausy[m] and len(pa ^ kept[m]) <= RESIDUAL + 2):
                continue  # nor once every clause of one side is set aside (judge() sets aside fewer: a heuristic)
            if not overlaps(a, b):
                continue
            verdict = judge(a["statement"], b["statement"], a.get("categories"), b.get("categories"))
            if verdict.contradicts:
                pairs.append(_pair(a, b, verdict))
    return sorted(pairs, key=lambda p: (p["a"], p["b"]))


def by_item(pairs: list[dict]) -> dict[str, list[dict]]:
    """item id -> the open pairs naming it."""
    out: dict[str, list[dict]] = {}
    for pair in pairs:
        out.setdefault(pair["a"], []).append(pair)
        out.setdefault(pair["b"], []).append(pair)
    return out


def contradictions(store, scope: str | None = None, viewer: str | None = None) -> list[dict]:
    """`vmem contradictions [--scope entity:E]`: open pairs at HEAD whatever their statuses, as history attests
    each: two live items first (agents are served both), then a live item and a proposal, then two proposals."""
    from vmem.errors import UsageError
    from vmem.names import NAME_ID

    if scope is not None and scope != "org":
        if not scope.startswith("entity:") or not NAME_ID.fullmatch(scope[7:]):
            raise UsageError(f"invalid scope {scope!r}", "use --scope entity:ID (an id under entities/) or org")
        store.head().entity(scope.split(":", 1)[1])
    return sorted(scan(attested_items(store), viewer, scope), key=lambda p: (-live_sides(p), p["a"], p["b"]))


def live_sides(pair: dict) -> int:
    """How many of PAIR's two items are live (served to agents): 2, 1 or 0."""
    return sum(pair[f"{side}_status"] in model.SERVABLE[pair["kind"]] for side in ("a", "b"))


def attested_items(store, snapshot=None) -> list[dict]:
    """Every readable item at SNAPSHOT (HEAD) with the status history attests (a hand edit is not a belief)."""
    snapshot = snapshot or store.head()
    state = store.attestation(snapshot)
    state.preload()
    items = []
    for loaded in snapshot.items():
        if loaded.item is None:
            continue
        attested = state.status_of(loaded.path)
        items.append({**loaded.item, "status": attested or "unattested"})
    return items


# -- resolving one -------------------------------------------------------------------------------------


def resolutions(keep: dict, other: dict) -> list[str]:
    """What a reviewer may do to OTHER once KEEP is approved: supersede it by KEEP, or revoke/reject it (as the
    lifecycle table allows)."""
    moves = model.TRANSITIONS[other["kind"]].get(other["status"], frozenset())
    out = []
    if "superseded" in moves and not keep.get("supersedes") and keep["kind"] == other["kind"]:
        out.append("supersede")
    if "revoked" in moves or "rejected" in moves:
        out.append("revoke")
    return out
