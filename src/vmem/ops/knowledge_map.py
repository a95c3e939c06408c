"""The map (SPEC 14): a read-only similarity graph of knowledge items (claims optionally), grouped by Louvain
community detection, each community named by its dominant categories and most distinctive word; orphans (no
neighbour at the threshold), bridges (items between two communities) and thin categories found; drawn by
vmem.ops.map_draw. It changes nothing in the store."""

from __future__ import annotations

import math
import re
from collections import Counter

from vmem import model
from vmem.output import counted

# what is drawn: items still in play or served (open); quarantined statements name customers and never appear
MAPPED = model.OPEN
NEIGHBOURS = 5  # edges per item: its closest others above THRESHOLD
THRESHOLD = 0.55  # cosine of the bundled model; below it two statements share little more than vocabulary
BRIDGE = 0.5  # an item whose links into another cluster weigh at least this share of those into its own bridges them
SEED = 13  # Louvain is randomised: a fixed seed keeps the map stable from one run to the next


def build(store, *, claims: bool = False, viewer: str | None = None, items: list[dict] | None = None,
          embed=None) -> dict:
    """{"nodes", "edges", "communities", "orphans", "bridges", "thin_categories", "canvas"}; ITEMS: attested items
    already read (the report passes them)."""
    import numpy as np

    from vmem.ops.contradictions import attested_items
    from vmem.ops.map_draw import layout
    from vmem.visibility import visible_to

    kinds = ("knowledge", "claim") if claims else ("knowledge",)
    pool = [i for i in (items if items is not None else attested_items(store)) if visible_to(i, viewer)]
    chosen = sorted((i for i in pool if i["kind"] in kinds and i["status"] in MAPPED[i["kind"]]),
                    key=lambda i: i["id"])
    nodes = [{"id": i["id"], "kind": i["kind"], "status": i["status"], "statement": i["statement"],
              "categories": list(i.get("categories") or []), "scope": i.get("scope"),
              "served": i["status"] in model.SERVABLE[i["kind"]]} for i in chosen]
    edges: list[tuple[int, int, float]] = []
    if len(nodes) > 1:
        if embed is None:
            from vmem.embed import embedder

            embed = embedder(store.policy, store.root)
        vectors = np.asarray(embed([n["statement"] for n in nodes]), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms == 0, 1, norms)
        k = min(NEIGHBOURS, len(nodes) - 1)
        seen = set()
        for start in range(0, len(nodes), 1024):  # blocks keep memory flat at 10k items (no n x n matrix)
            sims = vectors[start:start + 1024] @ vectors.T
            rows = np.arange(sims.shape[0])
            sims[rows, start + rows] = -1.0
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            weights = np.take_along_axis(sims, top, axis=1)
            for row, col in zip(*np.nonzero(weights >= THRESHOLD)):
                a, b = start + int(row), int(top[row, col])
                key = (min(a, b), max(a, b))
                if key not in seen:
                    seen.add(key)
                    edges.append((key[0], key[1], round(float(weights[row, col]), 3)))
    neighbours: list[dict[int, float]] = [{} for _ in nodes]
    for a, b, w in edges:
        neighbours[a][b] = neighbours[b][a] = w
    groups = _communities(len(nodes), edges)
    # an item with no neighbour at the threshold is an orphan, not a cluster of one
    lonely = [g[0] for g in groups if len(g) == 1 and not neighbours[g[0]]]
    groups = [g for g in groups if len(g) > 1 or neighbours[g[0]]]
    for n, found in zip(nodes, neighbours):
        n["degree"], n["community"] = len(found), None
    terms = _terms(nodes)
    df = Counter(w for found in terms for w in found)
    communities = []
    for number, members in enumerate(groups):
        for m in members:
            nodes[m]["community"] = number
        strength = {m: sum(neighbours[m].values()) for m in members}
        counts = Counter(c for m in members for c in nodes[m]["categories"])
        top = [c for c, _ in counts.most_common(2)]
        # the representative carries the label's categories, then is the most connected
        central = max(members, key=lambda m: (len(set(top) & set(nodes[m]["categories"])), strength[m], -m))
        communities.append({
            "id": number, "size": len(members), "label": "", "categories": [[c, n] for c, n in counts.most_common(5)],
            "terms": _distinctive(members, terms, df, top), "top": top,
            "representative": {"id": nodes[central]["id"], "statement": nodes[central]["statement"]},
            "members": [nodes[m]["id"] for m in members],
        })
    _name(communities)
    bridges = []
    for m, found in enumerate(neighbours):
        own = nodes[m]["community"]
        weight: Counter = Counter()
        for o, w in found.items():
            weight[nodes[o]["community"]] += w
        # a bridge sits between clusters: its links into another one weigh at least half its links into its own
        # (a member with one stray link is not a bridge; on the demo's 73 items any cross link made 42 "bridges")
        others = sorted((c for c in weight if c != own and weight[c] >= BRIDGE * weight[own]),
                        key=lambda c: (-weight[c], c))
        if own is not None and others:
            crossing = [w for o, w in found.items() if nodes[o]["community"] in others]
            bridges.append({"id": nodes[m]["id"], "communities": [own, *others], "links": len(crossing),
                            "weight": round(max(crossing), 3)})
    bridges.sort(key=lambda b: (-len(b["communities"]), -b["links"], -b["weight"], b["id"]))
    floor = int(store.policy["knowledge"]["category_floor"])
    graph = {"nodes": nodes,
             "edges": [{"a": nodes[a]["id"], "b": nodes[b]["id"], "weight": w} for a, b, w in edges],
             "communities": communities, "orphans": [nodes[m]["id"] for m in lonely], "bridges": bridges,
             "thin_categories": thin_categories(store, pool, floor), "category_floor": floor,
             "threshold": THRESHOLD, "neighbours": NEIGHBOURS}
    layout(graph)
    return graph


