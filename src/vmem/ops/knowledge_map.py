"""The map (SPEC 14): a read-only similarity graph of knowledge items (claims optionally), grouped by Louvain
community detection and labelled by each community's dominant categories and a representative statement;
rendered as SVG without a browser. It changes nothing in the store."""

from __future__ import annotations

import math
from collections import Counter
from html import escape

from vmem import model

# what is drawn: items still in play or served (open); quarantined statements name customers and never appear
MAPPED = model.OPEN
NEIGHBOURS = 5  # edges per item: its closest others above THRESHOLD
THRESHOLD = 0.55  # cosine of the bundled model; below it two statements share little more than vocabulary
SEED = 13  # Louvain is randomised: a fixed seed keeps the map stable from one run to the next


def build(store, *, claims: bool = False, viewer: str | None = None, items: list[dict] | None = None,
          embed=None) -> dict:
    """{"nodes", "edges", "communities"}; ITEMS: attested items already read (the report passes them)."""
    import networkx as nx
    import numpy as np

    from vmem.ops.contradictions import attested_items
    from vmem.visibility import visible_to

    kinds = ("knowledge", "claim") if claims else ("knowledge",)
    pool = items if items is not None else attested_items(store)
    chosen = sorted((i for i in pool if i["kind"] in kinds and i["status"] in MAPPED[i["kind"]]
                     and visible_to(i, viewer)), key=lambda i: i["id"])
    nodes = [{"id": i["id"], "kind": i["kind"], "status": i["status"], "statement": i["statement"],
              "categories": list(i.get("categories") or []), "scope": i.get("scope")} for i in chosen]
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
            for row in range(sims.shape[0]):
                sims[row, start + row] = -1.0
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k < len(nodes) else np.argsort(-sims, axis=1)
            for row in range(sims.shape[0]):
                a = start + row
                for b in top[row]:
                    weight = float(sims[row, b])
                    key = (min(a, int(b)), max(a, int(b)))
                    if weight >= THRESHOLD and key not in seen:
                        seen.add(key)
                        edges.append((key[0], key[1], round(weight, 3)))
    graph = nx.Graph()
    graph.add_nodes_from(range(len(nodes)))
    graph.add_weighted_edges_from(edges)
    groups = nx.community.louvain_communities(graph, weight="weight", seed=SEED) if nodes else []
    groups = sorted((sorted(g) for g in groups), key=lambda g: (-len(g), g[0]))
    communities = []
    for number, members in enumerate(groups):
        for m in members:
            nodes[m]["community"] = number
        strength = {m: sum(d["weight"] for _, _, d in graph.edges(m, data=True)) for m in members}
        counts = Counter(c for m in members for c in nodes[m]["categories"])
        top = {c for c, _ in counts.most_common(2)}
        # the representative carries the label's categories, then is the most connected
        central = max(members, key=lambda m: (len(top & set(nodes[m]["categories"])), strength[m], -m))
        communities.append({
            "id": number, "size": len(members),
            "label": ", ".join(c for c, _ in counts.most_common(2)) or "no category",
            "categories": [[c, n] for c, n in counts.most_common(5)],
            "representative": {"id": nodes[central]["id"], "statement": nodes[central]["statement"]},
            "members": [nodes[m]["id"] for m in members],
        })
    _layout(nodes, groups, graph)
    return {"nodes": nodes, "edges": [{"a": nodes[a]["id"], "b": nodes[b]["id"], "weight": w} for a, b, w in edges],
            "communities": communities, "threshold": THRESHOLD, "neighbours": NEIGHBOURS}


def _layout(nodes: list[dict], groups: list[list[int]], graph) -> None:
    """Communities on a sunflower spiral by size, each one's members on a smaller spiral around its centre
    (deterministic and linear in the number of items: no force layout over 10k nodes)."""
    golden = math.pi * (3 - math.sqrt(5))
    for number, members in enumerate(groups):
        radius = math.sqrt(len(members)) * 6 + 8
        r = 40 * math.sqrt(number) * 1.6
        cx, cy = r * math.cos(number * golden), r * math.sin(number * golden)
        ordered = sorted(members, key=lambda m: -graph.degree(m))
        for j, m in enumerate(ordered):
            rr = radius * math.sqrt((j + 0.5) / len(ordered))
            nodes[m]["x"] = round(cx + rr * math.cos(j * golden), 2)
            nodes[m]["y"] = round(cy + rr * math.sin(j * golden), 2)
        for m in members:
            nodes[m].setdefault("community", number)


PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#bab0ac")


def svg(graph: dict, width: int = 960, height: int = 720) -> str:
    """The map as a standalone SVG: one circle per item (its statement as a tooltip), edges inside communities,
    the ten largest communities labelled. Every piece of text is XML-escaped."""
    nodes = graph["nodes"]
    if not nodes:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="120" role="img">'
                '<text x="10" y="30" font-family="sans-serif">no knowledge items to map yet</text></svg>')
    xs, ys = [n["x"] for n in nodes], [n["y"] for n in nodes]
    pad = 90  # room for the community labels at the edges
    span_x, span_y = (max(xs) - min(xs)) or 1, (max(ys) - min(ys)) or 1
    scale = min((width - 2 * pad) / span_x, (height - 2 * pad - 30) / span_y)
    x0, y0 = min(xs), min(ys)

    def px(n):
        return round(pad + (n["x"] - x0) * scale, 1), round(pad + 30 + (n["y"] - y0) * scale, 1)

    where = {n["id"]: px(n) for n in nodes}
    community = {n["id"]: n.get("community", 0) for n in nodes}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="map of the knowledge layer" class="vmem-map">',
           f'<title>map: {len(nodes)} items, {len(graph["communities"])} communities</title>',
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           f'<text x="{pad}" y="24" font-family="sans-serif" font-size="14">{len(nodes)} items, '
           f'{len(graph["communities"])} communities (Louvain over cosine ≥ {graph["threshold"]})</text>',
           '<g stroke="#bbbbbb" stroke-width="0.6" stroke-opacity="0.7">']
    for edge in graph["edges"]:
        if community[edge["a"]] == community[edge["b"]]:
            (x1, y1), (x2, y2) = where[edge["a"]], where[edge["b"]]
            out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
    out.append("</g><g>")
    dot = 6 if len(nodes) < 200 else 4 if len(nodes) < 2000 else 2
    for n in nodes:
        x, y = where[n["id"]]
        colour = PALETTE[n.get("community", 0) % len(PALETTE)]
        ring = ' stroke="#222" stroke-width="1"' if n["status"] in model.SERVABLE[n["kind"]] else ""
        out.append(f'<circle cx="{x}" cy="{y}" r="{dot}" fill="{colour}"{ring} data-id="{n["id"]}">'
                   f'<title>{escape(n["id"])} ({escape(n["status"])}): {escape(n["statement"][:200])}</title></circle>')
    out.append('</g><g font-family="sans-serif" font-size="12" fill="#111">')
    for c in graph["communities"][:10]:
        spots = [where[m] for m in c["members"]]
        cx = round(sum(x for x, _ in spots) / len(spots), 1)
        cy = round(max(min(y for _, y in spots) - dot - 6, pad + 40), 1)
        out.append(f'<text x="{cx}" y="{cy}" text-anchor="middle" paint-order="stroke" stroke="#fff" '
                   f'stroke-width="3">{escape(c["label"])} ({c["size"]})</text>')
    out.append("</g></svg>")
    return "\n".join(out)
