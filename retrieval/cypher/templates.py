"""Cypher mode without an LLM: one parameterised query per intent.

User text never enters a query's text: linked node ids (and names) travel as parameters.
Every template returns the same columns, so its rows become triples the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphstore.schema import CURATED
from graphstore.store import GraphStore
from retrieval.result import CypherRun, Triple

TEMPLATE_LIMIT = 300
TEMPLATE_TIMEOUT_MS = 3000

_NAME = "coalesce({v}.dname, {v}.phenotypeName, {v}.geneName, {v}.details, {v}.articleName, {v}.sid)"


def _triple_return(head: str, rel: str, tail: str) -> str:
    return (f"RETURN {head}.nid AS head_id, labels({head})[0] AS head_label, {_NAME.format(v=head)} AS head, "
            f"type({rel}) AS relation, {tail}.nid AS tail_id, labels({tail})[0] AS tail_label, "
            f"{_NAME.format(v=tail)} AS tail, {rel}.source AS source, {rel}.pmid AS pmid "
            f"LIMIT {TEMPLATE_LIMIT}")


@dataclass(frozen=True)
class Template:
    intent: str
    needs: str  # the label of the linked nodes passed as $ids
    cypher: str
    description: str


TEMPLATES = {t.intent: t for t in [
    # most often and most specifically annotated first: frequency (0.5 when not given) x information content
    Template("phenotypes_of_disease", "Disease",
             "MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE d.nid IN $ids "
             "WITH d, r, p ORDER BY coalesce(r.frequency, 0.5) * coalesce(p.ic, 1.0) DESC, p.phenotypeName "
             + _triple_return("d", "r", "p"), "facial phenotypes of a disease, most frequent and specific first"),
    Template("phenotypes_of_gene", "Genotype",
             "MATCH (g:Genotype)-[r:Affect]->(p:FacePhenotype) WHERE g.nid IN $ids "
             "WITH g, r, p ORDER BY coalesce(p.ic, 1.0) DESC, p.phenotypeName "
             + _triple_return("g", "r", "p"), "facial phenotypes of a gene, most specific first"),
    Template("diseases_of_gene", "Genotype",
             "MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE g.nid IN $ids "
             + _triple_return("g", "r", "d"), "diseases of a gene (HPO gene-disease links)"),
    Template("diseases_of_gene_variants", "Genotype",
             "MATCH (g:Genotype)<-[:Have]-(v:Variation)-[r:Cause]->(d:Disease) WHERE g.nid IN $ids "
             + _triple_return("v", "r", "d"), "diseases caused by a gene's published variants"),
    Template("diseases_with_phenotypes", "FacePhenotype",
             # most matched first, then those in which HPO finds them very frequent (80 % and above), then
             # the most specific: how often the disease shows them over log2(2 + the number of its findings)
             # (a disease with 20 findings says more by each than one with 300)
             "MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE p.nid IN $ids "
             "WITH d, count(DISTINCT p) AS matched, sum(coalesce(r.frequency, 0.5)) AS often, "
             "sum(CASE WHEN r.frequency >= 0.8 THEN 1 ELSE 0 END) AS frequent "
             "WHERE matched >= $min_matched MATCH (d)-[:Exhibit]->(q:FacePhenotype) "
             "WITH d, matched, frequent, often, count(q) AS annotated "
             "WITH d, matched, frequent, often / (log(2 + annotated) / log(2)) AS relevance "
             f"ORDER BY matched DESC, frequent DESC, relevance DESC, d.dname LIMIT {TEMPLATE_LIMIT} "
             "MATCH (d)-[r:Exhibit]->(p:FacePhenotype) WHERE p.nid IN $ids "
             "WITH d, r, p, matched, frequent, relevance ORDER BY matched DESC, frequent DESC, relevance DESC, "
             "d.dname " + _triple_return("d", "r", "p"),
             "diseases with given facial phenotypes, those that show them most often first"),
    Template("genes_of_disease", "Disease",
             "MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE d.nid IN $ids "
             + _triple_return("g", "r", "d"), "genes of a disease"),
    Template("genes_of_disease_variants", "Disease",
             "MATCH (g:Genotype)<-[r:Have]-(v:Variation)-[:Cause]->(d:Disease) WHERE d.nid IN $ids "
             + _triple_return("v", "r", "g"), "genes of a disease through published variants"),
    # most specific first: a gene with few findings says more by each (1 / log2(2 + its findings))
    Template("genes_with_phenotype", "FacePhenotype",
             "MATCH (g:Genotype)-[r:Affect]->(p:FacePhenotype) WHERE p.nid IN $ids "
             "MATCH (g)-[:Affect]->(q:FacePhenotype) WITH g, r, p, count(q) AS annotated "
             "ORDER BY annotated, g.geneName "
             + _triple_return("g", "r", "p"), "genes with a facial phenotype, most specific first"),
    # the genes linked to every one of several phenotypes, found in the graph at once (a common phenotype has
    # more genes than a template returns: intersecting two cut lists misses genes, FOXL2 for ptosis and
    # blepharophimosis), most specific first
    Template("genes_with_phenotypes", "FacePhenotype",
             "MATCH (g:Genotype)-[:Affect]->(p:FacePhenotype) WHERE p.nid IN $ids "
             "WITH g, count(DISTINCT p) AS matched WHERE matched >= $min_matched "
             "MATCH (g)-[:Affect]->(q:FacePhenotype) WITH g, count(q) AS annotated "
             f"ORDER BY annotated, g.geneName LIMIT {TEMPLATE_LIMIT} "
             "MATCH (g)-[r:Affect]->(p:FacePhenotype) WHERE p.nid IN $ids WITH g, r, p, annotated "
             "ORDER BY annotated, g.geneName " + _triple_return("g", "r", "p"),
             "genes with all of the given facial phenotypes, most specific first"),
    Template("synonyms_of_phenotype", "FacePhenotype",
             "MATCH (p:FacePhenotype) WHERE p.nid IN $ids "
             "RETURN p.nid AS head_id, p.phenotypeName AS head, p.synonyms AS synonyms, p.source AS source",
             "synonyms of a facial phenotype"),
    Template("variants_of_gene", "Genotype",
             "MATCH (v:Variation)-[r:Have]->(g:Genotype) WHERE g.nid IN $ids "
             + _triple_return("v", "r", "g"), "published variants of a gene"),
    Template("cases_of_gene", "Genotype",
             "MATCH (s:Sample)-[r:with_Var]->(v:Variation)-[:Have]->(g:Genotype) WHERE g.nid IN $ids "
             + _triple_return("s", "r", "v"), "published patient cases with a gene"),
    Template("articles_of_disease", "Disease",
             "MATCH (d:Disease)<-[:Cause]-(v:Variation)<-[:with_Var]-(s:Sample)-[r:From]->(a:Article) "
             "WHERE d.nid IN $ids " + _triple_return("s", "r", "a"), "articles behind a disease"),
    Template("articles_of_gene", "Genotype",
             "MATCH (g:Genotype)<-[:Have]-(v:Variation)<-[:with_Var]-(s:Sample)-[r:From]->(a:Article) "
             "WHERE g.nid IN $ids " + _triple_return("s", "r", "a"), "articles behind a gene"),
    Template("cases_for_diagnosis", "Genotype",
             "MATCH (g:Genotype)<-[:Have]-(v:Variation)-[r:Cause]->(d:Disease) WHERE g.nid IN $ids "
             "MATCH (s:Sample)-[:with_Var]->(v) WITH v, r, d, count(s) AS cases "
             + _triple_return("v", "r", "d"), "published cases with the gene and their diagnoses"),
]}

# Does the graph link two given nodes? $a and $b are node ids; a more specific phenotype counts
# for the one asked about ("Severe hypertelorism" answers "is hypertelorism seen in ...").
LINK_CHECKS = {t.intent: t for t in [
    Template("disease_has_phenotype", "Disease",
             "MATCH (d:Disease)-[r:Exhibit]->(q:FacePhenotype)-[:is_a*0..12]->(p:FacePhenotype) "
             "WHERE d.nid = $a AND p.nid = $b AND coalesce(r.frequency, 1.0) > 0 " + _triple_return("d", "r", "q"),
             "a disease has a phenotype (not one seen in 0 of n patients)"),
    Template("gene_causes_disease", "Genotype",
             "MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE g.nid = $a AND d.nid = $b "
             + _triple_return("g", "r", "d"), "a gene is linked to a disease"),
    Template("gene_variants_cause_disease", "Genotype",
             "MATCH (g:Genotype)<-[:Have]-(v:Variation)-[r:Cause]->(d:Disease) WHERE g.nid = $a AND d.nid = $b "
             + _triple_return("v", "r", "d"), "a gene's published variant causes a disease"),
    Template("gene_affects_phenotype", "Genotype",
             "MATCH (g:Genotype)-[r:Affect]->(q:FacePhenotype)-[:is_a*0..12]->(p:FacePhenotype) "
             "WHERE g.nid = $a AND p.nid = $b " + _triple_return("g", "r", "q"), "a gene affects a phenotype"),
]}

# An intent may need a companion query to be complete (HPO links and FPKG variants).
COMPANIONS = {
    "diseases_of_gene": ["diseases_of_gene_variants"],
    "genes_of_disease": ["genes_of_disease_variants"],
    "gene_causes_disease": ["gene_variants_cause_disease"],
}


def run_template(store: GraphStore, intent: str, ids: list[int],
                 min_matched: int = 1) -> tuple[list[Triple], list[CypherRun]]:
    """Run an intent's queries for the linked node `ids`; returns triples and the runs made."""
    return _run(store, TEMPLATES, intent, {"ids": ids, "min_matched": min_matched})


