"""bench domain: reference splitting, synonym-tolerant coverage, the MiniLM score, and a run."""

from __future__ import annotations

import json

import pytest

from bench.__main__ import main
from bench.coverage import AliasIndex, TokenScorer, coverage, reference_body, reference_items
from bench.domain import read_domain


def test_reference_items_keep_names_with_commas():
    vocabulary = {"high narrow palate", "cleft palate", "palate high arched"}
    reference = "Facial phenotypes associated with X include High, narrow palate, Cleft palate, Palate, high-arched."
    assert reference_body(reference) == "High, narrow palate, Cleft palate, Palate, high-arched"
    assert reference_items(reference, vocabulary) == ["High, narrow palate", "Cleft palate", "Palate, high-arched"]
    assert reference_items("The synonyms for Ptosis are Blepharoptosis, Eye drop.", set()) == ["Blepharoptosis",
                                                                                              "Eye drop"]


class FakeAliases:
    def __init__(self, aliases):
        self.aliases = aliases


class FakeLinker:
    """Two phenotype nodes with synonyms, as the linker's indexes hold them."""

    def __init__(self):
        from retrieval.linking import Alias

        self.indexes = {"FacePhenotype": FakeAliases([
            Alias(1, "FacePhenotype", "Wide nasal bridge", "Wide nasal bridge", False),
            Alias(1, "FacePhenotype", "Wide nasal bridge", "Broad nasal bridge", True),
            Alias(2, "FacePhenotype", "Ptosis", "Ptosis", False),
            Alias(2, "FacePhenotype", "Ptosis", "Blepharoptosis", True)])}


def test_coverage_tolerates_synonyms_case_and_plurals():
    index = AliasIndex(FakeLinker())
    answer = "X — facial phenotypes: WIDE NASAL BRIDGES, Blepharoptosis."
    out = coverage(["Broad nasal bridge", "Ptosis", "Long philtrum"], answer, index)
    assert out["coverage"] == pytest.approx(2 / 3, abs=1e-4) and out["missing"] == ["Long philtrum"]
    assert out["missing_not_in_graph"] == ["Long philtrum"]
    strict = coverage(["Broad nasal bridge", "Ptosis"], answer, index, synonyms=False)
    assert strict["coverage"] == 0.0
    assert coverage([], answer, index)["coverage"] is None


def test_token_score_orders_texts():
    scorer = TokenScorer()
    reference = "Facial phenotypes associated with Crouzon syndrome include Hypertelorism, Proptosis."
    same = scorer.score(reference, reference)
    close = scorer.score("Crouzon syndrome — facial phenotypes: Proptosis, Hypertelorism, Strabismus.", reference)
    far = scorer.score("The weather in Lisbon is mild in winter.", reference)
    assert same["f1"] == pytest.approx(1.0, abs=1e-3)
    assert 0 < far["f1"] < close["f1"] < 1
    assert scorer.score("", reference)["f1"] == 0.0


@pytest.mark.slow
def test_domain_run_per_task(capsys, pipeline, tmp_path):
    path = pipeline.settings.data_dir / "datasets" / "domain_qa.xlsx"
    assert len(read_domain(path)) == 100
    capsys.readouterr()
    assert main(["domain", "--limit", "2", "--json", "--results-dir", str(tmp_path), "--torch-threads", "0"],
                pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["tasks"]) == 4 and len(out["items"]) == 8
    assert "not the paper's RoBERTa-large BERTScore" in out["semantic_note"]
    for task in out["tasks"].values():
        assert task["n"] == 2 and 0.0 <= task["coverage"] <= 1.0 and 0.0 <= task["semantic_f1"] <= 1.0
    for item in out["items"]:
        assert 0.0 <= item["coverage"] <= 1.0 and item["named"] <= item["items"]
    # the graph answers these from its own HPO data: Crouzon and FAM20C are covered well
    assert out["items"][0]["coverage"] >= 0.9
    assert (tmp_path / "domain" / "cypher-grounded-limit2.json").exists()
