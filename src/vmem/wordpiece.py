"""BERT WordPiece tokenization in plain Python, for a one-shot query.

The `tokenizers` library takes ~60 ms to build its tokenizer from tokenizer.json; a fresh `vmem recall` encodes
one short question, which this does in well under a millisecond, its vocabulary looked up in a SQLite copy that
the first process to parse tokenizer.json leaves in the user cache (load_cached). It accepts only the
configuration of the bundled model (BertNormalizer, BertPreTokenizer, WordPiece, special tokens that are not
normalized) and gives the same ids as `tokenizers` for it on text that `supports` (tests/test_wordpiece.py compares
them on random text); for anything else the caller uses `tokenizers`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class WordPiece:
    def __init__(self, vocab: dict[str, int], unknown: str, prefix: str, max_chars: int, specials: list[str],
                 lowercase: bool, strip_accents: bool, chinese: bool) -> None:
        self.config = (unknown, prefix, max_chars, specials, lowercase, strip_accents, chinese)
        self.vocab, self.unknown, self.prefix, self.max_chars = vocab, unknown, prefix, max_chars
        self.lowercase, self.strip_accents, self.chinese = lowercase, strip_accents, chinese
        self.specials = re.compile("|".join(map(re.escape, sorted(specials, key=len, reverse=True)))) \
            if specials else None

    @staticmethod
    def supports(text: str) -> bool:
        """Characters both Unicode databases agree on: ones already assigned in Unicode 3.2. Python's and the
        tokenizers crate's tables are of different Unicode versions, and a character one of them does not know yet
        is dropped by one and kept by the other; such text goes to `tokenizers`."""
        return all(c < "\u0370" or unicodedata.ucd_3_2_0.category(c) != "Cn" for c in text)

    def ids(self, text: str) -> list[int]:
        out: list[int] = []
        at = 0
        for match in self.specials.finditer(text) if self.specials else ():
            out += self._ids(text[at:match.start()])
            out.append(self.vocab[match.group()])
            at = match.end()
        return out + self._ids(text[at:])

    def _normalize(self, text: str) -> str:
        chars = []
        for c in text:
            if c in "\t\n\r":
                chars.append(" ")
            elif c == "\x00" or c == "\ufffd" or unicodedata.category(c)[0] == "C":
                continue
            elif c.isspace():
                chars.append(" ")
            elif self.chinese and any(lo <= ord(c) <= hi for lo, hi in _CJK):
                chars.append(f" {c} ")
            else:
                chars.append(c)
        text = "".join(chars)
        if self.strip_accents:
            text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
        if self.lowercase:
            text = "".join(c.lower() for c in text)  # per character, as Rust does (no final-sigma rule)
        return text

    def _ids(self, text: str) -> list[int]:
        out: list[int] = []
        for word in self._normalize(text).split():
            piece = []
            for c in word:
                if c in _ASCII_PUNCT or unicodedata.category(c).startswith("P"):
                    if piece:
                        out += self._word("".join(piece))
                        piece = []
                    out += self._word(c)
                else:
                    piece.append(c)
            if piece:
                out += self._word("".join(piece))
        return out

    def _word(self, word: str) -> list[int]:
        if len(word) > self.max_chars:
            return [self.vocab[self.unknown]]
        ids, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                sub = word[start:end] if start == 0 else self.prefix + word[start:end]
                if sub in self.vocab:
                    ids.append(self.vocab[sub])
                    break
                end -= 1
            if end == start:
                return [self.vocab[self.unknown]]
            start = end
        return ids


def load(path: Path) -> WordPiece | None:
    """The tokenizer in PATH (a tokenizer.json) if it is a configuration this module reproduces exactly, else None."""
    try:
        return _from_spec(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def _from_spec(spec: dict) -> WordPiece | None:
    try:
        norm, pre, model = spec.get("normalizer") or {}, spec.get("pre_tokenizer") or {}, spec.get("model") or {}
        specials = spec.get("added_tokens") or []
        if (norm.get("type") != "BertNormalizer" or pre != {"type": "BertPreTokenizer"}
                or model.get("type") != "WordPiece" or norm.get("clean_text") is not True
                or any(t.get("normalized") or t.get("single_word") or t.get("lstrip") or t.get("rstrip")
                       or t.get("content") not in model["vocab"] for t in specials)):
            return None
        lowercase = bool(norm.get("lowercase"))
        strip = norm.get("strip_accents")
        return WordPiece(model["vocab"], model["unk_token"], model.get("continuing_subword_prefix") or "##",
                         int(model.get("max_input_chars_per_word") or 100), [t["content"] for t in specials],
                         lowercase, lowercase if strip is None else bool(strip), bool(norm.get("handle_chinese_chars")))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class StoredVocab:
    """A vocabulary kept in SQLite: a question looks up a few dozen pieces instead of parsing the whole
    tokenizer.json (~30k entries, ~8 ms) in every one-shot process. Reads like the dict it was written from."""

    def __init__(self, db) -> None:
        self.db = db
        self._seen: dict[str, int | None] = {}

    def get(self, token: str, default=None):
        if token not in self._seen:
            row = self.db.execute("SELECT id FROM vocab WHERE token = ?", (token,)).fetchone()
            self._seen[token] = None if row is None else row[0]
        found = self._seen[token]
        return default if found is None else found

    def __contains__(self, token: str) -> bool:
        return self.get(token) is not None

    def __getitem__(self, token: str) -> int:
        found = self.get(token)
        if found is None:
            raise KeyError(token)
        return found


CACHE_VERSION = 1


def load_cached(path: Path) -> WordPiece | None:
    """load(), through a copy of the vocabulary and configuration in the user cache directory, keyed by the file's
    path, size and modification time (written by the first process that parses it; losing it only costs time)."""
    import marshal
    import sqlite3

    cached = _cache_path(Path(path))
    try:
        if cached is not None and cached.is_file():
            db = sqlite3.connect(f"file:{cached}?mode=ro", uri=True)
            config = db.execute("SELECT value FROM config").fetchone()
            if config is not None:
                return WordPiece(StoredVocab(db), *marshal.loads(config[0]))
            db.close()
    except (OSError, sqlite3.Error, ValueError, EOFError, TypeError):
        pass
    found = load(path)
    if found is not None and cached is not None:
        _store(cached, found)
    return found


def _cache_path(path: Path) -> Path | None:
    import hashlib

    from vmem.store.cache import cache_home

    try:
        stat = path.stat()
    except OSError:
        return None
    key = hashlib.sha256(f"{CACHE_VERSION}\0{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return cache_home() / "wordpiece" / f"{key.hexdigest()[:16]}.sqlite"


def _store(cached: Path, found: WordPiece) -> None:
    """Write FOUND's vocabulary and configuration to CACHED atomically (a temp file, then os.replace)."""
    import marshal
    import os
    import sqlite3

    tmp = cached.with_name(f".{cached.name}.tmp{os.getpid()}")
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp.unlink(missing_ok=True)
        db = sqlite3.connect(str(tmp))
        try:
            db.execute("CREATE TABLE vocab (token TEXT PRIMARY KEY, id INTEGER) WITHOUT ROWID")
            db.execute("CREATE TABLE config (value BLOB)")
            db.executemany("INSERT INTO vocab VALUES (?, ?)", found.vocab.items())
            db.execute("INSERT INTO config VALUES (?)", (marshal.dumps(found.config),))
            db.commit()
        finally:
            db.close()
        os.replace(tmp, cached)
    except (OSError, sqlite3.Error):
        tmp.unlink(missing_ok=True)
