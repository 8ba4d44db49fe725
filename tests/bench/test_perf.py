"""bench perf and scaling: per-stage latencies, the start subprocess, synthetic graph copies."""

from __future__ import annotations

import json

import pytest

from bench import scaling
from bench.__main__ import main
from bench.perf import start_subprocess
from graphstore.graph import Graph, Node, Relationship

pytestmark = pytest.mark.slow


def small_graph() -> Graph:
    return Graph([Node(1, ["Genotype"], {"geneName": "FGFR2", "geneId": 2263, "source": "FPKG"}),
                  Node(2, ["Disease"], {"dname": "Crouzon syndrome", "disease_id": "OMIM:123500", "did": 123500}),
                  Node(3, ["FacePhenotype"], {"phenotypeName": "Proptosis", "ic": 5.5})],
                 [Relationship(10, "Cause", 1, 2, {"source": "HPO"}),
                  Relationship(11, "Exhibit", 2, 3, {"pmid": 123, "source": "FPKG"})])


def test_replicate_makes_disjoint_renamed_copies():
    graph = small_graph()
    big = scaling.replicate(graph, 3)
    assert len(big.nodes) == 9 and len(big.relationships) == 6
    assert len({n.id for n in big.nodes}) == 9 and len({r.id for r in big.relationships}) == 6
    assert big.nodes[:3] == graph.nodes  # copy 0 untouched: the app's links still find it
    copy = {n.id: n for n in big.nodes}[2 * scaling.ID_STRIDE + 2]
    assert copy.properties == {"dname": "Crouzon syndrome ~2", "disease_id": "OMIM:123500 ~2",
                               "did": 123500 + 2 * scaling.ID_STRIDE}
    rel = big.relationships[-1]
    assert (rel.start, rel.end) == (2 * scaling.ID_STRIDE + 2, 2 * scaling.ID_STRIDE + 3)
    assert rel.properties == {"pmid": 123 + 2 * scaling.ID_STRIDE, "source": "FPKG"}  # provenance kept
    with pytest.raises(ValueError):
        scaling.replicate(graph, 0)


def test_perf_stages_without_the_slow_parts(capsys, pipeline, tmp_path):
    capsys.readouterr()
    assert main(["perf", "--limit", "2", "--vector-limit", "1", "--refit-questions", "0", "--no-cold",
                 "--no-scaling", "--json", "--results-dir", str(tmp_path), "--torch-threads", "0"],
                pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    cypher, vector = out["stages"]["cypher"], out["stages"]["vector"]
    assert {"ner", "linking", "queries", "ranking", "generation", "total"} <= set(cypher)
    assert cypher["total"]["n"] == 4 and vector["vector_retrieval"]["n"] == 1
    for stats in [*cypher.values(), *vector.values()]:
        assert 0 <= stats["p50"] <= stats["p95"] <= stats["max"]
    assert cypher["total"]["p50"] >= cypher["queries"]["p50"]
    assert "refit_ms" not in out["glee_baseline"] and out["glee_baseline"]["vector_ms"]["n"] >= 1
    assert out["memory"]["bench_peak_rss_mb"] > 100
    assert (tmp_path / "perf" / "perf-limit2.json").exists()


def test_scaling_rows(pipeline):
    """Two small graphs through the private server: rows, ratios, the same cases and asks on each."""
    questions = [
        "There is a patient with a mutation in FGFR2 and with facial phenotypes of Proptosis, Hypertelorism. "
        "What disease might this patient have?"]
    cases = [pipeline.parse_question(q)[0] for q in questions] * 3
    asks = ["What diseases are associated with gene FGFR2?"]
    graphs = [("small", small_graph()), ("3x small", scaling.replicate(small_graph(), 3))]
    out = scaling.measure(pipeline, cases, asks, graphs=graphs)
    assert [r["graph"] for r in out["rows"]] == ["small", "3x small"]
    small, big = out["rows"]
    assert (small["nodes"], big["nodes"], big["relationships"]) == (3, 9, 6)
    assert small["diagnose_ms"]["n"] == 3 and big["ask_ms"]["n"] == 1
    assert big["server_rss_mb_total"] > 0 and out["interleaved"]
    assert out["ratio_largest_to_fpkg_p50"] > 0 and out["largest"] == "3x small"


def test_start_subprocess_reports_its_start(pipeline):
    """The start child on the warm cache (the session's server is running, so it attaches)."""
    out = start_subprocess(pipeline.settings.cache_dir, timeout_s=600)
    assert out["graph_built"] is False and 0 < out["ready_s"] <= out["first_answer_s"] <= out["process_s"]
    assert out["peak_rss_mb"] > 100
