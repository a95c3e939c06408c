"""Red-team probes for the de-id gate (issue 11): our own leaks and clean statements, scored like the dev set.

The probes live in tests/data/deid_redteam/cases_redteam.jsonl and were written by us, not drawn from held-out
data; the lexicon is the seeded example store plus one fixture customer (Kestrel Freight) that carries the
false-positive shapes seen on real text (a contact named Said, a restricted identifier holding a year, a
hyphenated surname). The lexicon is built the way publish builds it, through GateInputs.
Before issue 11's work: 19/65 leaks caught, 14/31 false quarantines. The gate's rules were then fitted on
these probes and the dev set, so the counts below are training numbers, not a held-out measure; the six
foreign_text clean probes were written after the last rule, as a precision check on it.
"""

from __future__ import annotations

import json
from pathlib import Path

from vmem.gates.publish import deid
from vmem.ops.eval_deid import lexicon_from_dir

ROOT = Path(__file__).parent
STORES = [ROOT.parent / "src" / "vmem" / "examples" / "store", ROOT / "data" / "deid_redteam"]
CASES = [json.loads(line) for line in (ROOT / "data" / "deid_redteam" / "cases_redteam.jsonl").read_text()
         .splitlines() if line.strip()]
# what the gate reaches on these probes (the test prints the counts); keep them from sliding back
MIN_LEAKS_CAUGHT = 65
# one: a Russian loanword ("дашборды", dashboards) that no word list has is held as a name the gate cannot
# compare; a word in another script is held unless it is an ordinary word of that script's languages
MAX_FALSE_QUARANTINES = 1


INPUTS = lexicon_from_dir(*STORES)  # built the way publish builds it, through GateInputs


def verdict(case: dict):
    evidence = [{"entity": e} for e in case["entity_ids"]] or [{"entity": "kestrel-freight"}]
    return deid({"statement": case["statement"], "evidence": evidence}, INPUTS)


def score() -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    leaks = [c for c in CASES if c["leak"]]
    clean = [c for c in CASES if not c["leak"]]
    missed = [c for c in leaks if verdict(c).passed]
    quarantined = [c for c in clean if not verdict(c).passed]
    return leaks, clean, missed, quarantined


def test_probe_set_covers_every_kind():
    assert sum(c["leak"] for c in CASES) >= 60 and sum(not c["leak"] for c in CASES) >= 30


def test_redteam_leaks_caught_and_false_quarantines():
    leaks, clean, missed, quarantined = score()
    print(f"\nred-team: leaks caught {len(leaks) - len(missed)}/{len(leaks)}, "
          f"false quarantines {len(quarantined)}/{len(clean)}")
    print("missed: " + ", ".join(f"{c['id']}:{c['variant']}" for c in missed))
    print("false quarantines: " + ", ".join(f"{c['id']}:{c['variant']}" for c in quarantined))
    assert len(leaks) - len(missed) >= MIN_LEAKS_CAUGHT
    assert len(quarantined) <= MAX_FALSE_QUARANTINES
