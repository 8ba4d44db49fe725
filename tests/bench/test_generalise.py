"""bench generalise on the real graph: the dev/test split, the two case sets, the plain baseline,
and the command end to end."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from bench.__main__ import main
from bench.baseline import PlainBaseline
from bench.devsets import LETTERS, disease_key, gene_diseases, lopo_cases, simulated_cases, split_of
from fpkg.names import fold_name

pytestmark = pytest.mark.slow
# FPKG's own patients (phenopacket-store's are in the graph too, and are no leave-one-paper-out cases)
SAMPLE_ARTICLE = ("MATCH (s:Sample)-[:From]->(a:Article) WHERE s.source = 'FPKG' "
                  "RETURN s.nid AS sample, a.pmid AS pmid")
SAMPLE_VARIANT_PMIDS = ("MATCH (s:Sample)-[:with_Var]->(v:Variation) WHERE s.source = 'FPKG' "
                        "RETURN s.nid AS sample, v.pmid AS pmid")


@pytest.fixture(scope="module")
def lopo(pipeline):
    stats = Counter()
    return lopo_cases(pipeline.store, pipeline.ontology, stats), stats


@pytest.fixture(scope="module")
def simulated(pipeline):
    return simulated_cases(pipeline.store, pipeline.ontology, pipeline.profiles, seed=0)


@pytest.fixture(scope="module")
def baseline(pipeline):
    return PlainBaseline.from_store(pipeline.store, pipeline.ontology, pipeline.profiles)


def test_the_split_is_a_fixed_hash_of_the_disease(lopo, simulated):
    # sha256, not Python's salted hash(): the same on every run and machine
    assert split_of("OMIM:101200") == "dev" and split_of("OMIM:214800") == "test"
    assert split_of("noonan syndrome") == ("dev" if hashlib.sha256(b"noonan syndrome").digest()[0] % 2 == 0
                                           else "test")
    assert disease_key(None, "Noonan Syndrome-1") == "noonan syndrome 1"
    cases = lopo[0] + simulated
    for name in ("lopo", "simulated"):
        splits = Counter(case.split for case in cases if case.set_name == name)
        assert splits["dev"] > 0.35 * sum(splits.values()) and splits["test"] > 0.35 * sum(splits.values()), splits
    # a disease is on one side only, whichever set its cases come from
    sides: dict[str, set[str]] = {}
    for case in cases:
        sides.setdefault(disease_key(case.truth_disease_id, case.truth_name), set()).add(case.split)
    assert all(len(found) == 1 for found in sides.values())


def test_lopo_cases_hold_out_their_own_paper(pipeline, lopo):
    cases, stats = lopo
    article = {row["sample"]: row["pmid"] for row in pipeline.store.query(SAMPLE_ARTICLE)}
    variant_pmids: dict[int, set[int]] = {}
    for row in pipeline.store.query(SAMPLE_VARIANT_PMIDS):
        variant_pmids.setdefault(row["sample"], set()).add(row["pmid"])
    assert stats["samples"] == len(article) == 1147
    assert stats["cases"] == len(cases) and 500 < len(cases) < 1147
    assert stats["cases"] + stats["no_gene"] + stats["no_phenotype"] + stats["no_disease"] \
        + stats["several_diseases"] == 1147
    for case in cases:
        sample = int(case.case_id.removeprefix("sample:"))
        assert article[sample] in case.exclude_pmids
        assert variant_pmids[sample] - {None} <= case.exclude_pmids
        assert case.gene and case.phenotypes and 0 < len(case.terms) <= len(case.phenotypes)
        assert case.condition == "gene_variant_phenotypes" and case.options is None
    assert len({case.case_id for case in cases}) == len(cases)


def test_simulated_cases_are_deterministic_with_four_distinct_options(pipeline, simulated):
    again = simulated_cases(pipeline.store, pipeline.ontology, pipeline.profiles, seed=0)
    assert again == simulated
    other = simulated_cases(pipeline.store, pipeline.ontology, pipeline.profiles, seed=1)
    assert [c.terms for c in other] != [c.terms for c in simulated]
    genes = gene_diseases(pipeline.store)
    conditions = Counter(case.condition for case in simulated)
    assert conditions["phenotypes_only"] == conditions["four_options"] == conditions["few_phenotypes"] \
        > conditions["gene_phenotypes"] > 1000
    for case in simulated:
        fewest, most = (1, 3) if case.condition == "few_phenotypes" else (2, 7)
        assert fewest <= len(case.terms) <= most and len(set(case.terms)) == len(case.terms)
        assert not case.exclude_pmids and case.variant is None
        if case.condition == "gene_phenotypes":
            assert case.gene in genes[case.truth_node]
        if case.condition == "four_options":
            assert list(case.options) == list(LETTERS)
            assert len({fold_name(name) for name in case.options.values()}) == 4
            assert case.options[case.truth_option] == case.truth_name
    # the true option is not always in the same place
    assert len(Counter(c.truth_option for c in simulated if c.options)) == 4


def hpo_terms(pipeline, disease: int) -> list[int]:
    """The disease's own facial HPO annotations as ontology terms (what the baseline matches)."""
    node_term = pipeline.ontology.node_term
    return [node_term[a.phenotype] for a in pipeline.profiles.by_disease[disease]
            if "HPO" in a.source and a.phenotype in node_term]


