"""The one-shot recall (ops/recall.recall_current over a light index: no numpy, safetensors or tokenizers) gives
exactly the in-process answer: the same question vector (Embedder.query), the same cosine kernel
(index.local.products), the same scope rule (recall._visible, the twin of _mask) and the same order."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_recall import EMBED, facts  # noqa: F401 - a fixture
from vmem.embed import Embedder, QueryModel, bundled_model_dir
from vmem.index import columns as column_file
from vmem.index.local import COLUMNS, TIMES, LocalIndex, index_dir
from vmem.ops import pending, recall

QUERIES = Path(__file__).parents[1] / "examples/eval/recall.yaml"
NOW = 1_900_000_000.0


# -- the scope rule, twice: numpy's mask and the plain-Python one must be one rule (SPEC 8) ---------------------

class _Columns:
    """What _mask and _visible read from an index."""

    def __init__(self, columns, entity_names, group_names, lexicon_since):
        self.columns, self.entity_names, self.group_names = columns, entity_names, group_names
        self.lexicon_since = lexicon_since


_TIME = st.one_of(st.just(math.nan), st.sampled_from([NOW - 1e6, NOW - 1.0, NOW, NOW + 1.0, NOW + 1e6]))


@st.composite
def column_sets(draw):
    n = draw(st.integers(0, 40))
    ints = {name: draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)) for name in COLUMNS}
    ints["scope"] = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    ints["audience"] = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    times = {name: draw(st.lists(_TIME, min_size=n, max_size=n)) for name in TIMES}
    times["published_seq"] = draw(st.lists(st.one_of(st.just(math.nan), st.integers(0, 5).map(float)),
                                           min_size=n, max_size=n))
    return ({name: np.array(values, dtype=np.int32) for name, values in ints.items()}
            | {name: np.array(values, dtype=np.float64) for name, values in times.items()})


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(columns=column_sets(), entity=st.sampled_from([None, "acme", "globex", "ghost"]),
       audience=st.sampled_from(["all", "group:finance", "group:legal", "group:ghost"]),
       include_stale=st.booleans(), lexicon_since=st.one_of(st.none(), st.integers(0, 6)),
       now=st.sampled_from([NOW - 1.0, NOW, NOW + 1.0]))
def test_the_plain_scope_rule_is_the_numpy_mask(tmp_path_factory, columns, entity, audience, include_stale,
                                                lexicon_since, now):
    """Scope soundness is a security property: the row rule of a one-shot recall and the vectorised mask of a
    long-lived index agree on every row, for columns that went through columns.bin both ways."""
    path = tmp_path_factory.mktemp("columns") / column_file.NAME
    ids = [f"c-{n:012x}" for n in range(len(columns["present"]))]
    column_file.write(path, ids, columns)
    numpy_ids, numpy_columns = column_file.read_numpy(path)
    plain_ids, plain_columns = column_file.read_plain(path, len(ids))
    assert numpy_ids == plain_ids == ids
    names, groups = ["acme", "globex", "other"], ["finance", "legal"]
    heavy = _Columns(numpy_columns, names, groups, lexicon_since)
    light = _Columns(plain_columns, names, groups, lexicon_since)
    who = recall.Scope(entity, audience)
    mask = recall._mask(heavy, who, include_stale, now).tolist()
    visible = recall._visible(light, who, include_stale, now)
    assert mask == [visible(row) for row in range(len(ids))]
    entity_code, group_code = recall.codes(heavy, who)
    in_review = pending._in_review(numpy_columns, entity_code, group_code).tolist()
    waiting = pending._waiting(plain_columns, entity_code, group_code)
    assert in_review == [waiting(row) for row in range(len(ids))]


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.sampled_from([-0.5, 0.0, 0.1, 0.25, 0.3, 0.9]), max_size=60),
       hidden=st.sets(st.integers(0, 59)), depth=st.integers(1, 12))
def test_the_plain_top_depth_is_nearest(values, hidden, depth):
    """Equal values by row, as _nearest does, however few rows are visible."""
    visible = [row for row in range(len(values)) if row not in hidden]
    expected = []
    if visible:
        rows = np.array(visible)
        best = recall._nearest(rows, np.array([values[r] for r in visible]), min(depth, len(visible)))
        expected = rows[best].tolist()
    assert recall._nearest_visible(values, lambda row: row not in hidden, depth) == expected


# -- one question vector ------------------------------------------------------------------------------------

def test_the_question_vector_is_the_models_mean_unit_normalised():
    model = EMBED.model
    for text in ("how is ARR defined", "Wie hoch ist der ARR für Kunden in München?", "", "??"):
        light = EMBED.query(text, light=True)
        assert light is not None and list(light) == list(EMBED.query(text))
        expected = EMBED([text])[0]
        assert np.allclose(np.frombuffer(light, dtype=np.float32), expected, atol=1e-6), text
    assert model.dim == len(EMBED.query("x"))
    # text the plain WordPiece does not read (a character newer than Unicode 3.2): tokenizers, in-process only
    assert EMBED.query("ARR \U0001FAE8", light=True) is None
    assert np.allclose(np.frombuffer(EMBED.query("ARR \U0001FAE8"), dtype=np.float32), EMBED(["ARR \U0001FAE8"])[0],
                       atol=1e-6)


@settings(max_examples=70, deadline=None)
@given(text=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
       | st.lists(st.sampled_from(["ARR", "renewals", "Meridale's", "[UNK]", "unaffordable", "Ünïcödé", "4-4-5",
                                   "procurement?", "zzzqqqxx", "[PAD]"]), max_size=8).map(" ".join))
def test_the_cached_vocabulary_tokenizes_as_tokenizer_json_does(text):
    """A one-shot process reads the vocabulary from its SQLite copy: the same ids as the parsed tokenizer.json."""
    from vmem import wordpiece

    path = bundled_model_dir() / "tokenizer.json"
    parsed, first, stored = wordpiece.load(path), wordpiece.load_cached(path), wordpiece.load_cached(path)
    assert isinstance(stored.vocab, wordpiece.StoredVocab) and stored.config == parsed.config
    assert parsed.ids(text) == first.ids(text) == stored.ids(text)


@pytest.mark.parametrize("dtype", ["F32", "F16", "F64"])
def test_a_store_named_model_of_another_dtype_or_with_weights(tmp_path, dtype):
    """F32 and F16 tensors and a `weights` tensor are read as safetensors stores them; a dtype QueryModel does not
    read (F64) takes the numpy model, so the vector is still the model's."""
    import shutil

    from safetensors.numpy import save_file

    rng = np.random.default_rng(7)
    table = rng.normal(size=(29525, 8)).astype({"F32": np.float32, "F16": np.float16, "F64": np.float64}[dtype])
    weights = rng.uniform(0.5, 2.0, size=29525).astype(np.float32)
    shutil.copy(bundled_model_dir() / "tokenizer.json", tmp_path / "tokenizer.json")
    save_file({"embeddings": table, "weights": weights}, str(tmp_path / "model.safetensors"))
    embed = Embedder(tmp_path)
    for text in ("how is ARR defined", "renewal procurement"):
        ids = [i for i in embed.model.tokenizer.encode(text, add_special_tokens=False).ids if i != embed.model.unknown]
        mean = (table[ids].astype(np.float64) * weights[ids, None]).mean(axis=0)
        got = np.frombuffer(embed.query(text), dtype=np.float32)
        assert np.allclose(got, mean / np.linalg.norm(mean), atol=1e-6)
    assert (QueryModel.table(tmp_path) is None) == (dtype == "F64")


