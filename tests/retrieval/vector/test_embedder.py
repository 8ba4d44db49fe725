"""Sentence embeddings: rows in the order given whatever the batching, float32 and bfloat16 alike."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from retrieval.vector.embedder import embed

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


def test_worker_threads_give_the_same_rows_and_leave_torch_threads_as_they_were():
    import torch

    texts = [f"{text} {i}" for i in range(4) for text in TEXTS]  # ten batches of two, shared by three workers
    threads = torch.get_num_threads()
    together, alone = embed(texts, batch_size=2, workers=3), embed(texts, batch_size=2)
    assert ((together * alone).sum(axis=1) > 0.9999).all()  # one thread or two may round bfloat16 apart
    assert torch.get_num_threads() == threads
    assert embed(TEXTS, workers=0).shape == (len(TEXTS), 384)  # one per torch thread, at most one per batch


def test_more_workers_join_when_told_and_the_rows_are_those_of_one_worker():
    """A vector index built while a start still runs embeds on one core, then on more once it is told."""
    import threading

    texts = [f"{text} {i}" for i in range(4) for text in TEXTS]
    more = threading.Event()
    threading.Timer(0.05, more.set).start()
    ramped = embed(texts, batch_size=2, workers=2, more_after=more)
    assert more.is_set() and ((ramped * embed(texts, batch_size=2)).sum(axis=1) > 0.9999).all()
    never = threading.Event()  # never told: the first worker alone embeds every batch, and nothing waits
    assert ((embed(texts, batch_size=2, workers=2, more_after=never) * ramped).sum(axis=1) > 0.9999).all()


def test_a_process_stops_at_once_and_cleanly_during_a_bulk_embedding_in_the_background():
    """The app builds its vector index in a background thread. Stopping it mid-build must neither
    wait for the build (a minute, with a thread pool, whose threads are joined at exit) nor abort
    ("terminate called without an active exception": a thread was inside torch at exit)."""
    script = ("import threading, time\n"
              "from retrieval.vector.embedder import embed\n"
              "embed(['warm'])\n"
              "texts = [f'facial phenotype number {i}' for i in range(200_000)]  # minutes of work\n"
              "threading.Thread(target=embed, args=(texts,), kwargs={'workers': 2}, daemon=True).start()\n"
              "time.sleep(1)\n")
    started = time.perf_counter()
    stopped = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                             cwd=Path(__file__).parents[3])
    assert stopped.returncode == 0, stopped.stderr[-2000:]
    assert time.perf_counter() - started < 45  # loading takes seconds; the embedding alone minutes


def test_no_text_and_an_unknown_precision():
    assert embed([]).shape == (0, 384)
    with pytest.raises(ValueError, match="precision must be one of auto, float32, bfloat16"):
        embed(["x"], precision="int8")


def test_prepacked_layers_compute_what_the_plain_ones_do():
    """oneDNN's reordered weights (`retrieval.vector.prepacked`) give the plain bfloat16 layer's numbers."""
    import torch

    from retrieval.vector.prepacked import PrepackedLinear, prepack_linears

    torch.manual_seed(0)
    plain = torch.nn.Sequential(torch.nn.Linear(384, 1536), torch.nn.GELU(), torch.nn.Linear(1536, 384, bias=False))
    packed = torch.nn.Sequential(*(type(layer)(layer.in_features, layer.out_features, bias=layer.bias is not None)
                                   if isinstance(layer, torch.nn.Linear) else layer for layer in plain))
    packed.load_state_dict(plain.state_dict())
    if prepack_linears(packed) == 0:
        pytest.skip("this torch build has no oneDNN linear ops")
    assert [type(layer) for layer in packed] == [PrepackedLinear, torch.nn.GELU, PrepackedLinear]
    inputs = torch.randn(3, 7, 384)  # batch, tokens, features: the shape a transformer hands over
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
        expected, got = plain(inputs).float(), packed(inputs).float()
    assert got.shape == (3, 7, 384) and got.dtype == torch.float32
    assert torch.nn.functional.cosine_similarity(got.flatten(), expected.flatten(), dim=0) > 0.9999


def test_the_bfloat16_model_is_prepacked_where_the_cpu_computes_bfloat16():
    from retrieval.vector.embedder import load_embedder, native_bfloat16
    from retrieval.vector.prepacked import PrepackedLinear

    if not native_bfloat16():
        pytest.skip("no native bfloat16 on this CPU: the model stays float32")
    packed_layers = [module for module in load_embedder(None, "bfloat16").modules()
                     if isinstance(module, PrepackedLinear)]
    assert len(packed_layers) >= 36  # MiniLM-L6: six layers of six
