"""Node vectors for vector mode, built once per graph and cached on disk.

Each node gets a text vector (MiniLM over its type, name and synonyms) and a structure
vector (GLEE, see `retrieval.vector.glee`); the FAISS index holds their weighted concatenation
``[sqrt(w)·text, sqrt(1-w)·structure]``, a unit vector whose dot product with another is
``w·cos_text + (1-w)·cos_structure``.

Everything is read from the store with read queries, so the index can be rebuilt after a
restart from a snapshot without the portable graph. The relationships are kept with the vectors
(`retrieval.vector.relationships`): vector mode chooses a question's neighbourhood on their undirected
adjacency and reads its triples from them, without a store round trip. The cache folder is
``<cache_dir>/vectors/<fingerprint>``, where the fingerprint digests server-side
summaries of the graph (counts, id sums, name lengths, endpoint checksums per label and
type) plus the index settings: a rebuilt or changed graph gets a new folder.

The search scans every vector (at ~20k nodes × 416 dimensions, ~8 M multiply-adds), held in
half precision: the scan reads half the memory (a patient's case searched in 1.1 ms on one core
instead of 1.7 with IndexFlatIP), and its best `k + SEARCH_MARGIN` are scored again exactly from
the float32 rows, so scores and order are those of an exact search. Approximate indexes (IVF,
HNSW) would add a build step and recall loss for no gain below millions of vectors. The
half-precision copy is made at load (a few milliseconds), not cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import faiss
import numpy as np

from graphstore.schema import NAME_PROPERTIES, node_name
from graphstore.store import GraphStore, quote_name
from retrieval.vector.embedder import DEFAULT_EMBEDDING_MODEL, embed
from retrieval.vector.glee import DEFAULT_DIM, adjacency, glee
from retrieval.vector.relationships import CURATED_SOURCE, ROWS_QUERY, Relationships

INDEX_VERSION = 3  # 3: the relationships (type, source, PMIDs) are cached too
FETCH_TIMEOUT_MS = 300_000
MAX_TEXT_CHARS = 300  # longer texts only cost embedding time (MiniLM reads ~256 tokens)
MAX_SYNONYMS = 5


@dataclass(frozen=True)
class IndexConfig:
    structure_dim: int = DEFAULT_DIM
    text_weight: float = 0.75  # share of the text vector in the combined one
    model: str | None = None  # sentence-transformers model; None: the offline MiniLM

    def key(self) -> dict:
        return {"version": INDEX_VERSION, "structure_dim": self.structure_dim,
                "text_weight": self.text_weight, "model": self.model or DEFAULT_EMBEDDING_MODEL}


@dataclass
class GraphData:
    """What the index needs from the store: nodes (id, label, text) and their relationships."""

    ids: np.ndarray  # int64 nids
    labels: list[str]
    names: list[str]
    texts: list[str]
    relationships: Relationships  # between rows of ids
    seconds: dict[str, float] = field(default_factory=dict)


# ---- reading the graph --------------------------------------------------------------

_NAME_PROPS = ", ".join(f"n.{quote_name(p, 'property')}" for p in NAME_PROPERTIES.values())
_NAME_EXPR = f"coalesce({_NAME_PROPS}, '')"
_NODE_SUMMARY = (f"MATCH (n) RETURN labels(n)[0] AS label, count(n) AS n, sum(n.nid) AS ids, "
                 f"sum((n.nid % 1000003) * (n.nid % 1009)) AS ids2, "
                 f"sum(size({_NAME_EXPR}) * (n.nid % 1009 + 1)) AS names, "
                 f"sum(size(coalesce(n.synonyms, ''))) AS synonyms")
# curated relationships are left out: they change while the app runs and are read anew at each load
_EDGE_SUMMARY = (f"MATCH (a)-[r]->(b) WHERE r.source IS NULL OR r.source <> '{CURATED_SOURCE}' "
                 "RETURN type(r) AS type, count(r) AS n, sum(a.nid) AS starts, "
                 "sum(b.nid) AS ends, sum((a.nid % 1000003) * (b.nid % 1009)) AS pairs")
# Extra properties that make a node's text specific (beyond its name).
_TEXT_PROPS = ("synonyms", "fullName", "variation_gene_name", "category", "gender", "race", "year")
# Plain values per relationship. A faster form joined each node's ends into a string on the server; it
# was dropped because FalkorDB 4.16 loses a row of other server-built strings now and then (see
# tests/support/hardening_support.py), and a lost row here would silently drop edges from the index.
_RELATIONSHIPS = ROWS_QUERY.format(where="")
_CURATED = ROWS_QUERY.format(where="WHERE r.source = $source ")


def graph_fingerprint(store: GraphStore, config: IndexConfig) -> str:
    """A digest of the graph's content summaries and the index settings (two aggregate
    queries, no bulk transfer). Detects added or removed nodes and relationships, changed
    ids, endpoints and name lengths."""
    nodes = sorted(store.query(_NODE_SUMMARY, timeout_ms=FETCH_TIMEOUT_MS), key=lambda r: str(r["label"]))
    edges = sorted(store.query(_EDGE_SUMMARY, timeout_ms=FETCH_TIMEOUT_MS), key=lambda r: str(r["type"]))
    payload = json.dumps({"nodes": nodes, "edges": edges, "config": config.key()},
                         sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:20]


def node_text(label: str, props: dict) -> str:
    """What a node's text vector embeds, e.g. "FacePhenotype: Hypertelorism; synonyms: ..."."""
    parts = [f"{label}: {node_name(label, props)}".strip()]
    if props.get("synonyms"):
        name = node_name(label, props).lower()
        synonyms = [s.strip() for s in str(props["synonyms"]).split(";")
                    if s.strip() and s.strip().lower() != name]
        if synonyms:
            parts.append("synonyms: " + ", ".join(synonyms[:MAX_SYNONYMS]))
    if props.get("fullName"):
        parts.append(str(props["fullName"]))
    if props.get("variation_gene_name"):
        parts.append(f"gene {props['variation_gene_name']}")
    if props.get("category"):
        parts.append(str(props["category"]))
    described = [f"{k} {props[k]}" for k in ("gender", "race", "year")
                 if props.get(k) not in (None, "", "NA")]
    if described:
        parts.append(", ".join(described))
    return "; ".join(parts)[:MAX_TEXT_CHARS]


