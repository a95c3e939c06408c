"""The demo: replay the bundled examples through the real operations on a throwaway store."""

from __future__ import annotations

import tempfile
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Callable

from vmem import model
from vmem.ops.blame import blame
from vmem.ops.init import init_store
from vmem.ops.propose import propose_claim, propose_learning
from vmem.ops.supersede import supersede
from vmem.store import codec, gitrepo, history
from vmem.store.repo import Store
from vmem.output import counted

Narrate = Callable[[str, str], None]


def examples_dir() -> Path:
    return Path(str(resources.files("vmem") / "examples"))


def _yaml(path: Path):
    return codec.load(path.read_bytes(), str(path))


def seed_store(directory: Path, reviewer: tuple[str, str], reviewers: list[str], anchored: bool = True) -> Store:
    """A new store holding the example customers and episodes, with the example team's reviewers — named in its
    first commit, or (not ANCHORED: a store made before vmem init named one) set by the import after a root where
    anyone may review."""
    gitrepo.init(directory, "main")
    gitrepo.set_identity(directory, *reviewer)
    store = init_store(directory, reviewers=reviewers if anchored else [], solo=not anchored or not reviewers)
    source = examples_dir() / "store"
    with store.transaction("import", summary="example customers and episodes",
                           body=["Entities and episodes from vmem's bundled examples (all fictional)."]) as tx:
        for path in sorted(source.rglob("*.yaml")):
            relative = path.relative_to(source).as_posix()
            kind = "entity" if relative.startswith("entities/") else "episode"
            tx.write_file(relative, model.validate(kind, _yaml(path), relative))
        policy_text = (store.root / "vmem.yaml").read_text()
        raw = codec.load(policy_text, "vmem.yaml")
        raw["reviewers"] = reviewers
        tx.write_file("vmem.yaml", raw)
    store._policy = None
    return store


def run_demo(directory: Path | None, narrate: Narrate) -> dict:
    base = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="vmem-demo-"))
    root = base / "store"  # the store; base / "project" is the agent's project that sync writes into
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from vmem.errors import UsageError

        raise UsageError(f"cannot make the demo's store at {root} ({exc.strerror or exc})",
                         "give vmem demo a new or empty directory: vmem demo DIR") from None
    claims_doc = _yaml(examples_dir() / "claims.yaml")
    learnings_doc = _yaml(examples_dir() / "learnings.yaml")
    team = {key: f"{p['name']} <{p['email']}>" for key, p in claims_doc["team"].items()}
    reviewer_email = claims_doc["reviewers"][0]
    reviewer_name = next(p["name"] for p in claims_doc["team"].values() if p["email"] == reviewer_email)

    narrate("vmem init", f"a new store at {root}, seeded with 8 fictional customers and their call notes")
    store = seed_store(root, (reviewer_name, reviewer_email), claims_doc["reviewers"])

    refs: dict[str, str] = {}
    revised = []
    for entry in claims_doc["claims"]:
        writer = team[entry["writer"]]
        if entry.get("supersedes"):
            with store.acting_as(writer):  # each analyst runs vmem in their own clone: author and committer
                result = supersede(store, refs[entry["supersedes"]], entry["statement"], reason=entry.get("reason"),
                                   title=entry.get("title"))
            revised.append((result.previous["id"], result.item["id"], entry.get("reason")))
            refs[entry["ref"]] = result.item["id"]
        else:
            with store.acting_as(writer):
                result = propose_claim(store, entry["statement"], about=entry.get("about"),
                                       domain=entry.get("domain"), title=entry.get("title"), klass=entry.get("class"),
                                       audience=entry.get("audience", "all"), personal=entry.get("personal", False),
                                       paths=entry.get("paths"), categories=entry.get("categories"))
            refs[entry["ref"]] = result.item["id"]
    narrate(f"vmem propose ×{len(claims_doc['claims']) - len(revised)}",
            "four analysts propose facts about tables, metrics and customers; each is one commit they author")
    for old, new, reason in revised:
        narrate(f"vmem supersede {old}", f"→ {new}: {reason}")

    actions: Counter = Counter()
    for entry in learnings_doc["learnings"]:
        with store.acting_as(team[entry["writer"]]):
            result = propose_learning(store, entry["statement"], entity=entry["from"],
                                      categories=entry["categories"],
                                      episodes=[entry["episode"]] if entry.get("episode") else None)
        actions[result.action] += 1
    narrate(f"vmem propose --from ×{len(learnings_doc['learnings'])}",
            f"learnings from customer calls: {actions['created']} new candidates, {actions['reinforced']} "
            "reinforced an existing item with the same canonical statement (no new file)")

    quarantined = [e for e in learnings_doc["learnings"] if e.get("leak")]
    narrate("de-identification at propose time",
            f"{len(quarantined)} learnings named a customer (name, alias, e-mail, quote) and were quarantined at "
            "once with the reason")

    knowledge = _knowledge_steps(store, learnings_doc["learnings"], team, reviewer_name, reviewer_email, narrate)

    review = _review_and_sync(store, root, refs, claims_doc, reviewer_name, reviewer_email, narrate)

    recalls = _recalls(store, narrate)

    head = store.head()
    statuses = Counter(f"{loaded.item['kind']} {loaded.item['status']}" for loaded in head.items() if loaded.item)
    narrate("vmem list", ", ".join(f"{n} {key}" for key, n in sorted(statuses.items())))
    blame_id = revised[0][1] if revised else next(iter(refs.values()))
    blamed = blame(store, blame_id)
    narrate(f"vmem blame {blame_id}", "\n  ".join(
        f"{e['at']}  {e['author']:<45} {e['action']:<10} {e['item']}" + (f"  ({e['reason']})" if e["reason"] else "")
        for e in blamed["events"]))
    commits = history.count(store)
    narrate("git log", f"{commits} commits, each with Vmem-Action / Vmem-Item trailers: "
                       f"git -C {root} log --format='%s%n%(trailers:key=Vmem-Action)'")
    from vmem.ops.report import write as write_report

    with store.acting_as(f"{reviewer_name} <{reviewer_email}>"):  # the report a reviewer of this store sees
        site = write_report(store, base / "report")
    counts = site["counts"]
    # the demo's people acted per command (acting_as); the store is yours now: what you propose in it is yours
    gitrepo.unset_identity(root)
    narrate("vmem report", f"{counts['queue']} to review, {counted(counts['contradictions'], 'contradiction')}, "
                           f"{counted(counts['communities'], 'community', 'communities')} on the map: {site['index']}")
    return {"store": str(root), "commits": commits, "claims": len(claims_doc["claims"]),
            "learnings": dict(actions), "statuses": dict(statuses), "blame_id": blame_id,
            "chain": blamed["chain"], "knowledge": knowledge, "review": review, "recalls": recalls,
            "report": site["index"]}