def run_link_check(store: GraphStore, check: str, a: int, b: int) -> tuple[list[Triple], list[CypherRun]]:
    """The triples that link node `a` to node `b` by one of LINK_CHECKS (none: not recorded)."""
    return _run(store, LINK_CHECKS, check, {"a": a, "b": b})


def _run(store: GraphStore, catalogue: dict[str, Template], name: str,
         values: dict) -> tuple[list[Triple], list[CypherRun]]:
    """A template and its companions, each given the parameters its text uses."""
    triples: list[Triple] = []
    runs: list[CypherRun] = []
    for each in [name, *COMPANIONS.get(name, [])]:
        template = catalogue[each]
        params = {key: value for key, value in values.items() if f"${key}" in template.cypher}
        rows = store.query(template.cypher, params, timeout_ms=TEMPLATE_TIMEOUT_MS)
        runs.append(CypherRun(template.cypher, params, origin=f"template:{each}", rows=len(rows)))
        triples.extend(_synonym_triples(rows) if each == "synonyms_of_phenotype" else rows_to_triples(rows))
    return triples, runs


def rows_to_triples(rows: list[dict]) -> list[Triple]:
    """One triple per head, relation and tail, in the rows' order; where a curator merged a fact the
    graph already held from a source, the curated one is shown (the curator's evidence stays visible)."""
    position: dict[tuple, int] = {}
    triples: list[Triple] = []
    for row in rows:
        if row["head"] is None or row["tail"] is None:
            continue
        key = (row["head_id"], row["relation"], row["tail_id"])
        pmid = row.get("pmid")
        triple = Triple(str(row["head"]), row["relation"], str(row["tail"]), row["head_id"], row["tail_id"],
                        row["head_label"], row["tail_label"], row.get("source") or "",
                        (int(pmid),) if isinstance(pmid, int) else ())
        if key not in position:
            position[key] = len(triples)
            triples.append(triple)
        elif triple.source == CURATED:
            triples[position[key]] = triple
    return triples


def _synonym_triples(rows: list[dict]) -> list[Triple]:
    return [Triple(row["head"], "has_synonym", synonym.strip(), row["head_id"], row["head_id"],
                   "FacePhenotype", "Synonym", row.get("source") or "")
            for row in rows for synonym in str(row["synonyms"] or "").split(";")
            if synonym.strip() and synonym.strip() != "None"]  # a phenotype without synonyms holds the text None
