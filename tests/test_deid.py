"""The de-identification gate: every labeled leak caught, false quarantines measured, variants property-tested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmem.gates.deid import build_lexicon, check_statement, dates_in, quantities_in
from vmem.store import codec

DATA = Path(__file__).parent / "data" / "deid"
ENTITIES = [codec.load(p.read_bytes(), str(p)) for p in sorted((DATA / "store" / "entities").glob("*.yaml"))]
EPISODES = {p.parent.name: codec.load(p.read_bytes(), str(p))
            for p in sorted((DATA / "store" / "episodes").glob("*/*.yaml"))}
CASES = [json.loads(line) for line in (DATA / "cases_dev.jsonl").read_text().splitlines() if line.strip()]
MAX_FALSE_QUARANTINE = 0.05  # measured 1/30 = 3.3 % (dd058: a placeholder "Acme Corp" collides with alias Acme)


def _verdict(case):
    entity = case["entity_ids"][0] if case["entity_ids"] else ENTITIES[0]["id"]
    return check_statement(case["statement"], build_lexicon(ENTITIES, [EPISODES[entity]]))


def test_every_labeled_leak_is_caught_and_false_quarantines_stay_rare():
    missed = [c["id"] for c in CASES if c["leak"] and _verdict(c).passed]
    assert missed == []
    clean = [c for c in CASES if not c["leak"]]
    false_quarantines = [c["id"] for c in clean if not _verdict(c).passed]
    assert len(false_quarantines) / len(clean) <= MAX_FALSE_QUARANTINE, false_quarantines


@pytest.mark.parametrize("case", [c for c in CASES if c["leak"]], ids=lambda c: f"{c['id']}-{c['variant']}")
def test_each_leak_names_what_to_remove(case):
    verdict = _verdict(case)
    assert not verdict.passed and verdict.reason.startswith("names a customer: ")


def test_values_are_compared_normalised():
    assert {q.value for q in quantities_in("$1.2M")} == {1_200_000}
    assert {q.value for q in quantities_in("1,200,000 dollars")} == {1_200_000}
    assert {q.value for q in quantities_in("$1.2 million")} == {1_200_000}
    assert {q.value for q in quantities_in("188K USD")} == {188_000}
    assert {str(d) for d in dates_in("March 14, 2026 / 14 March 2026 / 2026-03-14")} == {"2026-03-14"}
    assert {str(d) for d in dates_in("03/04/2026")} == {"2026-03-04", "2026-04-03"}  # ambiguous: both, fail closed


LEXICON = build_lexicon([{
    "id": "acme", "name": "Acme Health", "aliases": ["AcmeHealth", "ACMH", "Quillon Pay"],
    "domains": ["acme-health.com"], "people": ["Priya Raman"], "categories": [],
    "restricted": ["$1.2M ARR", "March 14, 2026", "750,000 monthly active wallets"],
}], [{"id": "ep", "entity": "acme", "quotes": ["We will not sign anything until legal has redlined the DPA."]}])

CLEAN_WORDS = ["customers", "healthcare", "security", "review", "before", "the", "buyers", "renewal", "usually",
               "ask", "for", "audit", "logs", "teams", "weeks", "procurement", "a", "and", "in", "health", "acmes"]
HOMOGLYPHS = {"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "i": "і"}


def variants(term: str) -> st.SearchStrategy[str]:
    """The ways people (and evaders) write a term: case, possessive, plural, joiners, zero-width, look-alikes."""
    words = term.split()

    @st.composite
    def build(draw):
        joiner = draw(st.sampled_from([" ", "-", "", "_", " - ", "\u200b", "-\u200b"]))
        text = joiner.join(words) if len(words) > 1 else term
        text = draw(st.sampled_from([text, text.upper(), text.lower(), text.title()]))
        if draw(st.booleans()):
            swaps = draw(st.sets(st.sampled_from(sorted(HOMOGLYPHS)), max_size=3))
            text = "".join(HOMOGLYPHS[ch] if ch in swaps else ch for ch in text)
        if draw(st.booleans()):
            position = draw(st.integers(1, max(1, len(text) - 1)))
            text = text[:position] + "\u200d" + text[position:]
        text += draw(st.sampled_from(["", "'s", "’s", "s", "s'"]))
        return text
    return build()


@settings(max_examples=130, deadline=None)
@given(term=st.sampled_from(["Acme Health", "AcmeHealth", "ACMH", "Quillon Pay", "Priya Raman"]).flatmap(variants),
       before=st.lists(st.sampled_from(CLEAN_WORDS), max_size=8),
       after=st.lists(st.sampled_from(CLEAN_WORDS), max_size=8),
       punctuation=st.sampled_from(["", ",", ".", ";", ":", "!", "?", ")"]))
def test_any_lexicon_term_in_any_variant_inside_clean_text_is_caught(term, before, after, punctuation):
    statement = " ".join([*before, term + punctuation, *after])
    assert not check_statement(statement, LEXICON).passed, statement


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(CLEAN_WORDS + ["acmeville", "healthy", "rama", "quill", "payroll", "2025",
                                               "$1M", "20%", "three", "weeks"]), min_size=1, max_size=15))
def test_clean_text_made_of_ordinary_words_passes(words):
    statement = " ".join(words)
    assert check_statement(statement, LEXICON).passed, statement


@pytest.mark.parametrize("statement", [
    "Deals around $1.2 million ARR need the CFO.", "Deals around 1,200,000 dollars need the CFO.",
    "Renewal on 14 March 2026 is firm.", "Renewal on 2026-03-14 is firm.", "Renewal on 3/14/2026 is firm.",
    "Email priya.raman@acme-health.com first.", "See https://vendors.acme-health.com/security.",
    "Ms. Raman wants the audit trail.", "P. Raman wants the audit trail.",
    "They said they will not sign anything until legal has redlined the DPA.",
    "We won't sign anything until legal has redlined the DPA",
    "Wallet counts near 750K monthly actives matter.",
])
def test_reformatted_values_contacts_and_quotes_are_caught(statement):
    assert not check_statement(statement, LEXICON).passed


def test_generic_values_and_example_addresses_pass():
    for statement in ("Deals under $25k go self-serve.", "Legal teams want DPA redlines before signing.",
                      "Send questionnaires to security@example.com, not to people.", "Plan renewals in March."):
        assert check_statement(statement, LEXICON).passed, statement


# Evasions seen on held-out and red-team data (issue 11): look-alike letters outside any hand table, invisible
# fillers and bidi marks, leetspeak and spelled-out letters. Each draws from Unicode data, not from our table.
LOOKALIKES = {"a": "аɑ𝐚ａ", "c": "сᴄ𝐜", "e": "еᴇ𝐞", "o": "оօᴏ𝐨ο", "i": "іɪ𝐢", "p": "рᴘ𝐩", "m": "ᴍ𝐦", "h": "һ𝐡",
              "n": "ɴ𝐧", "y": "у𝐲", "r": "ʀ𝐫", "l": "ⅼ𝐥ӏ"}
INVISIBLES = ["\u200b", "\u3164", "\uffa0", "\u200e", "\u200f", "\ufe0f", "\u2060", "\U000e0020", "\u115f", "\u034f"]
LEET = {"a": "4@", "e": "3", "o": "0", "i": "1!", "l": "1|", "s": "5$", "t": "7"}


def evasions(term: str) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw):
        text = draw(st.sampled_from([term, term.lower(), term.upper(), term.title()]))
        kind = draw(st.sampled_from(["lookalike", "invisible", "leet", "spaced"]))
        letters = list(text)
        positions = [i for i, ch in enumerate(letters) if ch.isalpha()]
        chosen = draw(st.sets(st.sampled_from(positions), min_size=1, max_size=4))
        if kind == "spaced":
            joiner = draw(st.sampled_from([" ", "-", ".", "_", " . "]))
            return joiner.join(ch for ch in text if ch != " ")
        for i in sorted(chosen, reverse=True):
            ch = letters[i]
            if kind == "lookalike" and ch.lower() in LOOKALIKES:
                swap = draw(st.sampled_from(LOOKALIKES[ch.lower()]))
                letters[i] = swap.upper() if ch.isupper() and swap.upper() != swap and len(swap.upper()) == 1 else swap
            elif kind == "invisible" and 0 < i:
                letters.insert(i, draw(st.sampled_from(INVISIBLES)))
            elif kind == "leet" and ch.lower() in LEET and 0 < i:
                letters[i] = draw(st.sampled_from(LEET[ch.lower()]))
        return "".join(letters)
    return build()


@settings(max_examples=130, deadline=None)
@given(term=st.sampled_from(["Acme Health", "AcmeHealth", "Quillon Pay", "Priya Raman"]).flatmap(evasions),
       before=st.lists(st.sampled_from(CLEAN_WORDS), max_size=6),
       after=st.lists(st.sampled_from(CLEAN_WORDS), max_size=6))
def test_lookalikes_invisibles_leetspeak_and_spelled_out_letters_are_caught(term, before, after):
    statement = " ".join([*before, term, *after])
    assert not check_statement(statement, LEXICON).passed, repr(statement)


def test_a_right_to_left_override_that_displays_a_name_is_caught():
    assert not check_statement("Buyers at \u202ehtlaeH emcA\u202c want audit logs.", LEXICON).passed


PRECISION = build_lexicon([{"id": "kestrel", "name": "Kestrel Freight", "aliases": ["Ashgrove"],
                             "people": ["Omar Said", "Nick Farr-Jones", "Callum Dewar"],
                             "restricted": ["SCC-RFP-2026-014", "4,200 seats"]}])


@pytest.mark.parametrize("statement", [
    # regression: a dropped possessive shifted the capitalisation check onto the next word, so "said" read as
    # the contact Said (18 of the 31 false quarantines on real news)
    "The bank's CISO said the audit will widen.",
    "Plan the 2026 budget around security reviews.",  # a year alone is not SCC-RFP-2026-014
    "The nightly job loaded 4,200 rows.",  # a restricted count needs its unit
    "Dean Jones runs onboarding.",  # Jones is not Farr-Jones
    "Labs keep Dewar flasks next to the freezers.",  # a surname alone needs a name-like context
    "What he said was important, and what she said had weight.",  # lower case needs a strong cue
    "The ash grove behind the office hosts the offsite.",  # lower-case common words, not Ashgrove
    "Kestrel flies at dawn. Freight moves at night.",  # a name never spans a sentence boundary
])
def test_precision_rules_keep_ordinary_text_clean(statement):
    assert check_statement(statement, PRECISION).passed, statement


@pytest.mark.parametrize("statement", [
    "Said insisted on pallet audits.", "Ask Dewar before the pilot.", "Mr Farr-Jones wants audits.",
    "Bid SCC-RFP-2026-014 closes soon.", "Rollouts of 4,200 seats need SSO.", "dewar said the pilot works.",
    "Dewar was clear about the pilot.", "Dewar approved it.",
])
def test_the_same_names_and_values_in_context_are_caught(statement):
    assert not check_statement(statement, PRECISION).passed, statement


@pytest.mark.parametrize("written", [
    "2026-03-14", "2026.03.14", "2026/03/14", "20260314", "14-03-2026", "03-14-2026", "14.03.2026", "3/14/26",
    "14 Mar '26", "March 14, 2026", "the fourteenth of March 2026", "March fourteenth, 2026",
])
def test_a_restricted_date_in_any_written_format_is_the_same_date(written):
    assert not check_statement(f"Renewal on {written} is firm.", LEXICON).passed, written


@pytest.mark.parametrize("written", ["1.200.000 USD", "1.200.000 dollars", "one million two hundred thousand dollars",
                                     "seven hundred fifty thousand monthly active wallets",
                                     "one point two million dollars", "one-point-two million dollars",
                                     "1 point 2 million dollars", "1.2 million dollars"])
def test_amounts_and_counts_in_words_and_european_grouping_are_values(written):
    assert not check_statement(f"Deals like {written} need the CFO.", LEXICON).passed, written


def test_eval_deid_reports_caught_false_and_the_rule_behind_each_hit(vmem, tmp_path):
    data = vmem.json("eval", "deid", str(DATA / "cases_dev.jsonl"), "--lexicon", str(DATA / "store"))["data"]
    assert (data["leaks"], data["caught"], data["missed"]) == (30, 30, [])
    assert data["clean"] == 30 and data["false"] == ["dd058"]
    assert sum(data["by_rule"].values()) >= 30 and all(":" in rule for rule in data["by_rule"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"statement": "x", "leak": true}\nnot json\n')
    assert "bad.jsonl:2: not JSON" in vmem("eval", "deid", str(bad), "--lexicon", str(DATA / "store"), code=2).stderr


# A one-word name split into lower-case words is ordinary English only when every part is an ordinary word (the
# bundled model's WordPiece vocabulary); one rare part names the customer.
SPLIT = build_lexicon([{"id": "q", "name": "Quillon Payments", "aliases": ["QuillonPay", "Ashgrove"]}])


@pytest.mark.parametrize(("statement", "caught"), [
    ("Renewals with quillon pay slipped a quarter.", True),
    ("Renewals with QuillonPay slipped a quarter.", True),
    ("An ash grove shades the office.", False),
    ("Renewals with Ash Grove slipped a quarter.", True),
])
def test_a_lower_case_split_name_is_caught_unless_every_part_is_ordinary(statement, caught):
    assert (not check_statement(statement, SPLIT).passed) is caught
