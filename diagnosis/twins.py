"""One entry per disease: an Orphanet entry is shown with the OMIM entry it duplicates or groups.

Two rules, each documented by its tests (`tests/retrieval/test_twins.py`):
- **Group over subtypes**, by name: Orphanet often has one entry for a disease that OMIM splits
  into numbered subtypes (ORPHA:861 "Treacher-Collins syndrome" over OMIM:154500 "Treacher Collins
  syndrome 1"); the ORPHA name must equal the OMIM name without its subtype number.
- **Twins**, by evidence: an ORPHA entry and an OMIM entry that HPO links to exactly the same genes
  (one or more), whose names say they are one disease, or whose annotations do. By name, first match:
  1. the same words, in any order, leaving out "syndrome", "disease", "type" and joining words (ORPHA
     "Spinocerebellar ataxia type 6" and OMIM "SPINOCEREBELLAR ATAXIA 6", "Progressive osseous
     heteroplasia" and "Osseous heteroplasia, progressive"): a subtype number or an inheritance word
     on one side only keeps them apart. Their facial annotations often overlap little: HPO's
     curators annotate the two sources separately;
  2. the ORPHA name is the OMIM entry's other name, in brackets after it ("H syndrome" and
     "Histiocytosis-lymphadenopathy plus syndrome (H syndrome)");
  3. the ORPHA name's words are all in the OMIM name, the only such entry of the genes, and they share
     an annotation ("Microcephaly-lymphedema-chorioretinopathy syndrome" and "Microcephaly with or
     without chorioretinopathy, lymphedema, or mental retardation": a group and its subtype, as above).
  Else by annotations: they overlap (Jaccard ≥ 0.3), the most overlapping OMIM entry when several
  qualify (ORPHA "Severe intellectual disability-progressive spastic diplegia syndrome" and
  OMIM:617296 "Neurodevelopmental disorder with spastic diplegia and visual defects", both CTNNB1).
Two OMIM entries never merge ("Noonan syndrome 1" and "Noonan syndrome 3" stay apart), nor two
ORPHA entries. In a ranking the pair is one candidate, at the better of its two places, named by
the OMIM entry and carrying both ids. Entries whose names are the same once folded are already one
node in the graph (`kg_dump.merge`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from fpkg.names import abbreviation, fold_name, without_abbreviation

# "<stem> 1", "<stem> type 2", "<stem> 1a", "<stem> type b"
_SUBTYPE = re.compile(r"^(?P<stem>.+?)(?: type)? (?:\d+[a-z]?|[a-z])$")


def _bare(name: str) -> str:
    """The folded name without the abbreviation after it."""
    return fold_name(without_abbreviation(name))


def subtype_stem(name: str) -> str | None:
    """The folded name without its abbreviation and subtype number, or None when it names no subtype."""
    match = _SUBTYPE.match(_bare(name))
    return match.group("stem") if match else None


# words that name no feature of a disease: "Mucolipidosis type IV" is "Mucolipidosis IV"
_FILLER = frozenset({"syndrome", "disease", "type", "and", "with", "of", "the"})


def name_words(name: str) -> frozenset[str]:
    """The words of a disease name, its abbreviation and filler words left out."""
    return frozenset(_bare(name).split()) - _FILLER


def other_name_words(name: str) -> frozenset[str]:
    """The words of what a name gives in brackets (or after ";") at its end: an abbreviation or an
    other name ("... plus syndrome (H syndrome)" -> {"h"})."""
    other = abbreviation(name)
    return name_words(other) if other else frozenset()


MIN_OVERLAP = 0.3


def find_twins(genes: dict[int, frozenset[int]], disease_ids: dict[int, str],
               profiles: dict[int, set[int]], names: dict[int, str] | None = None) -> dict[int, int]:
    """ORPHA disease node -> the OMIM disease node that is the same disease (rule 2 above)."""
    names = names or {}
    omim_by_genes: dict[frozenset[int], list[int]] = {}
    for disease, gene_set in genes.items():
        if gene_set and disease_ids.get(disease, "").startswith("OMIM:"):
            omim_by_genes.setdefault(gene_set, []).append(disease)
    twins = {}
    for disease, gene_set in genes.items():
        if not disease_ids.get(disease, "").startswith("ORPHA:") or gene_set not in omim_by_genes:
            continue
        mine = profiles.get(disease, set())
        omims = {omim: names.get(omim, "") for omim in omim_by_genes[gene_set]}
        sharing = {omim for omim in omims if mine & profiles.get(omim, set())}
        by_name = _namesake(names.get(disease, ""), omims, sharing)
        if by_name is not None:
            twins[disease] = by_name
            continue
        best, negative_id = max((_jaccard(mine, profiles.get(omim, set())), -omim) for omim in omims)
        if best >= MIN_OVERLAP:
            twins[disease] = -negative_id
    return twins


def _namesake(name: str, omims: dict[int, str], sharing: set[int]) -> int | None:
    """The OMIM entry (node -> name) that the ORPHA entry's name says it is, by the name rules above
    (`sharing`: the OMIM entries that share an annotation with it)."""
    words = name_words(name)
    if not words:
        return None
    omim_words = {omim: name_words(other) for omim, other in omims.items()}
    same = [omim for omim in sorted(omims) if omim_words[omim] == words]
    bracketed = [omim for omim in sorted(omims) if other_name_words(omims[omim]) == words]
    if same or bracketed:
        return (same or bracketed)[0]
    wider = [omim for omim in omims if words < omim_words[omim]]
    return wider[0] if len(wider) == 1 and wider[0] in sharing else None


def _jaccard(a: set[int], b: set[int]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def merge_twins(ranked: list, twin_of: dict[int, int] | None = None) -> list:
    """`ranked` (best first) with each ORPHA entry folded into its OMIM subtype or twin when both are
    ranked (`twin_of`: ORPHA node -> OMIM node, from `find_twins`)."""
    subtype_of_stem: dict[str, int] = {}
    place_of_node: dict[int, int] = {}
    for place, entry in enumerate(ranked):
        stem = subtype_stem(entry.name)
        if stem and (entry.disease_id or "").startswith("OMIM:"):
            subtype_of_stem.setdefault(stem, place)
        place_of_node.setdefault(entry.node_id, place)
    group_of: dict[int, int] = {}  # OMIM entry's place -> ORPHA entry's place
    for place, entry in enumerate(ranked):
        if not (entry.disease_id or "").startswith("ORPHA:"):
            continue
        subtype = subtype_of_stem.get(fold_name(entry.name))
        if subtype is None:
            subtype = place_of_node.get((twin_of or {}).get(entry.node_id))
        if subtype is not None and subtype not in group_of:
            group_of[subtype] = place
    skipped = set(group_of) | set(group_of.values())
    out = []
    for place, entry in enumerate(ranked):
        if place not in skipped:
            out.append(entry)
            continue
        subtype = place if place in group_of else next(s for s, g in group_of.items() if g == place)
        group = group_of[subtype]
        if place != min(subtype, group):
            continue  # shown at the better of the two places
        out.append(_merged(ranked[subtype], ranked[group], scored_by_group=group < subtype))
    return out


def _merged(subtype, group, *, scored_by_group: bool):
    best = group if scored_by_group else subtype
    note = f"shown as one entry with {group.disease_id} {group.name} (its Orphanet entry)"
    if scored_by_group:
        note += "; the score is the Orphanet entry's"
    return replace(best, name=subtype.name, disease_id=subtype.disease_id,
                   other_ids=(*subtype.other_ids, group.disease_id), evidence=[*best.evidence, note])
