"""`vmem report`: a static HTML site for reviewers (no server, no network, works from file://): the review queue
with full cards, belief timelines from the commit trailers, contradictions, gates and support, claims expiring
in the next 30 days, and the map. It shows nothing the same person could not see with the CLI: never another
person's personal items, and a quarantined item's evidence quotes only when asked for.

Built with jinja2 (autoescape on for every template), written into a fresh directory that replaces the previous
report only once it is complete."""

from __future__ import annotations

import os
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from vmem import model
from vmem.errors import UsageError, VmemError

MARKER = ".vmem-report"
PAGES = ("index.html", "timelines.html", "contradictions.html", "gates.html", "expiring.html", "map.html")
EXPIRING_DAYS = 30
TIMELINE_LIMIT = 400  # the most recently changed items get a timeline (the queue's items always do)
PAGE_LIMIT = 1000  # cards or pairs on one page; the rest are counted and listed by the CLI


def default_dir(store) -> Path:
    """Inside the store's .git: never in the work tree (a report is not a belief) and one per store."""
    return store.git_dir / "vmem-report"


def timelines(store, wanted: set[str] | None = None) -> dict[str, list[dict]]:
    """item id -> its events, oldest first, read from vmem commit trailers (who, when, action, why)."""
    from vmem.store import history
    from vmem.store import message as messages

    events: dict[str, list[dict]] = {}
    for commit in history.commits(store):
        parsed = messages.parse(commit.message)
        if parsed is None:
            continue
        at = model.format_ts(datetime.fromtimestamp(commit.commit_time, timezone.utc))
        for item_id in parsed.items:
            if wanted is not None and item_id not in wanted:
                continue
            events.setdefault(item_id, []).append({
                "commit": str(commit.id)[:10], "at": at, "action": parsed.action,
                "author": commit.author.name, "author_email": commit.author.email,
                "committer": commit.committer.email, "reason": parsed.reason,
                "supersedes": parsed.supersedes,
            })
    for found in events.values():
        found.reverse()
    return events


