"""A cold sync (a fresh clone, or its caches deleted) reads each item file in vmem's stable layout by the layout
compiled from the schema (store/layout.py) instead of the line reader and validation: it must serve exactly what
the full parse and the warm paths serve, and never what history does not attest."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_sync import NOW, RITA, _claim, _knowledge, mixed  # noqa: F401 - the fixture: every serving case
from vmem import model
from vmem.errors import SchemaError
from vmem.store import codec, layout


def _forget(root: Path) -> None:
    """What the benchmark's cold sync deletes: the item cache and the bundle cache (and, as a new process would,
    what this one has parsed)."""
    from vmem.ops.sync import cache_file
    from vmem.store import parse

    cache_file(root).unlink(missing_ok=True)
    cache_file(root).with_suffix(".bundles").unlink(missing_ok=True)
    parse.PARSED.clear()


def _files(target: Path) -> dict[str, bytes]:
    return {str(p.relative_to(target)): p.read_bytes() for p in sorted(target.rglob("*")) if p.is_file()}


def _full(kind: str, data: bytes) -> dict | None:
    try:
        return model.validate(kind, codec.load(data, "x.yaml"), "x.yaml")
    except SchemaError:
        return None


def _agrees(kind: str, data: bytes) -> dict | None:
    """The compiled layout's reading of DATA, after checking it is what the full parse gives (or that it declined)."""
    try:
        fast = layout.read(kind, codec.decode(data, "x.yaml"))
    except SchemaError:
        return None  # not UTF-8, NUL bytes, too big: refused before any reader
    if fast is not None:
        full = _full(kind, data)
        assert full is not None, data
        assert fast == full and [type(v) for v in fast.values()] == [type(v) for v in full.values()], data
    return fast


SYNCS = [("--budget", "100000"), ("--budget", "120"), ("--scope", "entity:meridale", "--audience", "group:finance"),
         ("--scope", "entity:tidewell", "--audience", "group:sales", "--target", "claude", "--target", "agents-md")]


@pytest.fixture
def wide(mixed, vmem):  # noqa: F811
    """The mixed store, plus a second commit of items in less common shapes, and a supersession."""
    store, items = mixed
    more = {
        "quoted": _claim("'Quoted' statement: with a colon, and #hash", title="it's: quoted"),
        "spaces": _claim("  padded statement with trailing spaces  "),
        "multiline": _claim("first line\nscope: org\nsecond line", scope="entity:tidewell"),
        "verified": _claim("VERIFIED fact with confirmations", verifications=[
            {"user": "a@example.com", "kind": "confirmation", "at": NOW},
            {"user": "b@example.com", "kind": "correction", "at": NOW}]),
        "future": _claim("FUTURE fact not yet valid", valid_from="2098-01-01T00:00:00Z"),
        "ended": _claim("ENDED fact no longer valid", valid_to="2020-01-01T00:00:00Z"),
        "unicode": _claim("Ünïcode — “quoted” façade … fine", title="Ü"),
        "long": _claim("long " * 260),
        "personal_scoped": _claim("PERSONAL-SCOPED note", personal=True, scope="entity:meridale"),
        "group_published": _knowledge("GROUP-PUBLISHED finance pattern", audience="group:finance"),
    }
    with store.acting_as(RITA), store.transaction("import", summary="more shapes") as tx:
        for item in more.values():
            tx.write(item)
    vmem("supersede", items["approved"]["id"], "APPROVED-REVISION arr excludes trials and pilots", "-r", "pilots too",
         who=RITA, store=store)
    return store, {**items, **more}


