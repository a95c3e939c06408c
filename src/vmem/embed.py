"""The embedding model: the bundled model2vec model (or one a store names), loaded lazily and offline."""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

from vmem.errors import VmemError

BUNDLED_MODEL = "minilm-l6-distill-256"


def bundled_model_dir() -> Path:
    return Path(str(resources.files("vmem") / "models" / BUNDLED_MODEL))


def model_dir(policy: dict | None = None, store_root: Path | None = None) -> Path:
    """The store's model (`index.model` in vmem.yaml, relative to the store) or the bundled one."""
    named = (policy or {}).get("index", {}).get("model")
    if not named:
        return bundled_model_dir()
    path = Path(named).expanduser()
    if not path.is_absolute() and store_root is not None:
        path = store_root / path
    return path


@lru_cache(maxsize=2)
def _load(path: str):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a hub at run time
    try:
        from model2vec import StaticModel
    except ImportError as exc:  # pragma: no cover - model2vec is a dependency
        raise VmemError(f"cannot import model2vec ({exc})", "reinstall vmem: pip install -e .") from None
    if not Path(path).is_dir():
        raise VmemError(f"embedding model not found at {path}",
                        "set index.model in vmem.yaml to a model2vec model directory, or null for the bundled one")
    try:
        return StaticModel.from_pretrained(path)
    except Exception as exc:  # noqa: BLE001 - any loading failure is one clear error
        raise VmemError(f"cannot load the embedding model at {path}: {exc}",
                        "set index.model in vmem.yaml to a model2vec model directory") from None


class Embedder:
    """Unit-length embeddings, so a cosine is a dot product."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.model = _load(str(path))

    def __call__(self, texts: list[str]):
        import numpy as np

        if not texts:
            return np.zeros((0, self.model.dim if hasattr(self.model, "dim") else 256), dtype=np.float32)
        vectors = np.asarray(self.model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vectors / norms


def embedder(policy: dict | None = None, store_root: Path | None = None) -> Embedder:
    return Embedder(model_dir(policy, store_root))
