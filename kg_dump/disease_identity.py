"""One disease, one node: MONDO ids on the graph's diseases, FPKG's group-level names told from members,
and `member_of` edges from each numbered member to its group.

- An FPKG disease is matched by its name first (MONDO, OMIM and Orphanet labels, its abbreviation left
  out), then by its OMIM id. FPKG gives some groups a member's OMIM id ("Loeys-Dietz syndrome" with
  OMIM:613795, Loeys-Dietz syndrome 3): when the name is a MONDO group over the id's disease, the node
  is the group and takes the group's id (its Orphanet id, else the MONDO id), so that the member stays
  a disease of its own. When name and id name unrelated diseases, the id wins (reported).
- HPO's OMIM and Orphanet entries that map to one MONDO id are one node (`kg_dump.merge`); two entries
  with different MONDO ids are never merged by name.
- A node whose MONDO class has rare subclasses is a group (`group_size`: how many); each node whose
  MONDO class lies under it, with no graph node in between, is linked `(member)-[:member_of]->(group)`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from fpkg.names import fold_name, without_abbreviation
from graphstore.graph import Graph, Node, Relationship
from graphstore.schema import DISEASE, MEMBER_OF, MONDO
from identity.mondo import Mondo

ID_SEPARATOR = ";"


def split_list(value: object) -> list[str]:
    """The parts of a `;`-joined property (ids or names)."""
    return [part for part in str(value or "").split(ID_SEPARATOR) if part]


def add_other_name(properties: dict, name: str) -> None:
    """A name another source gives the disease, kept unless it is the node's own name or already kept."""
    if fold_name(name) != fold_name(properties.get("dname", "")) and name not in split_list(
            properties.get("other_names")):
        properties["other_names"] = ID_SEPARATOR.join([*split_list(properties.get("other_names")), name])


@dataclass
class IdentityReport:
    fpkg_by_name: int = 0
    fpkg_by_id: int = 0
    fpkg_groups: list[str] = field(default_factory=list)  # FPKG names found to be groups
    fpkg_conflicts: list[str] = field(default_factory=list)  # name and OMIM id name unrelated diseases
    fpkg_unmapped: list[str] = field(default_factory=list)
    mapped: Counter = field(default_factory=Counter)  # source -> disease nodes with a MONDO id
    unmapped: Counter = field(default_factory=Counter)
    member_edges: int = 0
    groups: int = 0

    def summary(self) -> dict:
        return {"fpkg_by_name": self.fpkg_by_name, "fpkg_by_id": self.fpkg_by_id,
                "fpkg_groups": self.fpkg_groups, "fpkg_conflicts": self.fpkg_conflicts,
                "fpkg_unmapped": self.fpkg_unmapped, "mapped": dict(self.mapped), "unmapped": dict(self.unmapped),
                "member_edges": self.member_edges, "groups": self.groups}


def identify_fpkg_diseases(graph: Graph, mondo: Mondo, report: IdentityReport) -> None:
    """MONDO ids on FPKG's own disease nodes (before HPO is merged, which matches on them)."""
    if not mondo:
        return
    for node in _diseases(graph):
        name = node.properties.get("dname") or ""
        by_name = mondo.named(without_abbreviation(name)) or mondo.named(name)
        by_id = mondo.of(node.properties.get("disease_id"))
        if by_name and by_id and by_name != by_id:
            if by_id in mondo.descendants(by_name):
                node.properties["disease_id"] = group_id(by_name, mondo)
                report.fpkg_groups.append(name)
            else:
                report.fpkg_conflicts.append(f"{name} ({node.properties.get('disease_id')}): "
                                             f"the name is {by_name}, the id {by_id}")
                by_name = None
        if by_name:
            report.fpkg_by_name += 1
        elif by_id:
            report.fpkg_by_id += 1
        else:
            report.fpkg_unmapped.append(name)
        node.properties["mondo_id"] = by_name or by_id


def group_id(mondo_id: str, mondo: Mondo) -> str:
    """How a group is named by id: its Orphanet entry, else its OMIM phenotypic series, else MONDO."""
    ids = mondo.ids_of.get(mondo_id, [])
    return next((x for x in ids if x.startswith("ORPHA:")), None) or \
        next((x for x in ids if x.startswith("OMIMPS:")), mondo_id)


def link_groups(graph: Graph, mondo: Mondo, report: IdentityReport, next_id: int) -> int:
    """`group_size` on group nodes and `member_of` edges to the nearest group node above each disease;
    returns the next free relationship id."""
    by_mondo: dict[str, list[Node]] = defaultdict(list)
    for node in _diseases(graph):
        source = node.properties.get("source", "")
        mondo_id = node.properties.get("mondo_id")
        (report.mapped if mondo_id else report.unmapped)[source] += 1
        if mondo_id:
            by_mondo[mondo_id].append(node)
    for mondo_id, nodes in by_mondo.items():
        if mondo.is_group(mondo_id):
            report.groups += len(nodes)
            for node in nodes:
                node.properties["group_size"] = len(mondo.children[mondo_id])
    for mondo_id, nodes in sorted(by_mondo.items()):
        for group in sorted(_nearest_groups(mondo_id, mondo, by_mondo)):
            for member in nodes:
                for group_node in by_mondo[group]:
                    graph.relationships.append(Relationship(next_id, MEMBER_OF, member.id, group_node.id,
                                                            {"source": MONDO}))
                    next_id += 1
                    report.member_edges += 1
    return next_id


def _nearest_groups(mondo_id: str, mondo: Mondo, in_graph: dict) -> set[str]:
    """The ancestors of `mondo_id` that have a graph node, none below them on the way up."""
    found, seen, todo = set(), set(), list(mondo.parents.get(mondo_id, ()))
    while todo:
        parent = todo.pop()
        if parent in seen:
            continue
        seen.add(parent)
        if parent in in_graph:
            found.add(parent)
        else:
            todo.extend(mondo.parents.get(parent, ()))
    return found


def _diseases(graph: Graph) -> list[Node]:
    return [node for node in graph.nodes if DISEASE in node.labels]