def build(store, *, quarantined_evidence: bool = False, map_claims: bool = False) -> dict:
    """Everything the pages show, as plain data (also what `vmem report --json` prints)."""
    from vmem.ops.card import card, is_reviewer, suggestions_of, viewer_of
    from vmem.ops.contradictions import attested_items, by_item, scan
    from vmem.visibility import visible_to
    from vmem.ops.knowledge_map import build as build_map

    viewer = viewer_of(store)
    reviewer = is_reviewer(store, viewer)
    snapshot = store.head()
    every = [i for i in attested_items(store, snapshot) if visible_to(i, viewer)]
    by_id = {i["id"]: i for i in every}
    pairs = scan(every, viewer)
    per_item = by_item(pairs)
    suggested_by: dict[str, list[dict]] = {}
    for i in every:
        if i["kind"] == "knowledge" and i["status"] in model.OPEN["knowledge"]:
            for row in i.get("suggestions") or []:
                suggested_by.setdefault(row["id"], []).append({"id": i["id"], "score": row["score"]})
    same = {i["id"]: suggestions_of(i, by_id.get, suggested_by) for i in every
            if i["kind"] == "knowledge" and i["status"] in model.OPEN["knowledge"]}
    # the queue: what awaits a decision, candidates with merge suggestions included (a reviewer merges them)
    queued = sorted((i for i in every if i["status"] in model.QUEUED
                     or (i["kind"] == "knowledge" and i["status"] == "candidate" and same.get(i["id"]))),
                    key=lambda i: (i.get("created_at") or i.get("first_seen") or "", i["id"]))
    queue_total = len(queued)
    queued = queued[:PAGE_LIMIT]
    queue = [card(store, i, snapshot=snapshot, viewer=viewer, reviewer=reviewer, contradictions=per_item,
                  quarantined_evidence=quarantined_evidence, suggestions=same.get(i["id"], [])) for i in queued]
    suggestions = sorted({tuple(sorted((i, o["id"]))): o["score"] for i, found in same.items()
                          for o in found}.items(), key=lambda kv: (-kv[1], kv[0]))
    held = [card(store, i, snapshot=snapshot, viewer=viewer, reviewer=reviewer, contradictions=per_item,
                 quarantined_evidence=quarantined_evidence)
            for i in every if i["kind"] == "knowledge" and i["status"] == "quarantined"]
    now = datetime.now(timezone.utc)
    soon = now + timedelta(days=EXPIRING_DAYS)
    expiring = sorted(({"id": i["id"], "statement": i["statement"], "scope": i.get("scope"), "status": i["status"],
                        "expires_at": i["expires_at"],
                        "days_left": round((model.parse_ts(i["expires_at"]) - now).total_seconds() / 86400, 1)}
                       for i in every if i["kind"] == "claim" and i["status"] in model.OPEN["claim"]
                       and i.get("expires_at") and now <= model.parse_ts(i["expires_at"]) <= soon),
                      key=lambda r: (r["expires_at"], r["id"]))
    from vmem.gates.publish import GateInputs

    counted = GateInputs({}, {}, counted=snapshot.counted_entities())  # what the support gates count
    gates = [_gate_row(store, snapshot, i, counted) for i in every
             if i["kind"] == "knowledge" and i["status"] != "merged"]
    gates.sort(key=lambda g: (["eligible", "candidate", "quarantined", "published"].index(g["status"])
                              if g["status"] in ("eligible", "candidate", "quarantined", "published") else 9, g["id"]))
    history = timelines(store, set(by_id))
    recent = sorted(history, key=lambda k: (history[k][-1]["at"], k), reverse=True)
    chosen = [q["id"] for q in queue] + [p[s] for p in pairs for s in ("a", "b")]
    chosen += [k for k in recent if len(history[k]) > 1][:TIMELINE_LIMIT]
    chosen += recent[:TIMELINE_LIMIT]
    seen, lines = set(), []
    for item_id in chosen:
        if item_id in seen or item_id not in history or item_id not in by_id or len(lines) >= TIMELINE_LIMIT + len(queue):
            continue
        seen.add(item_id)
        item = by_id[item_id]
        lines.append({"id": item_id, "kind": item["kind"], "status": item["status"], "statement": item["statement"],
                      "supersedes": item.get("supersedes"), "superseded_by": item.get("superseded_by"),
                      "events": history[item_id]})
    mapped = every
    if not quarantined_evidence:
        queue, held, gates, lines, pairs, mapped = _withhold_customer_text(queue, held, gates, lines, pairs, every)
    graph = build_map(store, claims=map_claims, viewer=viewer, items=mapped)
    from vmem.ops.knowledge_map import svg

    return {"store": str(store.root), "commit": snapshot.commit_id, "generated_at": model.now(), "viewer": viewer,
            "reviewer": reviewer, "queue": queue, "queue_total": queue_total, "quarantined": held,
            "suggestions": [{"a": a, "b": b, "score": score, "a_statement": by_id[a]["statement"],
                             "b_statement": by_id[b]["statement"]} for (a, b), score in suggestions[:PAGE_LIMIT]],
            "suggestions_total": len(suggestions),
            "contradictions": pairs[:PAGE_LIMIT], "contradictions_total": len(pairs), "timelines": lines,
            "timelines_total": len(history), "week": _week(store, viewer), "gates": gates, "expiring": expiring, "expiring_days": EXPIRING_DAYS,
            "map": graph, "map_svg": svg(graph),
            "counts": {"items": len(every), "queue": queue_total, "contradictions": len(pairs),
                       "expiring": len(expiring), "communities": len(graph["communities"])}}


def _week(store, viewer) -> list[dict]:
    """What the team started and stopped believing in the last seven days (the belief diff)."""
    from vmem.ops.diff import diff

    return diff(store, viewer=viewer)["changes"]


