"""FPKG's Variation nodes cleaned at build time (`kg_dump.variant_names` reads their names):

- each name is written in one form (`written_form`: 'c.1026C > G' -> 'c.1026C>G'), so one variant reads
  the same in every paper and Explore draws it once;
- a name that is no variant (a placeholder, a sentence: `kind_of`) is set aside: it names no node. The
  node is kept, unnamed (`UNNAMED`), because it is the only link from its published patient to the gene
  and the disease, which stay facts;
- the nodes of one variant in one gene and one paper, as FPKG writes one per patient (and sometimes
  in two spellings), become one node, their relationships moved onto it; nodes of one variant that
  differ in what they say (the zygosity, the disease) stay apart, as do a cohort's two records of one
  variant (two of its patients) and two papers' (a variant's `pmid` is its paper's: the hold-out of a
  paper leaves its variants out).

Every name rewritten, set aside or merged is counted in the build report with examples, so that a
curator can find it in the dump.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from fpkg.display import clean
from graphstore.graph import Graph, Node
from graphstore.schema import CAUSE, HAVE, VARIANT, WITH_VARIANT
from kg_dump.variant_names import NOT_VARIANTS, identity, kind_of, same_variant, written_form

UNNAMED = "unnamed variant"  # what `fpkg.names.short_variant` shows for a variant without a name
EXAMPLES = 5  # of each kind, in the report


@dataclass
class VariantCleaning:
    variants: int = 0  # FPKG's Variation nodes read
    rewritten: int = 0  # names written anew (spaces inside an HGVS change, a capital 'C.')
    set_aside: Counter = field(default_factory=Counter)  # kind -> names that are no variant
    merged: int = 0  # nodes merged into another node of the same variant, gene and paper
    merged_spellings: int = 0  # of those, written differently from the node kept
    kept_apart: int = 0  # nodes of one variant, gene and paper with another zygosity or disease, or one patient
    examples: dict = field(default_factory=lambda: defaultdict(list))  # what -> a few "gene pmid: text"

    def note(self, what: str, text: str) -> None:
        if len(self.examples[what]) < EXAMPLES and text not in self.examples[what]:
            self.examples[what].append(text)

    def summary(self) -> dict:
        return {"variants": self.variants, "rewritten": self.rewritten, "set_aside": dict(self.set_aside),
                "merged": self.merged, "merged_spellings": self.merged_spellings, "kept_apart": self.kept_apart,
                "examples": dict(self.examples)}


def clean_variants(graph: Graph) -> VariantCleaning:
    """Cleans FPKG's Variation nodes of `graph` in place (before any other source is merged)."""
    report = VariantCleaning()
    variants = [node for node in graph.nodes if VARIANT in node.labels]
    report.variants = len(variants)
    for node in variants:
        _clean_name(node, report)
    links = _links(graph)
    kept_of: dict[int, int] = {}  # merged node -> the node kept
    for group in _groups(variants).values():
        kept: list[Node] = []
        for node in group:
            twins = [k for k in kept if same_variant(k.properties["details"], node.properties["details"])]
            twin = next((k for k in twins if _says_the_same(k, node, links)), None)
            if twin is not None:
                kept_of[node.id] = twin.id
                _merge_into(twin, node, report)
                links[WITH_VARIANT][twin.id] |= links[WITH_VARIANT][node.id]  # its patients now carry the twin
            else:
                report.kept_apart += bool(twins)
                kept.append(node)
    _move_relationships(graph, kept_of)
    return report


def _clean_name(node: Node, report: VariantCleaning) -> None:
    properties = node.properties
    raw = str(properties.get("details") or "")
    where = f"{properties.get('variation_gene_name') or 'no gene'} PMID {properties.get('pmid')}"
    kind = kind_of(raw)
    if kind in NOT_VARIANTS:
        report.set_aside[kind] += 1
        report.note(f"set aside ({kind})", f"{where}: {clean(raw)}")
        properties["details"] = UNNAMED
        return
    form = written_form(raw)
    if form != raw:
        report.rewritten += 1
        if form != clean(raw):  # more than spaces made plain
            report.note("rewritten", f"{where}: {clean(raw)} -> {form}")
    properties["details"] = form


def _groups(variants: list[Node]) -> dict[tuple, list[Node]]:
    """Named variants by gene, paper and coding change (or text): the candidates for one node."""
    groups: dict[tuple, list[Node]] = defaultdict(list)
    for node in sorted(variants, key=lambda n: n.id):
        details = node.properties["details"]
        if details != UNNAMED:
            key = (str(node.properties.get("variation_gene_name") or "").upper(), node.properties.get("pmid"),
                   identity(details)[0])
            groups[key].append(node)
    return groups


def _links(graph: Graph) -> dict[str, dict[int, set[int]]]:
    """Each node's genes (Have), diseases (Cause) and the patients who carry it (with_Var)."""
    links: dict[str, dict[int, set[int]]] = {HAVE: defaultdict(set), CAUSE: defaultdict(set),
                                             WITH_VARIANT: defaultdict(set)}
    for rel in graph.relationships:
        if rel.type in (HAVE, CAUSE):
            links[rel.type][rel.start].add(rel.end)
        elif rel.type == WITH_VARIANT:
            links[rel.type][rel.end].add(rel.start)
    return links


def _says_the_same(kept: Node, node: Node, links: dict[str, dict[int, set[int]]]) -> bool:
    """The same zygosity (as written, spaces and case aside), gene and diseases, and no patient who
    carries both (a cohort's record listing the variant once for each of two of its patients)."""
    def category(n: Node) -> str:
        return clean(n.properties.get("category") or "").casefold()
    return (category(kept) == category(node) and links[HAVE][kept.id] == links[HAVE][node.id]
            and links[CAUSE][kept.id] == links[CAUSE][node.id]
            and not links[WITH_VARIANT][kept.id] & links[WITH_VARIANT][node.id])


def _merge_into(kept: Node, node: Node, report: VariantCleaning) -> None:
    report.merged += 1
    spelling, other = kept.properties["details"], node.properties["details"]
    if spelling != other:
        report.merged_spellings += 1
        report.note("merged spellings", f"{kept.properties.get('variation_gene_name')} PMID "
                                        f"{kept.properties.get('pmid')}: {spelling} = {other}")
        spellings = kept.properties.get("other_details", "").split(" | ") if kept.properties.get("other_details") \
            else []
        if other not in spellings:  # what the other node said beside the change ("in exon 10") stays
            kept.properties["other_details"] = " | ".join([*spellings, other])


def _move_relationships(graph: Graph, kept_of: dict[int, int]) -> None:
    """The merged nodes' relationships onto the nodes kept (one of each (start, type, end)); the merged
    nodes removed."""
    kept = set(kept_of.values())
    seen: set[tuple[int, str, int]] = set()
    relationships = []
    for rel in graph.relationships:
        rel.start, rel.end = kept_of.get(rel.start, rel.start), kept_of.get(rel.end, rel.end)
        if (rel.start, rel.type, rel.end) in seen and (rel.start in kept or rel.end in kept):
            continue
        seen.add((rel.start, rel.type, rel.end))
        relationships.append(rel)
    graph.relationships = relationships
    graph.nodes = [node for node in graph.nodes if node.id not in kept_of]