def fetch_graph(store: GraphStore) -> GraphData:
    """Nodes per label (through each label's name property) and all relationships, read-only."""
    started = time.perf_counter()
    labels_in_store = sorted(store.counts()["nodes"])
    ids: list[int] = []
    labels: list[str] = []
    props_list: list[dict] = []
    for label in labels_in_store:
        columns = [p for p in (NAME_PROPERTIES.get(label), *_TEXT_PROPS) if p]
        returns = ", ".join(f"n.{quote_name(p, 'property')} AS {quote_name(p, 'property')}" for p in columns)
        rows = store.query(f"MATCH (n:{quote_name(label)}) RETURN n.nid AS nid, {returns}",
                           timeout_ms=FETCH_TIMEOUT_MS)
        for row in rows:
            ids.append(int(row.pop("nid")))
            labels.append(label)
            props_list.append(row)
    # a node with several labels appears once per label: keep its first label
    _, first = np.unique(np.asarray(ids, dtype=np.int64), return_index=True)
    keep = np.sort(first)
    ids_arr = np.asarray(ids, dtype=np.int64)[keep]
    labels = [labels[i] for i in keep]
    props_list = [props_list[i] for i in keep]
    nodes_s = time.perf_counter() - started

    started = time.perf_counter()
    row_of = {nid: i for i, nid in enumerate(ids_arr.tolist())}
    relationships = Relationships.from_rows(store.query(_RELATIONSHIPS, timeout_ms=FETCH_TIMEOUT_MS), row_of,
                                            len(ids_arr))
    return GraphData(ids_arr, labels, [node_name(lb, p) for lb, p in zip(labels, props_list, strict=True)],
                     [node_text(lb, p) for lb, p in zip(labels, props_list, strict=True)], relationships,
                     {"fetch_nodes": nodes_s, "fetch_edges": time.perf_counter() - started})


