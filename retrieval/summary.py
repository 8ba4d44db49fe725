"""A summary of one disease, gene or facial phenotype: what a colleague would say first.

- A disease: its ids (OMIM, ORPHA, MONDO), its group or members, its genes, its facial findings
  ordered by how often and how specifically they are annotated (the first `SHOWN`, then a count),
  FPKG's published patients and articles, and the diseases closest to it by shared findings.
- A gene: its diseases (HPO links and published variants), its published variants, its findings.
- A facial phenotype: HPO's definition, synonyms and parent terms, how many diseases and genes it
  has, the most specific diseases first.

Every query takes the node id as a parameter; the text is written here, deterministically, and the
triples behind it go with it as evidence (an LLM may rephrase it from them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fpkg.display import clean, hgvs, is_sentence
from graphstore.store import GraphStore
from retrieval.cypher.templates import TEMPLATE_TIMEOUT_MS, rows_to_triples
from retrieval.result import CypherRun, Link, Triple

SHOWN = 10  # items named per list; the triples (and the table) hold them all
CLOSEST = 5
DEFAULT_FREQUENCY = 0.5  # an annotation without a frequency: as often as not
_N = "coalesce({v}.dname, {v}.phenotypeName, {v}.geneName, {v}.details)"


def _edge(head: str, rel: str, tail: str) -> str:
    return (f"{head}.nid AS head_id, labels({head})[0] AS head_label, {_N.format(v=head)} AS head, type({rel}) AS "
            f"relation, {tail}.nid AS tail_id, labels({tail})[0] AS tail_label, {_N.format(v=tail)} AS tail, "
            f"{rel}.source AS source, {rel}.pmid AS pmid")


QUERIES = {
    "disease": "MATCH (d:Disease) WHERE d.nid = $id RETURN d.dname AS name, d.disease_id AS disease_id, "
               "d.other_ids AS other_ids, d.orpha_id AS orpha_id, d.mondo_id AS mondo_id",
    "disease_findings": "MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE d.nid = $id "
                        "AND coalesce(r.frequency, 1.0) > 0 RETURN " + _edge("d", "r", "p")
                        + ", r.frequency AS frequency, p.ic AS ic",
    "disease_genes": "MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE d.nid = $id RETURN " + _edge("g", "r", "d"),
    "disease_variant_genes": "MATCH (g:Genotype)<-[:Have]-(v:Variation)-[r:Cause]->(d:Disease) WHERE d.nid = $id "
                             "RETURN " + _edge("g", "r", "d"),
    "disease_groups": "MATCH (m:Disease)-[r:member_of]->(g:Disease) WHERE m.nid = $id OR g.nid = $id "
                      "RETURN " + _edge("m", "r", "g"),
    "disease_published": "MATCH (d:Disease)<-[:Cause]-(:Variation)<-[:with_Var]-(s:Sample) WHERE d.nid = $id "
                         "OPTIONAL MATCH (s)-[:From]->(a:Article) "
                         "RETURN count(DISTINCT s) AS patients, count(DISTINCT a) AS articles",
    "disease_closest": "MATCH (d:Disease)-[:Exhibit]->(p:FacePhenotype)<-[:Exhibit]-(o:Disease) WHERE d.nid = $id "
                       "AND o.nid <> $id WITH o, count(p) AS shared, sum(coalesce(p.ic, 1.0)) AS weight "
                       "RETURN o.nid AS id, o.dname AS name, shared ORDER BY weight DESC, o.dname LIMIT $closest",
    "gene": "MATCH (g:Genotype) WHERE g.nid = $id RETURN g.geneName AS name",
    "gene_diseases": "MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE g.nid = $id RETURN " + _edge("g", "r", "d"),
    "gene_variant_diseases": "MATCH (g:Genotype)<-[:Have]-(v:Variation)-[r:Cause]->(d:Disease) WHERE g.nid = $id "
                             "RETURN " + _edge("g", "r", "d"),
    "gene_variants": "MATCH (v:Variation)-[r:Have]->(g:Genotype) WHERE g.nid = $id RETURN " + _edge("v", "r", "g"),
    "gene_findings": "MATCH (g:Genotype)-[r:Affect]->(p:FacePhenotype) WHERE g.nid = $id RETURN "
                     + _edge("g", "r", "p") + ", null AS frequency, p.ic AS ic",
    "phenotype": "MATCH (p:FacePhenotype) WHERE p.nid = $id RETURN p.phenotypeName AS name, p.hpo_id AS hpo_id, "
                 "p.pid AS pid, p.description AS description, p.synonyms AS synonyms",
    "phenotype_parents": "MATCH (p:FacePhenotype)-[r:is_a]->(q:FacePhenotype) WHERE p.nid = $id RETURN "
                         + _edge("p", "r", "q"),
    "phenotype_diseases": "MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE p.nid = $id "
                          "AND coalesce(r.frequency, 1.0) > 0 MATCH (d)-[:Exhibit]->(q:FacePhenotype) "
                          "WITH d, r, p, count(q) AS annotated RETURN " + _edge("d", "r", "p")
                          + ", r.frequency AS frequency, annotated",
    "phenotype_genes": "MATCH (g:Genotype)-[r:Affect]->(p:FacePhenotype) WHERE p.nid = $id RETURN count(g) AS genes",
}


@dataclass
class Summary:
    text: str
    triples: list[Triple] = field(default_factory=list)
    runs: list[CypherRun] = field(default_factory=list)
    intent: str = ""


class _Reader:
    def __init__(self, store: GraphStore):
        self.store, self.runs = store, []

    def rows(self, name: str, **params) -> list[dict]:
        rows = self.store.query(QUERIES[name], params, timeout_ms=TEMPLATE_TIMEOUT_MS)
        self.runs.append(CypherRun(QUERIES[name], params, origin=f"summary:{name}", rows=len(rows)))
        return rows


def summarise(store: GraphStore, link: Link) -> Summary | None:
    """The summary of the linked node, None when it is of no summarised kind."""
    write = {"Disease": _disease, "Genotype": _gene, "FacePhenotype": _phenotype}.get(link.label or "")
    if write is None or link.node_id is None:
        return None
    reader = _Reader(store)
    summary = write(reader, link.node_id)
    summary.runs = reader.runs
    return summary


def specificity_order(rows: list[dict]) -> list[dict]:
    """Findings, most often and most specifically annotated first: frequency x information content."""
    return sorted(rows, key=lambda row: (-_frequency(row) * float(row.get("ic") or 1.0), str(row["tail"])))


def _frequency(row: dict) -> float:
    value = row.get("frequency")
    return float(value) if isinstance(value, int | float) else DEFAULT_FREQUENCY


def _listed(names: list[str], noun: str) -> str:
    names = list(dict.fromkeys(clean(n) for n in names))
    if not names:
        return f"{noun.capitalize()}: none recorded."
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return f"{noun.capitalize()} ({len(names)}): {', '.join(names[:SHOWN])}{more}."


def _disease(reader: _Reader, node: int) -> Summary:
    info = (reader.rows("disease", id=node) or [{}])[0]
    name = clean(info.get("name") or "")
    ids = [info.get("disease_id"), *str(info.get("other_ids") or "").split(";"), info.get("orpha_id"),
           info.get("mondo_id")]
    ids = list(dict.fromkeys(i for i in ids if i))
    findings = specificity_order(reader.rows("disease_findings", id=node))
    genes = reader.rows("disease_genes", id=node) + reader.rows("disease_variant_genes", id=node)
    groups = reader.rows("disease_groups", id=node)
    published = (reader.rows("disease_published", id=node) or [{}])[0]
    closest = reader.rows("disease_closest", id=node, closest=CLOSEST)
    lines = [f"{name} ({', '.join(ids) if ids else 'no ids recorded'}) is a disease in the graph."]
    members = [g["head"] for g in groups if g["tail_id"] == node]
    parents = [g["tail"] for g in groups if g["head_id"] == node and clean(g["tail"]).casefold() != name.casefold()]
    if parents:
        lines.append(f"Member of the group {', '.join(clean(p) for p in parents)}.")
    if members:
        lines.append(_listed(members, "members"))
    lines.append(_listed([g["head"] for g in genes], "genes"))
    lines.append(_listed([f["tail"] for f in findings], "facial findings (most frequent and specific first)"))
    lines.append(f"Published FPKG patients: {published.get('patients', 0)}, in {published.get('articles', 0)} "
                 "articles.")
    closest = [c for c in closest if clean(c["name"]).casefold() != name.casefold()]
    if closest:
        lines.append("Closest diseases by shared findings: "
                     + ", ".join(f"{clean(c['name'])} ({c['shared']} shared)" for c in closest) + ".")
    triples = rows_to_triples(genes + findings + groups)
    return Summary("\n".join(lines), triples, intent="summary_of_disease")


def _gene(reader: _Reader, node: int) -> Summary:
    diseases = reader.rows("gene_diseases", id=node) + reader.rows("gene_variant_diseases", id=node)
    variants = reader.rows("gene_variants", id=node)
    findings = specificity_order(reader.rows("gene_findings", id=node))
    name = clean((reader.rows("gene", id=node) or [{}])[0].get("name") or "This gene")
    lines = [f"{name} is a gene in the graph.", _listed([d["tail"] for d in diseases], "diseases"),
             _listed([hgvs(v["head"]) for v in variants if not is_sentence(v["head"])], "published variants"),
             _listed([f["tail"] for f in findings], "facial findings (most specific first)")]
    triples = rows_to_triples(diseases + findings + variants)
    return Summary("\n".join(lines), triples, intent="summary_of_gene")


def _phenotype(reader: _Reader, node: int) -> Summary:
    info = (reader.rows("phenotype", id=node) or [{}])[0]
    name = clean(info.get("name") or "")
    hpo = info.get("hpo_id") or info.get("pid") or ""
    parents = reader.rows("phenotype_parents", id=node)
    diseases = sorted(reader.rows("phenotype_diseases", id=node), key=lambda r: (-relevance(r), str(r["head"])))
    genes = (reader.rows("phenotype_genes", id=node) or [{}])[0].get("genes", 0)
    synonyms = [s.strip() for s in str(info.get("synonyms") or "").split(";") if s.strip()]
    lines = [f"{name}{f' ({hpo})' if hpo else ''} is a facial phenotype in the graph."]
    if info.get("description"):
        lines.append(f"Definition (HPO): {clean(info['description'])}")
    lines.append(_listed(synonyms, "synonyms"))
    lines.append(_listed([p["tail"] for p in parents], "parent terms"))
    lines.append(f"Annotated to {len(diseases)} diseases and {genes} genes.")
    lines.append(_listed([d["head"] for d in diseases], "diseases (most specific first)"))
    triples = rows_to_triples(parents + diseases)
    return Summary("\n".join(lines), triples, intent="summary_of_phenotype")


def relevance(row: dict) -> float:
    """How specifically a disease shows a finding: its frequency over log2(2 + the disease's findings)."""
    return _frequency(row) / math.log2(2 + int(row.get("annotated") or 0))
