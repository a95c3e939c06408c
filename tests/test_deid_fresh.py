"""The fresh red-team probes (tests/data/deid_fresh/, written by a teammate who read neither the gate nor the
earlier probes) and the mechanisms they led to.

Measured once before any change (the held-out number): 110/126 leaks caught, 1/47 clean statements quarantined.
Then mechanisms were added for the classes it missed, each with examples of its own below (not the probes'):
bidi controls read every way a renderer may show them, decimal commas / spoken fractions / apostrophe
separators / a unit before its number, identifiers by their parts, letters drawn with several signs, two
contacts' first names together, contacts' full names transliterated, quotes retyped with typos. After: 124/126
(fitted: the counts below are training numbers now); the two left are "KF" for Kestrel Freight (initials) and a
quote translated into French.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmem.gates.deid import build_lexicon, check_statement
from vmem.ops.eval_deid import lexicon_from_dir

ROOT = Path(__file__).parent
CASES = [json.loads(line) for line in (ROOT / "data" / "deid_fresh" / "cases_fresh.jsonl").read_text()
         .splitlines() if line.strip()]
INPUTS = lexicon_from_dir(ROOT.parent / "src" / "vmem" / "examples" / "store", ROOT / "data" / "deid_redteam")
KNOWN_MISSES = {"fr083", "fr126"}  # initials; a translated quote
MAX_FALSE_QUARANTINES = 0  # fr148 ("Edward Said's") passes since issue 30: another first name before a surname


def passes(statement: str, lexicon=None) -> bool:
    return check_statement(statement, lexicon or INPUTS.lexicon({})).passed


def test_fresh_probes_caught_and_false_quarantines():
    missed = {c["id"] for c in CASES if c["leak"] and passes(c["statement"])}
    quarantined = {c["id"] for c in CASES if not c["leak"] and not passes(c["statement"])}
    leaks = sum(c["leak"] for c in CASES)
    print(f"\nfresh probes: leaks caught {leaks - len(missed)}/{leaks}, false quarantines "
          f"{len(quarantined)}/{len(CASES) - leaks}; missed {sorted(missed)}; quarantined {sorted(quarantined)}")
    assert missed <= KNOWN_MISSES
    assert len(quarantined) <= MAX_FALSE_QUARANTINES


ACME = build_lexicon([{
    "id": "acme", "name": "Bramblecote Logistics", "aliases": ["Bramblecote"], "domains": ["bramblecote.example"],
    "people": ["Ingrid Halvorsen", "Tobias Wren"],
    "restricted": ["4,200 seats", "PO-BRM-2025-0073", "$1,250,000"]}],
    [{"entity": "acme", "quotes": ["our warehouse team refuses to learn another scanning tool this year"]}])


@pytest.mark.parametrize("statement", [
    "As \u2067\u202enesrovlaH dirgnI\u202c\u2069 put it, audits come first.",  # override nested in an isolate
    "Buyers near 4,2 thousand seats want SSO.",  # decimal comma before a scale word
    "Buyers with 4\u2019200 seats want SSO.",  # an apostrophe between thousands
    "Seats: 4,200, and every one of them needs SSO.",  # the unit before the number
    "Budgets of one and a quarter million dollars need a CFO sign-off.",  # spoken fraction of a scale
    "The BRM PO 2025-73 tender needed SSO.",  # identifier parts, reordered, a leading zero dropped
    "The PO-BRM-2O25-OO73 tender needed SSO.",  # letters for digits inside the identifier
    "|3ramblecote asked for a pilot.",  # a letter drawn with two signs
    "Br@mbl€cote asked for a pilot.",  # currency signs for letters
    "Ingrid and Tobias both wanted the pilot extended.",  # two contacts' first names together
    "Инград Халворсен approved the pilot.",  # a contact's full name in Cyrillic (sound-alike)
    "Buyers say our warehous team refuses to lern another scaning tool this year.",  # a quote with typos
])
def test_each_new_mechanism_catches_its_class(statement):
    assert not passes(statement, ACME), statement


@pytest.mark.parametrize("statement", [
    "Buyers near 4,200 rows of data want exports.",  # the count with another unit
    "Ingrid Bergman films are not a buying signal.",  # a first name alone, no cue, one contact only
    "The 2025 budget cycle slowed every PO.",  # a year and an acronym, not the identifier
    "Warehouse teams rarely want another scanning tool mid-year.",  # the quote's theme in other words
    "Costs of 1,3 million dollars are rare in this segment.",  # near the restricted amount, not it
])
def test_the_new_mechanisms_leave_these_alone(statement):
    assert passes(statement, ACME), statement