def _gate_row(store, snapshot, item: dict, inputs) -> dict:
    """One row of the gates page: support counted as the gates count it (the evidence history vouches for), the
    last gate result, and, when the evidence changed since that run (a customer forgotten, evidence merged in),
    what the support gates say now from the same counts, so the numbers and the reason never disagree."""
    from vmem.gates.publish import GATES
    from vmem.ops.card import support
    from vmem.policy import k_min

    gate = item.get("gate") or {}
    counted = support(store, snapshot, item)
    vouched = {**item, "evidence": store.attestation(snapshot).attested_evidence(model.item_path(item["id"]), item)}
    checks = dict(gate.get("checks") or {})
    now = {g.name: g.check(vouched, inputs, store.policy["knowledge"], k_min(store.policy))
           for g in GATES if g.name in ("k_support", "writers")}  # these two read only the evidence
    recorded = gate.get("reason") or ""
    stale = bool(gate) and any((reason is None) != bool(checks.get(name, reason is None))
                               or (reason is not None and reason not in recorded) for name, reason in now.items())
    return {"id": item["id"], "status": item["status"], "statement": item["statement"],
            "categories": list(item.get("categories") or []), **counted,
            "passed": bool(gate.get("passed")), "checks": checks, "reason": gate.get("reason"), "at": gate.get("at"),
            "stale": stale, "support_now": "; ".join(r for r in now.values() if r) or "support and writers suffice"}


# What stands in for a quarantined item's own words when --quarantined-evidence is not given (attack 8b of issue
# 28: the card hid the evidence quotes, yet printed the statement and the de-id gate's reason, which quotes the
# customer's words, and the timelines printed that reason again from the commit trailer).
HIDDEN_STATEMENT = "(statement hidden: it may name a customer)"
HIDDEN_REASON = "(details hidden: they may name a customer)"
_DEID_REASONS = ("names a customer", "lexicon incomplete")  # the de-id gate's reasons quote what they found


def _names_customer(item: dict) -> bool:
    """Whether ITEM's own words may name a customer: a learning quarantined (as history attests), or one whose
    recorded gate result failed de-identification (a quarantined learning rejected later still names them). The
    file's record may only hide more, never show more."""
    if item["kind"] != "knowledge":
        return False
    gate = item.get("gate") if isinstance(item.get("gate"), dict) else {}
    checks = gate.get("checks") if isinstance(gate.get("checks"), dict) else {}
    return item["status"] == "quarantined" or checks.get("deid") is False


def _reason(text: str | None) -> str | None:
    return HIDDEN_REASON if text and any(marker in text for marker in _DEID_REASONS) else text


def _withhold_customer_text(queue, held, gates, lines, pairs, every):
    """The pages' data without any quarantined item's statement, title, gate reason, evidence or merge and
    rejection reasons, wherever they would appear (its card, the gates table, its timeline, another item's
    revision diff or contradiction, the map: the items to map are returned last), and without any de-id gate
    reason quoted from a commit trailer."""
    hidden = {i["id"] for i in every if _names_customer(i)}

    def card(c: dict) -> dict:
        c = dict(c)
        if c["id"] in hidden:
            c.update(statement=HIDDEN_STATEMENT, title=None, evidence=[], evidence_hidden=True,
                     merges=[{**m, "reason": HIDDEN_REASON} for m in c.get("merges") or []],
                     prior_rejections=[{**r, "reason": HIDDEN_REASON} for r in c.get("prior_rejections") or []])
            if c.get("gate"):
                c["gate"] = {**c["gate"], "reason": HIDDEN_REASON if c["gate"].get("reason") else None}
        if c.get("supersedes") and (c["id"] in hidden or c["supersedes"]["id"] in hidden):
            c["supersedes"] = {**c["supersedes"], "statement": None,
                               "diff": [["=", "(the wording is hidden: it may name a customer)"]]}
        # a detector's reason quotes both sides ("different numbers 5 days vs 3 days")
        c["contradictions"] = [{**o, "statement": HIDDEN_STATEMENT, "reason": HIDDEN_REASON} if o["id"] in hidden
                               else {**o, "reason": HIDDEN_REASON} if c["id"] in hidden else o
                               for o in c.get("contradictions") or []]
        return c

    gates = [{**g, "statement": HIDDEN_STATEMENT, "reason": HIDDEN_REASON if g["reason"] else None}
             if g["id"] in hidden else g for g in gates]
    lines = [{**t, **({"statement": HIDDEN_STATEMENT} if t["id"] in hidden else {}),
              "events": [{**e, "reason": HIDDEN_REASON if t["id"] in hidden and e["reason"] else _reason(e["reason"])}
                         for e in t["events"]]} for t in lines]
    pairs = [{**p, **{f"{side}_statement": HIDDEN_STATEMENT for side in ("a", "b") if p[side] in hidden},
              "reason": HIDDEN_REASON} if hidden & {p["a"], p["b"]} else p for p in pairs]
    return ([card(c) for c in queue], [card(c) for c in held], gates, lines, pairs,
            [i for i in every if i["id"] not in hidden])