def _recalls(store: Store, narrate: Narrate) -> list[dict]:
    """Recall in two scopes: coverage, the entity carve-out, and published knowledge served everywhere."""
    from vmem.ops.recall import recall

    asked = []
    for query, scope in (("do mid-market customers prepay annually for a discount", None),
                         ("who owns the renewal at Larkspur Health", None),
                         ("who owns the renewal at Larkspur Health", "entity:larkspur-health"),
                         ("what is our warehouse cost per query", None)):
        result = recall(store, query, scope=scope, k=3)
        top = result["results"][0] if result["results"] else None
        shown = "nothing" if top is None else (
            f"{top['statement'][:90]}" + (f" (knowledge, support: {top['support_tier']})"
                                          if top["kind"] == "knowledge" else f" ({top['scope']})"))
        narrate(f"vmem recall \"{query}\"" + (f" --scope {scope}" if scope else ""),
                f"{result['coverage']}: {shown}")
        asked.append({"query": query, "scope": scope, "coverage": result["coverage"],
                      "top": top["id"] if top else None, "top_scope": top["scope"] if top else None})
    return asked


def _review_and_sync(store: Store, root: Path, refs: dict, claims_doc: dict, reviewer_name: str,
                     reviewer_email: str, narrate: Narrate) -> dict:
    from vmem.ops.govern import set_status, verify
    from vmem.ops.review import queue
    from vmem.ops.sync import sync

    reviewer = f"{reviewer_name} <{reviewer_email}>"
    waiting = [e for e in queue(store, "proposed") if e["kind"] == "claim"]
    narrate("vmem review", f"{len(waiting)} proposed claims wait for review; {reviewer_name} works the queue")
    approved = mandated = 0
    for entry in claims_doc["claims"]:
        item_id = refs[entry["ref"]]
        item = store.head().item(item_id)
        if item["status"] != "proposed" or item["personal"]:
            continue
        with store.acting_as(reviewer):
            if entry.get("ref") == "arr-definition":
                set_status(store, item_id, "mandatory", reason="the one ARR definition every analysis must use")
                mandated += 1
            elif entry.get("review") == "mandate":
                set_status(store, item_id, "mandatory", reason="every analysis must follow it")
                mandated += 1
            else:
                set_status(store, item_id, "approved")
                approved += 1
    verified = 0
    team = {key: f"{p['name']} <{p['email']}>" for key, p in claims_doc["team"].items()}
    for entry in claims_doc["claims"]:
        for member in entry.get("verify") or []:  # trusted twins: confirmed by colleagues in live sessions
            with store.acting_as(team[member]):
                verify(store, refs[entry["ref"]], "confirmation")
            verified += 1
    narrate("vmem approve / vmem mandate", f"{approved} claims approved, {mandated} mandated (always in context)")
    narrate("vmem verify", f"{verified} confirmations recorded by colleagues (they raise effective confidence)")
    project = root.parent / "project"
    result, _ = sync(store.root, target=project / ".claude" / "rules" / "vmem")
    files = ", ".join(Path(p).name for p in result.written)
    narrate("vmem sync", f"{result.summary}: {files}")
    again, _ = sync(store.root, target=project / ".claude" / "rules" / "vmem")
    narrate("vmem sync (again)", f"{len(again.unchanged)} files unchanged, {len(again.written)} rewritten — "
                                 "hooks can run it before every session")
    return {"approved": approved, "mandated": mandated, "verified": verified, "synced_items": len(result.items),
            "synced_files": [Path(p).name for p in result.written]}


