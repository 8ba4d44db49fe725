"""A disease's genes in the order that matters to a clinician: by how many of its published patients each
explains, a group's members' genes included (BRAF for Noonan syndrome through Noonan syndrome 7).

Published patients are FPKG's and phenopacket-store's (a patient's variant in the gene, `Cause` to the
disease or one of its members). A count is a sample of the papers curated, not of the patients seen: one
cohort paper of 14 NRAS patients would put NRAS before PTPN11 for Noonan syndrome. So the counts are read
against the order in which OMIM numbered the group's members (a series' first member is the first gene
described, as a rule the most common cause): each gene starts with `SERIES_PRIOR_PATIENTS` patients shared
by the members in proportion to 1 / their number, and its published patients are added. The figure was
chosen on development groups apart from the syndromes the tests check (RESULTS.md, issue 57).
Genes no patient and no numbered member speak for are ordered by HPO's links: those of the disease itself
first, then those more of its entries name (OMIM's gene map and Orphanet's list both: RAI1 for Smith-Magenis
syndrome, where Orphanet adds three), then the genes linked to fewer diseases (the more specific).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from graphstore.store import GraphStore
from retrieval.cypher.templates import TEMPLATE_TIMEOUT_MS
from retrieval.result import CypherRun

SERIES_PRIOR_PATIENTS = 40
GENES = ("MATCH (d:Disease) WHERE d.nid = $id MATCH (m:Disease)-[:member_of*0..1]->(d) "
         "MATCH (g:Genotype)-[r:Cause]->(m) RETURN g.nid AS gene_id, g.geneName AS gene, m.nid AS disease_id, "
         "m.dname AS disease, r.source AS source")
IDS = "MATCH (d:Disease) WHERE d.nid = $id RETURN d.disease_id AS did, d.other_ids AS others"
SPREAD = ("MATCH (g:Genotype)-[:Cause]->(d:Disease) WHERE g.nid IN $genes "
          "RETURN g.nid AS gene_id, count(DISTINCT d) AS n")
PATIENTS = ("MATCH (d:Disease) WHERE d.nid = $id MATCH (m:Disease)-[:member_of*0..1]->(d) "
            "MATCH (s:Sample)-[:with_Var]->(v:Variation)-[:Cause]->(m) MATCH (v)-[:Have]->(g:Genotype) "
            "RETURN g.nid AS gene_id, g.geneName AS gene, m.nid AS disease_id, m.dname AS disease, "
            "count(DISTINCT s) AS patients")
# a member's number in its series: "Noonan syndrome 7", "NOONAN SYNDROME 3", "Stickler syndrome, type II",
# "Noonan syndrome 5(NS5)", "Waardenburg Syndrome Type 1(WS1)", "Waardenburg syndrome type 2"
_NUMBER = re.compile(r"(?:\btype\s+|\s)(\d{1,2}|[IVX]{1,5})[A-Z]?\s*(?:\([^)]*\))?\s*$", re.IGNORECASE)
_ROMAN = {"I": 1, "V": 5, "X": 10}


@dataclass
class GeneRow:
    gene_id: int
    gene: str
    patients: int = 0  # published patients with a variant in the gene diagnosed with the disease or a member
    diseases: dict[int, str] = field(default_factory=dict)  # the disease or members it is linked to
    direct: bool = False  # linked to the asked disease itself
    prior: float = 0.0  # patients the series' numbering lends it
    entries: int = 0  # how many of the asked disease's OMIM and ORPHA entries HPO links it to
    spread: int = 0  # how many diseases it is linked to

    @property
    def weight(self) -> float:
        return self.patients + self.prior

    def members(self, asked: int) -> list[str]:
        """The members (not the asked disease) the gene is linked to, by name."""
        return [name for node, name in self.diseases.items() if node != asked]


def series_number(name: str) -> int | None:
    """The member's number in its series, from its name; None when it has none."""
    found = _NUMBER.search(name or "")
    if not found:
        return None
    text = found.group(1).upper()
    if text.isdigit():
        return int(text) or None
    values = [_ROMAN[c] for c in text]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def genes_in_order(store: GraphStore, disease: int, gene_entries: Mapping[str, tuple[str, ...]] | None = None
                   ) -> tuple[list[GeneRow], list[CypherRun]]:
    """The disease's genes (its members' too), the most patients first (see the module's docstring);
    `gene_entries`: gene symbol -> the OMIM and ORPHA entries HPO links it to (`HpoProfiles.gene_entries`)."""
    rows: dict[int, GeneRow] = {}
    runs = []
    for query in (GENES, PATIENTS):
        found = _read(store, query, {"id": disease}, runs)
        for row in found:
            if not row["gene"]:
                continue
            gene = rows.setdefault(row["gene_id"], GeneRow(row["gene_id"], row["gene"]))
            gene.diseases.setdefault(row["disease_id"], row["disease"] or "")
            gene.direct = gene.direct or row["disease_id"] == disease
            gene.patients += int(row.get("patients") or 0)
    _lend_series_prior(list(rows.values()), disease)
    own = next(iter(_read(store, IDS, {"id": disease}, runs)), {})
    ids = {i for i in [own.get("did"), *str(own.get("others") or "").split(";")] if i}
    for gene in rows.values():
        gene.entries = len(ids.intersection((gene_entries or {}).get(gene.gene, ())))
    for row in _read(store, SPREAD, {"genes": sorted(rows)}, runs) if rows else ():
        rows[row["gene_id"]].spread = int(row["n"])
    order = sorted(rows.values(), key=lambda g: (-g.weight, not g.direct, -g.entries, g.spread, g.gene))
    return order, runs


def _read(store: GraphStore, query: str, params: dict, runs: list[CypherRun]) -> list[dict]:
    found = store.query(query, params, timeout_ms=TEMPLATE_TIMEOUT_MS)
    runs.append(CypherRun(query, {k: v for k, v in params.items() if k != "genes"}, origin="template:gene_order",
                          rows=len(found)))
    return found


def _lend_series_prior(genes: list[GeneRow], disease: int) -> None:
    """SERIES_PRIOR_PATIENTS shared among the numbered members' genes, in proportion to 1 / the number."""
    numbers = {gene.gene_id: min((n for node, name in gene.diseases.items() if node != disease
                                  if (n := series_number(name))), default=None) for gene in genes}
    numbered = [n for n in numbers.values() if n]
    if len(numbered) < 2:  # no series to read an order from
        return
    total = sum(1 / k for k in range(1, max(numbered) + 1))
    for gene in genes:
        if numbers[gene.gene_id]:
            gene.prior = SERIES_PRIOR_PATIENTS * (1 / numbers[gene.gene_id]) / total
