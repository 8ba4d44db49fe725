"""Sentence embeddings: rows in the order given whatever the batching, float32 and bfloat16 alike."""

from __future__ import annotations

import numpy as np
import pytest

from retrieval.embedder import embed

TEXTS = ["Disease: Crouzon syndrome; synonyms: craniofacial dysostosis type 1",
         "hypertelorism",
         "There is a 5 years old female patient with a mutation in CHD7 and with facial phenotypes of "
         "Wide nasal bridge, Posteriorly rotated ears. What disease might this patient have?",
         "FGFR2", "Genotype: PTPN11"]


def test_rows_come_back_in_the_order_given_and_unit_length():
    together = embed(TEXTS, batch_size=2, precision="float32")  # sorted by length inside, in batches of two
    alone = np.vstack([embed([text], precision="float32") for text in TEXTS])
    assert together.dtype == np.float32 and together.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose((together * alone).sum(axis=1), 1.0, atol=1e-5)
    assert (together[1] @ together[0]) < 0.9  # different texts, different vectors


def test_bfloat16_vectors_stay_within_cosine_0999_of_float32():
    """The index may be built with one and a question embedded with the other (another machine)."""
    exact, fast = embed(TEXTS, precision="float32"), embed(TEXTS, precision="bfloat16")
    assert ((exact * fast).sum(axis=1) >= 0.999).all()
    assert np.array_equal(embed(TEXTS), embed(TEXTS))  # "auto" is one of the two, repeatably


def test_no_text_and_an_unknown_precision():
    assert embed([]).shape == (0, 384)
    with pytest.raises(ValueError, match="precision must be one of auto, float32, bfloat16"):
        embed(["x"], precision="int8")
