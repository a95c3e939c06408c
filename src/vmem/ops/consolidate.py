"""Consolidation: the merge cascade (canonical -> blocker -> judge) and then the gates, in one commit per run."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from vmem import model
from vmem.gates.publish import load_inputs, run_gates, status_after_gates
from vmem.store.repo import Store

if TYPE_CHECKING:
    from vmem.knowledge.judge import Verdict

POOL = model.OPEN["knowledge"]  # items a proposal may merge into
# and quarantined ones: re-screened every run, released when their gate passes, joined by their canonical twins
SCREENED = POOL + ("quarantined",)
RANK = {"published": 0, "eligible": 1, "candidate": 2, "quarantined": 2}
SUGGESTED_FOR = ("candidate", "eligible")  # learnings awaiting a decision: each gets merge suggestions

Progress = Callable[[str, int, int], None]


@dataclass
class Merge:
    source: str
    into: str
    judge: str
    reason: str

    def as_dict(self) -> dict:
        return {"from": self.source, "into": self.into, "judge": self.judge, "reason": self.reason}


@dataclass
class Consolidation:
    merged: list[Merge] = field(default_factory=list)
    eligible: list[str] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)
    candidates: int = 0
    published: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    judged: int = 0
    deferred: int = 0  # pairs the external judge was not asked about: changed or new while it ran
    expired: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)  # quarantined learnings whose gate passes now
    suggested: list[dict] = field(default_factory=list)  # [{"id", "suggestions": [{"id", "score"}]}] screened now
    commit: str | None = None
    dry_run: bool = False

    def as_dict(self) -> dict:
        return {"merged": [m.as_dict() for m in self.merged], "eligible": self.eligible,
                "quarantined": self.quarantined, "candidates": self.candidates, "released": self.released,
                "suggested": self.suggested, "commit": self.commit}


def auto_merge_enabled(policy: dict) -> bool:
    """The kill switch: VMEM_KNOWLEDGE_AUTO_MERGE=0 (or auto_merge: false) leaves only exact canonical merges."""
    if os.environ.get("VMEM_KNOWLEDGE_AUTO_MERGE", "").strip().lower() in ("0", "false", "no", "off"):
        return False
    return bool(policy["knowledge"]["auto_merge"])


def survivor_order(item: dict) -> tuple:
    return (RANK[item["status"]], item["first_seen"], -len(item["evidence"]), item["id"])


def _vouched_evidence(store: Store, snapshot, pool: dict, result: Consolidation):
    """item -> its evidence that history vouches for, including what this run's merges brought in."""
    from vmem.store.attest import evidence_key

    state = store.attestation(snapshot)
    keys = {item_id: {tuple(k) for k in state.evidence.get(model.item_path(item_id)) or []} for item_id in pool}
    for merge in result.merged:  # in the order they happened: a survivor inherits what its sources had
        keys.setdefault(merge.into, set()).update(keys.get(merge.source, set()))
    return lambda item: [e for e in item["evidence"] if evidence_key(e) in keys.get(item["id"], set())]


def absorb_into(survivor: dict, absorbed: dict, judge: str, reason: str, now: str) -> None:
    known = {(e["entity"], e["writer"], e["episode"]) for e in survivor["evidence"]}
    survivor["evidence"] += [e for e in absorbed["evidence"] if (e["entity"], e["writer"], e["episode"]) not in known]
    survivor["categories"] += [c for c in absorbed["categories"] if c not in survivor["categories"]]
    survivor["last_reinforced"] = max(survivor["last_reinforced"], absorbed["last_reinforced"])
    survivor["merges"].append({"from": absorbed["id"], "judge": judge, "reason": reason, "at": now})
    model.transition(absorbed, "merged", merged_into=survivor["id"])


