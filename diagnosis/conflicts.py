"""Facts behind a diagnosis that disagree, each named with both of its sources.

- variant vs gene: FPKG publishes the patient's own variant as causing a disease that HPO does not
  link to the gene, while HPO links the gene to other diseases (an ORPHA/OMIM twin counts as the
  same disease).
- the same patient, two diseases: FPKG's published patient with the patient's variant carries another
  variant, recorded as causing another disease (the Publication set's two misses: a question gives
  one variant of such a patient and the other variant's disease as the answer).
- exhibit vs HPO exclusion: the graph records a facial phenotype for a disease (FPKG, or HPO itself)
  whose HPO annotation says NOT (explicitly excluded; `excludes` on the Disease node, kg_dump/merge.py).
- patient vs HPO exclusion: the patient has a facial phenotype that HPO excludes for a disease
  ranked near the top.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnosis.queries import CO_CARRIED, DiagnosisEvidence
from fpkg.names import short_variant
from graphstore.store import GraphStore
from retrieval.result import CypherRun, Link, Triple

CHECKED_DISEASES = 5  # the top of the ranking: the diseases an answer names or weighs
MAX_NAMED = 4  # HPO's diseases named in one sentence
TIMEOUT_MS = 3000
EXCLUDED = ("MATCH (d:Disease) WHERE d.nid IN $diseases AND d.excludes IS NOT NULL "
            "MATCH (p:FacePhenotype) WHERE p.hpo_id IN split(d.excludes, ';') "
            "OPTIONAL MATCH (d)-[e:Exhibit]->(p) "
            "WITH d, p, e WHERE p.nid IN $phenotypes OR e IS NOT NULL "
            "RETURN d.nid AS disease, d.dname AS name, p.nid AS phenotype, p.phenotypeName AS phenotype_name, "
            "p.hpo_id AS hpo_id, e.source AS exhibit, e.pmid AS pmid")


@dataclass(frozen=True)
class Conflict:
    kind: str  # variant_vs_gene, co_carried, exhibit_vs_excluded, patient_vs_excluded
    text: str  # one sentence naming both sources
    triples: tuple[Triple, ...]  # both sides, for the triples table


def variant_vs_gene(evidence: DiagnosisEvidence, variant: Link | None, twin_of: dict[int, int]) -> list[Conflict]:
    if evidence.gene is None or variant is None:
        return []
    gene_id, gene = evidence.gene
    by_hpo = _linked_by_hpo(evidence)
    named = sorted(evidence.diseases[d]["name"] for d in by_hpo if d in evidence.diseases)
    if not named:
        return []  # HPO links the gene to nothing: no disagreement, only a gap
    listed = ", ".join(named[:MAX_NAMED]) + (f" and {len(named) - MAX_NAMED} more" if len(named) > MAX_NAMED else "")
    agreeing = _with_twins(by_hpo, twin_of)
    conflicts = []
    for disease, pmids in sorted(evidence.variant_diseases.items()):
        if disease in agreeing:
            continue
        name, cited = evidence.diseases[disease]["name"], tuple(sorted(p for p in pmids if p))
        text = (f"Sources disagree: FPKG publishes the patient's variant {short_variant(variant.name)} as causing "
                f"{name}{_pmids(cited)}, but HPO links {gene} to {listed}, not to {name}.")
        triples = (Triple(variant.name, "Cause", name, variant.node_id, disease, "Variation", "Disease",
                          "FPKG (conflict)", cited),
                   *(Triple(gene, "Cause", other, gene_id, -1, "Genotype", "Disease", "HPO (conflict)")
                     for other in named[:MAX_NAMED]))
        conflicts.append(Conflict("variant_vs_gene", text, triples))
    return conflicts


def co_carried(store: GraphStore, evidence: DiagnosisEvidence, variant: Link | None, twin_of: dict[int, int],
               exclude_pmids: frozenset[int]) -> tuple[list[Conflict], list[CypherRun]]:
    """The published carrier of the patient's variant has another, recorded as causing another disease
    (asked with the case's evidence, diagnosis/queries.py, or here when that did not ask it)."""
    if variant is None:
        return [], []
    params = {"variant": variant.node_id}
    runs = []
    if evidence.co_carried_of == variant.node_id:
        rows = evidence.co_carried
    else:
        rows = store.query(CO_CARRIED, params, timeout_ms=TIMEOUT_MS)
        runs.append(CypherRun(CO_CARRIED, params, origin="conflicts:co_carried", rows=len(rows)))
    own = _with_twins(set(evidence.variant_diseases), twin_of)
    own_names = sorted(evidence.diseases[d]["name"] for d in evidence.variant_diseases if d in evidence.diseases)
    own_variant = short_variant(variant.name)
    mine = f" is recorded as causing {', '.join(own_names)}" if own_names else " is recorded with no disease"
    gene = evidence.gene[1] if evidence.gene else "the patient's gene"
    by_hpo = _linked_by_hpo(evidence)
    conflicts = []
    for row in rows:
        if row["disease"] in own or row["pmid"] in exclude_pmids:
            continue
        other = f"{row['gene']} {short_variant(row['other'])}"
        hpo = "" if row["disease"] in by_hpo else f"; HPO does not link {gene} to {row['name']}"
        text = (f"Two diseases for one patient: FPKG's published patient with {own_variant} (PMID {row['pmid']}) "
                f"also carries {other}, recorded as causing {row['name']}, while {own_variant}{mine}{hpo}.")
        pmids = (row["pmid"],) if row["pmid"] else ()
        recorded = Triple(other, "Cause", row["name"], -1, row["disease"], "Variation", "Disease", "FPKG (conflict)",
                          pmids)
        conflicts.append(Conflict("co_carried", text, (recorded,)))
    return conflicts, runs


def against_exclusions(store: GraphStore, diseases: list[int],
                       phenotypes: list[int]) -> tuple[list[Conflict], CypherRun]:
    """The diseases' recorded phenotypes, and the patient's, that HPO excludes for them."""
    params = {"diseases": diseases, "phenotypes": phenotypes}
    rows = store.query(EXCLUDED, params, timeout_ms=TIMEOUT_MS) if diseases else []
    conflicts = []
    for row in rows:
        disease, phenotype, not_annotation = row["name"], row["phenotype_name"], f"a NOT annotation, {row['hpo_id']}"
        excluded = Triple(disease, "Excludes", phenotype, row["disease"], row["phenotype"], "Disease",
                          "FacePhenotype", "HPO NOT (conflict)")
        if row["phenotype"] in phenotypes:
            text = (f"Sources disagree: the patient has {phenotype}, "
                    f"which HPO excludes for {disease} ({not_annotation}).")
            conflicts.append(Conflict("patient_vs_excluded", text, (excluded,)))
        if row["exhibit"]:
            pmids = (row["pmid"],) if row["pmid"] else ()
            text = (f"Sources disagree: {row['exhibit']} records {phenotype} for {disease}{_pmids(pmids)}, but HPO "
                    f"excludes it ({not_annotation}).")
            recorded = Triple(disease, "Exhibit", phenotype, row["disease"], row["phenotype"], "Disease",
                              "FacePhenotype", f"{row['exhibit']} (conflict)", pmids)
            conflicts.append(Conflict("exhibit_vs_excluded", text, (recorded, excluded)))
    return conflicts, CypherRun(EXCLUDED, params, origin="conflicts:exclusions", rows=len(rows))


def _linked_by_hpo(evidence: DiagnosisEvidence) -> set[int]:
    return {d for d, sources in evidence.gene_sources.items() if any("HPO" in s for s in sources)}


def _with_twins(diseases: set[int], twin_of: dict[int, int]) -> set[int]:
    """The diseases with their ORPHA/OMIM twins (diagnosis/twins.py): one disease under two ids."""
    twins = {twin_of[d] for d in diseases if d in twin_of} | {d for d, omim in twin_of.items() if omim in diseases}
    return diseases | twins


def _pmids(pmids: tuple) -> str:
    return f" ({', '.join(f'PMID {pmid}' for pmid in pmids)})" if pmids else ""
