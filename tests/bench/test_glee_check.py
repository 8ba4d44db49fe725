"""`python -m bench glee-check`: the paper's Table 7 check (node type from the GLEE vector) on FPKG."""

from __future__ import annotations

import json

import pytest

from bench import glee_check
from bench.__main__ import main
from fpkg.errors import BenchError
from graphstore.graph import Graph, Node, Relationship


def test_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["glee-check", "--help"])
    assert exited.value.code == 0
    usage = capsys.readouterr().out
    assert "python -m bench glee-check" in usage
    assert all(option in usage for option in ("--no-hpo", "--dim", "--upstream", "--json", "--results-dir"))


def test_a_graph_too_small_for_the_dimension_is_refused():
    graph = Graph([Node(i, ["Disease" if i % 2 else "Genotype"], {}) for i in range(6)],
                  [Relationship(10 + i, "Cause", i, i + 1, {}) for i in range(5)])
    with pytest.raises(BenchError, match="6 nodes with a relationship: too few for 32 GLEE dimensions"):
        glee_check.check(graph)


@pytest.mark.slow
def test_fpkg_node_types_from_glee_vectors(capsys, test_settings, tmp_path):
    capsys.readouterr()
    assert main(["glee-check", "--no-hpo", "--json", "--results-dir", str(tmp_path), "--torch-threads", "0"],
                settings=test_settings) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["graph"] == "FPKG" and out["dim"] == 32 and out["paper_glee_micro_f1"] == 0.78
    counts = out["label_counts"]
    assert {"Disease", "FacePhenotype", "Genotype"} <= set(counts) and sum(counts.values()) == out["nodes"]
    majority = max(counts.values()) / out["nodes"]
    for key in ("glee_32", "glee_32_unit_rows"):
        scores = out[key]
        assert all(0.0 <= scores[avg] <= 1.0 for avg in ("micro", "macro", "weighted"))
    # the structure vectors tell the types apart far better than always guessing the commonest one
    assert out["glee_32"]["micro"] > majority + 0.2
    assert "karateclub_glee_128" not in out
    assert (tmp_path / "glee-check" / "fpkg-dim32.json").is_file()
    lines = glee_check.summary(out).splitlines()
    assert lines[0] == f"FPKG: {out['nodes']} nodes with a relationship, {out['edges']} undirected edges"
    assert lines[1].split()[:3] == ["glee_32", "micro-F1", f"{out['glee_32']['micro']:.3f}"]
