"""Fixtures of the diagnosis tests: a disease only phenopacket-store's patients make known."""

from __future__ import annotations

import pytest

STORE_DISEASES = ("MATCH (s:Sample)-[:Diagnosed]->(d:Disease) WHERE d.source = 'phenopacket-store' "
                  "MATCH (s)-[:From]->(a:Article) "
                  "RETURN d.nid AS disease, d.dname AS name, a.pmid AS pmid, s.sid AS sid, s.present AS present")
PATIENT_GENES = ("MATCH (s:Sample)-[:with_Var]->(v:Variation)-[:Have]->(g:Genotype) WHERE s.sid = $sid "
                 "RETURN g.geneName AS gene, v.details AS variant")


@pytest.fixture(scope="module")
def single_paper_disease(pipeline):
    """A disease only phenopacket-store knows (newer than the HPO release), all of whose patients come
    from one paper: (disease node, its name, the paper, one of its patients' sid and HPO ids)."""
    by_disease: dict[int, list[dict]] = {}
    for row in pipeline.store.query(STORE_DISEASES, timeout_ms=60_000):
        by_disease.setdefault(row["disease"], []).append(row)
    for disease, rows in sorted(by_disease.items()):
        if len({r["pmid"] for r in rows}) == 1 and len(rows) >= 2:
            genes = pipeline.store.query(PATIENT_GENES, {"sid": rows[0]["sid"]}, timeout_ms=5000)
            if genes and len(rows[0]["present"].split(";")) >= 3:
                return disease, rows[0]["name"], rows[0]["pmid"], rows[0], genes[0]["gene"]
    pytest.skip("no single-paper disease in the store")


def names_of(pipeline, hpo_ids: list[str]) -> tuple[str, ...]:
    hpo = pipeline.ontology
    return tuple(hpo.names[hpo.index_of_hpo[h]] for h in hpo_ids if h in hpo.index_of_hpo)
