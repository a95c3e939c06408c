"""The map's picture (SPEC 14): where every cluster, item and label goes, and the SVG. Pure Python, deterministic,
linear in the number of items: clusters are packed on shelves (largest first) into a canvas that grows with the
item count; each cluster's cell reserves its label's width, so no two labels can overlap; a name too long for its
cell is cut and listed in full in a key under the map."""

from __future__ import annotations

import colorsys
import math
from html import escape
from vmem.output import counted

FONT = "DejaVu Sans,Verdana,sans-serif"  # the widths below are DejaVu Sans's: an upper bound for narrower fonts
# advance widths in hundredths of an em (DejaVu Sans, measured in Chromium); any other character counts as 1 em
_WIDTHS = {**dict.fromkeys("0123456789$", 64), " ": 32, "!": 40, '"': 46, "#": 84, "%": 95, "&": 78, "'": 27,
           "(": 39, ")": 39, "*": 50, "+": 84, ",": 32, "-": 36, ".": 32, "/": 34, ":": 34, ";": 34, "<": 84,
           "=": 84, ">": 84, "?": 53, "@": 100, "[": 39, "\\": 34, "]": 39, "^": 84, "_": 50, "`": 50, "{": 64,
           "|": 34, "}": 64, "~": 84, "·": 32, "…": 100, "—": 100, "≥": 84, "↔": 84,
           **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (70, 69, 70, 77, 63, 58, 77, 75, 29, 29, 66, 56, 86, 75, 79, 60,
                                                     79, 69, 63, 60, 73, 68, 99, 69, 61, 69))),
           **dict(zip("abcdefghijklmnopqrstuvwxyz", (61, 63, 55, 63, 62, 34, 63, 63, 28, 28, 58, 28, 97, 63, 61, 63,
                                                     63, 40, 52, 39, 63, 59, 82, 59, 59, 52)))}
MARGIN = 24
GAP = 14  # between cells
LABEL = 12  # cluster labels, px
SMALL = 11  # panels and the key, px
LINE = 16  # panel line height
EDGES_UP_TO = 2000  # links inside clusters are drawn up to this many items (beyond, they are ink, not information)
ORPHAN = "#9a9a9a"
KEY = (("dot", "an item"), ("served", "served (published or approved)"),
       ("bridge", "bridge: between clusters"), ("orphan", "orphan: no close neighbour"),
       ("link", "a bridge's link"))


def text_width(text: str, size: float) -> float:
    """TEXT's width in px at font SIZE, never less than DejaVu Sans draws it (unknown characters count 1 em)."""
    return sum(_WIDTHS.get(ch, 100) for ch in text) * size / 100 + 1


def fit(text: str, width: float, size: float) -> str:
    """TEXT cut (with an ellipsis) to at most WIDTH px at SIZE; '' when not even one character and the ellipsis fit."""
    if text_width(text, size) <= width:
        return text
    room = width - _WIDTHS["…"] * size / 100 - 1
    used, cut = 0.0, 0
    for ch in text:
        used += _WIDTHS.get(ch, 100) * size / 100
        if used > room:
            break
        cut += 1
    return text[:cut].rstrip() + "…" if cut else ""


def palette() -> list[str]:
    """24 colours: 12 hues 30 degrees apart at two lightness steps (the greedy colouring keeps neighbours apart)."""
    out = []
    for light in (0.42, 0.64):
        for step in range(12):
            r, g, b = colorsys.hls_to_rgb(((step * 5) % 12) / 12, light, 0.62)  # 5 steps apart: far hues first
            out.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return out


PALETTE = palette()


def _hue(colour: str) -> float:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)[0]


def scale(count: int) -> tuple[float, float]:
    """(dot radius, spiral step) for a map of COUNT items: big dots for a small map, small ones for a big map."""
    if count <= 300:
        return 5.0, 8.0
    if count <= 3000:
        return 3.5, 5.4
    return 2.5, 3.9


