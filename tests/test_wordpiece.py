"""vmem.wordpiece gives the bundled model's tokenizer ids exactly as the tokenizers library does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from vmem import wordpiece
from vmem.embed import bundled_model_dir

PATH = bundled_model_dir() / "tokenizer.json"
REFERENCE = Tokenizer.from_file(str(PATH))
REFERENCE.no_truncation()
OURS = wordpiece.load(PATH)
SAMPLES = ["how is ARR defined", "orders.completed_at trails placed_at by ~3 days?!", "Ünïcode café — naïve",
           "東京の売上 vs. 北京", "[UNK] x[PAD]y [PAD][UNK]", "ΟΔΟΣ İstanbul ß ﬁ Ⅻ ①",
           "tab\there\r\nnew\u2028line",
           "zero\u200bwidth\u00adsoft\ufeffbom", "a" * 150 + " ok", "emoji 🙂👍🏽 and $1.2M (20%)", "  ", ""]


def test_the_bundled_tokenizer_is_a_configuration_it_reproduces():
    assert OURS is not None


def test_same_ids_as_tokenizers_on_samples():
    for text in SAMPLES:
        assert OURS.ids(text) == REFERENCE.encode(text, add_special_tokens=False).ids, text


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60) | st.text(
    alphabet=st.sampled_from(list("ab AB.,-_'é\u0301\u00a0\t\n東[]PADUNK0123$%")), max_size=40))
def test_same_ids_as_tokenizers_on_random_text(text):
    if OURS.supports(text):  # else the embedder asks tokenizers
        assert OURS.ids(text) == REFERENCE.encode(text, add_special_tokens=False).ids


def test_a_query_embeds_the_same_either_way():
    import numpy as np

    from vmem.embed import StaticModel

    quick, batch = StaticModel(bundled_model_dir()), StaticModel(bundled_model_dir())
    texts = ["how is ARR defined", "Ünïcode café [PAD] 東京"]
    assert np.array_equal(quick.encode(texts), batch.encode(texts * 3)[:2])  # few texts: wordpiece; many: tokenizers
    assert quick._tokenizer is None and batch._tokenizer is not None
    assert not OURS.supports("a newer character \U00018cd6") and quick.encode(["\U00018cd6 x"]).shape == (1, 256)
    assert quick._tokenizer is not None  # that text went to tokenizers