# ---- the index ----------------------------------------------------------------------

_BUILDING_LOCK = threading.Lock()
_FOLDER_LOCKS: dict[Path, threading.Lock] = {}
_JUST_BUILT: dict[Path, VectorIndex] = {}  # a prebuilt index, until the next load_or_build of its folder takes it


def _building(folder: Path) -> threading.Lock:
    """The lock of one index folder: one build of it at a time in this process."""
    with _BUILDING_LOCK:
        return _FOLDER_LOCKS.setdefault(folder, threading.Lock())


SEARCH_MARGIN = 16  # candidates beyond k from the half-precision scan, scored again exactly


class VectorIndex:
    """Node vectors of one graph, with their FAISS index. Build or load with `load_or_build`."""

    def __init__(self, ids: np.ndarray, labels: list[str], names: list[str], text: np.ndarray,
                 structure: np.ndarray, relationships: Relationships, config: IndexConfig, fingerprint: str,
                 stats: dict | None = None) -> None:
        self.ids = ids
        self.labels = labels
        self.names = names
        self.text = text  # (n, 384) unit rows
        self.structure = structure  # (n, d) unit rows, zero for isolated nodes
        self.config = config
        self.fingerprint = fingerprint
        self.stats = stats or {}
        self.row_of = {nid: i for i, nid in enumerate(ids.tolist())}
        self.relationships = relationships
        self.adjacency = adjacency(len(ids), relationships.pairs())  # picks a question's neighbourhood
        w = config.text_weight
        self.vectors = np.ascontiguousarray(np.hstack([np.sqrt(w) * text, np.sqrt(1 - w) * structure]),
                                            dtype=np.float32)
        # nameless nodes (a few FPKG phenotypes) stay out of the search but keep their rows
        self.searchable = np.flatnonzero(np.asarray([bool(n) for n in names]))
        self.faiss = faiss.IndexScalarQuantizer(self.vectors.shape[1], faiss.ScalarQuantizer.QT_fp16,
                                                faiss.METRIC_INNER_PRODUCT)
        self.faiss.add(self.vectors[self.searchable])  # fp16 needs no training

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def text_dim(self) -> int:
        return self.text.shape[1]

    @classmethod
    def load_or_build(cls, store: GraphStore, cache_dir: Path, config: IndexConfig | None = None, *,
                      rebuild: bool = False, more_after: threading.Event | None = None,
                      keep: bool = False, stop: threading.Event | None = None) -> VectorIndex:
        """The index of the graph `store` holds: from ``cache_dir/vectors/<fingerprint>`` when
        there, else built (about a minute for FPKG+HPO on 2 cores, mostly the text embeddings) and saved.
        Curated relationships do not count in the fingerprint: they are read anew on each load. One build
        of a folder at a time in a process: a second caller waits for the first and takes what it built.
        `more_after`: the build embeds on one core until it is set (`embed`); `keep`: the next caller takes
        this very index (no reading it back); `stop`: set, the build ends at its next batch."""
        config = config or IndexConfig()
        started = time.perf_counter()
        fingerprint = graph_fingerprint(store, config)
        folder = Path(cache_dir) / "vectors" / fingerprint
        fingerprint_s = time.perf_counter() - started
        with _building(folder):
            built = _JUST_BUILT.pop(folder, None)
            if built is not None and not rebuild:
                built.refresh_curated(store)
                return built
            index = cls._load_or_build(store, folder, config, fingerprint, fingerprint_s, started, rebuild,
                                       more_after, stop)
            if keep:
                _JUST_BUILT[folder] = index
            return index

    @classmethod
    def _load_or_build(cls, store: GraphStore, folder: Path, config: IndexConfig, fingerprint: str,
                       fingerprint_s: float, started: float, rebuild: bool,
                       more_after: threading.Event | None, stop: threading.Event | None = None) -> VectorIndex:
        unreadable = None
        if not rebuild and (folder / "meta.json").exists():
            try:
                index = cls.load(folder)
            except (OSError, EOFError, ValueError, KeyError, TypeError, RuntimeError) as e:  # damaged: build anew
                unreadable = f"the cached vector index could not be read ({type(e).__name__}: {e}); it was rebuilt"
            else:
                index.refresh_curated(store)  # merged or undone since the index was saved
                index.stats.update(loaded_from_cache=True, fingerprint_s=fingerprint_s,
                                   load_s=time.perf_counter() - started)
                return index
        index = cls.build(store, config, fingerprint, more_after, stop)
        index.stats["fingerprint_s"] = fingerprint_s
        if unreadable:
            index.stats["rebuilt"] = unreadable
        index.save(folder)
        return index

    @classmethod
    def prebuild(cls, store: GraphStore, cache_dir: Path, more_after: threading.Event,
                 stop: threading.Event) -> threading.Thread:
        """Build (or read) the index in a thread of its own, one core until `more_after` is set, until `stop`
        is set (join the thread then: a process must not end while it is inside torch); the next
        `load_or_build` of that graph takes it as it is."""
        def build() -> None:
            try:
                cls.load_or_build(store, cache_dir, more_after=more_after, keep=True, stop=stop)
            except Exception:  # noqa: BLE001 - the process stops, or the store: the next caller builds it and says why
                return

        thread = threading.Thread(target=build, name="vector-index-prebuild", daemon=True)
        thread.start()
        return thread

    @classmethod
    def build(cls, store: GraphStore, config: IndexConfig, fingerprint: str = "",
              more_after: threading.Event | None = None, stop: threading.Event | None = None) -> VectorIndex:
        total = time.perf_counter()
        data = fetch_graph(store)
        seconds = dict(data.seconds)
        started = time.perf_counter()
        # no progress bar: an app builds it while it serves, and its log says when it is ready
        text = embed(data.texts, config.model, workers=0, more_after=more_after, stop=stop)
        seconds["embed_text"] = time.perf_counter() - started
        started = time.perf_counter()
        structure = structure_vectors(len(data.ids), data.relationships.pairs(), config.structure_dim)
        seconds["glee"] = time.perf_counter() - started
        index = cls(data.ids, data.labels, data.names, text, structure, data.relationships, config, fingerprint)
        seconds["total"] = time.perf_counter() - total
        index.stats = {"loaded_from_cache": False, "nodes": len(data.ids), "edges": len(data.relationships),
                       "build_s": {k: round(v, 3) for k, v in seconds.items()}}
        return index

    def save(self, folder: Path) -> None:
        """Writes into a temporary sibling folder, then renames it: readers never see half."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".tmp-"))
        np.save(tmp / "ids.npy", self.ids)
        np.save(tmp / "text.npy", self.text)
        np.save(tmp / "structure.npy", self.structure)
        relationships = self.relationships.save(tmp)
        meta = {"fingerprint": self.fingerprint, "config": asdict(self.config), "labels": self.labels,
                "names": self.names, "relationships": relationships, "stats": self.stats}
        (tmp / "meta.json").write_text(json.dumps(meta))
        if folder.exists():  # a forced rebuild replaces the old files
            shutil.rmtree(folder)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process saved the same index meanwhile: keep theirs
            shutil.rmtree(tmp, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> VectorIndex:
        meta = json.loads((folder / "meta.json").read_text())
        return cls(np.load(folder / "ids.npy"), meta["labels"], meta["names"], np.load(folder / "text.npy"),
                   np.load(folder / "structure.npy"), Relationships.load(folder, meta["relationships"]),
                   IndexConfig(**meta["config"]), meta["fingerprint"], meta.get("stats"))

    def refresh_curated(self, store: GraphStore) -> None:
        """Takes in the store's current curated relationships (after a merge, undo or import; one
        relationship scan, ~0.2 s): the rest of the graph is as the index was built."""
        curated = Relationships.from_rows(store.query(_CURATED, {"source": CURATED_SOURCE},
                                                      timeout_ms=FETCH_TIMEOUT_MS), self.row_of, len(self))
        relationships = self.relationships.with_curated(curated)
        self.adjacency, self.relationships = adjacency(len(self), relationships.pairs()), relationships

    # ---- queries ------------------------------------------------------------------------
    def query_vector(self, text_vector: np.ndarray | None, rows: list[int]) -> np.ndarray | None:
        """The mean of the question's vector (text part only) and the given nodes' combined
        vectors, normalised; None when there is neither."""
        parts = [self.vectors[r] for r in rows]
        if text_vector is not None:
            parts.append(np.concatenate([np.sqrt(self.config.text_weight) * text_vector,
                                         np.zeros(self.structure.shape[1], dtype=np.float32)]))
        if not parts:
            return None
        vector = np.mean(parts, axis=0)
        norm = np.linalg.norm(vector)
        return (vector / norm).astype(np.float32) if norm > 0 else None

    def similarities(self, rows: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """The inner product of `vector` with each of the rows' combined vectors. FAISS's kernel
        reads the rows in place; numpy's `vectors[rows] @ vector` copies them first, ~1.5 ms more
        for the ~4,000 neighbours of a patient's case on one core."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        vector = np.ascontiguousarray(vector, dtype=np.float32).reshape(-1)
        if vector.shape != (self.vectors.shape[1],):
            raise ValueError(f"the vector must have {self.vectors.shape[1]} dimensions, not {vector.shape}")
        if len(rows) and (rows.min() < 0 or rows.max() >= len(self)):  # the kernel does not check
            raise IndexError(f"rows must lie in 0..{len(self) - 1}")
        products = np.empty(len(rows), dtype=np.float32)
        if len(rows):
            faiss.fvec_inner_products_by_idx(faiss.swig_ptr(products), faiss.swig_ptr(vector),
                                             faiss.swig_ptr(self.vectors), faiss.swig_ptr(rows),
                                             self.vectors.shape[1], 1, len(rows))
        return products

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row, score) of the k nearest searchable nodes, best first; exact scores (see the module's
        docstring), ties by row."""
        k = min(k, len(self.searchable))
        if k <= 0:
            return []
        vector = np.ascontiguousarray(vector, dtype=np.float32).reshape(1, -1)
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)  # one query vector: more threads only add synchronisation
        try:
            _, positions = self.faiss.search(vector, min(k + SEARCH_MARGIN, len(self.searchable)))
        finally:
            faiss.omp_set_num_threads(threads)
        rows = self.searchable[positions[0][positions[0] >= 0]]
        scores = self.similarities(rows, vector)
        best = np.lexsort((rows, -scores))[:k]
        return [(int(rows[i]), float(scores[i])) for i in best]


def structure_vectors(n_nodes: int, edges: np.ndarray, dim: int) -> np.ndarray:
    """GLEE rows normalised to unit length (cosine compares structural roles, not degree);
    zero-padded to `dim` for graphs too small for that many eigenvectors."""
    out = np.zeros((n_nodes, dim), dtype=np.float32)
    k = min(dim, n_nodes - 1)
    if k < 1 or len(edges) == 0:
        return out
    vectors, _ = glee(adjacency(n_nodes, edges), k)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out[:, :k] = vectors / np.where(norms == 0, 1.0, norms)
    return out