def _knowledge_steps(store: Store, learnings: list[dict], team: dict, reviewer_name: str, reviewer_email: str,
                     narrate: Narrate) -> dict:
    from vmem.confidence import distinct_entities, support_tier
    from vmem.ops.consolidate import consolidate
    from vmem.ops.forget import forget
    from vmem.ops.publish import publish, reject

    reviewer = f"{reviewer_name} <{reviewer_email}>"
    result = consolidate(store)
    judged = [m for m in result.merged if m.judge != "canonical"]
    narrate("vmem consolidate", f"{len(result.merged)} merges ({len(judged)} by the judge), "
                                f"{len(result.eligible)} eligible, {len(result.quarantined)} quarantined, "
                                f"{result.candidates} still candidates — one commit")
    for merge in judged[:3]:
        narrate(f"  merge {merge.source} → {merge.into}", merge.reason)
    head = store.head()
    eligible = sorted((head.item(i) for i in result.eligible), key=lambda i: (-distinct_entities(i), i["id"]))
    report: dict = {"merged": len(result.merged), "judged_merges": len(judged), "eligible": len(result.eligible),
                    "quarantined": len(result.quarantined)}
    if not eligible:
        return report
    # publish every eligible pattern; forgetting a customer that supports only one of them shows the cascade
    with store.acting_as(reviewer):
        published_items = [publish(store, item["id"]).item for item in eligible]
    tiers = store.policy["knowledge"]["tiers"]
    for published in published_items:
        narrate(f"vmem publish {published['id']}", f"{reviewer_name} re-runs every gate and publishes: "
                f"“{published['statement']}” — support tier {support_tier(published, tiers)}")
    report.update(published=[p["id"] for p in published_items],
                  tier=support_tier(published_items[0], tiers))
    near_miss = next((e for e in learnings if e.get("pattern") is None and not e.get("leak")), None)
    if near_miss is not None:
        candidate = next((loaded.item for loaded in store.head().files("knowledge") if loaded.item
                          and loaded.item["statement"] == near_miss["statement"]
                          and loaded.item["status"] in ("candidate", "eligible")), None)
        if candidate is not None:
            with store.acting_as(reviewer):
                reject(store, candidate["id"], reason="one customer's anecdote, not a pattern")
            with store.acting_as(team[near_miss["writer"]]):
                again = propose_learning(store, near_miss["statement"], entity=near_miss["from"],
                                         categories=near_miss["categories"])
            narrate(f"vmem reject {candidate['id']}", f"then the same statement proposed again comes back "
                                                      f"{again.action.replace('_', ' ')}, unchanged")
            report["rejected"] = candidate["id"]
    supporters = [{e["entity"] for e in p["evidence"]} for p in published_items]
    # deterministic: the pattern with the fewest supporters, ties broken by its text
    target = min(published_items, key=lambda p: (len({e["entity"] for e in p["evidence"]}), p["statement"]))
    others = set().union(set(), *(s for p, s in zip(published_items, supporters) if p is not target))
    supporter = sorted({e["entity"] for e in target["evidence"]} - others or
                       {e["entity"] for e in target["evidence"]})[0]
    with store.acting_as(reviewer):
        forgotten = forget(store, entity=supporter, reason="customer asked us to delete their data")
    narrate(f"vmem forget --entity {supporter}",
            f"{forgotten.evidence_removed} evidence entries dropped; invalidated: "
            f"{', '.join(forgotten.invalidated) or 'none'} (support fell below k=3)")
    report["invalidated"] = forgotten.invalidated
    return report