def consolidate(store: Store, *, dry_run: bool = False, progress: Progress | None = None,
                embed: Callable | None = None) -> Consolidation:
    """One run of the cascade and the gates, committed at once. An external judge is asked before the store lock
    is taken (it may take minutes; spec section 11); under the lock only its recorded answers are used."""
    progress = progress or _quiet
    policy = store.policy
    result = Consolidation(dry_run=dry_run)
    judge = _Judge(store, policy, embed)
    if judge.command and auto_merge_enabled(policy):
        # the same cascade on the committed state, without the lock: it asks the judge and records the answers
        _cascade(_pool(store.head()), policy, Consolidation(), model.now(), progress, judge)
        judge.replaying = True
    with store.transaction("consolidate") as tx:
        pool = _pool(tx.snapshot)
        now = model.now()
        inputs = load_inputs(tx.snapshot)
        # 0. quarantined learnings are screened again: one whose gate passes now (the category floor holds, the
        #    lexicon was fixed) is a candidate again, the same item with its history, before anything merges
        released = _release(store, tx.snapshot, pool, inputs, policy, result) | _recount(store, tx.snapshot, pool)
        changed = _cascade(pool, policy, result, now, _quiet if judge.replaying else progress, judge)
        changed |= released

        # 4. gates over everything still a candidate (and eligible items whose evidence changed), counting only
        #    the evidence history vouches for (a customer or writer added by hand does not count; SPEC 12)
        vouched = _vouched_evidence(store, tx.snapshot, pool, result)
        to_gate = [i for i in pool.values() if i["status"] == "candidate" or (i["status"] == "eligible"
                                                                                and i["id"] in changed)]
        for n, item in enumerate(to_gate, 1):
            progress("gates", n, len(to_gate))
            gate = run_gates({**item, "evidence": vouched(item)}, inputs, policy)
            target = status_after_gates(gate)
            previous_gate = item.get("gate") or {}
            if target != item["status"]:
                if item["status"] == "eligible" and target == "quarantined":
                    # a merge widened it (a category below the floor): eligible -> candidate -> quarantined
                    model.transition(item, "candidate")
                model.transition(item, target)
                changed.add(item["id"])
            if {k: v for k, v in gate.items() if k != "at"} != {k: v for k, v in previous_gate.items() if k != "at"}:
                item["gate"] = gate
                changed.add(item["id"])
            if target == "eligible":
                result.eligible.append(item["id"])
            elif target == "quarantined":
                result.quarantined.append({"id": item["id"], "reason": gate["reason"]})
        result.candidates = sum(1 for i in pool.values() if i["status"] == "candidate")
        # and those a reinforcement made eligible already (its gates run at once): every learning awaiting publish
        result.eligible += [i for i, item in sorted(pool.items())
                            if item["status"] == "eligible" and i not in result.eligible]

        # 5. merge suggestions for a reviewer: what the judge left open, recorded on each learning still awaiting
        #    a decision that has none yet (new) or that a merge changed
        changed |= _suggest(pool, policy, result, judge, progress, changed)

        from vmem.ops.govern import expire

        result.expired = expire(store, tx=tx) if not dry_run else []

        if policy["knowledge"]["auto_publish"]:
            _auto_publish(policy, pool, result, changed, now)

        tx.message.summary = (f"{len(result.merged)} merged, {len(result.eligible)} eligible, "
                              f"{len(result.quarantined)} quarantined, {result.candidates} still candidates")
        tx.message.items = sorted(changed | set(result.expired))
        tx.message.body = [f"merge {m.source} -> {m.into} [{m.judge}]: {m.reason}" for m in result.merged] + [
            f"release {i}: its gate passes now" for i in result.released] + [
            f"quarantine {q['id']}: {q['reason']}" for q in result.quarantined] + [
            f"eligible {i}" for i in result.eligible] + [
            f"suggest {row['id']} ~ {', '.join(s['id'] for s in row['suggestions'])}" for row in result.suggested
            if row["suggestions"]]
        if not dry_run:
            for item_id in sorted(changed):
                tx.write(pool[item_id])
    result.commit = tx.commit_id
    return result


def _quiet(stage: str, done: int, total: int) -> None:
    """No progress to show (a replay of recorded answers takes no time worth a bar)."""


def _pool(snapshot) -> dict[str, dict]:
    """The knowledge items a proposal may merge into (copies: the cascade changes them in place)."""
    return {loaded.item["id"]: loaded.item for loaded in snapshot.files("knowledge")
            if loaded.item and loaded.item["status"] in SCREENED}


def _release(store: Store, snapshot, pool: dict[str, dict], inputs, policy: dict, result: Consolidation) -> set[str]:
    """Quarantined items whose gates pass now go back to candidate (the gates below then decide eligible or not)."""
    quarantined = [i for i in pool.values() if i["status"] == "quarantined"]
    if not quarantined:
        return set()
    from vmem.gates.publish import GATES, policy_k_min

    vouched = _vouched_evidence(store, snapshot, pool, result)
    floor = next(g for g in GATES if g.name == "category_floor")
    out = set()
    for item in quarantined:
        checks = (item.get("gate") or {}).get("checks") or {}
        if checks.get("deid") and checks.get("category_floor") is False and floor.check(
                item, inputs, policy["knowledge"], policy_k_min(policy)) is not None:
            continue  # held for the floor alone, which still fails: the de-id screen need not run again
        gate = run_gates({**item, "evidence": vouched(item)}, inputs, policy)
        if status_after_gates(gate) != "quarantined":
            model.transition(item, "candidate")
            item["gate"] = gate
            result.released.append(item["id"])
            out.add(item["id"])
    return out


