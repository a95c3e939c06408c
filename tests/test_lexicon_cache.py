"""The de-id lexicon a proposal is screened against is cached per store (issue 14: learnings at 100k within git's
time). The cache may only ever cost time: it is the built lexicon exactly, it follows every change to the
customers and episodes however it was committed, and a damaged cache or a broken customer file fails closed."""

from __future__ import annotations

import marshal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import commit_file
from vmem.gates.deid import Lexicon, build_lexicon
from vmem.gates.publish import LexiconIncomplete, load_inputs, screening_lexicon
from vmem.store.cache import cache_file

CATS = ("-c", "industry:healthcare")
CLEAN = "Healthcare buyers ask for audit logs before security review."


def _cache_path(store):
    return cache_file(store.root).with_suffix(".lexicon")


def _learn(vmem, store, statement: str, entity: str = "corvane") -> dict:
    return vmem.json("propose", statement, "--from", entity, *CATS, store=store)["data"]


def _roundtrip(lexicon: Lexicon) -> Lexicon:
    return Lexicon.from_plain(marshal.loads(marshal.dumps(lexicon.to_plain())))


def test_the_cached_lexicon_is_the_one_built_from_the_example_customers(seeded):
    inputs = load_inputs(seeded.head())
    built = inputs.lexicon({})
    assert built.terms and built.quantities and built.dates and built.quotes and built.person_parts
    assert _roundtrip(built) == built


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
_RESTRICTED = st.one_of(_TEXT, st.sampled_from(["$265,000 ACV", "4,200 seats", "September 15, 2026", "12%",
                                                "SCC-RFP-2026-014", "1.2 million euros", "15-09-2026"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.fixed_dictionaries({
    "name": _TEXT, "aliases": st.lists(_TEXT, max_size=3), "people": st.lists(_TEXT, max_size=3),
    "domains": st.lists(st.from_regex(r"[a-z]{2,12}\.example", fullmatch=True), max_size=2),
    "restricted": st.lists(_RESTRICTED, max_size=3)}), min_size=1, max_size=4),
    st.lists(_TEXT, max_size=4))
def test_any_lexicon_survives_the_cache_unchanged(entities, quotes):
    for n, entity in enumerate(entities):
        entity["id"] = f"customer-{n}"
    lexicon = build_lexicon(entities, [{"entity": "customer-0", "quotes": quotes}])
    assert _roundtrip(lexicon) == lexicon


def test_a_customer_committed_by_hand_after_the_cache_was_written_is_screened(seeded, vmem):
    assert _learn(vmem, seeded, CLEAN)["action"] == "created"
    assert _cache_path(seeded).is_file()
    commit_file(seeded, "entities/zorbatron.yaml",
                b"id: zorbatron\nname: Zorbatron Industries\ncategories:\n  - industry:healthcare\n")
    data = _learn(vmem, seeded, "Zorbatron Industries asks for audit logs before security review.")
    assert data["action"] == "quarantined"
    assert "Zorbatron" in data["item"]["gate"]["reason"]


def test_an_episode_quote_committed_after_the_cache_was_written_is_screened(seeded, vmem):
    assert _learn(vmem, seeded, CLEAN)["action"] == "created"
    quote = "we will never let a vendor hold our ledgers hostage again"
    vmem("episode", "add", "corvane", "--kind", "call", "--quote", quote, "--id", "late-call", store=seeded)
    data = _learn(vmem, seeded, "Buyers say we will never let a vendor hold our ledgers hostage again.")
    assert data["action"] == "quarantined"


def test_a_damaged_cache_is_rebuilt_and_never_lets_a_name_through(seeded, vmem):
    assert _learn(vmem, seeded, CLEAN)["action"] == "created"
    path = _cache_path(seeded)
    cached = marshal.loads(path.read_bytes())
    for damage in (b"\x00garbage", marshal.dumps({**cached, "lexicon": {"terms": [("x",)]}}),
                   marshal.dumps({**cached, "lexicon": {**cached["lexicon"], "extra": []}})):
        path.write_bytes(damage)
        data = _learn(vmem, seeded, "Ashgrove Credit Union asks for audit logs before security review.")
        assert data["action"] == "quarantined", damage[:20]
        assert marshal.loads(path.read_bytes())["key"] == cached["key"]  # rewritten whole


def test_a_broken_customer_file_fails_closed_even_with_a_cached_lexicon_and_is_never_cached(seeded, vmem):
    assert _learn(vmem, seeded, CLEAN)["action"] == "created"
    before = _cache_path(seeded).read_bytes()
    path = "entities/tidewell.yaml"
    commit_file(seeded, path, (seeded.root / path).read_bytes() + b"notes: our biggest logo\n")
    assert isinstance(screening_lexicon(seeded.head()), LexiconIncomplete)
    data = _learn(vmem, seeded, "Healthcare buyers ask for audit trails before the security review.")
    assert data["action"] == "quarantined"
    assert "lexicon incomplete: entities/tidewell.yaml" in data["item"]["gate"]["reason"]
    assert _cache_path(seeded).read_bytes() == before  # the incomplete lexicon was not cached