def test_cold_warm_and_full_parse_serve_byte_identical_files(mixed, wide, vmem, tmp_path, monkeypatch):  # noqa: F811
    store, items = mixed
    root = store.root
    wide_store, _ = wide
    _forget(root)
    declined = []
    real = layout.read

    def counting(kind, text):
        found = real(kind, text)
        if found is None:
            declined.append(text)
        return found

    for n, flags in enumerate(SYNCS):
        project = tmp_path / f"project{n}"
        project.mkdir()
        monkeypatch.chdir(project)
        target = project / "rules"
        args = ("sync", "--dir", str(target), *flags)
        monkeypatch.setattr(layout, "read", counting)
        _forget(root)
        cold = vmem.json(*args)["data"]  # cold: every item from its bytes
        files = _files(project)
        assert files and cold["items"]
        warm = vmem.json(*args)["data"]  # warm: the bundle cache
        assert _files(project) == files and warm["items"] == cold["items"]
        monkeypatch.setattr(layout, "read", lambda kind, text: None)  # the full parse of every item
        _forget(root)
        full = vmem.json(*args)["data"]
        assert _files(project) == files and full["items"] == cold["items"]
    # in full: only the multi-line statement and the one past the fast writer's 1,000 characters
    # in full: only the multi-line statement and the one past the fast writer's 1,000 characters
    kinds = {("first line" in text, "long long" in text) for text in declined}
    assert kinds == {(True, False), (False, True)}, kinds


def test_an_incremental_catch_up_serves_what_a_cold_sync_serves(mixed, vmem, tmp_path):  # noqa: F811
    store, items = mixed
    target = tmp_path / "rules"
    vmem("sync", "--dir", str(target), "--budget", "100000")
    vmem("revoke", items["mandatory"]["id"], who=RITA, store=store)
    vmem("supersede", items["approved"]["id"], "APPROVED-REVISION arr excludes pilots", "-r", "pilots", who=RITA,
         store=store)
    with store.acting_as(RITA), store.transaction("import", summary="one more") as tx:
        tx.write(_claim("NEW 'quoted' approved fact: later", title="new"))
    caught_up = vmem.json("sync", "--dir", str(target), "--budget", "100000")["data"]
    files = _files(target)
    _forget(store.root)
    cold = vmem.json("sync", "--dir", str(target), "--budget", "100000")["data"]
    assert _files(target) == files and cold["items"] == caught_up["items"]
    assert "NEW 'quoted' approved fact: later" in "".join(p.decode() for p in files.values())
    assert "APPROVED arr excludes trials" not in "".join(p.decode() for p in files.values())


def _text(target: Path) -> str:
    return "\n".join(p.read_text() for p in sorted(target.glob("*.md")))


def test_a_hand_edited_status_is_not_served_by_a_cold_sync(mixed, vmem, tmp_path):  # noqa: F811
    """A file's status is never what serves it: an unattested status stays unserved, committed or not."""
    from conftest import commit_file

    store, items = mixed
    proposed = items["proposed"]
    path = model.item_path(proposed["id"])
    raw = (store.root / path).read_bytes()
    assert b"status: proposed\n" in raw and _agrees("claim", raw) is not None
    commit_file(store, path, raw.replace(b"status: proposed\n", b"status: approved\n"))  # a hand commit
    rejected = model.item_path(items["rejected"]["id"])
    edited = (store.root / rejected).read_bytes().replace(b"status: rejected\n", b"status: mandatory\n")
    (store.root / rejected).write_bytes(edited)  # a work-tree edit, never committed
    forged = _claim("FORGED approved by hand, never reviewed")
    commit_file(store, model.item_path(forged["id"]), codec.dump(forged).encode())  # a new file, "approved"
    target = tmp_path / "rules"
    _forget(store.root)
    data = vmem.json("sync", "--dir", str(target), "--budget", "100000")["data"]
    text = _text(target)
    assert proposed["id"] not in data["items"] and "PROPOSED" not in text
    assert items["rejected"]["id"] not in data["items"] and "REJECTED" not in text
    assert forged["id"] not in data["items"] and "FORGED" not in text
    assert items["approved"]["id"] in data["items"]  # the comparison is not vacuous


