"""De-id on the review card: a learning's words that are neither English, nor category vocabulary, nor the store's
published vocabulary are listed, so the human gate sees "Corvanne" even when no rule fired; a quarantined card,
whose words are withheld, lists none."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.cli.render import card_lines
from vmem.gates.membership import category_vocabulary
from vmem.gates.near import unknown_words
from vmem.ops import card as cards

SYLLABLES = ["kor", "van", "ta", "vis", "mel", "dra", "quin", "lo", "zor", "blax", "vex", "ul"]
coined = st.lists(st.sampled_from(SYLLABLES), min_size=3, max_size=4).map(lambda s: "".join(s).capitalize()).filter(
    lambda w: unknown_words(w, set()) == [w])
ENGLISH = "finance teams at lenders asked for quarterly invoicing before renewal and wanted audit logs".split()


@settings(max_examples=60, deadline=None)
@given(name=coined, words=st.lists(st.sampled_from(ENGLISH), min_size=3, max_size=10), at=st.integers(0, 10))
def test_a_made_up_word_among_english_is_the_one_listed(name, words, at):
    words.insert(at % (len(words) + 1), name)
    assert unknown_words(" ".join(words), set()) == [name]


def test_category_words_and_the_stores_published_words_are_known():
    known = category_vocabulary({"industry:hospital_group", "region:latam", "segment:mid_market"})
    assert {"latam", "hospital", "midmarket"} <= known
    assert unknown_words("LATAM midmarket hospital groups want SSO", known) == []
    assert unknown_words("Zorblax ledgers need SSO", known | {"zorblax"}) == []


def fake_snapshot(published: list[str]):
    items = [SimpleNamespace(item={"statement": s, "status": "published"}) for s in published]
    return SimpleNamespace(entities=lambda: {"c1": {"categories": ["industry:biotech"]}},
                           files=lambda kind: iter(items))


def test_the_card_lists_unknown_words_and_the_withheld_card_none():
    snapshot = fake_snapshot(["Vendors using Quillon ledgers ask for exports."])
    item = {"statement": "Biotech buyers at Corvanne, like Quillon users, want validation packs.",
            "categories": ["industry:biotech"]}
    assert cards.unknown_words(snapshot, item) == ["Corvanne"]
    card = {"id": "k-1", "statement": item["statement"], "unknown_words": ["Corvanne"], "gate": None}
    assert cards.withheld(card)["unknown_words"] == []


def test_the_rendered_card_says_which_words_no_dictionary_knows():
    card = {"statement": "Corvanne buyers want packs.", "title": None, "personal": False, "kind": "knowledge",
            "scope": None, "categories": ["industry:biotech"], "audience": "all", "domain": None, "class": None,
            "paths": [], "proposer": "ana", "age_days": 1.0, "expires_at": None, "effective_confidence": 0.5,
            "distinct_entities": 1, "writers": 1, "evidence_count": 1, "support_tier": "emerging",
            "gate": None, "merges": [], "prior_rejections": [], "contradictions": [],
            "unknown_words": ["Corvanne"]}
    assert any("words no dictionary knows" in line and "Corvanne" in line for line in card_lines(card))
