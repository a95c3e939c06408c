"""vmem recall and the local index: scope soundness (property-tested), staleness, coverage, catch-up, as-of."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vmem import model
from vmem.embed import embedder
from vmem.index.local import LocalIndex, index_dir
from vmem.ops.recall import recall

REVIEW_AS = "Rita <rita@example.com>"
WORDS = ["orders", "refunds", "arr", "churn", "lag", "days", "renewal", "procurement", "audit", "logs",
         "healthcare", "discount", "prepay", "dashboard", "timezone", "seats", "pipeline", "invoice"]
EMBED = embedder()


def _oracle(item: dict, entity: str | None, audience: str, include_stale: bool) -> bool:
    """An independent statement of SPEC 8, to hold recall to."""
    if item.get("personal"):
        return False
    if item.get("audience", "all") not in ("all", audience):
        return False
    if item["kind"] == "knowledge":
        return item["status"] == "published" or (include_stale and item["status"] == "superseded")
    if item["scope"] not in ("org", f"entity:{entity}"):
        return False
    expired = item["expires_at"] is not None and item["expires_at"] <= model.now()
    if item["status"] in ("approved", "mandatory") and not expired:
        return True
    return include_stale and (item["status"] in ("superseded", "expired") or
                              (item["status"] in ("approved", "mandatory") and expired))


@st.composite
def stores(draw):
    items = []
    for _ in range(draw(st.integers(5, 25))):
        text = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=3, max_size=9)))
        now = model.now()
        if draw(st.booleans()):
            items.append(model.normalize_item({
                "id": model.new_id("claim"), "kind": "claim", "statement": text, "created_at": now,
                "status": draw(st.sampled_from(model.CLAIM_STATUSES)),
                "scope": draw(st.sampled_from(["org", "entity:acme", "entity:globex"])),
                "audience": draw(st.sampled_from(["all", "group:finance"])), "personal": draw(st.booleans()),
                "expires_at": draw(st.sampled_from(["2020-01-01T00:00:00Z", "2099-01-01T00:00:00Z"])),
                "superseded_by": None}))
        else:
            items.append(model.normalize_item({
                "id": model.new_id("knowledge"), "kind": "knowledge", "statement": text, "canonical": text,
                "status": draw(st.sampled_from(model.KNOWLEDGE_STATUSES)), "first_seen": now,
                "last_reinforced": now, "audience": draw(st.sampled_from(["all", "group:finance"])),
                "evidence": [{"entity": e, "writer": "w@e.com", "at": now} for e in ("a", "b", "c")]}))
    return items


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=stores(), query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
       entity=st.sampled_from([None, "acme", "globex"]), audience=st.sampled_from(["all", "group:finance"]),
       include_stale=st.booleans())
def test_recall_never_serves_what_the_scope_rule_forbids(tmp_path_factory, items, query, entity, audience,
                                                         include_stale):
    import pygit2

    from vmem.ops.init import init_store

    path = tmp_path_factory.mktemp("random-store")
    config = pygit2.init_repository(str(path), initial_head="main").config
    config["user.name"], config["user.email"] = "Alice", "alice@example.com"
    store = init_store(path)  # a fresh store per example: nothing carries over between examples
    with store.transaction("import", summary="random store") as tx:
        for entity_id in ("acme", "globex"):  # a scope must name an entity of the store
            tx.write_file(f"entities/{entity_id}.yaml", model.validate("entity", {"id": entity_id,
                                                                                  "name": entity_id}, entity_id))
        for item in items:
            tx.write(item)
    by_id = {i["id"]: i for i in items}
    result = recall(store, query, scope=f"entity:{entity}" if entity else None, audience=audience,
                    include_superseded=include_stale, k=50, embed=EMBED)
    served = [row["id"] for row in result["results"] if row["id"] in by_id]
    assert all(_oracle(by_id[i], entity, audience, include_stale) for i in served), served
    allowed = {i for i, item in by_id.items() if _oracle(item, entity, audience, include_stale)}
    assert set(served) == allowed & set(served)
    if not allowed:
        assert result["coverage"] == "uncovered"
    for row in result["results"]:
        assert "evidence" not in row and set(row) >= {"id", "kind", "title", "statement", "scope", "status",
                                                      "score", "confidence"}


@pytest.fixture
def facts(seeded, vmem):
    ids = {}
    for key, text, extra in (
            ("lag", "orders.completed_at lags orders.placed_at by three days because of settlement", []),
            ("arr", "ARR excludes trials and one-off services", []),
            ("renewal", "Meridale renewals are owned by procurement, not IT", ["--about", "meridale"]),
            ("mine", "I always alias orders as o in SQL", ["--personal"])):
        ids[key] = vmem.json("propose", text, *extra, store=seeded)["data"]["item"]["id"]
        if key != "mine":
            vmem("approve", ids[key], who=REVIEW_AS, store=seeded)
    return ids


def test_superseded_is_excluded_unless_asked_and_then_marked(seeded, vmem, facts):
    new = vmem.json("supersede", facts["lag"], "orders.completed_at lags orders.placed_at by one day since the "
                    "v2 ETL", who=REVIEW_AS, store=seeded)["data"]["item"]["id"]
    data = vmem.json("recall", "how long does orders.completed_at lag placed_at")["data"]
    ids = [r["id"] for r in data["results"]]
    assert new in ids and facts["lag"] not in ids and data["coverage"] in ("covered", "partial")
    marked = vmem.json("recall", "orders.completed_at lag", "--include-superseded")["data"]["results"]
    stale = [r for r in marked if r["id"] == facts["lag"]]
    assert stale and stale[0]["stale"] is True and not any(r.get("stale") for r in marked if r["id"] == new)
    text = vmem("recall", "orders.completed_at lag", "--include-superseded").stdout
    assert f"{facts['lag']}  " in text and "  org (stale)\n    orders.completed_at lags" in text


def test_entity_scope_and_personal_items(seeded, vmem, facts):
    org = [r["id"] for r in vmem.json("recall", "who owns meridale renewals", "-k", "10")["data"]["results"]]
    assert facts["renewal"] not in org and facts["mine"] not in org
    scoped = vmem.json("recall", "who owns meridale renewals", "--scope", "entity:meridale")["data"]
    assert scoped["results"][0]["id"] == facts["renewal"]
    other = [r["id"] for r in vmem.json("recall", "renewals procurement", "--scope", "entity:tidewell",
                                        "-k", "10")["data"]["results"]]
    assert facts["renewal"] not in other
    assert "invalid scope" in vmem("recall", "x", "--scope", "acme", code=2).stderr
    assert "query is empty" in vmem("recall", " ", code=2).stderr


def test_index_catches_up_incrementally_and_survives_damage(seeded, vmem, facts):
    vmem("recall", "ARR")
    index = LocalIndex.open(seeded, EMBED, model_id=str(EMBED.path))
    assert index.stats["parsed"] == 0 and not index.stats["rebuilt"]
    vmem("propose", "invoices are issued on the first business day", store=seeded)
    index = LocalIndex.open(seeded, EMBED, model_id=str(EMBED.path))
    assert index.stats["parsed"] == 1 and not index.stats["rebuilt"]  # one commit, one changed blob
    (index_dir(seeded) / "meta.marshal").write_bytes(b"\x00not an index")
    assert vmem.json("recall", "ARR trials")["data"]["results"][0]["id"] == facts["arr"]
    shutil.rmtree(index_dir(seeded))
    assert vmem.json("recall", "ARR trials")["data"]["results"][0]["id"] == facts["arr"]
    rebuilt = vmem.json("index", "--rebuild")["data"]
    assert rebuilt["rebuilt"] is True and rebuilt["items"] >= 5


def test_as_of_answers_from_the_past_tree(seeded, vmem, facts):
    import time

    before = model.now()
    time.sleep(1.1)
    vmem("supersede", facts["arr"], "ARR excludes trials, pilots and one-off services",
         who=REVIEW_AS, store=seeded)
    now_rows = vmem.json("recall", "ARR trials")["data"]["results"]
    then = vmem.json("recall", "ARR trials", "--as-of", before)["data"]
    assert then["results"][0]["id"] == facts["arr"] and now_rows[0]["id"] != facts["arr"]
    assert "not a date" in vmem("recall", "x", "--as-of", "yesterday-ish", code=2).stderr


def test_recall_imports_no_model_for_other_commands():
    import subprocess
    import sys

    code = "import sys, vmem.cli.app; print('tantivy' in sys.modules, 'numpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split() == \
        ["False", "False"]


@pytest.mark.slow
def test_labeled_queries_on_the_demo_store(tmp_path, tmp_path_factory):
    """examples/eval/recall.yaml against a fresh demo store: never stale or out of scope, relevant in the top 5."""
    from pathlib import Path

    from conftest import demo_store

    from vmem.ops.eval_recall import evaluate_recall
    from vmem.store.repo import Store

    store = demo_store(tmp_path / "demo" / "store", tmp_path_factory)
    result = evaluate_recall(Store.open(store), Path(__file__).parents[1] / "examples/eval/recall.yaml")
    assert result["queries"] >= 150 and result["splits"]["heldout"]["ranked"] >= 40
    assert result["stale_hallucination_rate"] == 0.0, [r for r in result["rows"] if r["stale_served"]]
    heldout = result["splits"]["heldout"]
    # issue 14's bar on the questions no constant was fitted on (measured 0.92 / 0.944 / 0.98)
    assert heldout["hit_at_1"] >= 0.85 and heldout["mrr_at_k"] >= 0.9 and heldout["hit_at_k"] >= 0.95, \
        [(r["rank"], r["query"]) for r in result["rows"] if r["split"] == "heldout" and r["rank"] not in (None, 1)]
    assert result["coverage_accuracy"] >= 0.75  # measured 0.82


def _approved(vmem, store, text: str, *extra: str) -> str:
    item_id = vmem.json("propose", text, *extra, store=store)["data"]["item"]["id"]
    vmem("approve", item_id, who=REVIEW_AS, store=store)
    return item_id


def _verified(vmem, store, text: str, *extra: str) -> str:
    item_id = _approved(vmem, store, text, *extra)
    for who in ("Vic <vic@example.com>", "Val <val@example.com>"):
        vmem("verify", item_id, "--kind", "confirmation", who=who, store=store)
    return item_id


def test_exact_statement_is_first_over_verified_unrelated_claims(seeded, vmem):
    """Issue 14's red-team case: after six unrelated claims were verified, the verbatim text of another claim
    returned only those six and answered "uncovered"."""
    for text in ("Churn dashboards refresh every Monday at 06:00 UTC",
                 "The sales pipeline report excludes opportunities below 5,000 USD",
                 "NPS surveys go out 90 days after go-live",
                 "Warehouse credits are charged to the data platform cost centre",
                 "Marketing leads are deduplicated by e-mail domain",
                 "Support tickets are tagged by product area within one business day"):
        _verified(vmem, seeded, text)
    target = _approved(vmem, seeded, "Invoices for annual plans are issued on the first business day of the month")
    for query in ("Invoices for annual plans are issued on the first business day of the month",
                  "invoices for annual plans are issued on the first business day"):
        data = vmem.json("recall", query)["data"]
        assert data["results"][0]["id"] == target, [r["statement"] for r in data["results"]]
        assert data["results"][0]["exact"] is True and data["coverage"] == "covered"


def test_twins_that_differ_in_one_number_or_direction_do_not_swap(seeded, vmem):
    """The right twin first even when the other one is verified by two colleagues (confidence is a prior only)."""
    p1 = _verified(vmem, seeded, "P1 support tickets get a first response within 1 hour, around the clock")
    p2 = _approved(vmem, seeded, "P2 support tickets get a first response within 4 business hours")
    up = _verified(vmem, seeded, "Mid-term plan upgrades are prorated from the upgrade date")
    down = _approved(vmem, seeded, "Mid-term plan downgrades are not prorated and apply at the next renewal")
    eu = _verified(vmem, seeded, "Raw events from EU customers are kept for 90 days")
    us = _approved(vmem, seeded, "Raw events from US customers are kept for 400 days")
    for query, right, wrong in (("first response for P2 tickets", p2, p1),
                                ("which tickets get a response within 4 business hours", p2, p1),
                                ("are plan downgrades prorated mid-term", down, up),
                                ("how long are raw events from US customers kept", us, eu),
                                ("which customers' raw events are kept for 400 days", us, eu)):
        ids = [r["id"] for r in vmem.json("recall", query, "-k", "5")["data"]["results"]]
        assert ids[0] == right and wrong in ids, (query, ids)
    # and when relevance is level, the trusted twin wins: confidence still breaks ties
    approved = _approved(vmem, seeded, "The kickoff call for new customers lasts 45 minutes")
    trusted = _verified(vmem, seeded, "The kickoff call for new customers lasts 30 minutes")
    rows = vmem.json("recall", "how long is the kickoff call with a new customer")["data"]["results"]
    assert [r["id"] for r in rows[:2]] == [trusted, approved], rows[:2]


def test_eval_recall_reports_ranking_and_coverage_per_split(seeded, vmem, tmp_path):
    right = _approved(vmem, seeded, "Refunds on annual plans are prorated credit notes, never cash")
    _verified(vmem, seeded, "Refunds on monthly plans are paid back in cash within 7 days")
    queries = tmp_path / "q.yaml"
    queries.write_text("""queries:
  - {query: "how are refunds on annual plans handled", split: tune, expect: covered, relevant: ["annual plans"]}
  - {query: "how do monthly plan refunds work", split: heldout, expect: covered, relevant: ["monthly plans"]}
  - {query: "what is the refund policy for enterprise pilots", split: heldout, expect: uncovered,
     stale: ["annual plans"]}