# -- one-shot against in-process, on the eval questions --------------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from conftest import demo_store

    return demo_store(tmp_path_factory.mktemp("demo") / "store", tmp_path_factory)


def _questions() -> list[str]:
    import yaml

    return [q["query"] for q in yaml.safe_load(QUERIES.read_text())["queries"]]


@pytest.mark.slow
def test_one_shot_and_in_process_answer_every_eval_question_alike(demo, monkeypatch):
    from vmem.store.repo import Store

    store = Store.open(demo)
    monkeypatch.setattr(recall.time, "time", lambda: NOW)  # one moment for both: confidence decays
    index = LocalIndex.open(store, EMBED, model_id=str(EMBED.path))  # long-lived: blocks from its second query
    scopes = [(None, None), ("entity:ashgrove-credit", None), ("entity:meridale", None), (None, "group:finance"),
              ("entity:tidewell", "group:finance")]
    waiting = 0
    for n, question in enumerate(_questions()):  # each question unscoped and in one of the scopes, in turn
        for scope, audience in (scopes[0], scopes[1 + n % (len(scopes) - 1)]):
            in_process = recall.search(index, question, recall.Scope.parse(scope, audience), False, 10, EMBED)
            one_shot = recall.recall_current(demo, question, scope=scope, audience=audience, k=10)
            assert one_shot == in_process, (question, scope, audience)
            waiting += bool(one_shot.get("awaiting_review"))
    assert index._blocks is not None and index._awaiting is not None
    assert waiting  # some uncovered answers counted items awaiting review, alike


