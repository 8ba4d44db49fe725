"""Groups and their members in a differential (MONDO's classes with rare subclasses: an Orphanet group,
an OMIM phenotypic series, FPKG's group-level names; `kg_dump.disease_identity` builds the edges).

A group is never shown under a member's name or id, and no fact moves between them. With the patient's
gene known, a ranked group gives way to the best-ranked member that the gene causes, shown at the
better of the two places with its group beside it; with no gene, the group is the answer and says how
many members it has.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from graphstore.store import GraphStore

MEMBERS = "MATCH (m:Disease)-[:member_of]->(g:Disease) RETURN m.nid AS member, g.nid AS group"
MEMBERS_OF = ("MATCH (m:Disease)-[:member_of]->(g:Disease) WHERE g.nid = $group "
              "RETURN m.dname AS name, m.disease_id AS did ORDER BY m.dname")
SHOWN_MEMBERS = 12
GROUPS = ("MATCH (g:Disease) WHERE g.group_size > 0 "
          "RETURN g.nid AS group, g.group_size AS size, g.dname AS name, g.disease_id AS did")


@dataclass
class DiseaseGroups:
    members: dict[int, set[int]] = field(default_factory=dict)  # group node -> its members, at any depth
    size: dict[int, int] = field(default_factory=dict)  # group node -> MONDO's count of its subclasses
    titles: dict[int, str] = field(default_factory=dict)  # group node -> "Name (ORPHA:n)"
    groups_of: dict[int, set[int]] = field(default_factory=dict)  # a member -> its groups, at any height

    @classmethod
    def from_store(cls, store: GraphStore) -> DiseaseGroups:
        direct: dict[int, set[int]] = defaultdict(set)
        for row in store.query(MEMBERS, timeout_ms=60_000):
            direct[row["group"]].add(row["member"])
        groups = cls()
        for row in store.query(GROUPS, timeout_ms=60_000):
            groups.size[row["group"]] = int(row["size"])
            groups.titles[row["group"]] = f"{row['name']} ({row['did']})" if row["did"] else row["name"]
        for group in direct:
            groups.members[group] = _below(group, direct)
            for member in groups.members[group]:
                groups.groups_of.setdefault(member, set()).add(group)
        return groups

    def is_group(self, node: int | None) -> bool:
        return node in self.size

    def resolve(self, ranked: list, caused: set[int]) -> list:
        """`ranked` (best first) with each group that has a member the gene causes (`caused`: the gene's
        disease nodes) replaced by that member, and each group left standing labelled as one."""
        if not self.size:
            return ranked
        place = {entry.node_id: i for i, entry in enumerate(ranked)}
        chosen: dict[int, int] = {}  # the member's place -> the group's place
        for i, entry in enumerate(ranked):
            mine = self.members.get(entry.node_id, set()) & caused
            mine = {m for m in mine if m not in self.size} or mine  # a numbered member before a smaller group
            best = min((place[m] for m in mine if m in place), default=None)
            if best is not None and best not in chosen:
                chosen[best] = i
        shown_at = {min(member, group): member for member, group in chosen.items()}
        hidden = set(chosen) | set(chosen.values())
        out = []
        for i, entry in enumerate(ranked):
            if i in shown_at:
                member, group = shown_at[i], chosen[shown_at[i]]
                out.append(replace(ranked[member], group=self.titles.get(ranked[group].node_id, ranked[group].name),
                                   group_node=ranked[group].node_id,
                                   evidence=[*ranked[member].evidence,
                                             f"the patient's gene causes it, in the group {ranked[group].name}"]))
            elif i not in hidden:
                out.append(self._labelled(entry))
        return out

    def note(self, store: GraphStore, node: int | None) -> str | None:
        """'Kabuki syndrome is a group of 2 diseases in MONDO: ...' for a group node, else None."""
        if node not in self.size:
            return None
        rows = store.query(MEMBERS_OF, {"group": node}, timeout_ms=3000)
        shown = [f"{row['name']} ({row['did']})" for row in rows[:SHOWN_MEMBERS]]
        more = f" and {len(rows) - SHOWN_MEMBERS} more" if len(rows) > SHOWN_MEMBERS else ""
        title = self.titles.get(node, "It")
        in_graph = f"; the graph holds {len(rows)}: {'; '.join(shown)}{more}" if rows else ""
        return f"{title} is a group of {self.size[node]} diseases in MONDO{in_graph}."

    def _labelled(self, entry):
        size = self.size.get(entry.node_id)
        if not size:
            return entry
        return replace(entry, members=size, evidence=[*entry.evidence, f"a group of {size} diseases in MONDO: "
                                                                         "the gene tells which member"])


def _below(group: int, direct: dict[int, set[int]]) -> set[int]:
    found, todo = set(), list(direct.get(group, ()))
    while todo:
        node = todo.pop()
        if node not in found:
            found.add(node)
            todo.extend(direct.get(node, ()))
    return found
