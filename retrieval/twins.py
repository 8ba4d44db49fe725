"""One entry per disease: an ORPHA group entry is shown with the OMIM subtype it covers.

Orphanet often has one entry for a disease that OMIM splits into numbered subtypes (ORPHA:861
"Treacher-Collins syndrome" over OMIM:154500 "Treacher Collins syndrome 1"). When both are in a
ranking, they are one candidate: the subtype (the specific entry) takes the better of the two
places and carries both ids. Subtypes never merge with one another ("Noonan syndrome 1" and
"Noonan syndrome 3" stay apart), and names that differ otherwise never merge. Entries whose names
are the same once folded are already one node in the graph (`kg_dump.merge`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from fpkg.names import fold_name

# "<stem> 1", "<stem> type 2", "<stem> 1a", "<stem> type b"
_SUBTYPE = re.compile(r"^(?P<stem>.+?)(?: type)? (?:\d+[a-z]?|[a-z])$")


def subtype_stem(name: str) -> str | None:
    """The folded name without its subtype number, or None when it names no subtype."""
    match = _SUBTYPE.match(fold_name(name))
    return match.group("stem") if match else None


def merge_twins(ranked: list) -> list:
    """`ranked` (best first) with each ORPHA group entry folded into its best-placed OMIM subtype."""
    subtype_of_stem: dict[str, int] = {}
    for place, entry in enumerate(ranked):
        stem = subtype_stem(entry.name)
        if stem and (entry.disease_id or "").startswith("OMIM:"):
            subtype_of_stem.setdefault(stem, place)
    group_of: dict[int, int] = {}  # subtype's place -> group entry's place
    for place, entry in enumerate(ranked):
        subtype = subtype_of_stem.get(fold_name(entry.name))
        if subtype is not None and (entry.disease_id or "").startswith("ORPHA:") and subtype not in group_of:
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
    note = f"shown as one entry with {group.disease_id} {group.name} (its Orphanet group)"
    if scored_by_group:
        note += "; the score is the group entry's"
    return replace(best, name=subtype.name, node_id=subtype.node_id, disease_id=subtype.disease_id,
                   other_ids=(*subtype.other_ids, group.disease_id), evidence=[*best.evidence, note])