def test_one_shot_recall_imports_no_numpy_safetensors_or_tokenizers(demo, tmp_path):
    import os
    import subprocess
    import sys

    from vmem.store.repo import Store

    LocalIndex.open(Store.open(demo), EMBED, model_id=str(EMBED.path))
    code = """if True:
        import json, sys
        from pathlib import Path
        from vmem.ops.recall import recall_current
        answers = [recall_current(Path(sys.argv[1]), q, scope=s, k=5)
                   for q, s in (("ARR definition trials", None), ("what is our warehouse cost per query", None),
                                ("Ashgrove fiscal year", "entity:ashgrove-credit"))]
        print(json.dumps([[a["coverage"], a.get("awaiting_review")] for a in answers]))
        print(json.dumps(sorted(m for m in ("numpy", "safetensors", "tokenizers", "pygit2") if m in sys.modules)))
    """
    result = subprocess.run([sys.executable, "-c", code, str(demo)], capture_output=True, text=True,
                            env={**os.environ})
    assert result.returncode == 0, result.stderr
    answers, heavy = map(json.loads, result.stdout.splitlines())
    assert heavy == [] and all(coverage in ("covered", "partial", "uncovered") for coverage, _ in answers)


def _fresh_recall(root: Path, *args: str):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-X", "importtime", "-m", "vmem", "--store", str(root), "recall", *args,
                           "--json"], capture_output=True, text=True, env={**os.environ})


def _numpy_imported(result) -> bool:
    return any(line.rsplit("|", 1)[1].strip() == "numpy" for line in result.stderr.splitlines()
               if line.startswith("import time:"))


def test_an_old_schema_index_is_rebuilt(seeded, vmem, facts):
    expected = vmem.json("recall", "ARR trials", "-k", "3")["data"]
    path = index_dir(seeded)
    db = sqlite3.connect(str(path / "meta.sqlite"))
    import marshal

    db.execute("UPDATE info SET value = ? WHERE key = 'version'", (marshal.dumps(5),))  # as an older vmem left it
    db.commit()
    db.close()
    assert recall.recall_current(seeded.root, "ARR trials", k=3) is None
    behind = _fresh_recall(seeded.root, "ARR trials", "-k", "3")
    assert behind.returncode == 0 and json.loads(behind.stdout)["data"] == expected and _numpy_imported(behind)
    again = _fresh_recall(seeded.root, "ARR trials", "-k", "3")  # rebuilt: the one-shot path answers again
    assert json.loads(again.stdout)["data"] == expected and not _numpy_imported(again)


@pytest.mark.parametrize("damage", ["flip a column byte", "truncate the columns", "truncate the vectors",
                                    "not a columns file"])
