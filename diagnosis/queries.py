"""The graph queries behind a differential diagnosis, gathered into one evidence object.

Every query is parameterised and recorded (the UI shows what ran). A case asks the graph once: its
gene's diseases, variants and published cases, and the co-carried variants of the patient's own
variant (diagnosis/conflicts.py), as the branches of one query. Phenotype annotations come from the
profiles read at start (`diagnosis.profiles`) and the candidates' names and ids from the disease table
read at start, not from a query per case."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from diagnosis.profiles import DiseaseProfiles
from graphstore.schema import CAUSE, FPKG, HPO, PHENOPACKET_STORE
from graphstore.store import GraphStore
from retrieval.hold_out import HoldOut
from retrieval.result import CypherRun, Triple

TIMEOUT_MS = 3000
MEMBERS_GENE = "a member's gene"  # the source of a group's link: the gene causes one of its members

# The branches of a case's one query. Each returns every column, null where it has none, and its kind.
GENE_DISEASES = ("MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE g.nid = $gene "
                 "RETURN 'gene_diseases' AS kind, d.nid AS disease, r.source AS source, r.pmids AS pmids, "
                 "null AS variation, null AS pmid, null AS sample, null AS other, null AS gene, null AS name")
VARIANT_DISEASES = ("MATCH (g:Genotype)<-[:Have]-(v:Variation)-[:Cause]->(d:Disease) WHERE g.nid = $gene "
                    "RETURN 'variant_diseases' AS kind, d.nid AS disease, v.source AS source, null AS pmids, "
                    "v.nid AS variation, v.pmid AS pmid, null AS sample, null AS other, null AS gene, null AS name")
CASES = ("MATCH (g:Genotype)<-[:Have]-(v:Variation)<-[:with_Var]-(s:Sample) WHERE g.nid = $gene "
         "MATCH (v)-[:Cause]->(d:Disease) OPTIONAL MATCH (s)-[:From]->(a:Article) "
         "RETURN 'cases' AS kind, d.nid AS disease, null AS source, null AS pmids, null AS variation, "
         "coalesce(a.pmid, v.pmid) AS pmid, s.nid AS sample, null AS other, null AS gene, null AS name")
# the patient's variant carried by a published patient with another variant (diagnosis/conflicts.py)
CO_CARRIED = ("MATCH (v:Variation)<-[:with_Var]-(s:Sample)-[:with_Var]->(o:Variation)-[:Cause]->(d:Disease) "
              "WHERE v.nid = $variant AND o.nid <> v.nid MATCH (o)-[:Have]->(g:Genotype) "
              "OPTIONAL MATCH (s)-[:From]->(a:Article) "
              "RETURN DISTINCT 'co_carried' AS kind, d.nid AS disease, null AS source, null AS pmids, "
              "null AS variation, coalesce(a.pmid, o.pmid) AS pmid, null AS sample, o.details AS other, "
              "g.geneName AS gene, d.dname AS name")
DISEASES = "MATCH (d:Disease) WHERE d.nid IN $diseases RETURN d.nid AS id, d.dname AS name, d.disease_id AS did"


@dataclass
class DiagnosisEvidence:
    diseases: dict[int, dict] = field(default_factory=dict)  # id → {name, disease_id}
    gene_sources: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    variant_diseases: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    case_diseases: Counter = field(default_factory=Counter)
    case_total: int = 0
    profile_rows: list[dict] = field(default_factory=list)
    gene: tuple[int, str] | None = None
    runs: list[CypherRun] = field(default_factory=list)
    # the co-carried variants of `co_carried_of` (a variant node), asked with the gene's evidence
    co_carried: list[dict] = field(default_factory=list)
    co_carried_of: int | None = None

    def name(self, disease: int) -> str:
        return self.diseases.get(disease, {}).get("name") or ""

    def triples_for(self, ranked, patient_terms: set[int] | None = None) -> list[Triple]:
        """The graph facts behind the ranked diseases (gene links, then shared phenotypes)."""
        wanted = {r.node_id for r in ranked if r.node_id is not None} | {
            m.node_id for r in ranked for m in getattr(r, "ranked_members", ()) if m.node_id is not None}
        triples: list[Triple] = []
        if self.gene:
            gene_id, gene_name = self.gene
            for disease in sorted(wanted & set(self.gene_sources)):
                source = "+".join(sorted(self.gene_sources[disease]))
                triples.append(Triple(gene_name, "Cause", self.diseases[disease]["name"], gene_id, disease,
                                      "Genotype", "Disease", source,
                                      tuple(sorted(self.variant_diseases.get(disease, ())))))
        for row in self.profile_rows:
            if row["disease"] in wanted:
                triples.append(Triple(self.diseases[row["disease"]]["name"], "Exhibit", row["name"],
                                      row["disease"], row["phenotype"], "Disease", "FacePhenotype",
                                      row.get("source") or "", (row["pmid"],) if row.get("pmid") else ()))
        return triples


def gather_evidence(store: GraphStore, profiles: DiseaseProfiles, *, gene_id: int | None,
                    variant_ids: list[int], phenotype_ids: list[int], extra_diseases: list[int],
                    phenotype_candidates: list[int], hold_out: HoldOut,
                    groups_of: dict[int, set[int]] | None = None,
                    diseases: dict[int, dict] | None = None) -> DiagnosisEvidence:
    """`phenotype_candidates`: the diseases whose profiles best match the patient's phenotypes
    (held-out papers' annotations left out), added to the gene's; `hold_out`: the case's held-out papers
    (`retrieval.hold_out`); `groups_of`: a disease -> the groups it is a member of (a group holds the
    diseases its members' genes cause); `diseases`: every disease node's {name, disease_id}, read at start
    (a disease missing from it is asked of the graph)."""
    evidence = DiagnosisEvidence()
    exclude_pmids = hold_out.pmids

    def run(cypher: str, params: dict, origin: str) -> list[dict]:
        rows = store.query(cypher, params, timeout_ms=TIMEOUT_MS)
        evidence.runs.append(CypherRun(cypher, params, origin=f"diagnosis:{origin}", rows=len(rows)))
        return rows

    branches = [*((GENE_DISEASES, VARIANT_DISEASES, CASES) if gene_id is not None else ()),
                *((CO_CARRIED,) if variant_ids else ())]
    rows_of: dict[str, list[dict]] = defaultdict(list)
    if branches:  # one round trip: each branch's rows come in the order its own query gives them
        params = {**({"gene": gene_id} if gene_id is not None else {}),
                  **({"variant": variant_ids[0]} if variant_ids else {})}
        for row in run(" UNION ALL ".join(branches), params, "gene_evidence"):
            rows_of[row["kind"]].append(row)
    if variant_ids:
        evidence.co_carried, evidence.co_carried_of = rows_of["co_carried"], variant_ids[0]
    if gene_id is not None:
        for row in rows_of["gene_diseases"]:
            source = _gene_link_source(row, hold_out, gene_id)
            if source:
                evidence.gene_sources[row["disease"]].add(source)
        for row in rows_of["variant_diseases"]:
            if row["pmid"] in exclude_pmids:
                continue
            evidence.gene_sources[row["disease"]].add(f"{row['source'] or FPKG} variant")
            if row["variation"] in variant_ids:
                evidence.variant_diseases[row["disease"]].add(row["pmid"])
        samples = {}
        for row in rows_of["cases"]:
            if row["pmid"] not in exclude_pmids:
                samples.setdefault(row["sample"], row["disease"])
        evidence.case_diseases = Counter(samples.values())
        evidence.case_total = len(samples)
        for disease in list(evidence.gene_sources):
            for group in (groups_of or {}).get(disease, ()):
                evidence.gene_sources[group].add(MEMBERS_GENE)
    candidates = (set(evidence.gene_sources) | set(evidence.case_diseases) | set(extra_diseases)
                  | set(phenotype_candidates))
    if not candidates:
        return evidence
    ids = sorted(candidates)
    wanted = set(phenotype_ids)
    for disease in ids:
        for annotation in [a for a in profiles.annotations(disease, hold_out) if a.phenotype in wanted]:
            evidence.profile_rows.append({
                "disease": disease, "phenotype": annotation.phenotype, "pmid": annotation.pmid,
                "name": profiles.phenotype_names.get(annotation.phenotype, ""), "source": annotation.source})
    known = diseases or {}
    evidence.diseases = {d: dict(known[d]) for d in ids if d in known}
    missing = [d for d in ids if d not in known]
    if missing:
        for row in run(DISEASES, {"diseases": missing}, "diseases"):
            evidence.diseases[row["id"]] = {"name": row["name"], "disease_id": row["did"]}
    return evidence


def _gene_link_source(row: dict, hold_out: HoldOut, gene_id: int) -> str | None:
    """Who still makes a gene -> disease link once the case's papers are held out (None: nobody). A link only
    published patients make is that of their papers: gone with them; HPO's goes with the last annotation
    line of the disease (whole-paper rule), its patients' papers, if any others, still making it."""
    source, papers = row["source"] or HPO, set(row["pmids"] or ())
    others = bool(papers - hold_out.pmids)
    if source == PHENOPACKET_STORE:
        return source if others else None
    if source == HPO and hold_out.held_lines.removes(CAUSE, gene_id, row["disease"]):
        return PHENOPACKET_STORE if others else None
    return source