def test_a_hand_edited_scope_or_audience_serves_the_reviewed_bytes(mixed, vmem, tmp_path):  # noqa: F811
    """An unreviewed edit of a served item's scope or audience: the reviewed blob is served."""
    from conftest import commit_file

    store, items = mixed
    scoped, group = items["scoped"], items["group"]
    for item, old, new in ((scoped, b"scope: entity:meridale\n", b"scope: org\n"),
                           (group, b"audience: group:finance\n", b"audience: all\n")):
        path = model.item_path(item["id"])
        raw = (store.root / path).read_bytes()
        assert old in raw
        commit_file(store, path, raw.replace(old, new))
    target = tmp_path / "rules"
    _forget(store.root)
    data = vmem.json("sync", "--dir", str(target), "--budget", "100000")["data"]
    assert scoped["id"] not in data["items"] and group["id"] not in data["items"]
    assert "SCOPED" not in _text(target) and "GROUP finance-only" not in _text(target)
    _forget(store.root)
    data = vmem.json("sync", "--dir", str(target), "--budget", "100000", "--scope", "entity:meridale")["data"]
    assert scoped["id"] in data["items"] and group["id"] not in data["items"]


def _layout(**fields) -> bytes:
    return codec.dump(_claim("APPROVED base fact", title="Base", paths=["a/**"], **fields)).encode()


BASE = _layout()


@pytest.mark.parametrize("variant", [
    # a quoted statement running over two lines hides a scope line from YAML, not from a line reader
    BASE.replace(b"statement: APPROVED base fact\nscope: org\n",
                 b"statement: 'APPROVED base fact\nscope: org'\nscope: entity:meridale\n"),
    BASE.replace(b"statement: APPROVED base fact\n", b'statement: "APPROVED\n  base fact"\n'),
    BASE.replace(b"statement: APPROVED base fact\n", b"statement: |\n  APPROVED base fact\n"),
    BASE.replace(b"scope: org\n", b"scope: org # entity:meridale\n"),
    BASE.replace(b"scope: org\n", b"scope: 'org'\n"),
    BASE.replace(b"scope: org\n", b"scope: org\nscope: entity:meridale\n"),
    BASE.replace(b"audience: all\n", b"audience: &a all\n"),
    BASE.replace(b"audience: all\n", b"audience: !!str all\n"),
    BASE.replace(b"personal: false\n", b"personal: no\n"),
    BASE.replace(b"title: Base\n", b"title: yes\n"),
    BASE.replace(b"title: Base\n", b"title: 1234\n"),
    BASE.replace(b"title: Base\n", b"title: ~\n"),
    BASE.replace(b"title: Base\n", b"title: \n"),
    BASE.replace(b"statement: APPROVED base fact\n", b"statement: APPROVED base fact   \n"),
    BASE.replace(b"statement: APPROVED base fact\n", b"statement: '  APPROVED base fact '\n"),
    BASE.replace(b"statement: APPROVED base fact\n", b"statement: APPROVED: base fact\n"),
    BASE.replace(b"statement: APPROVED base fact\n", b"statement: APPROVED\rscope: org\n"),
    BASE.replace(b"statement: APPROVED base fact\n", "statement: APPROVED\u2028base\x85fact\n".encode()),
    BASE.replace(b"statement: APPROVED base fact\n", b"statement: APPROVED \x07 fact\n"),
    BASE.replace(b"statement: APPROVED base fact\n", b"statement: APPROVED\tbase fact\n"),
    b"\xef\xbb\xbf" + BASE,
    b"---\n" + BASE,
    BASE + b"...\n",
    BASE + b"# a comment\n",
    BASE.replace(b"paths:\n- a/**\n", b"paths: [a/**, b/**]\n"),
    BASE.replace(b"paths:\n- a/**\n", b"paths:\n- a/**\n- {x: 1}\n"),
    BASE.replace(b"paths:\n- a/**\n", b"paths:\n  - a/**\n"),
    BASE.replace(b"confidence: 0.5\n", b"confidence: 1.5\n"),
    BASE.replace(b"confidence: 0.5\n", b"confidence: .5\n"),
    BASE.replace(f"created_at: {NOW}".encode(), b"created_at: 2026-02-30T00:00:00Z"),
    BASE.replace(b"valid_to: null\n", b"valid_to: 2026-02-30T00:00:00Z\n"),
    BASE.replace(b"expires_at: 2099-01-01T00:00:00Z\n", b"expires_at: 2099-01-01 00:00:00\n"),
    # an unclosed quote swallows the lines after it
    BASE.replace(b"  user: null\n", b"  user: 'x\n").replace(b"superseded_by: null\n", b"superseded_by: null'\n"),
    BASE.replace(b"  type: analyst\n", b"  type: [analyst,\n").replace(b"  episode: null\n", b"  episode: null]\n"),
    BASE.replace(b"class: factual\n", b"class: >\n  factual\n"),
    BASE.replace(b"class: factual\n", b"class: factual\n  more\n"),
    BASE.replace(b"review:\n  by:", b"review:\n   by:"),
    BASE.replace(b"review:\n", b"review: &r\n"),
    BASE.replace(b"id: ", b"kind: claim\nid: ").replace(b"\nkind: claim\ntitle", b"\ntitle"),
])
def test_the_compiled_layout_is_the_full_parse_or_nothing(variant):
    _agrees("claim", variant)


