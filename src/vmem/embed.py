"""The embedding model: the bundled model2vec model (or one a store names), loaded lazily and offline."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from vmem.errors import VmemError

BUNDLED_MODEL = "minilm-l6-distill-256"


def bundled_model_dir() -> Path:
    return Path(__file__).parent / "models" / BUNDLED_MODEL


def model_dir(policy: dict | None = None, store_root: Path | None = None) -> Path:
    """The store's model (`index.model` in vmem.yaml, relative to the store) or the bundled one."""
    named = (policy or {}).get("index", {}).get("model")
    if not named:
        return bundled_model_dir()
    path = Path(named).expanduser()
    if not path.is_absolute() and store_root is not None:
        path = store_root / path
    return path


class StaticModel:
    """A model2vec static model read straight from its files (tokenizer.json + model.safetensors).

    model2vec's own loader imports huggingface_hub and takes ~0.9 s here; reading the same two files with
    tokenizers + safetensors takes ~0.2 s and gives the same vectors (mean of token rows, unknown tokens dropped).
    """

    FEW = 4  # up to this many texts (a query), a plain-Python WordPiece saves building the tokenizers one

    def __init__(self, path: Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file

        tensors = load_file(str(path / "model.safetensors"))
        self.embeddings = tensors["embeddings"]
        self.weights = tensors.get("weights")  # optional per-token weights in newer model2vec models
        self.path = path
        self._tokenizer = None
        self._wordpiece: object = False  # not read yet
        self.dim = int(self.embeddings.shape[1])
        self._np = np

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            self._tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))  # ~60 ms
            self._tokenizer.no_truncation()
            self.unknown = self._tokenizer.token_to_id("[UNK]")
        return self._tokenizer

    def _ids(self, texts: list[str]) -> list[list[int]]:
        if self._tokenizer is None and len(texts) <= self.FEW:
            if self._wordpiece is False:
                from vmem import wordpiece

                self._wordpiece = wordpiece.load(self.path / "tokenizer.json")
            if self._wordpiece is not None and all(map(self._wordpiece.supports, texts)):
                self.unknown = self._wordpiece.vocab.get(self._wordpiece.unknown)
                return [self._wordpiece.ids(text) for text in texts]
        tokenizer = self.tokenizer
        return [encoding.ids for encoding in tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)]

    def encode(self, texts: list[str]):
        np = self._np
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, token_ids in enumerate(self._ids(list(texts))):
            ids = [i for i in token_ids[:512] if i != self.unknown]
            if ids:
                vectors = self.embeddings[ids].astype(np.float32)
                if self.weights is not None:
                    vectors *= self.weights[ids, None]
                out[row] = vectors.mean(axis=0)
        return out


@lru_cache(maxsize=2)
def _load(path: str) -> StaticModel:
    directory = Path(path)
    if not (directory / "model.safetensors").is_file() or not (directory / "tokenizer.json").is_file():
        raise VmemError(f"no model2vec model at {path} (needs model.safetensors and tokenizer.json)",
                        "set index.model in vmem.yaml to a model2vec model directory, or null for the bundled one")
    try:
        return StaticModel(directory)
    except Exception as exc:  # noqa: BLE001 - any loading failure is one clear error
        raise VmemError(f"cannot load the embedding model at {path}: {exc}",
                        "set index.model in vmem.yaml to a model2vec model directory") from None


