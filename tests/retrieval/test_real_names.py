"""A real name is never "corrected" into another (issue 44), over the whole development set and the whole
built graph: every disease label and gene symbol of the published development patients written into a
question, and every member of every series MONDO knows asked for its genes."""

from __future__ import annotations

import csv
import json
from collections import defaultdict

import pytest

from bench.runtime import phenopackets_dir
from kg_dump.build import mondo_folder
from retrieval.intent import find_mentions

CORRECTED = ("typo", "fuzzy", "embedding")  # readings that change what was written


@pytest.fixture(scope="module")
def dev_patients(pipeline) -> list[dict]:
    path = phenopackets_dir(pipeline.settings) / "phenopackets_dev.jsonl"
    if not path.is_file():
        pytest.skip(f"no development set at {path}")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_no_disease_label_of_the_development_set_is_read_as_another_disease(pipeline, dev_patients):
    mondo = pipeline.linker.mondo
    labels = sorted({(p["disease"], p["omim_id"]) for p in dev_patients})
    assert len(labels) > 300
    misread = []
    for label, omim in labels:
        for question in (f"Which genes cause {label}?", f"What facial features does {label} have?"):
            for link in find_mentions(question, pipeline.linker):
                if link.label == "Genotype" and link.method not in ("exact", "synonym"):
                    misread.append((label, link.name, link.method))
                if link.label == "Disease" and link.method in CORRECTED and \
                        pipeline.linker.mondo_of_disease.get(link.node_id) != mondo.of(omim):
                    misread.append((label, link.name, link.method))
    assert not misread


def test_no_gene_symbol_of_the_development_set_is_read_as_another(pipeline, dev_patients):
    symbols = sorted({p["gene"] for p in dev_patients if p.get("gene")})
    assert len(symbols) > 300
    misread = []
    for symbol in symbols:
        for question in (f"Which diseases are caused by {symbol}?", f"what does {symbol} cause"):
            links = find_mentions(question, pipeline.linker)
            misread += [(symbol, link.name, link.method) for link in links
                        if (link.label == "Genotype" and link.name.upper() != symbol.upper())
                        or (link.label == "Disease" and link.method in CORRECTED)]
    assert not misread


def test_a_series_member_s_genes_are_never_another_member_s_defining_gene(pipeline):
    path = mondo_folder(pipeline.settings)
    if path is None or not (path / "disease_series_by_gene.tsv").is_file():
        pytest.skip("no MONDO tables")
    with open(path / "disease_series_by_gene.tsv", encoding="utf-8") as f:
        series = defaultdict(dict)
        for row in csv.DictReader(f, delimiter="\t"):
            series[row["series_id"]][row["mondo_id"]] = row["gene_symbol"]
    nodes_named = defaultdict(int)
    for name in pipeline.linker.name_of_node.values():
        nodes_named[name] += 1
    retriever, asked, wrong = pipeline.retriever("cypher"), 0, []
    for members in series.values():
        for member, gene in members.items():
            node = pipeline.linker.disease_of_mondo.get(member)
            name = pipeline.linker.name_of_node.get(node)
            if name is None or nodes_named[name] > 1:  # asked by name, a name two diseases share is ambiguous
                continue
            others = set(members.values()) - {gene}
            found = retriever.retrieve(f"Which genes cause {name}?")
            genes = {t.head for t in found.triples if t.head_label == "Genotype"} | \
                {t.tail for t in found.triples if t.tail_label == "Genotype"}
            asked += 1
            if genes & others:
                wrong.append((name, gene, sorted(genes & others)))
    assert asked > 1500
    assert not wrong


@pytest.mark.parametrize(("question", "said"), [
    ("Which diseases are caused by CCT3?", "“CCT3” reads as a gene symbol that the graph does not hold"),
    ("What is Zhu-Tokita-Takenouchi-Kim syndrome?",
     "“Zhu-Tokita-Takenouchi-Kim syndrome” reads as a disease name that neither the graph nor MONDO holds"),
])
def test_a_real_name_the_graph_lacks_is_said_to_be_unknown_not_read_as_another(pipeline, question, said):
    result = pipeline.ask(question, mode="cypher", backend="grounded")
    assert said in result.answer and not result.triples