def test_the_baseline_ranks_a_disease_first_from_its_own_terms_and_gene(pipeline, baseline):
    genes = gene_diseases(pipeline.store)
    charge = next(d for d in baseline.names if baseline.names[d][0] == "OMIM:214800")
    terms = hpo_terms(pipeline, charge)
    top = baseline.rank(terms, "CHD7")
    assert top[0].node_id == charge and top[0].name.lower().startswith("charge")
    assert all(s.node_id in baseline.gene_filter("chd7") for s in top)  # only the gene's diseases
    # the same over many diseases; a few lose to a disease with the same terms and a lower id
    checked = [d for d in baseline.names if d in genes][:100]
    first = sum(baseline.rank(hpo_terms(pipeline, d), genes[d][0])[0].node_id == d for d in checked)
    assert first >= 0.9 * len(checked)
    assert sum(s.node_id == charge for s in baseline.rank(terms, None)) == 1  # found without the gene too


def test_the_baseline_answers_options_by_gene_then_similarity_then_elimination(pipeline, baseline):
    charge = next(d for d in baseline.names if baseline.names[d][0] == "OMIM:214800")
    apert = next(d for d in baseline.names if baseline.names[d][0] == "OMIM:101200")
    terms = hpo_terms(pipeline, apert)
    options = {"A": baseline.names[apert][1], "B": "A disease nobody annotated", "C": baseline.names[charge][1]}
    by_terms = baseline.rank_options(terms, None, options)
    assert [s.option for s in by_terms] == ["A", "C", "B"]  # unknown options last
    by_gene = baseline.rank_options(terms, "CHD7", options)
    assert [s.option for s in by_gene] == ["C", "A", "B"]  # the gene's option first, whatever the terms
    eliminated = baseline.rank_options(terms, "CHD7", {"A": options["A"], "B": options["B"]})
    assert eliminated[0].option == "B" and eliminated[0].node_id is None  # CHD7 rules Apert out