def _recount(store: Store, snapshot, pool: dict[str, dict]) -> set[str]:
    """Eligible learnings whose statement changed after their support was counted (a hand edit: history attests
    them as candidates) are candidates again, gated below on what they say now (SPEC 12)."""
    state = store.attestation(snapshot)
    out = set()
    for item in pool.values():
        found = state.unattested.get(model.item_path(item["id"])) if item["status"] == "eligible" else None
        if found and found[2:] == ["edited"]:
            model.transition(item, "candidate")
            item["gate"] = None  # counted again below, for the words it holds now
            out.add(item["id"])
    return out


def _cascade(pool: dict[str, dict], policy: dict, result: Consolidation, now: str, progress: Progress,
             judge: _Judge) -> set[str]:
    """Steps 1-3 of the merge cascade over POOL, in place; returns the ids of the items it changed."""
    changed: set[str] = set()

    # 1. canonical: identical canonical statements merge with no model
    groups: dict[str, list[dict]] = {}
    for item in pool.values():
        groups.setdefault(item["canonical"], []).append(item)
    for members in groups.values():
        members.sort(key=survivor_order)
        for n, other in enumerate(members):
            if other["status"] != "candidate":
                continue
            # the first before it that may take it in: a quarantined twin only if it holds the same categories (the
            # newcomer then fails the same gate, and joins the item that waits for it to pass)
            survivor = next((m for m in members[:n] if m["status"] != "quarantined"
                             or set(other["categories"]) <= set(m["categories"])), None)
            if survivor is None:
                continue
            absorb_into(survivor, other, "canonical", "identical canonical statement", now)
            result.merged.append(Merge(other["id"], survivor["id"], "canonical", "identical canonical statement"))
            changed |= {survivor["id"], other["id"]}

    # 2-3. blocker (embedding cosine + category overlap) bounds what the judge sees
    live = sorted((i for i in pool.values() if i["status"] in POOL), key=survivor_order)
    if auto_merge_enabled(policy) and any(i["status"] == "candidate" for i in live) and len(live) > 1:
        _judged_merges(policy, live, result, changed, now, progress, judge)
    return changed


def _judged_merges(policy, live, result, changed, now, progress, judge: _Judge) -> None:
    import numpy as np

    from vmem.knowledge.judge import passes_blocker

    blocker = policy["knowledge"]["blocker"]
    progress("embed", 0, 1)
    vectors = judge.vectors([item["statement"] for item in live])
    judge.remember(live, vectors)
    progress("embed", 1, 1)
    candidates = [n for n, item in enumerate(live) if item["status"] == "candidate"]
    for done, n in enumerate(candidates, 1):
        progress("judge", done, len(candidates))
        item = live[n]
        if item["status"] != "candidate" or n == 0:
            continue
        # only older / higher-ranked items (rows before n) can absorb this one: merges form trees, never cycles
        row = vectors[:n] @ vectors[n]
        close = np.flatnonzero(row >= blocker["threshold"])  # the loop stops below the threshold anyway
        order = close[np.argsort(-row[close], kind="stable")]
        seen = 0
        for m in order:
            if seen >= blocker["top_k"]:
                break
            other = live[m]
            cosine = float(row[m])
            if cosine < blocker["threshold"]:
                break
            if other["status"] == "merged" or not passes_blocker(cosine, item["categories"], other["categories"],
                                                                  blocker["threshold"]):
                continue
            seen += 1
            verdict = judge.decide(item, other, cosine)
            if verdict is None:  # the external judge was not asked about this pair: it changed or is new
                result.deferred += 1
                continue
            result.judged += 1
            if verdict.same:
                absorb_into(other, item, verdict.judge, verdict.reason, now)
                result.merged.append(Merge(item["id"], other["id"], verdict.judge, verdict.reason))
                changed |= {item["id"], other["id"]}
                break