class QueryModel:
    """One question's vector in plain Python, read from the same two files: the rows of its WordPiece ids taken
    from the memory-mapped model.safetensors (no numpy, no safetensors), their mean, unit-normalised. Every recall
    path embeds its question here, so a one-shot process and a long-lived index give the same vector to the same
    cosine kernel (vmem.index.local.dot). Only what it reads exactly: an `embeddings` tensor of I8, F16 or F32, an
    optional `weights` one, a little-endian machine; `table` gives None for anything else (the caller takes the
    numpy model)."""

    DTYPES = {"I8": ("b", 1), "F16": ("e", 2), "F32": ("f", 4)}

    def __init__(self, path: Path, data, offset: int, header: dict) -> None:
        self.path = path
        self._data = data  # the file's bytes (a read-only mmap)
        self._wordpiece: object = False  # not read yet
        self._tokenizer = None
        embeddings = header["embeddings"]
        self.rows, self.dim = (int(n) for n in embeddings["shape"])
        self._embeddings = self._tensor(embeddings, offset, self.rows * self.dim)
        weights = header.get("weights")
        self._weights = None if weights is None else self._tensor(weights, offset, self.rows)

    def _tensor(self, spec: dict, offset: int, count: int) -> tuple[str, int, int]:
        code, size = self.DTYPES[spec["dtype"]]
        start, end = (offset + int(n) for n in spec["data_offsets"])
        if end - start != count * size or end > len(self._data):
            raise ValueError("tensor size does not match its shape")
        return code, size, start

    @staticmethod
    def table(path: Path) -> "QueryModel | None":
        import json
        import mmap
        import sys

        if sys.byteorder != "little":
            return None
        try:
            with open(path / "model.safetensors", "rb") as handle:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            length = int.from_bytes(data[:8], "little")
            header = json.loads(data[8:8 + length])
            return QueryModel(path, data, 8 + length, header)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def _values(self, tensor: tuple[str, int, int], first: int, count: int) -> list[float]:
        import struct

        code, size, start = tensor
        chunk = memoryview(self._data)[start + first * size:start + (first + count) * size]
        if code == "e":  # memoryview has no half-precision cast
            return list(struct.unpack(f"<{count}e", chunk))
        return chunk.cast(code).tolist()

    def ids(self, text: str, light: bool) -> list[int] | None:
        """TEXT's token ids, the first 512, unknown ones dropped (as StaticModel.encode); None when LIGHT and only
        the `tokenizers` library reads this text or this tokenizer."""
        if self._wordpiece is False:
            from vmem import wordpiece

            self._wordpiece = wordpiece.load_cached(self.path / "tokenizer.json")
        if self._wordpiece is not None and self._wordpiece.supports(text):
            ids, unknown = self._wordpiece.ids(text), self._wordpiece.vocab.get(self._wordpiece.unknown)
        elif light:
            return None
        else:
            if self._tokenizer is None:
                from tokenizers import Tokenizer

                self._tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
                self._tokenizer.no_truncation()
            ids = self._tokenizer.encode(text, add_special_tokens=False).ids
            unknown = self._tokenizer.token_to_id("[UNK]")
        return [i for i in ids[:512] if i != unknown]

    def vector(self, ids: list[int]):
        """The unit-length mean of the rows of IDS as array('f') (all zeros for none)."""
        import math
        from array import array

        total = [0.0] * self.dim
        for token in ids:
            if not 0 <= token < self.rows:
                raise ValueError(f"token id {token} is not in the model")
            row = self._values(self._embeddings, token * self.dim, self.dim)
            if self._weights is not None:
                weight = self._values(self._weights, token, 1)[0]
                row = [v * weight for v in row]
            total = [a + b for a, b in zip(total, row)]
        mean = [v / len(ids) for v in total] if ids else total
        norm = math.sqrt(math.fsum(v * v for v in mean)) or 1.0
        return array("f", [v / norm for v in mean])


@lru_cache(maxsize=2)
def _query_model(path: str) -> QueryModel | None:
    return QueryModel.table(Path(path))


class Embedder:
    """Unit-length embeddings, so a cosine is a dot product. The model loads on the first call: an index that is
    already up to date never pays for it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._model: StaticModel | None = None

    def query(self, text: str, light: bool = False):
        """A question's unit vector as array('f'), by the one function every recall path uses (QueryModel). LIGHT:
        None rather than import numpy or tokenizers (a one-shot process then takes the full command)."""
        from array import array

        table = _query_model(str(self.path))
        ids = table.ids(text, light) if table is not None else None
        if ids is not None:
            return table.vector(ids)
        if light:
            return None
        return array("f", self([text])[0].tolist())  # a model QueryModel does not read: the numpy one

    @property
    def model(self) -> StaticModel:
        if self._model is None:
            self._model = _load(str(self.path))
        return self._model

    def __call__(self, texts: list[str]):
        import numpy as np

        vectors = self.model.encode(list(texts))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vectors / norms


def embedder(policy: dict | None = None, store_root: Path | None = None) -> Embedder:
    return Embedder(model_dir(policy, store_root))
