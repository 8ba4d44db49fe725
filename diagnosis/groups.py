"""Groups and their members in a differential (MONDO's classes with rare subclasses: an Orphanet group,
an OMIM phenotypic series, FPKG's group-level names; `kg_dump.disease_identity` builds the edges).

A group is never shown under a member's name or id, and no fact moves between them. With the patient's
gene known, a ranked group gives way to the best-ranked member that the gene causes, shown at the
better of the two places with its group beside it; with no gene, the group is the answer and says how
many members it has.

When the findings do not tell a group's members apart (no gene, or a gene that causes several of them,
and the best two within `SEPARATES` of the best's score, or three of the top five its members) the group is
shown first, at its best member's place,
with its members ranked under it (`collapse`). A member is shown in the group a clinician would name
(`named_group`): of the groups above it, the one whose name shares most words with the member's, then
the smallest, never any ancestor. A member the gene causes shown in place of its group stands at the better of
the two scores, and says so. A "group" of one subclass is that disease: it is never said to be a
group, and it folds into its one member when both are ranked. An OMIM phenotype entry (OMIM:154700, Marfan
syndrome) is a disease, whatever subclasses MONDO gives it: never a group here, always shown as itself.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace

from graphstore.store import GraphStore

MEMBERS = "MATCH (m:Disease)-[:member_of]->(g:Disease) RETURN m.nid AS member, g.nid AS group"
MEMBERS_OF = ("MATCH (m:Disease)-[:member_of]->(g:Disease) WHERE g.nid = $group "
              "RETURN m.dname AS name, m.disease_id AS did ORDER BY m.dname")
SHOWN_MEMBERS = 12
GROUPS = ("MATCH (g:Disease) WHERE g.group_size > 0 "
          "RETURN g.nid AS group, g.group_size AS size, g.dname AS name, g.disease_id AS did")
# a member this far ahead of the group's next, as a share of its score (scores have no fixed scale: the
# weights are fitted), is told apart by the findings
SEPARATES = 0.12
RANKED_MEMBERS = 6  # the members a collapsed group lists
# a series whose members hold this many of the top places is one the findings do not tell apart, however far its
# best member leads (a large published cohort of Noonan syndrome 6 lifts it above Noonan syndrome 1's annotations)
DOMINATING, DOMINATED_TOP = 3, 5
_WORD = re.compile(r"[a-z0-9]+")
_COMMON_WORDS = {"syndrome", "disease", "disorder", "type", "with", "and", "of", "the", "or", "to", "due"}


@dataclass
class DiseaseGroups:
    members: dict[int, set[int]] = field(default_factory=dict)  # group node -> its members, at any depth
    size: dict[int, int] = field(default_factory=dict)  # group node -> MONDO's count of its subclasses
    titles: dict[int, str] = field(default_factory=dict)  # group node -> "Name (ORPHA:n)"
    names: dict[int, str] = field(default_factory=dict)  # group node -> its name
    ids: dict[int, str | None] = field(default_factory=dict)  # group node -> its disease id
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
            groups.names[row["group"]], groups.ids[row["group"]] = row["name"] or "", row["did"]
        for group in direct:
            if _is_omim_entry(groups.ids.get(group)):
                continue
            groups.members[group] = _below(group, direct)
            for member in groups.members[group]:
                groups.groups_of.setdefault(member, set()).add(group)
        for group in [g for g, did in groups.ids.items() if _is_omim_entry(did)]:
            for table in (groups.size, groups.titles, groups.names, groups.ids):
                table.pop(group, None)
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
                out.append(self._member_shown(ranked[member], ranked[group]))
            elif i not in hidden:
                out.append(self._labelled(entry))
        return out

    def _member_shown(self, member, group):
        """A member the gene causes, shown in place of its ranked group: with the group beside it only where
        the member is named after it (Noonan syndrome 1 in Noonan syndrome; never Costello syndrome in familial
        hypertrophic cardiomyopathy, a class MONDO puts it in for one of its signs)."""
        if not _words(member.name) & _words(group.name):
            return member
        said = f"the patient's gene causes it, in the group {group.name}"
        if group.score > member.score:  # the group's standing is the member's: the row says so
            said += f", and it stands at the group's score ({group.score:.2f}; its own {member.score:.2f})"
        return replace(member, group=self.titles.get(group.node_id, group.name), group_node=group.node_id,
                       score=max(member.score, group.score), evidence=[*member.evidence, said])

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

    def named_group(self, member: int, name: str) -> int | None:
        """The group a clinician names `member` by: of its groups of two or more, the one whose name shares
        most words with the member's, then the smallest (LEOPARD syndrome 1 is in Noonan syndrome with
        multiple lentigines, not in familial hypertrophic cardiomyopathy's series)."""
        groups = [g for g in self.groups_of.get(member, ()) if self.size.get(g, 0) >= 2]
        if not groups:
            return None
        words = _words(name)
        return min(groups, key=lambda g: (-len(words & _words(self.names.get(g, ""))), self.size[g], g))

    def collapse(self, ranked: list, caused: set[int]) -> list:
        """`ranked` (best first) with each group whose members the findings do not tell apart shown once, at
        its best member's place, its members ranked under it (`ranked_members`); `caused`: the gene's
        diseases (with a gene, only members it causes are told apart by it alone). Only a series that
        carries its members' name is shown so (Noonan syndrome over Noonan syndrome 6): a class MONDO puts
        a syndrome in for one of its signs (CHARGE syndrome among the hypogonadotropic hypogonadisms) is
        no group a clinician reads the answer as. A group of one folds into its member."""
        ranked = self._fold_singletons(ranked)
        members: dict[int, list[int]] = defaultdict(list)  # group -> the places of its members
        own: dict[int, int] = {}  # group -> its own node's place
        for i, entry in enumerate(ranked):
            if entry.node_id in self.size:
                own.setdefault(entry.node_id, i)
            elif (entry.node_id is not None and (not caused or entry.node_id in caused)
                  and (group := self.named_group(entry.node_id, entry.name)) is not None
                  and _words(entry.name) & _words(self.names.get(group, ""))):
                members[group].append(i)
        chosen = {g: places for g, places in members.items()
                  if len(places) >= 2
                  and (ranked[places[0]].score - ranked[places[1]].score < SEPARATES * abs(ranked[places[0]].score)
                       or sum(p < DOMINATED_TOP for p in places) >= DOMINATING)}
        at = {min([*places, own.get(g, len(ranked))]): g for g, places in chosen.items()}
        folded = {i for g, places in chosen.items() for i in (*places, own.get(g, -1))}
        out = []
        for i, entry in enumerate(ranked):
            if i in at:
                out.append(self._group_entry(at[i], [ranked[p] for p in chosen[at[i]]],
                                             ranked[own[at[i]]] if at[i] in own else None))
            elif i not in folded:
                out.append(entry)
        return out

    def _group_entry(self, group: int, members: list, own):
        best = members[0]
        shown = members[:RANKED_MEMBERS]
        listed = "; ".join(m.name for m in shown) + (f" and {len(members) - len(shown)} more"
                                                      if len(members) > len(shown) else "")
        score = max(best.score, own.score if own is not None else best.score)
        return replace(best, name=self.names.get(group) or best.name, node_id=group, disease_id=self.ids.get(group),
                       score=score, members=self.size[group], ranked_members=tuple(members), group=None,
                       group_node=None, other_ids=(), evidence=[
                           f"the findings fit {len(members)} of its members about as well ({listed}): the group first",
                           *best.evidence])

    def _fold_singletons(self, ranked: list) -> list:
        """A group of one subclass ranked beside that subclass: one entry, at the better place, as the member."""
        place = {entry.node_id: i for i, entry in reversed(list(enumerate(ranked)))}
        out, taken = [], set()
        for i, entry in enumerate(ranked):
            if i in taken:
                continue
            member = next(iter(self.members.get(entry.node_id, ())), None) if self.size.get(entry.node_id) == 1 \
                else None
            if member in place and place[member] != i:
                if place[member] > i:  # the group was placed better: its member takes that place
                    out.append(ranked[place[member]])
                taken.add(place[member])
                continue
            out.append(entry)
        return out

    def _labelled(self, entry):
        size = self.size.get(entry.node_id)
        if not size or size < 2:  # a "group" of one subclass is that disease
            return entry
        return replace(entry, members=size, evidence=[*entry.evidence, f"a group of {size} diseases in MONDO: "
                                                                         "the gene tells which member"])


def _is_omim_entry(disease_id: str | None) -> bool:
    """An OMIM phenotype entry (not an OMIMPS series): a disease a clinician names, not a group."""
    return bool(disease_id) and disease_id.startswith("OMIM:")


def _words(name: str) -> set[str]:
    return set(_WORD.findall(name.lower())) - _COMMON_WORDS


def _below(group: int, direct: dict[int, set[int]]) -> set[int]:
    found, todo = set(), list(direct.get(group, ()))
    while todo:
        node = todo.pop()
        if node not in found:
            found.add(node)
            todo.extend(direct.get(node, ()))
    return found