class _Judge:
    """Decides the pairs the blocker lets through, and embeds statements once per run (memo by statement).

    Without a command the built-in judge decides at once (pure CPU, under the lock). An external command is asked
    in a first pass outside the store lock and its answers are recorded by exactly what it saw; the pass under the
    lock then replays them (`replaying`). A pair it was not asked about, because an item changed or appeared
    meanwhile, is no merge this run (None) and is asked next run. Status is not part of what the judge sees: the
    replayed cascade re-checks it on the state under the lock, so nothing merges into an item that left the pool.
    """

    def __init__(self, store: Store, policy: dict, embed: Callable | None) -> None:
        command = policy["knowledge"]["judge"]["command"]
        if isinstance(command, str):
            import shlex
            command = shlex.split(command)
        self.command = command or None
        self.timeout_s = policy["knowledge"]["judge"]["timeout_s"]
        self.replaying = False
        self._store, self._policy, self._embed = store, policy, embed
        self._vectors: dict[str, object] = {}
        self._answers: dict[tuple[str, str], Verdict] = {}
        self.by_id: dict[str, object] = {}

    def vectors(self, statements: list[str]):
        """Unit-length embeddings of STATEMENTS, one row each; a statement already embedded this run is not again."""
        if not self.command:  # one pass only: nothing to remember
            return self._embedder()(statements)
        import numpy as np

        missing = [s for s in dict.fromkeys(statements) if s not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._embedder()(missing)))
        return np.stack([self._vectors[s] for s in statements])

    def remember(self, items: list[dict], vectors) -> None:
        """This run's embeddings by item id (the suggestions reuse them)."""
        self.by_id = dict(zip((i["id"] for i in items), vectors))

    def _embedder(self) -> Callable:
        if self._embed is None:
            from vmem.embed import embedder
            self._embed = embedder(self._policy, self._store.root)
        return self._embed

    def decide(self, item: dict, other: dict, cosine: float) -> Verdict | None:
        """The verdict on ITEM merging into OTHER, or None when a replay has no recorded answer for the pair."""
        from vmem.knowledge.judge import floor, judge_command, judge_pair

        if not self.command:
            return judge_pair(item["statement"], other["statement"], item["categories"], other["categories"], cosine)
        # the deterministic judge is the precision floor under an external one: a merge it is sure of, or a
        # decisive difference (a number, a negation, a role swap...), is decided here; the command reads only the
        # pairs it leaves open
        sure, _ = floor(item["statement"], other["statement"], item["categories"], other["categories"], cosine)
        if sure is not None:
            return sure
        views = (_judge_view(item), _judge_view(other))
        key = (json.dumps(views[0], sort_keys=True), json.dumps(views[1], sort_keys=True))
        if self.replaying:
            return self._answers.get(key)
        verdict = self._answers[key] = judge_command(self.command, *views, self.timeout_s)
        return verdict


def _suggest(pool: dict[str, dict], policy: dict, result: Consolidation, judge: _Judge, progress: Progress,
             changed: set[str]) -> set[str]:
    """Merge suggestions for learnings awaiting a decision that have none yet or that a merge changed: the nearest
    open learnings of a shared category the judge left open (knowledge.suggest), never a pair a reviewer called
    "not the same". Advisory only: nothing merges until a reviewer says so. The ids of the items it changed."""
    live = [i for i in pool.values() if i["status"] in POOL]
    due = [n for n, item in enumerate(live) if item["status"] in SUGGESTED_FOR
           and (item.get("suggestions") is None or item["id"] in changed)]
    if not due:
        return set()
    import numpy as np

    from vmem.knowledge.suggest import Ranker

    missing = [i for i in live if i["id"] not in judge.by_id]
    if missing:
        judge.by_id.update(zip((i["id"] for i in missing), judge.vectors([i["statement"] for i in missing])))
    vectors = np.asarray(np.stack([judge.by_id[i["id"]] for i in live]), dtype=np.float32)
    ranker = Ranker([i["statement"] for i in live], [i["categories"] for i in live], vectors)
    row_of = {item["id"]: n for n, item in enumerate(live)}
    apart: dict[str, set[str]] = {}
    for item in live:
        for record in item.get("distinct") or []:
            apart.setdefault(item["id"], set()).add(record["id"])
            apart.setdefault(record["id"], set()).add(item["id"])
    threshold = policy["knowledge"]["blocker"]["threshold"]
    out = set()
    for done, (n, cosines) in enumerate(ranker.cosines(due), 1):
        progress("suggest", done, len(due))
        item = live[n]
        skip = [row_of[other] for other in apart.get(item["id"], ()) if other in row_of]
        refused: list[tuple[int, str]] = []
        found = [{"id": live[j]["id"], "score": score, "cosine": max(0.0, min(1.0, round(cosine, 4)))}
                 for j, score, cosine in ranker.suggest_row(n, cosines, threshold=threshold, skip=skip,
                                                            related=refused)]
        # neighbours a detector calls different: shown as related (with what differs), never as a merge
        related = [{"id": live[j]["id"], "differs": why} for j, why in refused]
        if found:
            result.suggested.append({"id": item["id"], "suggestions": found})
        if item.get("suggestions") != found or (item.get("related") or []) != related:
            item["suggestions"] = found
            item["related"] = related
            out.add(item["id"])
    return out


def _judge_view(item: dict) -> dict:
    """What an external judge may see: statement and categories, never lineage."""
    return {"id": item["id"], "statement": item["statement"], "categories": item["categories"]}


def _auto_publish(policy, pool, result, changed, now) -> None:
    audience = policy["knowledge"]["default_audience"]
    for item_id in list(result.eligible):
        item = pool[item_id]
        if not audience:
            result.held.append(item_id)  # auto-publish never guesses an audience
            continue
        model.transition(item, "published", by="vmem auto-publish", action="publish", reason="auto_publish", at=now,
                         audience=audience, published={"by": "vmem auto-publish", "at": now})
        result.published.append(item_id)
        changed.add(item_id)
