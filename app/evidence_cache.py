"""Evidence pictures drawn once per distinct evidence, kept as PNG files (the last PICTURES drawn).

Drawing was most of an answer's cost on the server (`python -m bench server-cost`: about 100 ms of a
160 ms /diagnose, and Gradio then encoded the image again to send it). The picture depends only on
what it shows (the nodes, their names and columns, the edges, the patient's phenotypes, the answer,
the title), so that is its key: the same evidence is drawn once and served as the same file, and
the page and the API receive exactly the picture they did before. Files live in a folder of the
process's own, removed when it exits; the oldest file goes when a new one would exceed the bound.
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from app.evidence_plot import EvidenceGraph, render_png

PICTURES = 256  # ~50 KB each: about 13 MB of disk at most


def evidence_key(evidence: EvidenceGraph, title: str) -> str:
    """What the picture shows, digested: two evidence graphs with the same key draw the same picture."""
    graph = evidence.graph
    nodes = sorted((n, d.get("label"), d.get("name"), d.get("column")) for n, d in graph.nodes(data=True))
    edges = sorted((head, tail, data.get("relation")) for head, tail, data in graph.edges(data=True))
    shown = repr((title, nodes, edges, sorted(evidence.matched), sorted(evidence.unmatched), evidence.answer,
                  evidence.left_out))
    return hashlib.sha256(shown.encode()).hexdigest()[:24]


class PictureCache:
    """Thread-safe: two requests for the same new evidence may both draw it (the same picture); a
    lock is held only to look up and to record."""

    def __init__(self, folder: Path | None = None, size: int = PICTURES):
        if folder is None:
            folder = Path(tempfile.mkdtemp(prefix="fpkg-evidence-"))
            atexit.register(shutil.rmtree, folder, True)
        self.folder, self.size = folder, size
        self.folder.mkdir(parents=True, exist_ok=True)
        self._files: OrderedDict[str, Path] = OrderedDict()
        self._lock = threading.Lock()
        self.drawn = self.served = 0

    def picture(self, evidence: EvidenceGraph, title: str) -> str | None:
        """The PNG file of the picture (drawn now if it is new), or None when there is nothing to draw."""
        if evidence.graph.number_of_nodes() == 0:
            return None
        key = evidence_key(evidence, title)
        with self._lock:
            path = self._files.get(key)
            if path is not None and path.is_file():
                self._files.move_to_end(key)
                self.served += 1
                return str(path)
        png = render_png(evidence, title)
        if png is None:
            return None
        path = self.folder / f"evidence_{key}.png"  # not named like a private export (app/exports.py)
        partial = path.with_suffix(f".{threading.get_ident()}.part")
        partial.write_bytes(png)
        partial.replace(path)  # whole or not at all: another thread may be serving it
        with self._lock:
            self._files[key] = path
            self._files.move_to_end(key)
            self.drawn += 1
            while len(self._files) > self.size:
                _, oldest = self._files.popitem(last=False)
                oldest.unlink(missing_ok=True)
        return str(path)


_shared: PictureCache | None = None
_shared_lock = threading.Lock()


def shared_cache() -> PictureCache:
    """The process's cache, made on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = PictureCache()
        return _shared