def test_the_command_reports_ranker_and_baseline_on_both_splits(capsys, pipeline, tmp_path):
    capsys.readouterr()
    assert main(["generalise", "--limit", "3", "--json", "--results-dir", str(tmp_path), "--torch-threads", "0"],
                pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    cells = {(c["set"], c["condition"], c["split"]): c for c in out["cells"]}
    sets = (("lopo", ["gene_variant_phenotypes"]),
            ("simulated", ["gene_phenotypes", "phenotypes_only", "few_phenotypes", "four_options"]),
            ("phenopackets", ["gene_facial", "gene_whole", "facial_only", "whole_phenotype", "few_findings",
                              "four_options"]))
    assert set(cells) == {(s, c, sp) for s, conditions in sets for c in conditions for sp in ("dev", "test")}
    for (_, condition, _), cell in cells.items():
        assert cell["n"] == 3 and cell["ranker_latency_ms"]["n"] == 3
        for who in ("ranker", "baseline"):
            assert 0.0 <= cell[who]["top1"] <= 1.0
            if condition == "four_options":
                assert cell[who]["top10"] is None
            else:
                assert cell[who]["top1"] <= cell[who]["top10"] <= 1.0
    assert len(out["items"]) == 3 * len(cells)
    assert all(item["ranker_rank"] is None or 1 <= item["ranker_rank"] <= 10 for item in out["items"])
    assert out["hpo"]["hp_obo"].startswith("hp/releases/")
    assert out["graph"]["nodes"]["Sample"] > 1147 and "ner_model" in out  # FPKG's and the store's patients
    assert out["data"]["lopo"]["samples"] == 1147 and out["data"]["simulated"]["diseases"] > 1000
    # the simple cases are not all missed: both systems find some truths
    assert any(item["ranker_rank"] == 1 for item in out["items"])
    assert any(item["baseline_rank"] == 1 for item in out["items"])
    saved = list((tmp_path / "generalise").glob("*.json"))
    assert [p.name for p in saved] == ["lopo+simulated+phenopackets-dev+test-limit3.json"]


def test_both_hold_out_rules_run_on_the_same_cases_and_the_drop_is_told_by_evidence_kind(capsys, pipeline, tmp_path):
    capsys.readouterr()
    assert main(["generalise", "--sets", "phenopackets", "--splits", "dev", "--limit", "4", "--hold-out-rules",
                 "whole-paper,patients", "--json", "--results-dir", str(tmp_path), "--torch-threads", "0"],
                pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hold_out_rules"] == ["whole-paper", "patients"]
    patients = out["by_rule"]["patients"]
    assert [c["condition"] for c in patients["cells"]] == [c["condition"] for c in out["cells"]]
    assert [i["case"] for i in patients["items"]] == [i["case"] for i in out["items"]]  # the same cases
    drops = out["drop"]["patients"]
    assert len(drops) == len(out["cells"]) and all(d["n"] == 4 for d in drops)
    for drop, whole, kept in zip(drops, out["cells"], patients["cells"], strict=True):
        assert drop["top1"] == [whole["ranker"]["top1"], kept["ranker"]["top1"]]
        assert round(drop["top1"][1] - drop["top1"][0], 4) == round((drop["lost"] - drop["gained"]) / 4, 4)
    # a published patient's own paper is the source of many of HPO's lines of its disease: without them the
    # truth's annotation match falls somewhere
    changes = [d["truth_part_change"].get(kind, 0.0) for d in drops for kind in ("phenotype", "annotated")]
    assert min(changes) < 0
    names = [p.name for p in (tmp_path / "generalise").glob("*.json")]
    assert names == ["phenopackets-dev-limit4-rules-whole-paper+patients.json"]


def test_calibrate_fits_on_dev_and_reports_brier_and_reliability_on_test(capsys, pipeline, tmp_path):
    from diagnosis.confidence import FEATURES, SHAPES, ConfidenceModel

    capsys.readouterr()
    model_path = tmp_path / "model.json"
    assert main(["calibrate", "--limit", "6", "--json", "--results-dir", str(tmp_path), "--torch-threads", "0",
                 "--model-out", str(model_path)], pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    fitted = ConfidenceModel.load(model_path)
    assert fitted is not None and fitted.fitted_on["split"] == "dev"
    shapes = fitted.fitted_on["cases"]
    # every input shape has dev cases: a gene known, and findings alone, few (1-3) or more
    assert set(shapes) == set(SHAPES) and all(n >= 1 for n in shapes.values())
    assert sum(shapes.values()) == out["calibration"]["dev"]["n"]
    assert all(list(coef) == list(FEATURES) for coef in out["coef"].values())
    for split in ("dev", "test"):
        figures = out["calibration"][split]
        assert figures["n"] >= 60 and 0.0 <= figures["brier"] <= 1.0
        assert sum(row["n"] for row in figures["reliability"]) == figures["n"]
        assert out["calibration"][f"{split}, lopo"]["n"] == 6
    assert (tmp_path / "calibration.png").stat().st_size > 5_000


def test_a_case_whose_query_ran_past_its_time_limit_is_tried_again(monkeypatch):
    from bench import generalise
    from fpkg.errors import QueryTimeout

    monkeypatch.setattr(generalise.time, "sleep", lambda seconds: None)
    calls = []

    def slow_twice(answer):
        calls.append(answer)
        if len(calls) < 3:
            raise QueryTimeout("query stopped at its time limit (Query timed out)")
        return answer

    assert generalise.retrying(slow_twice, 42) == 42 and len(calls) == 3
    calls.clear()
    with pytest.raises(QueryTimeout):  # a third time out in a row is no busy moment: the run fails, saying so
        generalise.retrying(slow_twice, 42, tries=2)
