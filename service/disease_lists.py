"""Two answers about one disease that its genes decide: its modes of inheritance (by gene where they differ:
Cornelia de Lange syndrome is autosomal dominant through NIPBL, SMC3, RAD21 and BRD4, X-linked through SMC1A
and HDAC8), and its genes as a numbered list in the order that matters (`retrieval.gene_order`: the most
published patients first, a group's members' genes included).

Modes come from HPO's annotations of each entry (`HpoProfiles.inheritance`); a group's are its members'.
"""

from __future__ import annotations

from fpkg.markdown import numbered, table
from graphstore.store import GraphStore
from kg_dump.cardinal import DiseaseAnnotations
from retrieval.gene_order import GeneRow, genes_in_order
from retrieval.result import Link, Triple
from service.comparison import mode_text
from service.disease_features import IDS, MEMBERS, entry_ids

NOT_RECORDED = "not recorded"


def inheritance(store: GraphStore, annotations: DiseaseAnnotations, link: Link) -> str:
    """'X is inherited autosomal dominant (NIPBL, …) or X-linked (SMC1A, HDAC8), by gene.' and a table of gene |
    disease | modes, a row per member (the disease itself when it has none), in the genes' order."""
    genes, _ = genes_in_order(store, link.node_id, annotations.hpo.gene_entries)
    own = {"node": link.node_id, "name": link.name,
           **next(iter(store.query(IDS, {"id": link.node_id}, timeout_ms=3000)), {})}
    members = store.query(MEMBERS, {"id": link.node_id}, timeout_ms=3000)
    if not members or annotations.inheritance(entry_ids(own)):  # the disease's own entry, with its modes
        members = [{**own, "name": f"{link.name} (its own entry)" if members else link.name}, *members]
    rows = []  # (rank of its first gene, genes, disease, HPO's modes)
    for member in members:
        mine = [g.gene for g in genes if member["node"] in g.diseases]
        rank = min((i for i, g in enumerate(genes) if member["node"] in g.diseases), default=len(genes))
        rows.append((rank, mine, member["name"], annotations.inheritance(entry_ids(member))))
    rows.sort(key=lambda row: (row[0], row[2]))
    by_kind: dict[str, list[str]] = {}
    for _, mine, _, modes in rows:
        for kind in mode_kinds(modes):
            found = by_kind.setdefault(kind, [])
            found += [gene for gene in mine if gene not in found]
    if not by_kind:
        return f"Not recorded: HPO gives no mode of inheritance for {link.name}" + (" or its members." if
                                                                                   len(rows) > 1 else ".")
    said = [f"{kind} ({', '.join(found)})" if found and len(by_kind) > 1 else kind for kind, found in by_kind.items()]
    how = ", by gene" if len(by_kind) > 1 else ""
    lead = f"{link.name} is inherited {' or '.join(said)}{how} (HPO)."
    return "\n".join([lead, "", table(["gene", "disease", "mode of inheritance (HPO)"],
                                      ([", ".join(mine) or "—", name, ", ".join(mode_text(m) for m in modes)
                                        or NOT_RECORDED] for _, mine, name, modes in rows))])


def mode_kinds(modes: list[str]) -> list[str]:
    """The kinds of HPO's modes a clinician names: autosomal dominant, autosomal recessive, X-linked, …;
    'sporadic' only when nothing else is said."""
    kinds = []
    for mode in modes:
        low = mode.lower()
        kind = next((name for key, name in KINDS if key in low), mode_text(mode))
        if kind not in kinds:
            kinds.append(kind)
    return [k for k in kinds if k != "sporadic"] or kinds


KINDS = (("autosomal dominant", "autosomal dominant"), ("autosomal recessive", "autosomal recessive"),
         ("x-linked", "X-linked"), ("y-linked", "Y-linked"), ("mitochondrial", "mitochondrial"))


def gene_list(retrieved, store: GraphStore, annotations: DiseaseAnnotations, link: Link) -> None:
    """The disease's genes as a numbered list, the most published patients first, its members' genes included
    (their member named beside them); the retrieved facts stay the evidence, the members' links added."""
    genes, runs = genes_in_order(store, link.node_id, annotations.hpo.gene_entries)
    if not genes:
        return
    with_members = any(g.members(link.node_id) for g in genes)
    noun = "gene" if len(genes) == 1 else "genes"
    retrieved.lead = (f"{len(genes)} {noun} for {link.name}"
                      + (", its members' included" if with_members else "")
                      + (", the most published patients first" if len(genes) > 1 else "") + ":")
    retrieved.listing = numbered(_item(g, link.node_id) for g in genes)
    retrieved.cypher += runs
    known = {(t.head_id, t.tail_id) for t in retrieved.triples}
    retrieved.triples += [Triple(g.gene, "Cause", name, g.gene_id, node, "Genotype", "Disease")
                          for g in genes for node, name in g.diseases.items() if (g.gene_id, node) not in known]


def _item(gene: GeneRow, asked: int) -> str:
    said = [*gene.members(asked)]
    if gene.patients:
        said.append(f"{gene.patients} published patient{'s' if gene.patients != 1 else ''}")
    return gene.gene + (f" — {'; '.join(said)}" if said else "")
