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

from vmem import confidence, model
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
    import pygit2

    from vmem.store import message as messages

    events: dict[str, list[dict]] = {}
    if store.repo.head_is_unborn:
        return events
    order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
    for commit in store.repo.walk(store.repo.head.target, order):
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
    from vmem.ops.card import card, is_reviewer, viewer_of
    from vmem.ops.contradictions import attested_items, by_item, scan, visible_to
    from vmem.ops.knowledge_map import build as build_map
    from vmem.ops.review import QUEUE_STATUSES

    viewer = viewer_of(store)
    reviewer = is_reviewer(store, viewer)
    snapshot = store.head()
    every = [i for i in attested_items(store, snapshot) if visible_to(i, viewer)]
    by_id = {i["id"]: i for i in every}
    pairs = scan(every, viewer)
    per_item = by_item(pairs)
    queued = sorted((i for i in every if i["status"] in QUEUE_STATUSES),
                    key=lambda i: (i.get("created_at") or i.get("first_seen") or "", i["id"]))
    queue_total = len(queued)
    queued = queued[:PAGE_LIMIT]
    queue = [card(store, i, snapshot=snapshot, viewer=viewer, reviewer=reviewer, contradictions=per_item,
                  quarantined_evidence=quarantined_evidence) for i in queued]
    held = [card(store, i, snapshot=snapshot, viewer=viewer, reviewer=reviewer, contradictions=per_item,
                 quarantined_evidence=quarantined_evidence)
            for i in every if i["kind"] == "knowledge" and i["status"] == "quarantined"]
    now = datetime.now(timezone.utc)
    soon = now + timedelta(days=EXPIRING_DAYS)
    expiring = sorted(({"id": i["id"], "statement": i["statement"], "scope": i.get("scope"), "status": i["status"],
                        "expires_at": i["expires_at"],
                        "days_left": round((model.parse_ts(i["expires_at"]) - now).total_seconds() / 86400, 1)}
                       for i in every if i["kind"] == "claim" and i["status"] in ("proposed", "approved", "mandatory")
                       and i.get("expires_at") and now <= model.parse_ts(i["expires_at"]) <= soon),
                      key=lambda r: (r["expires_at"], r["id"]))
    tiers = store.policy["knowledge"]["tiers"]
    gates = []
    for i in every:
        if i["kind"] != "knowledge" or i["status"] in ("merged",):
            continue
        gate = i.get("gate") or {}
        gates.append({"id": i["id"], "status": i["status"], "statement": i["statement"],
                      "categories": list(i.get("categories") or []),
                      "support_tier": confidence.support_tier(i, tiers),
                      "distinct_entities": confidence.distinct_entities(i),
                      "writers": len({e["writer"] for e in i.get("evidence") or []}),
                      "passed": bool(gate.get("passed")), "checks": dict(gate.get("checks") or {}),
                      "reason": gate.get("reason")})
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
    graph = build_map(store, claims=map_claims, viewer=viewer, items=every)
    from vmem.ops.knowledge_map import svg

    return {"store": str(store.root), "commit": snapshot.commit_id, "generated_at": model.now(), "viewer": viewer,
            "reviewer": reviewer, "queue": queue, "queue_total": queue_total, "quarantined": held,
            "contradictions": pairs[:PAGE_LIMIT], "contradictions_total": len(pairs), "timelines": lines,
            "timelines_total": len(history), "gates": gates, "expiring": expiring, "expiring_days": EXPIRING_DAYS,
            "map": graph, "map_svg": svg(graph),
            "counts": {"items": len(every), "queue": queue_total, "contradictions": len(pairs),
                       "expiring": len(expiring), "communities": len(graph["communities"])}}


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
