"""De-id: decode, then screen. A name an agent emits encoded (HTML entities, percent-encoding, backslash escapes,
base64, hex, rot13) is found in the decoded text, and the hit names the decoding; encoded-looking ordinary text
(hashes, ids, percentages, an ampersand) passes."""

from __future__ import annotations

import base64
import codecs
import json
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.gates import deid
from vmem.gates.decode import decodings
from vmem.gates.deid import build_lexicon, check_statement

SYLLABLES = ["ka", "ri", "to", "mo", "ne", "su", "no", "ta", "mi", "ko", "sa", "na", "te", "ro", "ma", "vel", "dor"]
# made-up names of two to four syllables that are no English word: only a decoding can find them
coined = st.lists(st.sampled_from(SYLLABLES), min_size=3, max_size=4).map(lambda s: "".join(s).capitalize()).filter(
    lambda w: not deid._ordinary(w) and w.casefold() not in deid._dictionary()
    and codecs.encode(w, "rot13").casefold() != w[::-1].casefold())  # "Nanana": rot13 would be the name reversed
AROUND = st.sampled_from([("The customer ", " asked for SSO."), ("Logs show ", " in the payload."),
                          ("", " wants a pilot."), ("Renewal for ", ".")])


def entity_html(text: str, every: int) -> str:
    return "".join(f"&#{ord(ch)};" if n % every == 0 else ch for n, ch in enumerate(text))


def entity_hex(text: str, every: int) -> str:
    return "".join(f"&#x{ord(ch):x};" if n % every == 0 else ch for n, ch in enumerate(text))


def u_escape(text: str, every: int) -> str:
    return "".join(f"\\u{ord(ch):04x}" if n % every == 0 else ch for n, ch in enumerate(text))


ENCODINGS = {
    "HTML entities": lambda name, every: entity_html(name, every),
    "HTML entities (hex)": lambda name, every: entity_hex(name, every),
    "percent-encoding": lambda name, every: quote(f"{name} Holdings", safe="").replace(name[1:], "".join(
        f"%{ord(ch):02X}" for ch in name[1:])) if every == 3 else "".join(
        f"%{ord(ch):02X}" if n % every == 0 else ch for n, ch in enumerate(name)),
    "escape sequences": lambda name, every: u_escape(name, every),
    "escape sequences (x)": lambda name, every: "".join(f"\\x{ord(ch):02x}" for ch in name),
    "base64": lambda name, every: base64.b64encode(f"customer={name}".encode()).decode() if every % 2 else
    base64.urlsafe_b64encode(name.encode()).decode().rstrip("="),
    "hex": lambda name, every: name.encode().hex() if every % 2 else " ".join(f"{b:02x}" for b in name.encode()),
    "rot13": lambda name, every: codecs.encode(name, "rot13"),
}


@settings(max_examples=150, deadline=None)
@given(name=coined, encoding=st.sampled_from(sorted(ENCODINGS)), every=st.integers(1, 3), around=AROUND,
       person=st.booleans())
def test_a_name_encoded_any_way_is_found_in_the_decoded_text_and_the_hit_names_the_decoding(
        name, encoding, every, around, person):
    lexicon = build_lexicon([{"id": "c1", "name": f"{name} Holdings", "aliases": [name],
                              "people": [f"Tobias {name}"] if person else []}])
    encoded = ENCODINGS[encoding](name, every)
    statement = around[0] + encoded + around[1]
    result = check_statement(statement, lexicon)
    assert not result.passed, statement
    assert any(h.rule.startswith(encoding.split(" (")[0]) for h in result.hits), (statement, result.hits)


def test_a_json_fragment_with_escapes_and_a_full_name_in_rot13():
    lexicon = build_lexicon([{"id": "c1", "name": "Kestrel Freight", "people": ["Dolores Whitcombe"]}])
    fragment = json.dumps({"customer": "Kestrel Freight"}, ensure_ascii=False).replace("K", "\\u004B")
    assert not check_statement(f"Agent output: {fragment}", lexicon).passed
    assert not check_statement(f"cc {codecs.encode('Dolores Whitcombe', 'rot13')} on it", lexicon).passed
    assert not check_statement("Ticket id=" + base64.b64encode(b"Kestrel Freight").decode(), lexicon).passed
    hits = check_statement("Ask Xrfgery Servtug first.", lexicon).hits
    assert {h.rule for h in hits} == {"rot13"}
    # the first word of a longer name alone, in rot13 (the first word's own rule, read after decoding)
    corvanne = build_lexicon([{"id": "cb", "name": "Corvanne Biologics"}])
    assert {h.rule for h in check_statement("Ask Pbeinaar about it.", corvanne).hits} == {"rot13"}


@pytest.mark.parametrize("statement", [
    "Commit 3f2a9c1b4d5e6f708192a3b4c5d6e7f8a9b0c1d2 fixed the onboarding flow.",
    "Request 123e4567-e89b-12d3-a456-426614174000 timed out on QuillonPay-style retries.",
    "About 20% of M&amp;A deals slip; 5%-10% more slip in Q4.",
    "Use &nbsp; sparingly and escape \\n in the CSV export.",
    "The token looks like eyJhbGciOiJIUzI1NiJ9 and expires hourly.",
    "gnat sync flap abjurer nowhere purpura chechen",  # English words whose rot13 is English
    "Long-term-contract renewals and multi-year-commitments dominate.",
])
def test_encoded_looking_ordinary_text_passes(statement):
    lexicon = build_lexicon([{"id": "c1", "name": "Kestrel Freight", "aliases": ["Kestrel"],
                              "people": ["Dolores Whitcombe"]}])
    assert check_statement(statement, lexicon).passed, check_statement(statement, lexicon).hits


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(
    "the renewal team asked for onboarding exports pallets scanners invoices weekly audit logs before signing "
    "SSO ACV 20% $1.2M Q3 2026 v2 3f2a9c1b ab12cd34ef EMEA-2 x86_64".split()), min_size=1, max_size=14))
def test_ordinary_text_decodes_to_nothing_identifying(words):
    lexicon = build_lexicon([{"id": "c1", "name": "Kestrel Freight", "aliases": ["Kestrel"]}])
    statement = " ".join(words)
    assert check_statement(statement, lexicon).passed
    assert all(decoding != "rot13" for decoding, _ in decodings(statement))


COMMON_WORDS = ["Summit", "Ridge", "Harbor", "Lane", "North", "Valley", "Cedar", "River", "Union", "Point"]


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.sampled_from(COMMON_WORDS), min_size=2, max_size=2, unique=True),
       tail=st.sampled_from(["Credit Union", "Health", "Logistics Group"]), hexed=st.booleans())
def test_a_run_that_decodes_to_a_name_of_common_words_and_nothing_else_is_the_name(words, tail, hexed):
    # "Summit Ridge" written plainly needs a cue; hidden in base64 or hex it has one: someone hid it
    name = " ".join(words)
    lexicon = build_lexicon([{"id": "c1", "name": f"{name} {tail}"}])
    raw = name.encode()
    run = raw.hex() if hexed else base64.b64encode(raw).decode().rstrip("=")
    result = check_statement(f"Account {run} complained about session timeouts.", lexicon)
    assert any(h.rule.endswith("the whole run") for h in result.hits), (run, result.hits)
    decoded_in_a_sentence = base64.b64encode(f"the {name.lower()} trail was muddy".encode()).decode()
    assert check_statement(f"Log line {decoded_in_a_sentence} was kept.", lexicon).passed
