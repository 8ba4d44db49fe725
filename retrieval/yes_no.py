"""A yes/no question about two named things, answered for the one asked about.

The first line answers: "Yes: CHD7 causes CHARGE syndrome (HPO).", "Yes, through a member: BRAF causes Noonan
syndrome 7, a member of the Noonan syndrome group.", or, for a gene and a disease whose genes the graph
records, "No: classic Crouzon syndrome is FGFR2 and ERF in the graph, not FGFR3." — then the related entries
where the link holds ("FGFR3 causes Crouzon syndrome with acanthosis nigricans (OMIM:612247), a related
entry."), never a bare yes for a neighbour. A link the graph does not hold between a phenotype and a disease or
a gene, or to a disease without recorded genes, is "Not recorded", never "No": the absence of a record is not
evidence of absence; what the graph holds nearby is said after it.
"""

from __future__ import annotations

from fpkg.markdown import and_list
from fpkg.names import fold_name
from graphstore.store import GraphStore
from retrieval.cypher.templates import TEMPLATE_TIMEOUT_MS, run_link_check, run_template
from retrieval.result import CypherRun, Link, Triple

NEARBY_SHOWN = 5
GENES_SHOWN = 5
# a disease's siblings in a group: the group's other members (MONDO's member_of edges)
_SIBLINGS = ("MATCH (d:Disease)-[:member_of]->(g:Disease)<-[:member_of]-(o:Disease) WHERE d.nid = $disease "
             "AND o.nid IN $others RETURN DISTINCT o.nid AS id, g.dname AS group_name")
# the asked disease's members the gene causes (the disease is a group), and the group the disease is in
_MEMBERS = ("MATCH (m:Disease)-[:member_of]->(d:Disease) WHERE d.nid = $disease AND m.nid IN $others "
            "RETURN DISTINCT m.nid AS id")
_GROUPS = ("MATCH (d:Disease)-[:member_of]->(g:Disease) WHERE d.nid = $disease AND g.nid IN $others "
           "RETURN DISTINCT g.nid AS id")
_IDS = "MATCH (d:Disease) WHERE d.nid IN $ids RETURN d.nid AS id, d.disease_id AS did"


def yes_no(store: GraphStore, check: str, first: Link, second: Link) -> tuple[str, list[Triple], list[CypherRun]]:
    """The answer's text, its triples and the queries run, for the link check `check` between the two."""
    triples, runs = run_link_check(store, check, first.node_id, second.node_id)
    if triples:
        return _yes(check, first, second, triples), triples, runs
    if check == "gene_causes_disease":
        said, found, ran = _gene_and_disease(store, first, second)
        if said:
            return said, found, runs + ran
    nearby, near_triples, near_runs = _nearby(store, check, first, second)
    return (f"Not recorded: the graph holds no link between {first.name} and {second.name} (the absence of a "
            "record is not evidence that there is none)." + nearby), near_triples, runs + near_runs


def _yes(check: str, first: Link, second: Link, triples: list[Triple]) -> str:
    sources = sorted({part for t in triples for part in (t.source or "").split("+") if part})
    source = f" ({', '.join(sources)})" if sources else ""
    if check == "gene_causes_disease":
        return f"Yes: {first.name} causes {second.name}{source}."
    tails = list(dict.fromkeys(t.tail for t in triples))
    annotated = "" if second.name in tails else f", annotated as {and_list(tails[:3])}"
    verb = "is linked to" if check == "gene_affects_phenotype" else "shows"
    return f"Yes: {first.name} {verb} {second.name}{annotated}{source}."