def test_a_damaged_index_falls_back_to_the_full_command(seeded, vmem, facts, damage):
    """Never a wrong answer: the one-shot path steps aside, the full command rebuilds and answers."""
    expected = vmem.json("recall", "ARR trials", "-k", "3")["data"]
    path = index_dir(seeded)
    columns, vectors = path / column_file.NAME, path / "vectors.f32"
    data = bytearray(columns.read_bytes())
    if damage == "flip a column byte":
        data[-40] ^= 0x01  # inside the body: only the CRC can tell
        columns.write_bytes(bytes(data))
    elif damage == "truncate the columns":
        columns.write_bytes(bytes(data[:len(data) // 2]))
    elif damage == "truncate the vectors":
        vectors.write_bytes(vectors.read_bytes()[:-4])
    else:
        columns.write_bytes(b"PK\x03\x04" + bytes(data[4:]))
    assert recall.recall_current(seeded.root, "ARR trials", k=3) is None
    result = _fresh_recall(seeded.root, "ARR trials", "-k", "3")
    assert result.returncode == 0 and json.loads(result.stdout)["data"] == expected
    assert recall.recall_current(seeded.root, "ARR trials", k=3) is not None  # rebuilt


def test_an_uncovered_one_shot_answer_counts_what_awaits_review(seeded, vmem, monkeypatch):
    for text, extra in (("the office carpet is blue in the north wing", []),
                        ("the office carpet is green in the south wing", ["--about", "meridale"]),
                        ("the office carpet colour is a secret", ["--personal"])):
        vmem("propose", text, *extra, store=seeded)
    vmem("index")
    monkeypatch.setattr(recall.time, "time", lambda: NOW)
    index = LocalIndex.open(seeded, EMBED, model_id=str(EMBED.path))
    for scope, count in ((None, 1), ("entity:meridale", 2)):
        one_shot = recall.recall_current(seeded.root, "what colour is the office carpet", scope=scope)
        assert one_shot["coverage"] == "uncovered" and one_shot["awaiting_review"] == count
        assert one_shot == recall.search(index, "what colour is the office carpet", recall.Scope.parse(scope, None),
                                         False, 5, EMBED)


def test_a_question_only_tokenizers_reads_takes_the_full_command(seeded, vmem, facts):
    vmem("index")
    assert recall.recall_current(seeded.root, "ARR \U0001FAE8 trials", k=3) is None
    assert recall.recall_current(seeded.root, "ARR trials", k=3) is not None


def test_past_light_rows_the_one_shot_reads_the_index_with_numpy_and_answers_alike(seeded, vmem, facts, monkeypatch):
    from vmem.index import local

    vmem("index")
    monkeypatch.setattr(recall.time, "time", lambda: NOW)
    light = recall.recall_current(seeded.root, "ARR trials", k=3)
    head = seeded.repo.head.target
    assert LocalIndex.open_current(seeded.root, str(head), str(EMBED.path)).light
    monkeypatch.setattr(local, "LIGHT_ROWS", 1)
    assert not LocalIndex.open_current(seeded.root, str(head), str(EMBED.path)).light
    assert recall.recall_current(seeded.root, "ARR trials", k=3) == light


# -- right after a commit: the light index catches up in plain Python -------------------------------------------

REVIEW_AS = "Rita <rita@example.com>"
ASKED = ("ARR trials", "when do refund rows land", "who owns meridale renewals", "orders completed_at lag",
         "what colour is the office carpet")


def test_right_after_each_commit_the_one_shot_catches_up_without_numpy_as_a_rebuild_answers(seeded, vmem, facts,
                                                                                             monkeypatch):
    """A proposal, its approval, a supersession and a customer's claim, each followed by a fresh `vmem recall`
    process: it catches the index up by that one commit in plain Python (no numpy, no pygit2) and serves what is
    new; the index it leaves answers every question exactly as one rebuilt from git."""
    vmem("index")
    new = vmem.json("propose", "Refund rows land in the warehouse two days after the refund is issued",
                    store=seeded)["data"]["item"]["id"]
    steps = [lambda: None, lambda: vmem("approve", new, who=REVIEW_AS, store=seeded),
             lambda: vmem("supersede", facts["arr"], "ARR excludes trials, one-off services and credits",
                          who=REVIEW_AS, store=seeded),
             lambda: vmem("propose", "Meridale renewals need a security review first", "--about", "meridale",
                          store=seeded)]
    for step in steps:
        step()
        answer = _fresh_recall(seeded.root, "when do refund rows land", "-k", "3")
        assert answer.returncode == 0 and not _numpy_imported(answer), answer.stderr[-2000:]
        assert not any(line.rsplit("|", 1)[1].strip() == "pygit2" for line in answer.stderr.splitlines()
                       if line.startswith("import time:"))
        assert recorded_commit(seeded) == str(seeded.repo.head.target)  # caught up, and saved
    served = json.loads(answer.stdout)["data"]["results"]
    assert served[0]["id"] == new and served[0]["status"] == "approved"
    monkeypatch.setattr(recall.time, "time", lambda: NOW)
    caught_up = [recall.recall_current(seeded.root, q, scope=s, k=5) for q in ASKED for s in (None, "entity:meridale")]
    vmem("index", "--rebuild")
    assert [recall.recall_current(seeded.root, q, scope=s, k=5) for q in ASKED
            for s in (None, "entity:meridale")] == caught_up


def recorded_commit(store) -> str:
    from vmem.index.local import recorded

    return recorded(store.root)["commit"]


@pytest.mark.parametrize("why", ["more changed items than a light catch-up takes", "a text only tokenizers reads"])
def test_what_a_light_catch_up_cannot_take_it_leaves_untouched_for_the_full_command(seeded, vmem, facts,
                                                                                   monkeypatch, why):
    from vmem.index import local

    vmem("index")
    before = recorded_commit(seeded)
    files = {path.name: path.read_bytes() for path in index_dir(seeded).iterdir() if path.is_file()}
    if why.startswith("more"):
        monkeypatch.setattr(local, "LIGHT_CHANGES", 0)
        vmem("propose", "Refund rows land two days late", store=seeded)
    else:
        vmem("propose", "Refund rows \U0001FAE8 land two days late", store=seeded)
    assert recall.recall_current(seeded.root, "ARR trials", k=3) is None
    assert recorded_commit(seeded) == before  # nothing written: the index is as it was
    assert {path.name: path.read_bytes() for path in index_dir(seeded).iterdir() if path.is_file()} == files
    monkeypatch.undo()
    full = _fresh_recall(seeded.root, "refund rows land", "-k", "3")  # the full body catches up, with numpy
    assert full.returncode == 0 and _numpy_imported(full) and recorded_commit(seeded) == str(seeded.repo.head.target)


def test_concurrent_recalls_after_a_commit_wait_for_the_one_catching_up(seeded, vmem, facts):
    """Several agents asking at once right after a pull: one process catches the index up, the others wait for it
    (a lock beside the index) and read what it left. Before the lock, on the 10k store, 7 of 60 such recalls
    failed with tantivy's LockBusy or a torn vectors file. Here the test holds the lock itself: a fresh recall
    must wait, not write, and answer from the caught-up index once the lock is free."""
    import os
    import subprocess
    import sys
    import time

    from vmem.index.local import catching_up

    vmem("index")
    vmem("propose", "Refund rows land in the ledger two days late", store=seeded)
    command = [sys.executable, "-X", "importtime", "-m", "vmem", "--store", str(seeded.root), "recall",
               "refund rows ledger", "--json"]
    with catching_up(index_dir(seeded)):
        waiting = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env={**os.environ}) for _ in range(3)]
        time.sleep(1.5)
        assert all(p.poll() is None for p in waiting)  # blocked on the lock, nothing written meanwhile
        assert recorded_commit(seeded) != str(seeded.repo.head.target)
    for process in waiting:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err[-2000:]
        assert json.loads(out)["data"]["results"]
    assert recorded_commit(seeded) == str(seeded.repo.head.target)
