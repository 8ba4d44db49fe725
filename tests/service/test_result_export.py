"""The differential out (issue 46): a TSV with PhEval's standardised columns first, and a GA4GH phenopacket
carrying it as interpretations, which parses back through the `phenopackets` package."""

from __future__ import annotations

import io

import pandas as pd
from google.protobuf import json_format
from phenopackets import Interpretation, Phenopacket

from diagnosis.ranker import DiagnosisCase
from service.case_input import compose
from service.result_export import PHEVAL_COLUMNS, differential_files

CASE = DiagnosisCase(phenotypes=("Hypertelorism", "Ptosis", "Low-set ears"), other_findings=("Pulmonic stenosis",),
                     excluded=("Intellectual disability",), gene="PTPN11", variant="c.922A>G", age_years=4.5,
                     sex="male")


def test_the_tsv_opens_in_pandas_with_phevals_columns_first(pipeline):
    tsv, _ = differential_files(pipeline, CASE)
    table = pd.read_csv(io.StringIO(tsv), sep="\t")
    ranked = pipeline.diagnose(CASE).ranked
    assert tuple(table.columns[:3]) == PHEVAL_COLUMNS and list(table["rank"]) == list(range(1, len(ranked) + 1))
    assert table["disease_identifier"][0] == "OMIM:163950" and table["score"].is_monotonic_decreasing
    first = table.iloc[0]
    assert first["gene"] > 0 and first["variant"] > 0  # each kind's part
    shares = [c for c in table.columns if c.startswith("finding: ")]
    assert {"finding: Hypertelorism", "finding: Pulmonic stenosis"} <= set(shares)
    assert abs(sum(first[c] for c in shares) - first["profile"]) < 1e-3  # the findings share the profile part
    assert "Human Phenotype Ontology release 2025-01-16" in first["knowledge"]
    assert "/" not in first["knowledge"].split("phenopacket-store")[1][:30]


def test_the_interpretation_made_from_the_form_round_trips(pipeline):
    _, text = differential_files(pipeline, CASE)
    packet = json_format.Parse(text, Phenopacket())
    assert json_format.Parse(json_format.MessageToJson(packet), Phenopacket()) == packet
    ranked = pipeline.diagnose(CASE).ranked
    assert len(packet.interpretations) == len(ranked)
    first = packet.interpretations[0]
    assert first.diagnosis.disease.id == "OMIM:163950" and first.progress_status == Interpretation.IN_PROGRESS
    assert first.diagnosis.genomic_interpretations[0].gene.symbol == "PTPN11"
    features = {(f.type.id, f.excluded) for f in packet.phenotypic_features}
    assert ("HP:0000316", False) in features and ("HP:0001249", True) in features
    assert packet.subject.time_at_last_encounter.age.iso8601duration == "P4Y6M"
    named = [ref.description for ref in packet.meta_data.external_references if ref.id == "FPKG-RAG"]
    assert named and "Mondo Disease Ontology" in named[0] and "Human Phenotype Ontology release 2025-01-16" in named[0]


def test_a_given_phenopacket_keeps_what_it_held_and_gains_the_differential(pipeline, store_phenopacket):
    given = store_phenopacket.read_text()
    case = compose(pipeline, DiagnosisCase(), phenopacket=given).case
    _, text = differential_files(pipeline, case, given)
    before, after = json_format.Parse(given, Phenopacket()), json_format.Parse(text, Phenopacket())
    assert after.phenotypic_features == before.phenotypic_features and after.subject == before.subject
    assert list(after.interpretations[:len(before.interpretations)]) == list(before.interpretations)
    assert len(after.interpretations) > len(before.interpretations)
    assert after.meta_data.updates[-1].updated_by == "FPKG-RAG"