def _gene_and_disease(store: GraphStore, gene: Link, disease: Link) -> tuple[str, list[Triple], list[CypherRun]]:
    """For a gene the graph does not link to the disease: a yes through a member of the disease's group, or a
    no for the disease whose genes the graph records, with the related entries the gene causes."""
    gene_diseases, runs = run_template(store, "diseases_of_gene", [gene.node_id])
    caused = {t.tail_id: t for t in gene_diseases if t.tail_label == "Disease" and t.tail_id is not None}
    members = _rows(store, _MEMBERS, {"disease": disease.node_id, "others": sorted(caused)}, runs)
    if members:
        names = [caused[row["id"]].tail for row in members]
        lead = (f"Yes, through a member: {gene.name} causes {and_list(names[:NEARBY_SHOWN])}, "
                f"{'a member' if len(names) == 1 else 'members'} of the {disease.name} group.")
        return lead, [caused[row["id"]] for row in members], runs
    own, ran = run_template(store, "genes_of_disease", [disease.node_id])
    runs += ran
    genes = list(dict.fromkeys(t.head for t in own if t.head_label == "Genotype" and t.head_id != gene.node_id))
    if not genes:
        return "", [], runs
    related = _related(store, disease, caused, runs)
    classic = "classic " if any(" (a related entry" in text for text, _ in related) else ""
    shown = and_list(genes[:GENES_SHOWN]) + (f" and {len(genes) - GENES_SHOWN} more" if len(genes) > GENES_SHOWN
                                             else "")
    lines = [f"No: {classic}{disease.name} is {shown} in the graph, not {gene.name}."]
    triples = [t for t in own if t.head_label == "Genotype"] + [caused[node] for _, node in related]
    if related:
        lines.append(f"{gene.name} causes " + "; ".join(text for text, _ in related) + ".")
    elif caused:  # no related entry: what the gene causes, to point the way
        names = [t.tail for t in caused.values()]
        lines.append(f"{gene.name} is linked to {', '.join(names[:NEARBY_SHOWN])}"
                     + (f" and {len(names) - NEARBY_SHOWN} more" if len(names) > NEARBY_SHOWN else "") + ".")
        triples += list(caused.values())
    return "\n".join(lines), triples, runs


def _related(store: GraphStore, disease: Link, caused: dict[int, Triple],
             runs: list[CypherRun]) -> list[tuple[str, int]]:
    """The gene's diseases related to the asked one: named after it ("Crouzon syndrome with acanthosis
    nigricans"), its group's other members, or the group it is in; (text, node), each once."""
    found: dict[int, str] = {}
    asked = fold_name(disease.name or "")
    ids = {row["id"]: row["did"] for row in _rows(store, _IDS, {"ids": sorted(caused)}, runs)}
    for node, triple in caused.items():
        if asked and node != disease.node_id and asked in fold_name(triple.tail):
            found[node] = f"{triple.tail}{_id(ids, node)} (a related entry, named after {disease.name})"
    for row in _rows(store, _SIBLINGS, {"disease": disease.node_id, "others": sorted(caused)}, runs):
        found.setdefault(row["id"], f"{caused[row['id']].tail}{_id(ids, row['id'])}, another member of the "
                                    f"{row['group_name']} group")
    for row in _rows(store, _GROUPS, {"disease": disease.node_id, "others": sorted(caused)}, runs):
        found.setdefault(row["id"], f"{caused[row['id']].tail}{_id(ids, row['id'])}, the group "
                                    f"{disease.name} belongs to")
    return [(text, node) for node, text in list(found.items())[:NEARBY_SHOWN]]


def _id(ids: dict[int, str], node: int) -> str:
    return f" ({ids[node]})" if ids.get(node) else ""


def _rows(store: GraphStore, query: str, params: dict, runs: list[CypherRun]) -> list[dict]:
    if not params.get("others", True) and "others" in params:
        return []
    rows = store.query(query, params, timeout_ms=TEMPLATE_TIMEOUT_MS)
    runs.append(CypherRun(query, {k: v for k, v in params.items() if k == "disease"}, origin="template:related",
                          rows=len(rows)))
    return rows


def _nearby(store: GraphStore, check: str, first: Link, second: Link) -> tuple[str, list[Triple], list[CypherRun]]:
    """What the graph holds near a link it does not record, for a "Not recorded" answer to point the way: the
    gene's diseases (one in the asked disease's group said so), the disease's genes, the gene's phenotypes."""
    if check not in ("gene_causes_disease", "gene_affects_phenotype"):
        return "", [], []
    gene_diseases, runs = run_template(store, "diseases_of_gene", [first.node_id])
    diseases = {t.tail_id: t.tail for t in gene_diseases if t.tail_label == "Disease" and t.tail_id is not None}
    said, triples = [], [t for t in gene_diseases if t.tail_id in diseases]
    if check == "gene_causes_disease":
        for row in _rows(store, _SIBLINGS, {"disease": second.node_id, "others": sorted(diseases)}, runs):
            if len(said) < NEARBY_SHOWN:
                said.append(f"{first.name} causes {diseases[row['id']]}, another member of the "
                            f"{row['group_name']} group.")
    if diseases and not any(" causes " in line for line in said):
        shown = list(diseases.values())
        said.insert(0, f"{first.name} is linked to {', '.join(shown[:NEARBY_SHOWN])}"
                       + (f" and {len(shown) - NEARBY_SHOWN} more" if len(shown) > NEARBY_SHOWN else "") + ".")
    return ("\nWhat the graph holds nearby: " + " ".join(said)) if said else "", triples, runs
