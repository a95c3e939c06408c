"""Make de-id sweep cases from a CoNLL-2003 file (stdlib only, deterministic).

    python make_cases.py /work/conll/eng.train OUTDIR   # fit
    python make_cases.py /work/conll/eng.testa OUTDIR   # report

Writes OUTDIR/entities/*.yaml (40 ORG spans as customers, 20 two-token PER
spans as their contacts, round-robin), an empty OUTDIR/episodes/ and
OUTDIR/cases.jsonl: every sentence containing a chosen name is a leak; 2,000
sentences containing none are clean. Never run it on eng.testb.
"""
import hashlib
import json
import random
import re
import sys
from pathlib import Path

N_ORG, N_PER, N_CLEAN, SEED = 40, 20, 2000, 2003
REGIONS = ["region:emea", "region:north_america", "region:apac", "region:latam"]


def read_conll(path):
    sents, toks, tags = [], [], []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split()
        if not parts or parts[0] == "-DOCSTART-":
            if toks:
                sents.append((toks, tags))
            toks, tags = [], []
            continue
        toks.append(parts[0])
        tags.append(parts[-1])
    if toks:
        sents.append((toks, tags))
    return sents


def spans(toks, tags, kind):
    """Entity spans of one type; reads IOB1 (CoNLL-2003 as shipped) and IOB2."""
    out, cur = [], []
    for tok, tag in zip(toks, tags):
        pre, _, typ = tag.partition("-")
        if typ == kind and (pre == "I" and cur):
            cur.append(tok)
            continue
        if cur:
            out.append(tuple(cur))
        cur = [tok] if typ == kind else []
    if cur:
        out.append(tuple(cur))
    return out


def pattern(words, case=True):
    """The words as a whole-word match (Ajax, Ajax's, Ajax-led); case-sensitive
    unless case=False. A leak is the name as written or in capitals (headlines)."""
    body = r"\s*".join(re.escape(w) for w in words)
    return re.compile(r"(?<![^\W_])" + body + r"(?![^\W_])", 0 if case else re.IGNORECASE)


def detok(toks):
    s = " ".join(toks)
    s = re.sub(r" ([,.;:!?%)\]}])", r"\1", s)
    s = re.sub(r"([(\[{$]) ", r"\1", s)
    s = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", s)
    return s


def h(name):
    return hashlib.sha1(" ".join(name).encode()).hexdigest()


def slug(name, used):
    base = re.sub(r"[^a-z0-9]+", "-", " ".join(name).lower()).strip("-") or "org"
    s, i = base, 2
    while s in used:
        s, i = f"{base}-{i}", i + 1
    used.add(s)
    return s


def q(s):
    return json.dumps(s, ensure_ascii=False)


def main(src, outdir):
    sents = read_conll(src)
    org_sents, per_names = {}, set()
    for i, (toks, tags) in enumerate(sents):
        for sp in spans(toks, tags, "ORG"):
            org_sents.setdefault(sp, set()).add(i)
        per_names.update(sp for sp in spans(toks, tags, "PER") if len(sp) == 2)
    orgs = sorted((sp for sp, ix in org_sents.items()
                   if len(ix) >= 2 and any(c.isalpha() for c in "".join(sp))), key=h)[:N_ORG]
    people = sorted((sp for sp in per_names if all(t[:1].isupper() for t in sp)), key=h)[:N_PER]
    out = Path(outdir)
    (out / "entities").mkdir(parents=True, exist_ok=True)
    (out / "episodes").mkdir(parents=True, exist_ok=True)
    used, owner = set(), {}
    for k, org in enumerate(orgs):
        eid = slug(org, used)
        mine = [p for j, p in enumerate(people) if j % N_ORG == k]
        for p in mine:
            owner[p] = eid
        owner[org] = eid
        lines = [f"id: {eid}", f"name: {q(' '.join(org))}", "aliases: []", "domains: []",
                 "people: [" + ", ".join(q(" ".join(p)) for p in mine) + "]",
                 f"categories: [industry:unknown, {REGIONS[k % len(REGIONS)]}]", "restricted: []"]
        (out / "entities" / f"{eid}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # the name as written, in capitals, and (a name seen only in a headline) in title case
    names = [(n, [pattern(n), pattern([w.upper() for w in n]), pattern([w.title() for w in n])])
             for n in orgs + people]
    # neither leak nor clean, so left out: a name in other casing ("labour" for
    # the party Labour) and a contact's surname alone
    unsure = [pattern(n, case=False) for n in orgs + people] + [pattern(p[-1:], False) for p in people]
    leaks, clean = [], []
    for i, (toks, tags) in enumerate(sents):
        text = detok(toks)
        hit = [n for n, forms in names if any(rx.search(text) for rx in forms)]
        if hit:
            ids = sorted({owner[n] for n in hit})
            kind = "conll_org" if any(n in orgs for n in hit) else "conll_person"
            leaks.append({"id": f"c{i:05d}", "statement": text, "leak": True,
                          "entity_ids": ids, "variant": kind,
                          "why": "names " + "; ".join(" ".join(n) for n in hit)})
        elif len(toks) >= 4 and not any(rx.search(text) for rx in unsure):
            clean.append(i)
    pick = sorted(random.Random(SEED).sample(clean, min(N_CLEAN, len(clean))))
    rows = leaks + [{"id": f"c{i:05d}", "statement": detok(sents[i][0]), "leak": False,
                     "entity_ids": [], "variant": "conll_clean",
                     "why": "no chosen name"} for i in pick]
    rows.sort(key=lambda r: r["id"])
    with open(out / "cases.jsonl", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{src}: {len(sents)} sentences, {len(orgs)} orgs, {len(people)} people, "
          f"{len(leaks)} leaks, {len(pick)} clean -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    if "testb" in sys.argv[1]:
        sys.exit("eng.testb is the held-back test split; not used here")
    main(sys.argv[1], sys.argv[2])