def render(data: dict) -> dict[str, str]:
    """file name -> HTML, every value escaped by jinja2's autoescape (the SVG is built escaped and marked safe)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("vmem", "templates/report"),
                             autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["diffclass"] = lambda op: {"=": "same", "-": "del", "+": "ins"}[op]
    from markupsafe import Markup

    # our own stylesheet and the SVG built with every text escaped are the only markup not escaped here
    css = Markup((Path(__file__).resolve().parent.parent / "templates" / "report" / "report.css").read_text())
    pages = {}
    for name in PAGES:
        pages[name] = env.get_template(name).render(page=name, map_svg=Markup(data["map_svg"]), css=css,
                                                   **{k: v for k, v in data.items() if k != "map_svg"})
    pages["map.svg"] = data["map_svg"]
    return pages


def write(store, out: Path | None = None, **options) -> dict:
    """Build and write the site; returns {"dir", "index", "pages", "counts"}. OUT is replaced only when it holds a
    previous report (or is empty); nothing is left half-written."""
    target = Path(out) if out is not None else default_dir(store)
    target = target.absolute()
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a directory; nothing written", "pick another --out DIR")
    if target.is_symlink():
        raise UsageError(f"{target} is a symlink; nothing written", "pick another --out DIR")
    if target.is_dir() and any(target.iterdir()) and not (target / MARKER).is_file():
        raise UsageError(f"{target} is not empty and holds no vmem report; nothing written",
                         "pick a new or empty directory: vmem report --out DIR")
    root = store.root.resolve()
    inside = root in target.resolve().parents and ".git" not in target.resolve().relative_to(root).parts
    if target.resolve() == root or inside:
        raise UsageError(f"{target} is inside the store's work tree; nothing written",
                         "write the report elsewhere (the default is inside .git): vmem report --out DIR")
    data = build(store, **options)
    pages = render(data)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".vmem-report-", dir=target.parent))
    except OSError as exc:
        raise VmemError(f"cannot write under {target.parent} ({exc.strerror}); nothing written",
                        "pick a writable --out DIR") from None
    try:
        for name, text in pages.items():
            (staging / name).write_text(text, encoding="utf-8")
        (staging / MARKER).write_text(f"vmem report of {data['store']} at {data['commit']}\n")
        os.chmod(staging, 0o755)
        if target.exists():
            old = target.with_name(target.name + ".old-" + os.urandom(4).hex())
            target.rename(old)
            staging.rename(target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise VmemError(f"cannot write the report into {target} ({exc.strerror}); nothing written",
                        "pick a writable --out DIR") from None
    return {"dir": str(target), "index": str(target / "index.html"), "url": (target / "index.html").as_uri(),
            "pages": [str(target / p) for p in PAGES], "counts": data["counts"], "commit": data["commit"]}
