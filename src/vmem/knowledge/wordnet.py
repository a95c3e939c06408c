"""Synonyms from WordNet for the merge judge: two words align when one of their most frequent senses is the
same synset ("route" and "send", "rival" and "competitor"). Data: models/wordnet/ (scripts/build_wordnet.py)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_DATA = _HERE.parent / "models" / "wordnet" / "synsets.tsv.gz"
# what the table is derived from: the data, and the parser's normalisation of a word (its code and its tables)
_SOURCES = (_DATA, _HERE / "parsing.py", _HERE / "tables.py")


@lru_cache(maxsize=1)
def _synsets() -> dict[str, tuple[int, ...]]:
    """Normalised token (as the judge's parser writes it) -> ids of the synsets its words share with others.

    Normalising the 34,577 words takes ~185 ms, which every `vmem propose` that meets a near twin paid; the table is
    kept in the user cache under a digest of what it is derived from (~10 ms to read), so a change to the data, the
    parser or its tables derives it again."""
    from vmem import digest
    from vmem.store.cache import cache_home, read_cache, write_cache

    try:
        key = digest.sha256(b"".join(p.read_bytes() for p in _SOURCES)).hexdigest()[:16]
    except OSError:
        key = None  # (a source not on disk, e.g. a zipped install: derived each time, as before)
    path = cache_home() / "wordnet" / f"{key}.marshal" if key else None
    cached = read_cache(path) if path else None
    if cached is not None and isinstance(cached.get("table"), dict):
        return cached["table"]
    table = _derive()
    if path:
        write_cache(path, {"table": table})
    return table


def _derive() -> dict[str, tuple[int, ...]]:
    import gzip
    from importlib import resources

    from vmem.knowledge.parsing import normalise_word

    data = resources.files("vmem").joinpath("models/wordnet/synsets.tsv.gz").read_bytes()
    out: dict[str, set[int]] = {}
    for line in gzip.decompress(data).decode("utf-8").splitlines():
        word, _, ids = line.partition("\t")
        out.setdefault(normalise_word(word), set()).update(map(int, ids.split(",")))
    return {token: tuple(sorted(ids)) for token, ids in out.items()}


def synonyms(x: str, y: str) -> bool:
    """Whether normalised tokens X and Y share a frequent WordNet sense."""
    table = _synsets()
    first, second = table.get(x), table.get(y)
    return bool(first and second and not set(first).isdisjoint(second))
