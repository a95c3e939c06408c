"""Make the real-text de-id probes from PAWS-Wiki dev sentences (Wikipedia prose, Google LLC; see README.md).

Leaks: one capitalised word standing alone in a name position of a real sentence (not the first word; after a
verb, a preposition or a comma; before punctuation, a function word or the end) replaced by a contact's
surname, a fifth of them in an all-caps headline. Clean: the same kind of word replaced by a contact's surname
behind another capitalised word (another person: "Paul Dewar"), and real sentences as they are. Sentences with
an even PAWS id go to cases_dev.jsonl (fitted on), odd ids to cases_holdout.jsonl (measured, never fitted on).

    python tests/data/deid_realtext/make_cases.py /work/shared/eval/external/paws_wiki_dev.tsv
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
SURNAMES = ["Whitcombe", "Asante", "Holmberg", "Marchetti", "Pryce", "Dewar", "Castellanos", "Fairweather",
            "Lindqvist", "Achterberg", "Russo", "Tamblyn", "Arroyo", "Larrañaga", "Delaney", "Hoekstra", "Said",
            "Farr-Jones"]
AFTER = {"in", "on", "at", "and", "of", "to", "was", "is", "has", "had", "from", "with", "for", "by", "who",
         "were", "as", "after", "before", "but", "or", "also", "later", "then", "became", "played", "won"}
BEFORE_NOT = {"the", "a", "an", "of"}


def detokenize(text: str) -> str:
    text = text.replace("`` ", '"').replace(" ''", '"').replace("( ", "(").replace(" )", ")")
    text = re.sub(r" ([,.;:!?%])", r"\1", text)
    return re.sub(r" 's\b", "'s", text).strip()


def slots(words: list[str]) -> list[int]:
    """Indexes of capitalised words standing alone in a name position."""
    out = []
    for i in range(1, len(words)):
        word = words[i]
        if not re.fullmatch(r"[A-Z][a-z]{2,}", word) or words[i - 1][:1].isupper() or \
                words[i - 1].lower() in BEFORE_NOT:
            continue
        after = words[i + 1] if i + 1 < len(words) else "."
        if after[:1].isupper() or not (after in ",.;:)" or after.lower() in AFTER):
            continue
        out.append(i)
    return out


def other_person(words: list[str]) -> list[int]:
    """Indexes of a capitalised word right behind another one (not the sentence's first), in a name position."""
    out = []
    for i in range(2, len(words)):
        if re.fullmatch(r"[A-Z][a-z]{2,}", words[i]) and re.fullmatch(r"[A-Z][a-z]{2,}", words[i - 1]) and \
                not words[i - 2][:1].isupper():
            after = words[i + 1] if i + 1 < len(words) else "."
            if after in ",.;:)" or after.lower() in AFTER:
                out.append(i)
    return out


def main(source: Path) -> None:
    rng = random.Random(30)
    seen: set[str] = set()
    rows = []
    for line in source.read_text(encoding="utf-8").splitlines():
        pid, first, second, _ = line.split("\t")
        for text in (first, second):
            if text not in seen:
                seen.add(text)
                rows.append((int(pid), text))
    for part, parity in (("dev", 0), ("holdout", 1)):
        mine = [(pid, text) for pid, text in rows if pid % 2 == parity]
        rng.shuffle(mine)
        leaks, others, clean = [], [], []
        for pid, text in mine:
            words = text.split()
            surname = SURNAMES[len(leaks) % len(SURNAMES)]
            places = slots(words)
            if places and len(leaks) < 150:
                i = rng.choice(places)
                statement = detokenize(" ".join(words[:i] + [surname] + words[i + 1:]))
                headline = len(leaks) % 5 == 4
                leaks.append({"id": f"rw-{part}-{pid}-{len(leaks)}", "statement": statement.upper() if headline
                              else statement, "leak": True, "variant": "headline" if headline else "surname",
                              "why": f"the contact surname {surname} replaces {words[i]!r} of a real sentence"})
                continue
            people = other_person(words)
            if people and len(others) < 50:
                i = rng.choice(people)
                statement = detokenize(" ".join(words[:i] + [surname] + words[i + 1:]))
                others.append({"id": f"rw-{part}-{pid}-o{len(others)}", "statement": statement, "leak": False,
                               "variant": "another_first_name",
                               "why": f"{words[i - 1]} {surname} is another person than the contact"})
                continue
            if len(clean) < 150 and re.search(r"\s[A-Z][a-z]", text):
                clean.append({"id": f"rw-{part}-{pid}-c", "statement": detokenize(text), "leak": False,
                              "variant": "real_sentence", "why": "a Wikipedia sentence as written"})
        with (HERE / f"cases_{part}.jsonl").open("w", encoding="utf-8") as out:
            for case in leaks + others + clean:
                out.write(json.dumps(dict(case, entity_ids=[]), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
