"""Every de-id probe set the guide reports, and the PAWS-Wiki clean sweep, in one run (docs/deid.md's tables).

    python bench/deid_sets.py [SET ...]   # sets: dev redteam fresh h30dev h30hold realdev realhold classes-fit
                                          #       classes-report conll-train blind2 ... blind11 paws; default: all present

The class probes' second part (tests/data/deid_classes/report.jsonl) was measured once as held out and is fit data
since. Each blind set (tests/data/deid_blindN/) is measured once, by hand, after the rules are done; from then on
it is fit data and runs here (blind2 to blind11); the newest blind set is never added before its one measurement. The CoNLL-2003 cases are generated outside the repository
(tests/data/deid_conll/make_cases.py into /work/conll/cases_train); only the train split is run. PAWS-Wiki dev
(/work/shared/eval/external/paws_wiki_dev.tsv): its distinct sentences are clean text, screened against the dev
lexicon and the red-team one; the sentences that fail are written to bench/out/deid-paws-*.txt with their hits.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

from vmem.gates.deid import check_statement
from vmem.ops.eval_deid import evaluate_deid, lexicon_from_dir, read_cases

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
STORES = [ROOT / "src" / "vmem" / "examples" / "store", DATA / "deid_redteam"]
CONLL = Path("/work/conll/cases_train")
PAWS = Path("/work/shared/eval/external/paws_wiki_dev.tsv")
SETS = {
    "dev": (DATA / "deid" / "cases_dev.jsonl", [DATA / "deid" / "store"]),
    "redteam": (DATA / "deid_redteam" / "cases_redteam.jsonl", STORES),
    "fresh": (DATA / "deid_fresh" / "cases_fresh.jsonl", STORES),
    "h30dev": (DATA / "deid_h30" / "cases_dev.jsonl", STORES + [DATA / "deid_h30"]),
    "h30hold": (DATA / "deid_h30" / "cases_holdout.jsonl", STORES + [DATA / "deid_h30"]),
    "realdev": (DATA / "deid_realtext" / "cases_dev.jsonl", STORES),
    "realhold": (DATA / "deid_realtext" / "cases_holdout.jsonl", STORES),
    "classes-fit": (DATA / "deid_classes" / "fit.jsonl", [DATA / "deid_classes"]),
    "classes-report": (DATA / "deid_classes" / "report.jsonl", [DATA / "deid_classes"]),
    "conll-train": (CONLL / "cases.jsonl", [CONLL]),
    **{f"blind{n}": (DATA / f"deid_blind{n}" / "report.jsonl", [DATA / f"deid_blind{n}"]) for n in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)},
}


def paws_sentences() -> list[str]:
    sentences = set()
    with PAWS.open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) >= 3 and row[0] != "id":
                sentences.update(row[1:3])
    return sorted(sentences)


def main(wanted: list[str]) -> None:
    for name, (path, roots) in SETS.items():
        if wanted and name not in wanted or not path.exists():
            continue
        started = time.perf_counter()
        report = evaluate_deid(read_cases(path), lexicon_from_dir(*roots))
        print(f"{name:12} {report['caught']}/{report['leaks']} caught, {report['false_quarantines']}/"
              f"{report['clean']} false ({time.perf_counter() - started:.1f} s); missed {report['missed']}; "
              f"false {report['false']}", flush=True)
    if (not wanted or "paws" in wanted) and PAWS.exists():
        sentences = paws_sentences()
        out = ROOT / "bench" / "out"
        out.mkdir(exist_ok=True)
        for name, roots in (("dev", [DATA / "deid" / "store"]), ("red-team", STORES)):
            lexicon = lexicon_from_dir(*roots).lexicon({})
            failed = [(s, check_statement(s, lexicon)) for s in sentences]
            failed = [(s, r) for s, r in failed if not r.passed]
            (out / f"deid-paws-{name}.txt").write_text(
                "".join(f"{s}\t{'; '.join(h.describe() for h in r.hits)}\n" for s, r in failed), encoding="utf-8")
            print(f"paws ({name} lexicon): {len(failed)}/{len(sentences)} clean sentences quarantined", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
