"""Real published patients outside FPKG (GA4GH phenopacket-store's development set) as generalisation cases.

Each patient gives five cases, all split by a hash of its OMIM id (a disease is never on both sides):

    gene_facial      gene, variant and facial findings (patients with at least two), open
    gene_whole       gene, variant, every present finding and every excluded one, open
    facial_only      facial findings alone (at least two), open
    whole_phenotype  every present and excluded finding, no gene, open
    few_findings     one to three of the present findings (chosen by a hash of the case id), no gene, open
    four_options     the set's selective question: gene, variant, facial findings, four options

Each case holds its patient's own paper out of the knowledge (every published patient sharing its PMID).
The truth is the patient's OMIM disease: the graph node with that id, when the graph holds it
(some diseases are newer than the graph's HPO release: no ranker can name those; they count wrong).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

from bench.devsets import DevCase, split_of
from diagnosis.ontology import PhenotypeOntology
from fpkg.errors import BenchError
from graphstore.store import GraphStore
from retrieval.options import split_question

CASES = "phenopackets_dev.jsonl"
SELECTIVE = "phenopackets_dev_selective.csv"
CONDITIONS = ("gene_facial", "gene_whole", "facial_only", "whole_phenotype", "few_findings", "four_options")
FEW_FINDINGS = 3  # a thin description: one to three findings
MIN_FACIAL = 2  # as the set's question files: a face described by one finding is no facial description
MAX_FACIAL = 12  # the question files' cut
DISEASE_IDS = "MATCH (d:Disease) RETURN d.nid AS id, d.disease_id AS did, d.other_ids AS others"
GENES = "MATCH (g:Genotype) RETURN g.geneName AS gene"


def read_patients(folder: Path) -> list[dict]:
    path = folder / CASES
    if not path.is_file():
        raise BenchError(f"no {CASES} in {folder}: set PHENOPACKETS_DIR to the phenopacket development set")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def phenopacket_cases(folder: Path, store: GraphStore, ontology: PhenotypeOntology,
                      stats: Counter | None = None) -> list[DevCase]:
    stats = stats if stats is not None else Counter()
    node_of = {}
    for row in store.query(DISEASE_IDS, timeout_ms=60_000):
        for disease_id in [row["did"], *str(row["others"] or "").split(";")]:
            node_of.setdefault(disease_id, row["id"])
    genes = {row["gene"] for row in store.query(GENES, timeout_ms=60_000)}
    options = _options(folder / SELECTIVE)
    cases = []
    for patient in read_patients(folder):
        stats["patients"] += 1
        stats["disease_not_in_graph"] += patient["omim_id"] not in node_of
        stats["gene_not_in_graph"] += patient["gene"] not in genes
        cases += _cases(patient, node_of.get(patient["omim_id"]), ontology, options.get(patient["case_id"]))
    stats["cases"] = len(cases)
    return cases


def _cases(patient: dict, truth: int | None, ontology: PhenotypeOntology,
           options: dict[str, str] | None) -> list[DevCase]:
    facial = [f for f in patient["present"] if f["facial"]][:MAX_FACIAL]
    others = [f for f in patient["present"] if not f["facial"]]

    # a published patient never votes for itself: its paper's cases leave the knowledge (phenopacket-store's
    # patients, their variants, gene links and findings), as the Publication set's held-out mode does
    own_paper = frozenset({int(patient["pmid"])}) if str(patient.get("pmid") or "").isdigit() else frozenset()

    def terms(findings: list[dict]) -> tuple[int, ...]:
        return tuple(t for f in findings if (t := ontology.index_of_hpo.get(f["id"])) is not None)

    def case(condition: str, *, gene: bool, whole: bool, chosen: dict[str, str] | None = None) -> DevCase:
        present = facial + (others if whole else [])
        return DevCase(
            "phenopackets", condition, patient["case_id"], tuple(f["label"] for f in facial), terms(present),
            patient["gene"] if gene else None, "; ".join(patient["variants"]) or None if gene else None, chosen,
            own_paper, truth, patient["omim_id"], patient["disease"], split_of(patient["omim_id"]),
            other_findings=tuple(f["label"] for f in others) if whole else (),
            excluded=tuple(f["label"] for f in patient["excluded"]) if whole else (), whole=whole,
            age_years=patient.get("age"), sex=patient.get("sex") if patient.get("sex") in ("female", "male") else None)

    found = [case("gene_whole", gene=True, whole=True), case("whole_phenotype", gene=False, whole=True)]
    found.append(_few_findings(case("whole_phenotype", gene=False, whole=True), patient, ontology))
    if len(facial) >= MIN_FACIAL:
        found += [case("gene_facial", gene=True, whole=False), case("facial_only", gene=False, whole=False)]
    if options:
        found.append(case("four_options", gene=True, whole=False, chosen=options))
    return found


def _few_findings(whole: DevCase, patient: dict, ontology: PhenotypeOntology) -> DevCase:
    """Thin input, as a clinician often has it: one to three of the patient's present findings (the count
    and the findings chosen by a hash of the case id: the same every run), no gene, nothing absent."""
    present = sorted(patient["present"], key=lambda f: hashlib.sha256(f"{patient['case_id']}:{f['id']}".encode())
                     .digest())
    chosen = present[:1 + hashlib.sha256(patient["case_id"].encode()).digest()[0] % FEW_FINDINGS]
    return replace(whole, condition="few_findings", phenotypes=tuple(f["label"] for f in chosen if f["facial"]),
                   other_findings=tuple(f["label"] for f in chosen if not f["facial"]), excluded=(),
                   terms=tuple(t for f in chosen if (t := ontology.index_of_hpo.get(f["id"])) is not None),
                   whole=any(not f["facial"] for f in chosen))


def _options(path: Path) -> dict[str, dict[str, str]]:
    """case id -> the four options of its selective question."""
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as f:
        return {row["case_id"]: split_question(row["Patient_question"])[1] for row in csv.DictReader(f)}
