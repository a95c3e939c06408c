"""Split PAWS-Wiki dev into a fitting half and a held-out half by a fixed hash of each pair's id.

The merge judge's structural refusals (issue 30) were developed on the fitting half only; the held-out half is
measured, never read. The split depends on nothing but the id: blake2b(id), first byte even -> fit, odd -> held.

    python bench/paws_halves.py /work/shared/eval/external/paws_wiki_dev.tsv OUTDIR
    vmem eval merge OUTDIR/paws_dev_fit.tsv; vmem eval merge OUTDIR/paws_dev_held.tsv
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path


def half(pair_id: str) -> str:
    """ "fit" or "held" for a PAWS id, fixed for all time."""
    return "fit" if hashlib.blake2b(pair_id.encode("utf-8"), digest_size=8).digest()[0] % 2 == 0 else "held"


def main(source: str, outdir: str) -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[str, list[str]] = {"fit": [], "held": []}
    for line in Path(source).read_text(encoding="utf-8").splitlines(keepends=True):
        if line.strip():
            rows[half(line.split("\t", 1)[0])].append(line)
    for name, lines in rows.items():
        (out / f"paws_dev_{name}.tsv").write_text("".join(lines), encoding="utf-8")
        print(f"{name}: {len(lines)} pairs")


if __name__ == "__main__":
    main(*sys.argv[1:3])
