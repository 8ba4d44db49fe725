"""Evidence pictures drawn once per distinct evidence (app/evidence_cache.py): the same evidence is the
same PNG file, other evidence or another title a new one, and the oldest file goes past the bound."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from app.evidence_cache import PictureCache, evidence_key
from app.evidence_plot import evidence_graph, render_png
from app.exports import is_private_export
from retrieval.result import Triple


def charge(phenotype: str = "Coloboma") -> list[Triple]:
    return [Triple("CHD7", "Cause", "CHARGE syndrome", 1, 10, "Genotype", "Disease", "FPKG", ()),
            Triple("CHARGE syndrome", "Exhibit", phenotype, 10, 20, "Disease", "FacePhenotype", "FPKG", ())]


def test_the_same_evidence_is_drawn_once_and_is_the_picture_drawn_directly(tmp_path):
    cache = PictureCache(tmp_path / "pictures")
    first = cache.picture(evidence_graph(charge(), answer=10), "Evidence for CHARGE syndrome")
    again = cache.picture(evidence_graph(list(reversed(charge())), answer=10), "Evidence for CHARGE syndrome")
    assert first == again and (cache.drawn, cache.served) == (1, 1)
    direct = render_png(evidence_graph(charge(), answer=10), "Evidence for CHARGE syndrome")
    assert Path(first).read_bytes() == direct and Image.open(first).size[0] > 300
    assert not is_private_export(Path(first).name)  # served to anyone who got the answer, not refused as one


def test_other_evidence_or_another_title_is_another_picture(tmp_path):
    cache = PictureCache(tmp_path)
    pictures = {cache.picture(evidence_graph(charge(), answer=10), "Evidence for CHARGE syndrome"),
                cache.picture(evidence_graph(charge("Micrognathia"), answer=10), "Evidence for CHARGE syndrome"),
                cache.picture(evidence_graph(charge(), answer=None), "Evidence for CHARGE syndrome"),
                cache.picture(evidence_graph(charge(), answer=10), "Retrieved evidence")}
    assert len(pictures) == 4 and cache.drawn == 4
    assert evidence_key(evidence_graph(charge(), answer=10), "t") != evidence_key(evidence_graph(charge()), "t")


def test_nothing_to_draw_is_no_picture(tmp_path):
    assert PictureCache(tmp_path).picture(evidence_graph([]), "Retrieved evidence") is None


def test_past_the_bound_the_oldest_file_goes(tmp_path):
    cache = PictureCache(tmp_path, size=2)
    names = ["Coloboma", "Micrognathia", "Hypertelorism"]
    paths = [cache.picture(evidence_graph(charge(name)), "Retrieved evidence") for name in names]
    assert [p for p in paths if (tmp_path / p.rsplit("/", 1)[1]).is_file()] == paths[1:]
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted(p.rsplit("/", 1)[1] for p in paths[1:])
    assert cache.picture(evidence_graph(charge(names[0])), "Retrieved evidence") == paths[0]  # drawn again
    assert cache.drawn == 4
