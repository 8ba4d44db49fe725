"""One entry per disease where MONDO is silent: an Orphanet entry shown with the OMIM entry it duplicates.

MONDO decides first (`kg_dump.disease_identity`: entries with one MONDO id are one node, entries with
two are two diseases, and a group is never one of its members). These rules pair only an Orphanet and
an OMIM node of which at least one has no MONDO id, neither a group. Each rule is documented by its
tests (`tests/diagnosis/test_twins.py`): an ORPHA entry and an OMIM entry that HPO links to exactly the
same genes (one or more), whose names say they are one disease, or whose annotations do. By name,
first match:
  1. the same words, in any order, leaving out "syndrome", "disease", "type" and joining words (ORPHA
     "Spinocerebellar ataxia type 6" and OMIM "SPINOCEREBELLAR ATAXIA 6"): a subtype number or an
     inheritance word on one side only keeps them apart;
  2. the ORPHA name is the OMIM entry's other name, in brackets after it ("H syndrome" and
     "Histiocytosis-lymphadenopathy plus syndrome (H syndrome)");
  3. the ORPHA name's words are all in the OMIM name, the only such entry of the genes, and they share
     an annotation.
  Else by annotations: they overlap (Jaccard ≥ 0.3), the most overlapping OMIM entry when several qualify.
Two OMIM entries never pair, nor two ORPHA entries. In a ranking the pair is one candidate, at the
better of its two places, named by the OMIM entry and carrying both ids.
"""

from __future__ import annotations

from dataclasses import replace

from fpkg.names import abbreviation, fold_name, without_abbreviation


def _bare(name: str) -> str:
    """The folded name without the abbreviation after it."""
    return fold_name(without_abbreviation(name))


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
               profiles: dict[int, set[int]], names: dict[int, str] | None = None,
               mapped: set[int] = frozenset(), groups: set[int] = frozenset()) -> dict[int, int]:
    """ORPHA disease node -> the OMIM disease node that is the same disease (the rules above).
    `mapped`: the nodes MONDO maps; `groups`: the nodes that are groups (never paired)."""
    names = names or {}
    omim_by_genes: dict[frozenset[int], list[int]] = {}
    for disease, gene_set in genes.items():
        if gene_set and disease_ids.get(disease, "").startswith("OMIM:") and disease not in groups:
            omim_by_genes.setdefault(gene_set, []).append(disease)
    twins = {}
    for disease, gene_set in genes.items():
        if not disease_ids.get(disease, "").startswith("ORPHA:") or gene_set not in omim_by_genes \
                or disease in groups:
            continue
        mine = profiles.get(disease, set())
        omims = {omim: names.get(omim, "") for omim in omim_by_genes[gene_set]
                 if disease not in mapped or omim not in mapped}  # two mapped entries: MONDO has spoken
        if not omims:
            continue
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
    """`ranked` (best first) with each ORPHA entry folded into its OMIM twin when both are ranked
    (`twin_of`: ORPHA node -> OMIM node, from `find_twins`), at the better of the two places."""
    place_of_node = {}
    for place, entry in enumerate(ranked):
        place_of_node.setdefault(entry.node_id, place)
    orpha_of: dict[int, int] = {}  # OMIM entry's place -> ORPHA entry's place
    for place, entry in enumerate(ranked):
        twin = place_of_node.get((twin_of or {}).get(entry.node_id))
        if twin is not None and twin not in orpha_of:
            orpha_of[twin] = place
    folded = set(orpha_of) | set(orpha_of.values())
    out = []
    for place, entry in enumerate(ranked):
        if place not in folded:
            out.append(entry)
            continue
        omim = place if place in orpha_of else next(o for o, orpha in orpha_of.items() if orpha == place)
        orpha = orpha_of[omim]
        if place == min(omim, orpha):  # shown at the better of the two places
            out.append(_merged(ranked[omim], ranked[orpha], scored_by_orpha=orpha < omim))
    return out


def _merged(omim, orpha, *, scored_by_orpha: bool):
    best = orpha if scored_by_orpha else omim
    note = f"shown as one entry with {orpha.disease_id} {orpha.name} (its Orphanet entry)"
    if scored_by_orpha:
        note += "; the score is the Orphanet entry's"
    return replace(best, name=omim.name, disease_id=omim.disease_id,
                   other_ids=(*omim.other_ids, orpha.disease_id), evidence=[*best.evidence, note])
