"""Published patients (GA4GH phenopacket-store) into the graph, beside FPKG's own, in FPKG's schema.

Each patient is a `Sample` (its findings' HPO ids in `present` and `excluded`, age, sex, cohort) from
its paper (`Article`, shared with FPKG when FPKG published the same paper), with its variants
(`Variation` -[:Have]-> `Genotype`, -[:Cause]-> `Disease`), its facial findings as FPKG draws them
(`FacePhenotype` -[:with_FP]-> `Sample`) and its diagnosis (`Sample` -[:Diagnosed]-> `Disease`, also for
a patient with no variant described). A gene the patients link to a disease that HPO does not is a
`(Genotype)-[:Cause]->(Disease)` of source `phenopacket-store` with the papers' PMIDs (`pmids`) as
its evidence; a link HPO makes too keeps HPO's source and gains `pmids`. Every node and relationship
made here says `phenopacket-store`. Diseases are found by their OMIM id, then through MONDO; one the
graph lacks (newer than the HPO release) is added under its OMIM id, name and MONDO id.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from graphstore.graph import Node
from graphstore.schema import (
    ARTICLE,
    CAUSE,
    DIAGNOSED,
    DISEASE,
    FROM,
    GENE,
    HAVE,
    LIST_SEPARATOR,
    PHENOPACKET_STORE,
    PHENOTYPE,
    SAMPLE,
    VARIANT,
    WITH_PHENOTYPE,
    WITH_VARIANT,
)
from identity.mondo import Mondo
from kg_dump.disease_identity import add_other_name
from kg_dump.phenopacket_reader import PublishedPatient, PublishedVariant
from kg_dump.phenopacket_store import StoreRead

SEX_CODES = {"female": "F", "male": "M"}  # as FPKG writes a patient's gender


@dataclass
class PatientsReport:
    patients: int = 0
    diseases_added: int = 0  # diseases the graph lacked (newer than its HPO release)
    genes_added: int = 0
    gene_links_added: int = 0  # gene -> disease links that only the patients give
    gene_links_confirmed: int = 0  # links the graph had, now with the patients' papers too
    articles_shared: int = 0  # papers FPKG published patients of too
    unmapped: Counter = field(default_factory=Counter)  # disease ids that name no disease, and why
    skipped_files: list[str] = field(default_factory=list)
    nodes: dict = field(default_factory=dict)  # added, by label
    relationships: dict = field(default_factory=dict)  # added, by type

    def summary(self) -> dict:
        return {"patients": self.patients, "diseases_added": self.diseases_added, "genes_added": self.genes_added,
                "gene_links_added": self.gene_links_added, "gene_links_confirmed": self.gene_links_confirmed,
                "articles_shared": self.articles_shared, "unmapped": dict(self.unmapped),
                "nodes": self.nodes, "relationships": self.relationships,
                "files_skipped": len(self.skipped_files), "skipped": self.skipped_files[:20]}


def merge_patients(merger, store: StoreRead, mondo: Mondo) -> PatientsReport:
    """Adds the store's patients to `merger.graph` (a `kg_dump.merge._Merger`), after HPO is merged."""
    report = PatientsReport(skipped_files=[f"{p.file}: {p.reason}" for p in store.problems])
    index = _GraphIndex(merger, mondo, report)
    gene_papers: dict[tuple[int, int], set[int]] = defaultdict(set)
    for patient in store.patients:
        disease = index.disease(patient)
        if disease is None:
            continue
        report.patients += 1
        sample = merger.add_node(SAMPLE, _sample_properties(patient), PHENOPACKET_STORE)
        merger.link(sample.id, DIAGNOSED, disease, source=PHENOPACKET_STORE)
        if patient.pmid is not None:
            merger.link(sample.id, FROM, index.article(patient), source=PHENOPACKET_STORE)
        for hpo_id in dict.fromkeys(f.hpo_id for f in patient.present):
            if hpo_id in index.phenotypes:
                merger.link(index.phenotypes[hpo_id], WITH_PHENOTYPE, sample.id, source=PHENOPACKET_STORE)
        for variant in patient.variants:
            variation = index.variation(variant, patient, disease)
            merger.link(sample.id, WITH_VARIANT, variation, source=PHENOPACKET_STORE)
            if variant.gene:
                gene_papers[(index.gene(variant), disease)].add(patient.pmid or 0)
    for (gene, disease), pmids in sorted(gene_papers.items()):
        existing = merger.pairs.get((gene, CAUSE, disease))
        papers = sorted(p for p in pmids if p)
        if existing is not None:
            existing.properties["pmids"] = sorted({*existing.properties.get("pmids", []), *papers})
            report.gene_links_confirmed += 1
        else:
            merger.link(gene, CAUSE, disease, {"pmids": papers}, source=PHENOPACKET_STORE)
            report.gene_links_added += 1
    report.nodes = dict(merger.added[PHENOPACKET_STORE])
    report.relationships = dict(merger.added_relationships[PHENOPACKET_STORE])
    return report