def test_the_compiled_layout_reads_the_layouts_vmem_writes():
    assert _agrees("claim", BASE) is not None
    quoted = codec.dump(_claim("x: y #z", title="yes", paths=["  spaced  ", "a: b"])).encode()
    assert b"statement: 'x: y #z'" in quoted and _agrees("claim", quoted) is not None
    both = codec.dump(_claim("'x': y #z", title="it's")).encode()  # ruamel writes it double-quoted
    assert b'"' in both and _agrees("claim", both)["statement"] == "'x': y #z"
    published = _knowledge("PUBLISHED pattern: a 'quoted' bit")
    published["published"] = {"by": "rita@example.com", "at": NOW}
    assert _agrees("knowledge", codec.dump(published).encode()) is not None


_TEXTS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=80).filter(str.strip)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statement=_TEXTS, title=st.none() | _TEXTS, user=_TEXTS, paths=st.lists(_TEXTS, max_size=3),
       confidence=st.floats(0, 1), reason=st.none() | _TEXTS)
def test_any_claim_vmem_writes_is_read_as_its_full_parse(statement, title, user, paths, confidence, reason):
    item = _claim(statement, title=title, paths=paths, confidence=confidence,
                  verifications=[{"user": user, "kind": "confirmation", "at": NOW}],
                  review={"by": user, "at": NOW, "action": "approve", "reason": reason})
    _agrees("claim", codec.dump(item).encode())


def test_a_committed_file_python_cannot_hold_is_skipped_by_sync_and_named_by_check(mixed, tmp_path):  # noqa: F811
    """A teammate commits a claim whose statement is a 4,400-digit number, and one dated before year 1: both
    crashed every reader (ValueError, OverflowError) before an adversarial review found it. Through the console
    script: sync serves the rest, check names both files."""
    import subprocess
    import sys

    from conftest import commit_file

    store, items = mixed
    numeric, ancient = _claim("NUMERIC placeholder"), _claim("ANCIENT fact")
    texts = {numeric["id"]: codec.dump(numeric).replace("statement: NUMERIC placeholder", "statement: " + "7" * 4400),
             ancient["id"]: codec.dump(ancient).replace(f"created_at: {ancient['created_at']}",
                                                        "created_at: '0001-01-01T00:00:00+01:00'")}
    assert all(text != codec.dump(item) for text, item in zip(texts.values(), (numeric, ancient)))
    for item_id, text in texts.items():
        commit_file(store, model.item_path(item_id), text.encode())
    run = lambda *args: subprocess.run([sys.executable, "-m", "vmem", "--store", str(store.root), *args],  # noqa: E731
                                       capture_output=True, text=True, timeout=120)
    synced = run("sync", "--dir", str(tmp_path / "rules"), "--budget", "100000")
    assert synced.returncode == 0, synced.stderr
    assert "Traceback" not in synced.stderr
    text = _text(tmp_path / "rules")
    assert "APPROVED arr excludes trials" in text  # the rest is served
    checked = run("check")
    assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked.stderr
    said = checked.stdout + checked.stderr
    assert all(model.item_path(item_id) in said for item_id in texts), said