def layout(graph: dict) -> None:
    """Place every cluster cell, item and label: sets x, y on each node, and graph["canvas"] (width, height, the
    cells with their label text and box, the key of names cut short, the colour of each cluster)."""
    nodes, communities = graph["nodes"], graph["communities"]
    dot, step = scale(len(nodes))
    index = {n["id"]: i for i, n in enumerate(nodes)}
    cells = []
    # how wide a label may make its cell: a few clusters are all named in place; hundreds share a key
    budget = 380 if len(communities) <= 40 else 190 if len(communities) <= 150 else 110
    for c in communities:
        radius = step * math.sqrt(len(c["members"])) + dot
        full = f"{c['id']} {c['label']} ({c['size']})"
        room = max(4 * radius, budget)
        inner = max(2 * radius, min(text_width(full, LABEL), room))
        text = fit(full, inner, LABEL)
        if not text or not text.startswith(f"{c['id']} "):
            text = str(c["id"])
        cells.append({"cluster": c["id"], "w": inner, "h": LABEL + 6 + 2 * radius, "radius": radius,
                      "label": text, "cut": text != full, "members": c["members"]})
    orphans = graph["orphans"]
    if orphans:
        pitch = 2 * dot + 5
        title = f"orphans ({len(orphans)}): no neighbour at cosine ≥ {graph['threshold']}"
        cols = max(int(math.ceil(math.sqrt(len(orphans) * 2.5))), 1)
        cols = max(cols, int(text_width(title, LABEL) // pitch) + 1)
        cols = min(cols, len(orphans)) if text_width(title, LABEL) <= cols * pitch else cols
        rows = int(math.ceil(len(orphans) / cols))
        cells.append({"cluster": None, "w": max(cols * pitch, text_width(title, LABEL)), "h": LABEL + 6 + rows * pitch,
                      "label": title, "cut": False, "members": orphans, "cols": cols, "pitch": pitch})
    thin = len(graph["thin_categories"])
    title = " · ".join((counted(len(nodes), "item"), counted(len(communities), "cluster"),
                        counted(len(orphans), "orphan"), counted(len(graph["bridges"]), "bridge"),
                        counted(thin, 'thin category')))
    how = (f"Clusters: Louvain communities over links from each item to its {graph['neighbours']} closest others "
           f"at cosine ≥ {graph['threshold']}; the number before a name finds it in the key below.")
    keys, x = [], MARGIN
    for kind, text in KEY:
        keys.append({"kind": kind, "x": round(x, 1), "text": text})
        x += 18 + text_width(text, SMALL) + 16
    area = sum((c["w"] + GAP) * (c["h"] + GAP) for c in cells)
    width = max(720.0, math.sqrt(area * 4 / 3) * 1.1, *(c["w"] + 2 * MARGIN for c in cells),
                text_width(title, LABEL + 2) + 2 * MARGIN, text_width(how, SMALL) + 2 * MARGIN, x + MARGIN)
    width = float(math.ceil(width))
    header = [{"x": MARGIN, "y": MARGIN + 4, "text": title, "size": LABEL + 2},
              {"x": MARGIN, "y": MARGIN + 4 + LINE + 2, "text": how, "size": SMALL}]
    key_y = MARGIN + 4 + 2 * LINE + 6
    x, y, row_h = MARGIN, key_y + LINE, 0.0
    for cell in cells:
        if x > MARGIN and x + cell["w"] > width - MARGIN:
            x, y, row_h = MARGIN, y + row_h + GAP, 0.0
        cell["x"], cell["y"] = round(x, 1), round(y, 1)
        x += cell["w"] + GAP
        row_h = max(row_h, cell["h"])
    map_bottom = y + row_h
    golden = math.pi * (3 - math.sqrt(5))
    for cell in cells:
        top = cell["y"] + LABEL + 6
        if cell["cluster"] is None:  # orphans on a grid: they have nothing in common to circle around
            for j, node_id in enumerate(cell["members"]):
                n = nodes[index[node_id]]
                n["x"] = round(cell["x"] + (j % cell["cols"]) * cell["pitch"] + cell["pitch"] / 2, 1)
                n["y"] = round(top + (j // cell["cols"]) * cell["pitch"] + cell["pitch"] / 2, 1)
            continue
        cx, cy = cell["x"] + cell["w"] / 2, top + cell["radius"]
        # the most connected items at the centre, on a sunflower spiral (even spacing, no force layout)
        ordered = sorted(cell["members"], key=lambda m: (-nodes[index[m]].get("degree", 0), m))
        for j, node_id in enumerate(ordered):
            rr = step * math.sqrt(j + 0.5)
            n = nodes[index[node_id]]
            n["x"] = round(cx + rr * math.cos(j * golden), 1)
            n["y"] = round(cy + rr * math.sin(j * golden), 1)
    for number, colour in _colour(cells).items():
        communities[number]["colour"] = colour
    panels, height = _panels(graph, cells, width, map_bottom + 2 * GAP)
    graph["canvas"] = {"width": int(width), "height": int(math.ceil(height + MARGIN)), "dot": dot,
                       "header": header, "key": {"y": key_y, "marks": keys},
                       "cells": [{k: round(v, 1) if isinstance(v, float) else v for k, v in c.items()
                                  if k not in ("members", "cols", "pitch")} for c in cells],
                       "panels": panels}


def _colour(cells: list[dict]) -> dict[int, str]:
    """A colour per cluster, greedily: never one a touching cell already has, then the hue farthest from theirs,
    then the least used (so the palette is spread), then the first."""
    colours: dict[int, str] = {}
    used = {c: 0 for c in PALETTE}
    placed: list[dict] = []
    for cell in cells:
        if cell["cluster"] is None:
            continue
        near = [colours[o["cluster"]] for o in placed
                if o["x"] - GAP * 1.5 < cell["x"] + cell["w"] and cell["x"] - GAP * 1.5 < o["x"] + o["w"]
                and o["y"] - GAP * 1.5 < cell["y"] + cell["h"] and cell["y"] - GAP * 1.5 < o["y"] + o["h"]]
        hues = [_hue(c) for c in near]

        def merit(pair):
            number, colour = pair
            distance = min((min(abs(_hue(colour) - h), 1 - abs(_hue(colour) - h)) for h in hues), default=1.0)
            return (colour not in near, round(distance, 3), -used[colour], -number)

        choice = max(enumerate(PALETTE), key=merit)[1]
        colours[cell["cluster"]] = choice
        used[choice] += 1
        placed.append(cell)
    return colours


def _panels(graph: dict, cells: list[dict], width: float, top: float) -> tuple[list[dict], float]:
    """The text under the map, in rows that cannot overlap: the key of names cut short, bridges, orphans, thin
    categories. Returns ([{"title", "rows": [(x, y, text, swatch colour or None)]}], the bottom)."""
    panels = []
    y = top
    usable = width - 2 * MARGIN

    def panel(title: str, rows: list[tuple[str, object]], column: float, more: str | None = None) -> None:
        nonlocal y
        if not rows:
            return
        columns = max(int((usable + GAP) // (column + GAP)), 1)
        per = int(math.ceil(len(rows) / columns))
        placed = []
        for i, (text, swatch) in enumerate(rows):
            col, line = divmod(i, per)
            x = MARGIN + col * (column + GAP)
            pad = 14 if swatch else 0
            placed.append({"x": round(x + pad, 1), "y": round(y + LINE * (line + 2), 1),
                           "text": fit(text, column - pad, SMALL), "swatch": swatch})
        if more:
            placed.append({"x": MARGIN, "y": round(y + LINE * (per + 2), 1), "text": fit(more, usable, SMALL),
                           "swatch": None})
        panels.append({"title": fit(title, usable, LABEL), "x": MARGIN, "y": round(y + LINE, 1), "rows": placed})
        y += LINE * (per + 2 + (1 if more else 0)) + GAP

    cut = [c for c in cells if c["cut"]]
    names = {c["id"]: c for c in graph["communities"]}
    panel(f"Clusters named in full ({len(cut)} names did not fit their place on the map)",
          [(f"{c['cluster']} {names[c['cluster']]['label']} ({names[c['cluster']]['size']})", c["cluster"])
           for c in cut], min(usable, 420))
    statements = {n["id"]: n["statement"] for n in graph["nodes"]}
    shown = 12
    bridges = graph["bridges"]
    panel(f"Bridges ({len(bridges)}): items whose links into another cluster weigh at least half their links into "
          "their own",
          [(f"◆ {b['id']} joins {' and '.join(str(c) for c in b['communities'])}: {statements[b['id']]}", None)
           for b in bridges[:shown]], usable,
          f"and {len(bridges) - shown} more (vmem map --json lists every one)" if len(bridges) > shown else None)
    orphans = graph["orphans"]
    panel(f"Orphans ({len(orphans)}): items with no neighbour at cosine ≥ {graph['threshold']}",
          [(f"○ {o}: {statements[o]}", None) for o in orphans[:shown]], usable,
          f"and {len(orphans) - shown} more (vmem map --json lists every one)" if len(orphans) > shown else None)
    thin = graph["thin_categories"]
    limit = 60
    panel(f"Thin categories ({len(thin)}): fewer learnings than the category floor of {graph['category_floor']}, "
          "or none published",
          [(f"{t['category']}: {counted(t['items'], 'learning')} ({t['published']} published)"
            + (f", {counted(t['customers'], 'customer')}" if t["customers"] is not None else ""), None)
           for t in thin[:limit]], min(usable, 400),
          f"and {len(thin) - limit} more (vmem map --json lists every one)" if len(thin) > limit else None)
    return panels, y


def render(graph: dict) -> str:
    """The map as a standalone SVG. Every piece of text is XML-escaped; every label is a <text class="label">
    whose box the layout reserved (tests/test_map.py measures them in Chromium)."""
    nodes = graph["nodes"]
    if not nodes:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="720" height="120" role="img" class="vmem-map">'
                f'<text x="10" y="30" font-family="{FONT}">no knowledge items to map yet</text></svg>')
    canvas = graph["canvas"]
    width, height, dot = canvas["width"], canvas["height"], canvas["dot"]
    colours = {c["id"]: c["colour"] for c in graph["communities"]}
    where = {n["id"]: (n["x"], n["y"]) for n in nodes}
    community = {n["id"]: n.get("community") for n in nodes}
    bridges = {b["id"] for b in graph["bridges"]}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="map of the knowledge layer" class="vmem-map" '
           f'font-family="{FONT}">',
           f'<title>map: {len(nodes)} items, {len(graph["communities"])} clusters, {len(graph["orphans"])} orphans, '
           f'{len(graph["bridges"])} bridges</title>',
           '<rect width="100%" height="100%" fill="#ffffff"/>',
    ]
    for line in canvas["header"]:
        out.append(f'<text class="label" x="{line["x"]}" y="{line["y"]}" font-size="{line["size"]}" fill="#111">'
                   f'{escape(line["text"])}</text>')
    key_y = canvas["key"]["y"]
    for mark in canvas["key"]["marks"]:
        kind, x = mark["kind"], mark["x"]
        if kind == "link":
            out.append(f'<line x1="{x}" y1="{key_y - 4}" x2="{x + 14}" y2="{key_y - 4}" stroke="#333" '
                       'stroke-dasharray="3 2"/>')
        else:
            out.append(_mark("dot" if kind == "served" else kind, x + 6, key_y - 4, 4.5, "#888888", kind == "served"))
        out.append(f'<text class="label" x="{x + 18}" y="{key_y}" font-size="{SMALL}" fill="#333">'
                   f'{escape(mark["text"])}</text>')
    draw_edges = len(nodes) <= EDGES_UP_TO
    out.append('<g stroke="#bbbbbb" stroke-width="0.6" stroke-opacity="0.7">')
    for edge in graph["edges"]:
        a, b = community[edge["a"]], community[edge["b"]]
        if a == b and draw_edges:
            (x1, y1), (x2, y2) = where[edge["a"]], where[edge["b"]]
            out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
    out.append('</g><g stroke="#333333" stroke-width="0.8" stroke-dasharray="3 2" stroke-opacity="0.8">')
    bridged = {b["id"]: set(b["communities"][1:]) for b in graph["bridges"]}
    for edge in graph["edges"]:
        a, b = edge["a"], edge["b"]
        if community[b] in bridged.get(a, ()) or community[a] in bridged.get(b, ()):
            (x1, y1), (x2, y2) = where[a], where[b]
            out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
    out.append("</g>")
    for cell in canvas["cells"]:
        number = cell["cluster"]
        colour = colours.get(number, ORPHAN) if number is not None else ORPHAN
        box = f'{cell["x"]} {cell["y"]} {round(cell["w"], 1)} {round(cell["h"], 1)}'
        label_x = round(cell["x"] + cell["w"] / 2, 1)
        out.append(f'<g class="cluster" data-cluster="{"orphans" if number is None else number}" '
                   f'data-box="{box}" data-colour="{colour}">'
                   f'<text class="label" x="{label_x}" y="{round(cell["y"] + LABEL, 1)}" text-anchor="middle" '
                   f'font-size="{LABEL}" fill="#111">{escape(cell["label"])}</text></g>')
    out.append("<g>")
    for n in nodes:
        x, y = where[n["id"]]
        number = community[n["id"]]
        kind = ("orphan" if number is None else "bridge" if n["id"] in bridges else "dot")
        colour = colours.get(number, ORPHAN) if number is not None else ORPHAN
        tip = f'{escape(n["id"])} ({escape(n["status"])}): {escape(n["statement"][:200])}'
        out.append(_mark(kind, x, y, dot, colour, n.get("served", False), n["id"], tip))
    out.append("</g>")
    for p in canvas["panels"]:
        out.append(f'<text class="label" x="{p["x"]}" y="{p["y"]}" font-size="{LABEL}" font-weight="normal" '
                   f'fill="#111" text-decoration="underline">{escape(p["title"])}</text>')
        for row in p["rows"]:
            if row["swatch"] is not None:
                out.append(f'<rect x="{row["x"] - 13}" y="{row["y"] - 9}" width="9" height="9" '
                           f'fill="{colours.get(row["swatch"], ORPHAN)}"/>')
            out.append(f'<text class="label" x="{row["x"]}" y="{row["y"]}" font-size="{SMALL}" fill="#222">'
                       f'{escape(row["text"])}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _mark(kind: str, x: float, y: float, r: float, colour: str, served: bool = False, node_id: str | None = None,
          tip: str | None = None) -> str:
    """One item: a dot; a diamond for a bridge; a hollow ring for an orphan; a dark ring when served."""
    ring = ' stroke="#222" stroke-width="1.2"' if served or kind == "bridge" else ""
    data = f' data-id="{escape(node_id)}"' if node_id else ""
    inner = f"<title>{tip}</title>" if tip else ""
    end = f">{inner}</{'path' if kind == 'bridge' else 'circle'}>" if inner else "/>"
    if kind == "bridge":
        d = r * 1.6
        return (f'<path d="M{x} {round(y - d, 1)}L{round(x + d, 1)} {y}L{x} {round(y + d, 1)}L{round(x - d, 1)} {y}Z" '
                f'fill="{colour}"{ring}{data}{end}')
    if kind == "orphan":
        stroke = "#222" if served else colour
        return (f'<circle cx="{x}" cy="{y}" r="{r}" fill="#ffffff" stroke="{stroke}" stroke-width="1.5"{data}{end}')
    return f'<circle cx="{x}" cy="{y}" r="{r}" fill="{colour}"{ring}{data}{end}'