class _GraphIndex:
    """The graph's diseases, genes, phenotypes, articles and the variants made so far, by their keys."""

    def __init__(self, merger, mondo: Mondo, report: PatientsReport):
        self.merger, self.mondo, self.report = merger, mondo, report
        self.diseases: dict[str, int] = {}
        self.by_mondo: dict[str, int] = {}
        self.disease_nodes = {node.id: node for node in merger.nodes_with(DISEASE)}
        for node in self.disease_nodes.values():
            others = str(node.properties.get("other_ids") or "").split(LIST_SEPARATOR)
            for disease_id in filter(None, [node.properties.get("disease_id"), *others]):
                self.diseases.setdefault(disease_id, node.id)
            if node.properties.get("mondo_id"):
                self.by_mondo.setdefault(node.properties["mondo_id"], node.id)
        self.genes = {n.properties.get("geneName"): n.id for n in merger.nodes_with(GENE)}
        self.phenotypes = {n.properties["hpo_id"]: n.id for n in merger.nodes_with(PHENOTYPE)
                           if n.properties.get("hpo_id")}
        self.articles = {n.properties.get("pmid"): n for n in merger.nodes_with(ARTICLE)}
        self.variations: dict[tuple, int] = {}

    def disease(self, patient: PublishedPatient) -> int | None:
        disease_id = patient.disease_id
        found = self.diseases.get(disease_id)
        mondo_id = disease_id if disease_id.startswith("MONDO:") else self.mondo.of(disease_id)
        if found is None and mondo_id:
            found = self.by_mondo.get(mondo_id)
        if found is not None:
            if patient.disease_label:  # the store's label may be OMIM's newer title: a name people use
                add_other_name(self.disease_nodes[found].properties, patient.disease_label)
            return found
        if not disease_id.startswith("OMIM:") and not mondo_id:
            self.report.unmapped[f"{disease_id}: neither OMIM nor known to MONDO"] += 1
            return None
        properties = {"dname": patient.disease_label or self.mondo.label(mondo_id), "disease_id": disease_id,
                      "mondo_id": mondo_id}
        if disease_id.startswith("OMIM:") and disease_id[5:].isdigit():
            properties["did"] = int(disease_id[5:])
        node = self.merger.add_node(DISEASE, {k: v for k, v in properties.items() if v}, PHENOPACKET_STORE)
        self.disease_nodes[node.id] = node
        self.report.diseases_added += 1
        self.diseases[disease_id] = node.id
        if mondo_id:
            self.by_mondo[mondo_id] = node.id
        return node.id

    def gene(self, variant: PublishedVariant) -> int:
        if variant.gene not in self.genes:
            self.genes[variant.gene] = self.merger.add_node(GENE, {"geneName": variant.gene}, PHENOPACKET_STORE).id
            self.report.genes_added += 1
        return self.genes[variant.gene]

    def article(self, patient: PublishedPatient) -> int:
        node: Node | None = self.articles.get(patient.pmid)
        if node is None:
            node = self.merger.add_node(ARTICLE, {"pmid": patient.pmid, "articleName": patient.title},
                                        PHENOPACKET_STORE)
            self.articles[patient.pmid] = node
        elif node.properties.get("source") != PHENOPACKET_STORE and not node.properties.get("published_patients"):
            node.properties["published_patients"] = PHENOPACKET_STORE  # FPKG's paper, in the store too
            self.report.articles_shared += 1
        return node.id

    def variation(self, variant: PublishedVariant, patient: PublishedPatient, disease: int) -> int:
        """One node per variant and paper, as FPKG has them (a paper's variant carries its PMID)."""
        key = (variant.gene, variant.hgvs or variant.description, patient.pmid)
        if key not in self.variations:
            properties = {"details": variant_text(variant), "variation_gene_name": variant.gene,
                          "category": variant.zygosity, "pmid": patient.pmid, "hgvs": variant.hgvs}
            node = self.merger.add_node(VARIANT, {k: v for k, v in properties.items() if v}, PHENOPACKET_STORE)
            self.variations[key] = node.id
            if variant.gene:
                self.merger.link(node.id, HAVE, self.gene(variant), source=PHENOPACKET_STORE)
        variation = self.variations[key]
        self.merger.link(variation, CAUSE, disease, source=PHENOPACKET_STORE)
        return variation


def variant_text(variant: PublishedVariant) -> str:
    """What a variant's node shows: the c. change and the protein change without their reference
    sequences ("c.1155A>C; p.(Arg385Ser)"), else what the file describes."""
    parts = [text.split(":", 1)[-1] for text in (variant.hgvs, variant.protein) if text]
    return "; ".join(parts) or variant.description or "variant not described"


def _sample_properties(patient: PublishedPatient) -> dict:
    properties = {
        "sid": patient.id, "gender": SEX_CODES.get(patient.sex or "", "NA"), "cohort": patient.cohort,
        "present": LIST_SEPARATOR.join(dict.fromkeys(f.hpo_id for f in patient.present)),
        "excluded": LIST_SEPARATOR.join(dict.fromkeys(f.hpo_id for f in patient.excluded)),
        "pmid": patient.pmid, "age_years": patient.age_years, "onset_years": patient.onset_years,
    }
    if patient.age_years is not None:
        properties["year"] = f"{patient.age_years:g} y"
    return {k: v for k, v in properties.items() if v is not None and v != ""}
