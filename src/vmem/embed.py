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


class Embedder:
    """Unit-length embeddings, so a cosine is a dot product. The model loads on the first call: an index that is
    already up to date never pays for it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._model: StaticModel | None = None

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
