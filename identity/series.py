"""Gene links that HPO's gene file attaches to a phenotypic series' first entry, put where they belong.

HPO's `genes_to_phenotype.txt` gives the first entry of an OMIM phenotypic series the genes of other
members (OMIM:147920 "Kabuki syndrome 1" gets KDM6A, the gene of Kabuki syndrome 2, because the series
PS147920 has the same number). The rule, for each link gene → E where E = OMIM:n, a phenotypic series
PSn exists, E has more than one gene in the file and is not the series itself (MONDO maps both to one
class, as OMIM:268000 "Retinitis pigmentosa": its genes are the group's):
1. the gene's own member of the series, the one MONDO says it defines (`disease_series_by_gene`), else
   another member of the series (a MONDO subclass) linked to the gene in the file: the link is that
   member's (gene → E is removed; gene → member is kept or added);
2. else, when MONDO names E's own gene: kept if it is that gene, else the link is the series' (its
   group entry: the Orphanet entry of the series' MONDO class when the file has one, else OMIMPS:n);
3. else the genes left: those the series' group entry is linked to in the file are E's own and kept;
   one linked to neither a member nor the group entry is dropped (nothing says it causes the series),
   unless none of the genes left is linked to the group entry: then they are kept, since nothing tells
   them apart (counted as unsure).
What is taken from E is taken from the entries MONDO maps to E's class too (an Orphanet twin): they are
one node in the graph.
Last, over every link: a gene that MONDO says defines one member of a series is not the gene of another
member it does not define (Orphanet's entry for a series' first member lists the whole series' genes, and
some series have no OMIMPS entry in MONDO): the link moves to the gene's own member.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from identity.mondo import Mondo


@dataclass
class SeriesCorrections:
    moved: list[tuple[str, str, str]] = field(default_factory=list)  # (gene, from entry, to member or group)
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (gene, entry)
    unsure: list[tuple[str, str]] = field(default_factory=list)  # kept: nothing tells the genes apart
    artefact_entries: int = 0

    def counts(self) -> dict[str, int]:
        return {"entries": self.artefact_entries, "moved": len(self.moved), "dropped": len(self.dropped),
                "unsure": len(self.unsure)}


def correct_series_links(links: set[tuple[str, str]],
                         mondo: Mondo) -> tuple[set[tuple[str, str]], SeriesCorrections]:
    """`links`: (gene symbol, disease id) pairs from HPO's gene file. Returns them corrected by the rule
    above, and what was changed."""
    genes_of: dict[str, set[str]] = defaultdict(set)
    diseases_of: dict[str, set[str]] = defaultdict(set)
    for gene, disease in links:
        genes_of[disease].add(gene)
        diseases_of[gene].add(disease)
    corrected = set(links)
    report = SeriesCorrections()
    for entry, genes in sorted(genes_of.items()):
        series = mondo.of("OMIMPS:" + entry[5:]) if entry.startswith("OMIM:") else None
        if series is None or len(genes) < 2 or mondo.of(entry) == series:
            continue  # no series, one gene, or the entry is the series itself (OMIM:268000 Retinitis pigmentosa)
        report.artefact_entries += 1
        members = mondo.descendants(series)
        group = _group_entry(series, mondo, genes_of)
        own_gene = mondo.series_gene.get(mondo.of(entry) or "")
        left = []
        for gene in sorted(genes):
            member = _member_of(gene, entry, members, mondo, diseases_of)
            if member is not None:
                _move(corrected, report, gene, entry, member)
            elif own_gene is not None and gene != own_gene:
                _move(corrected, report, gene, entry, group)
            elif own_gene is None:
                left.append(gene)
        on_group = [gene for gene in left if group in diseases_of[gene]]
        for gene in left:
            if on_group and gene not in on_group:
                corrected.discard((gene, entry))
                report.dropped.append((gene, entry))
            elif not on_group and len(left) > 1:
                report.unsure.append((gene, entry))
        _same_for_twins(entry, genes_of, mondo, corrected)
    _to_defined_members(corrected, report, mondo)
    return corrected, report


def _to_defined_members(corrected: set[tuple[str, str]], report: SeriesCorrections, mondo: Mondo) -> None:
    members_defined = defaultdict(list)  # (series, gene) -> the members the gene defines
    for member, gene in mondo.series_gene.items():
        members_defined[(mondo.series_of.get(member), gene)].append(member)
    for gene, entry in sorted(corrected):
        member = mondo.of(entry)
        series = mondo.series_of.get(member or "")
        if series is None or mondo.series_gene.get(member) == gene:
            continue
        own = [omim for m in sorted(members_defined.get((series, gene), ())) if (omim := mondo.omim_of(m))]
        if own:
            _move(corrected, report, gene, entry, own[0])


def _same_for_twins(entry: str, genes_of: dict[str, set[str]], mondo: Mondo, corrected: set[tuple[str, str]]) -> None:
    """An entry MONDO says is the same disease as E (its Orphanet twin) is one node with it: the genes
    taken from E are taken from the twin too."""
    taken = {gene for gene in genes_of[entry] if (gene, entry) not in corrected}
    for twin in [d for d in genes_of if d != entry and mondo.of(d) == mondo.of(entry)]:
        corrected -= {(gene, twin) for gene in taken}


def _member_of(gene: str, entry: str, members: set[str], mondo: Mondo,
               diseases_of: dict[str, set[str]]) -> str | None:
    """The OMIM id of the series member this gene defines, else of one the file links it to."""
    defined = [mondo.omim_of(m) for m in sorted(members) if mondo.series_gene.get(m) == gene]
    defined = [omim for omim in defined if omim and omim != entry]
    if defined:
        return defined[0]
    linked = sorted(d for d in diseases_of[gene] if d != entry and d.startswith("OMIM:") and mondo.of(d) in members)
    return linked[0] if linked else None


def _group_entry(series: str, mondo: Mondo, genes_of: dict[str, set[str]]) -> str:
    """The series' own entry in the file: its MONDO class's Orphanet entry when the file has one."""
    orphanet = [x for x in mondo.ids_of.get(series, ()) if x.startswith("ORPHA:") and x in genes_of]
    return orphanet[0] if orphanet else next(x for x in mondo.ids_of[series] if x.startswith("OMIMPS:"))


def _move(corrected: set[tuple[str, str]], report: SeriesCorrections, gene: str, entry: str, to: str) -> None:
    corrected.discard((gene, entry))
    corrected.add((gene, to))
    report.moved.append((gene, entry, to))
