"""vmem map at 10, 600 and 10,000 items: labels that never overlap (measured in headless Chromium), every cluster
named, neighbouring clusters in different colours, a canvas that grows, orphans and bridges marked, thin
categories listed, and the same store giving the same SVG."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
SVG = "{http://www.w3.org/2000/svg}"
# gen_store items -> items on the `--claims` map (open claims and learnings): 10, 601 and 10,017
SIZES = ((10, 10), (600, 660), (10_000, 11_100))
BENCH_600 = SIZES[1][1]  # the store bench_600 generates, shared with the 600-item map


def _generated(items: int, tmp_path: Path) -> Path:
    """A bench store of ITEMS items (bench/gen_store.py, one commit). The big one is cached under bench/stores
    (git-ignored; the generator reuses a store it made with the same arguments) so a second run skips its ~35 s."""
    out = ROOT / "bench" / "stores" / f"map-test-{items}" if items > 5_000 else tmp_path / f"store-{items}"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "gen_store.py"), "--items", str(items), "--out",
                          str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    return out


def _map(store: Path, svg: Path) -> dict:
    """`vmem map --claims --svg FILE --json` through the console script, as a user runs it."""
    run = subprocess.run([sys.executable, "-m", "vmem", "map", "--claims", "--svg", str(svg), "--json", "--store",
                          str(store)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)["data"]


def _chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([BROWSER, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--hide-scrollbars", *args], capture_output=True, text=True, timeout=300)


# Measures what the browser drew: every label's box (getBBox, the font Chromium really used) and the screenshot's
# pixels (decoded by the browser from a data: URI, so the canvas is not tainted).
PROBE = """<!doctype html><html><body style="margin:0">@SVG@<img id="shot" src="data:image/png;base64,@PNG@">
<canvas id="pixels"></canvas><pre id="out"></pre><script>
window.addEventListener("load", function () {
  var boxes = [].map.call(document.querySelectorAll("svg text.label"), function (t) {
    var b = t.getBBox(); return [b.x, b.y, b.width, b.height, t.textContent]; });
  var img = document.getElementById("shot"), canvas = document.getElementById("pixels");
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  var ctx = canvas.getContext("2d"); ctx.drawImage(img, 0, 0);
  var data = ctx.getImageData(0, 0, canvas.width, canvas.height).data, ink = 0, colours = {};
  for (var i = 0; i < data.length; i += 4) {
    if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) ink++;
    if (i % 400 === 0) colours[data[i] + "," + data[i + 1] + "," + data[i + 2]] = 1; }
  document.getElementById("out").textContent = JSON.stringify({boxes: boxes, width: img.naturalWidth,
    height: img.naturalHeight, ink: ink / (data.length / 4), colours: Object.keys(colours).length});
});
</script></body></html>"""


def _measure(svg: str, png: Path, page: Path) -> dict:
    page.write_text(PROBE.replace("@PNG@", base64.b64encode(png.read_bytes()).decode()).replace("@SVG@", svg),
                    encoding="utf-8")
    run = _chromium("--virtual-time-budget=20000", "--dump-dom", page.as_uri())
    found = re.search(r'<pre id="out">(.*?)</pre>', run.stdout, re.S)
    assert run.returncode == 0 and found and found.group(1), run.stderr[-2000:]
    return json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def _overlaps(boxes: list) -> list[tuple[str, str]]:
    """Pairs of label boxes that share more than half a pixel each way (a sweep along x)."""
    ordered = sorted(boxes, key=lambda b: b[0])
    found = []
    for i, (x, y, w, h, text) in enumerate(ordered):
        for x2, y2, w2, h2, text2 in ordered[i + 1:]:
            if x2 >= x + w - 0.5:
                break
            if min(y + h, y2 + h2) - max(y, y2) > 0.5 and min(x + w, x2 + w2) - max(x, x2) > 0.5:
                found.append((text, text2))
    return found


def _touching(a: list[float], b: list[float], gap: float = 20) -> bool:
    return (a[0] - gap < b[0] + b[2] and b[0] - gap < a[0] + a[2] and a[1] - gap < b[1] + b[3]
            and b[1] - gap < a[1] + a[3])


CHROMIUM = pytest.mark.skipif(BROWSER is None,
                              reason="no Chromium installed (apt-get install chromium); .ci/run installs it")


@CHROMIUM
def test_the_label_check_catches_overlap_and_a_blank_picture(tmp_path):
    """The check the map test relies on works: two labels drawn over each other are caught, a blank picture is
    blank."""
    probe = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text class="label" x="10" y="30">'
             'overlapping</text><text class="label" x="40" y="34">labels</text></svg>')
    (tmp_path / "probe.svg").write_text(probe)
    assert _chromium("--window-size=200,60", f"--screenshot={tmp_path / 'probe.png'}",
                     (tmp_path / "probe.svg").as_uri()).returncode == 0
    seen = _measure(probe, tmp_path / "probe.png", tmp_path / "probe.html")
    assert _overlaps(seen["boxes"]) == [("overlapping", "labels")] and seen["ink"] < 0.2


# the canvas grows with the item count: each size's area (px²) in a band of its own (measured 0.50 M, 1.19 M, 8.2 M)
AREAS = {10: (0, 1_000_000), 600: (1_000_000, 4_000_000), 10_000: (4_000_000, 50_000_000)}


@pytest.mark.slow
@CHROMIUM
@pytest.mark.parametrize(("name", "items"), SIZES, ids=[str(n) for n, _ in SIZES])
def test_the_map_in_headless_chromium(name, items, tmp_path, request):
    """At 10, 600 and 10,000 items (one test each, so a parallel run spreads them over its workers). The 600 one
    reads the module's bench_600 store (the same generator arguments, so the same files; map only reads it)."""
    shots = ROOT / "docs" if os.environ.get("VMEM_UPDATE_SCREENSHOTS") else tmp_path
    store = request.getfixturevalue("bench_600") if items == BENCH_600 else _generated(items, tmp_path)
    picture = tmp_path / f"map-{name}.svg"
    graph = _map(store, picture)
    text = picture.read_text(encoding="utf-8")
    root = ET.fromstring(text)
    width, height = int(root.get("width")), int(root.get("height"))
    canvas = graph["canvas"]
    assert (width, height) == (canvas["width"], canvas["height"])
    low, high = AREAS[name]
    assert low < width * height < high, (width, height)
    assert abs(len(graph["nodes"]) - name) <= max(name // 50, 0), len(graph["nodes"])

    # every cluster named: in place in full, or by its number there and by name in the key under the map
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    cells = {g.get("data-cluster"): g for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"}
    assert {str(c["id"]) for c in graph["communities"]} <= set(cells)
    for c in graph["communities"]:
        label = "".join(cells[str(c["id"])].itertext())
        full = f"{c['id']} {c['label']} ({c['size']})"
        assert c["label"] and label.startswith(str(c["id"])), (label, full)
        assert label == full or any(t.startswith(f"{c['id']} {c['label'][:8]}") for t in texts), full
    # neighbouring clusters never share a colour
    boxes = {k: [float(v) for v in g.get("data-box").split()] for k, g in cells.items() if k != "orphans"}
    colour = {k: cells[k].get("data-colour") for k in boxes}
    clashes = [(a, b) for a in boxes for b in boxes if a < b and _touching(boxes[a], boxes[b])
               and colour[a] == colour[b]]
    assert clashes == []
    # orphans and bridges are marked on the map, each with its own shape
    marks = {e.get("data-id"): e.tag for e in root.iter() if e.get("data-id")}
    assert all(marks[b["id"]] == f"{SVG}path" for b in graph["bridges"])
    assert all(marks[o] == f"{SVG}circle" for o in graph["orphans"])

    png = shots / f"map-{name}.png"
    run = _chromium(f"--window-size={width},{height}", f"--screenshot={png}", picture.as_uri())
    assert run.returncode == 0 and png.stat().st_size > 5_000, run.stderr[-2000:]
    seen = _measure(text, png, tmp_path / f"probe-{name}.html")
    assert (seen["width"], seen["height"]) == (width, height)
    assert seen["ink"] > 0.01 and seen["colours"] > 10, seen  # not a blank page
    assert len(seen["boxes"]) >= len(graph["communities"])
    assert _overlaps(seen["boxes"]) == []
    assert all(x >= 0 and x + w <= width + 0.5 and y >= 0 and y + h <= height + 0.5
               for x, y, w, h, _ in seen["boxes"]), "a label leaves the canvas"


@pytest.fixture(scope="module")
def bench_600(tmp_path_factory) -> Path:
    return _generated(BENCH_600, tmp_path_factory.mktemp("bench"))


def test_the_same_store_gives_the_same_map(bench_600, tmp_path):
    store = bench_600
    first, second = _map(store, tmp_path / "a.svg"), _map(store, tmp_path / "b.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    assert first == second


def test_orphans_bridges_and_thin_categories_follow_from_the_links(bench_600, tmp_path):
    graph = _map(bench_600, tmp_path / "map.svg")
    community = {n["id"]: n["community"] for n in graph["nodes"]}
    weight: dict[str, dict] = {}
    for e in graph["edges"]:
        for one, other in ((e["a"], e["b"]), (e["b"], e["a"])):
            towards = weight.setdefault(one, {})
            towards[community[other]] = towards.get(community[other], 0) + e["weight"]
    assert set(graph["orphans"]) == {n["id"] for n in graph["nodes"] if n["id"] not in weight}
    assert all(community[o] is None for o in graph["orphans"])
    # a bridge's links into another cluster weigh at least half of its links into its own
    between = {i: {c for c, w in towards.items() if c != community[i] and w >= 0.5 * towards.get(community[i], 0)}
               for i, towards in weight.items()}
    assert {b["id"]: set(b["communities"][1:]) for b in graph["bridges"]} == {i: c for i, c in between.items() if c}
    assert graph["bridges"] and all(b["communities"][0] == community[b["id"]] for b in graph["bridges"])
    # a member with a stray link into another cluster is no bridge
    assert any(len(towards) > 1 and not between[i] for i, towards in weight.items())
    floor = graph["category_floor"]
    assert floor == 3 and graph["thin_categories"]
    for row in graph["thin_categories"]:
        assert row["items"] < floor or row["published"] == 0 or (row["customers"] or 0) < floor, row
    svg = (tmp_path / "map.svg").read_text()
    assert f"Thin categories ({len(graph['thin_categories'])})" in svg
    assert f"Bridges ({len(graph['bridges'])})" in svg


def test_an_orphan_is_drawn_apart_and_listed(seeded, vmem, tmp_path):
    """Two learnings that say the same thing and one that shares nothing with them: the third is an orphan, drawn
    as a ring in its own block and listed under the map; its category, held by one learning, is thin."""
    same = "Enterprise buyers ask for named-user audit trails before the security review."
    vmem("propose", same, "--from", "corvane", "-c", "segment:enterprise")
    vmem("propose", "Enterprise buyers want named-user audit trails before security review starts.", "--from",
         "meridale", "-c", "segment:enterprise")
    vmem("propose", "Warehouse pick-up times drift by a weekday after a public holiday.", "--from", "corvane",
         "-c", "industry:logistics")
    graph = vmem.json("map", "--svg", str(tmp_path / "map.svg"))["data"]
    lonely = [n for n in graph["nodes"] if n["statement"].startswith("Warehouse")]
    assert [n["id"] for n in lonely] == graph["orphans"] and lonely[0]["community"] is None
    assert len(graph["communities"]) == 1 and graph["communities"][0]["label"].startswith("segment:enterprise")
    svg = (tmp_path / "map.svg").read_text()
    assert f'data-id="{lonely[0]["id"]}"' in svg and "Orphans (1)" in svg
    thin = {row["category"]: row for row in graph["thin_categories"]}
    assert thin["industry:logistics"]["items"] == 1 and "no published learning" in thin["industry:logistics"]["reasons"]