def _communities(count: int, edges: list[tuple[int, int, float]]) -> list[list[int]]:
    """Louvain communities, largest first (ties by their first item), each sorted."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(count))
    graph.add_weighted_edges_from(edges)
    groups = nx.community.louvain_communities(graph, weight="weight", seed=SEED) if count else []
    return sorted((sorted(g) for g in groups), key=lambda g: (-len(g), g[0]))


# words that say nothing about a cluster's subject (words under four letters are never terms)
STOPWORDS = frozenset("""about above after again against also always before being below between both cannot could
does doing down during each every from further have having here into itself just like more most much must never
only other over same should since some such than that their them then there these they this those through under
until upon very were what when where which while will with within without would your yours ours used uses using
because instead rather still even each whom whose because across along among onto""".split())
_WORD = re.compile(r"[a-z][a-z0-9_]{3,}")


def _terms(nodes: list[dict]) -> list[set[str]]:
    return [{w for w in _WORD.findall(n["statement"].casefold()) if w not in STOPWORDS} for n in nodes]


def _distinctive(members: list[int], terms: list[set[str]], df: Counter, categories: list[str],
                 count: int = 3) -> list[str]:
    """The words that set MEMBERS apart: how many of them use a word, weighted by how rare the word is in the whole
    map (a word every item uses names nothing); words already in the label's categories are left out."""
    total = len(terms)
    used = Counter(w for m in members for w in terms[m])
    taken = {part for c in categories for part in re.split(r"[:_\-]", c.casefold())} | {
        c.split(":", 1)[-1].casefold() for c in categories}
    least = 2 if len(members) > 2 else 1
    scored = [(round(n / len(members) * math.log(total / df[w]), 6), w) for w, n in used.items()
              if n >= least and w not in taken and df[w] < total]
    # on a tie the longer word, which tends to be the more specific one
    return [w for _, w in sorted(scored, key=lambda sw: (-sw[0], -len(sw[1]), sw[1]))[:count]]


def _name(communities: list[dict]) -> None:
    """Every cluster's label: its two most frequent categories and its most distinctive word; a second word
    where two clusters would otherwise share a label; words alone where no item has a category."""
    def label(c: dict, words: int) -> str:
        picked = c["terms"][:words]
        if c["top"]:
            return ", ".join(c["top"]) + (" · " + " ".join(picked) if picked else "")
        return " ".join(picked) if picked else "no category, no common word"

    for c in communities:
        c["label"] = label(c, 1)
    for words in (2, 3):
        seen = Counter(c["label"] for c in communities)
        for c in communities:
            if seen[c["label"]] > 1:
                c["label"] = label(c, words)
    for c in communities:
        del c["top"]


def thin_categories(store, pool: list[dict], floor: int) -> list[dict]:
    """Categories the knowledge layer covers thinly: fewer open learnings than the category floor, or none
    published, or fewer customers than the floor (the gate then holds their learnings back). Every category of
    a customer or of an open learning is looked at, whether the map shows claims or not."""
    customers = Counter(c for entity in store.head().entities().values() for c in set(entity.get("categories") or []))
    learnings, published = Counter(), Counter()
    for i in pool:
        if i["kind"] == "knowledge" and i["status"] in model.OPEN["knowledge"]:
            for c in set(i.get("categories") or []):
                learnings[c] += 1
                published[c] += i["status"] in model.SERVABLE["knowledge"]
    facets = {c.split(":", 1)[0] for c in customers}
    rows = []
    for c in sorted(set(customers) | set(learnings)):
        reasons = []
        if learnings[c] < floor:
            reasons.append(f"{counted(learnings[c], 'learning')}, below the floor of {floor}")
        if not published[c]:
            reasons.append("no published learning")
        if c.split(":", 1)[0] in facets and customers[c] < floor:
            reasons.append(f"{counted(customers[c], 'customer')}, below the floor of {floor}")
        if reasons:  # customers: None where no customer is described by this facet (the floor does not apply)
            rows.append({"category": c, "items": learnings[c], "published": published[c],
                         "customers": customers[c] if c.split(":", 1)[0] in facets else None, "reasons": reasons})
    rows.sort(key=lambda r: (r["items"], r["published"], r["customers"] or 0, r["category"]))
    return rows


def svg(graph: dict) -> str:
    """The map as a standalone SVG (vmem.ops.map_draw draws it)."""
    from vmem.ops.map_draw import render

    return render(graph)