""")
    data = vmem.json("eval", "recall", str(queries))["data"]
    assert data["k"] == 10 and data["queries"] == 3 and data["ranked"] == 2
    assert data["splits"]["tune"] == {**data["splits"]["tune"], "queries": 1, "ranked": 1, "hit_at_1": 1.0,
                                      "mrr_at_k": 1.0, "stale_hallucination_rate": 0.0}
    heldout = data["splits"]["heldout"]
    assert heldout["queries"] == 2 and heldout["hit_at_1"] == 1.0
    assert heldout["stale_hallucination_rate"] == 0.5  # the annual-plan claim served for the pilot question
    assert data["rows"][0]["rank"] == 1 and data["rows"][2]["stale_served"] == [right]
    text = vmem("eval", "recall", str(queries)).stdout
    assert "hit@1" in text and "MRR@10" in text and "heldout" in text and "stale rate" in text
    queries.write_text('queries:\n  - {query: "x", split: dev, expect: covered}\n')
    assert "split must be tune or heldout" in vmem("eval", "recall", str(queries), code=2).stderr


def _fresh(*args: str, store) -> "subprocess.CompletedProcess":
    import os
    import subprocess
    import sys

    env = {**os.environ, "VMEM_STORE": str(store.root)}
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "vmem", *args], capture_output=True, text=True,
                          env=env)


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_one_shot_recall_on_a_current_index_skips_typer_rich_and_pygit2(seeded, vmem, facts):
    """Issue 14: a fresh `vmem recall` process answers from an up-to-date index without typer, rich or pygit2,
    and says exactly what the full command says; when the index is a commit behind, it catches it up, still
    without typer or numpy, and answers as the full command does."""
    full_json = vmem.json("recall", "ARR trials", "-k", "3")["data"]  # also brings the index up to date
    full_text = vmem("recall", "ARR trials", "-k", "3").stdout
    fast = _fresh("recall", "ARR trials", "-k", "3", "--json", store=seeded)
    assert fast.returncode == 0 and json.loads(fast.stdout) == {"schema_version": 1, "data": full_json}
    assert not {"typer", "rich", "pygit2"} & _imported(fast.stderr)
    text = _fresh("recall", "ARR trials", "-k", "3", store=seeded)  # not a terminal: rich would print no styles
    assert text.stdout == full_text and not {"typer", "rich", "pygit2"} & _imported(text.stderr)
    assert full_text.startswith("covered\n") and "  conf 0.70  org\n    ARR excludes trials" in full_text
    scoped = _fresh("recall", "who owns meridale renewals", "--scope", "entity:meridale", "--json", store=seeded)
    assert json.loads(scoped.stdout)["data"]["results"][0]["id"] == facts["renewal"]
    assert "pygit2" not in _imported(scoped.stderr)
    # not decidable from the index alone: the full command runs and behaves as it always did
    missing = _fresh("recall", "x", "--scope", "entity:nope", store=seeded)
    assert missing.returncode == 1 and "no entity 'nope'" in missing.stderr
    new = vmem.json("propose", "ARR trials are counted from the first paid invoice", store=seeded)["data"]["item"]["id"]
    vmem("approve", new, who=REVIEW_AS, store=seeded)
    behind = _fresh("recall", "when are ARR trials counted", "--json", store=seeded)
    assert new in [r["id"] for r in json.loads(behind.stdout)["data"]["results"]]
    assert not {"typer", "rich", "pygit2", "numpy"} & _imported(behind.stderr)  # caught up light, read by git
    assert json.loads(behind.stdout) == {"schema_version": 1, "data": vmem.json(
        "recall", "when are ARR trials counted")["data"]}  # what the full command now answers, the same


def test_index_with_nothing_new_decides_before_numpy_and_the_model(seeded, vmem, facts):
    vmem("index")
    result = _fresh("index", "--json", store=seeded)
    data = json.loads(result.stdout)["data"]
    assert data["parsed"] == 0 and data["rebuilt"] is False and data["items"] >= 4
    assert data["commit"] == str(seeded.repo.head.target)
    assert not {"numpy", "tantivy", "tokenizers", "pygit2", "typer"} & _imported(result.stderr)
    assert _fresh("index", store=seeded).stdout.startswith(f"index at {data['commit'][:10]}: {data['items']} items")
    vmem("propose", "invoices are issued on the first business day", store=seeded)
    caught_up = json.loads(_fresh("index", "--json", store=seeded).stdout)["data"]
    assert caught_up["parsed"] == 1 and caught_up["commit"] != data["commit"]


def test_fast_path_parses_only_what_the_full_command_would_read_the_same():
    from vmem.cli.fast import read, spec_of

    spec = spec_of("recall", "recall")
    got = read(["q", "--scope=entity:acme", "-k", "3", "--json"], spec)
    assert (got["query"], got["json_"], got["scope"], got["k"]) == ("q", True, "entity:acme", 3)
    assert read(["--", "-starts with a dash"], spec)["query"] == "-starts with a dash"
    for argv in (["q", "-k=3"], ["q", "r"], [], ["q", "--scope"], ["q", "-k", "x"]):
        assert read(argv, spec) is None, argv
    assert read(["q", "--as-of", "x"], spec)["as_of"] == "x"  # read, and then left to the full command