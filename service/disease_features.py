"""Ask's answers about one disease's findings, read as a clinician reads them (`kg_dump.cardinal`); the
answers the service writes from HPO's whole annotation are dispatched by `service.feature_answers`.

A disease is read with its OMIM and ORPHA entries, and with a group of one that is the same disease under
another entry (CHARGE syndrome's OMIM entry and Orphanet's group of one, which holds the frequencies). Its
findings come in reading order: HPO's stated frequencies first (a band or a percentage), a frequency counted
in published patients only from `MIN_PATIENTS` patients ("2 of 3 patients" is said, not ranked), the cardinal
ones (very frequent here, rare elsewhere) at the top, facial findings apart from sight, hearing and the rest.
The answer is Markdown: a first sentence that answers, a table of the findings with their frequencies, the
long tail in a line.
"""

from __future__ import annotations

from dataclasses import dataclass

from fpkg.markdown import and_list, table
from graphstore.store import GraphStore
from kg_dump.cardinal import FREQUENT, MIN_PATIENTS, DiseaseAnnotations, Finding, known
from kg_dump.hpo_profiles import HpoProfiles
from retrieval.gene_order import genes_in_order

TABLE_ROWS = 20  # findings in a feature table; the rest named in a line below it
FIRST_NAMED = 5  # findings the first sentence names
IDS = "MATCH (d:Disease) WHERE d.nid = $id RETURN d.disease_id AS did, d.other_ids AS others"
MEMBERS = ("MATCH (m:Disease)-[:member_of]->(d:Disease) WHERE d.nid = $id RETURN m.nid AS node, m.dname AS name, "
           "m.disease_id AS did, m.other_ids AS others ORDER BY name")
# the same disease under another entry: a group of one over it (Orphanet's, where OMIM has the member)
GROUP_OF_ONE = ("MATCH (d:Disease)-[:member_of]->(g:Disease) WHERE d.nid = $id AND g.group_size = 1 "
                "RETURN g.nid AS node, g.disease_id AS did, g.other_ids AS others")


@dataclass(frozen=True)
class Disease:
    node: int
    name: str
    findings: list[Finding]
    genes: list[str]  # in the order that matters (retrieval.gene_order)
    inheritance: list[str]
    members: list[str]  # a group's members, by name
    member_terms: frozenset[int] = frozenset()  # what its members are annotated with (a group's)
    ids: tuple[str, ...] = ()  # its OMIM and ORPHA entries (a group of one's too)


def entry_ids(row: dict) -> list[str]:
    return [x for x in [row.get("did"), *str(row.get("others") or "").split(";")] if x]


def read_disease(store: GraphStore, annotations: DiseaseAnnotations, node: int, name: str) -> Disease:
    ids = entry_ids(next(iter(store.query(IDS, {"id": node}, timeout_ms=3000)), {}))
    rows = store.query(MEMBERS, {"id": node}, timeout_ms=3000)
    members = [r["name"] for r in rows if r["name"]]
    same = store.query(GROUP_OF_ONE, {"id": node}, timeout_ms=3000)
    if len(rows) == 1:  # a group of one: its member is the same disease
        same = rows
    ids = list(dict.fromkeys([*ids, *(i for row in same for i in entry_ids(row))]))
    genes = [g.gene for g in genes_in_order(store, node, annotations.hpo.gene_entries)[0]]
    member_terms = frozenset(term for r in rows for term, frequency in annotations.terms.get(r["node"], {}).items()
                             if known(frequency) != 0)
    modes = annotations.inheritance(ids) or list(dict.fromkeys(  # a group's: its members'
        mode for r in rows for mode in annotations.inheritance(entry_ids(r))))
    return Disease(node, name, annotations.findings_of(ids, node), genes, modes,
                   members if len(rows) > 1 else [], member_terms if len(rows) > 1 else frozenset(), tuple(ids))


def frequency_cell(finding: Finding) -> str:
    return finding.text + (" · cardinal" if finding.cardinal else "")


def textbook(findings: list[Finding]) -> list[Finding]:
    """The findings a textbook names: cardinal, or frequent (30 % and up) by a stated or well-counted frequency."""
    return [f for f in findings if f.cardinal or (f.counted is not None and f.counted >= FREQUENT)]


def feature_list(hpo: HpoProfiles, disease: Disease, facial_asked: bool) -> str | None:
    """The disease's findings as Markdown: the first sentence names the textbook ones, a table gives them with
    their frequencies, a line the rest (the long tail last). Asked about the face: the facial findings in the
    table, then a line each for the other facial ones, for sight and hearing and for the findings beside the
    face. None when HPO annotates none."""
    if not disease.findings:
        return None
    facial = [f for f in disease.findings if f.facial]
    other = [f for f in disease.findings if not f.facial]
    senses = [f for f in other if hpo.facial[f.term]]  # the eyes' and ears' function: not seen on the face
    beside = [f for f in other if not hpo.facial[f.term]]
    shown = facial if facial_asked and facial else disease.findings
    kind = "facial findings" if shown is facial else "findings"
    top = textbook(shown)[:TABLE_ROWS]
    said = _typical(top, kind) if top else f"no {kind[:-1]} is frequent by a stated frequency or a count from " \
                                           f"{MIN_PATIENTS} patients or more. "
    top = top or shown[:FIRST_NAMED]
    lines = [f"{disease.name}: {said}HPO annotates {len(facial)} facial findings and {len(other)} "
             "others; the most frequent and specific first.", "",
             table(["facial finding" if shown is facial else "finding", "frequency"],
                   ([f.name, frequency_cell(f)] for f in top))]
    lines.append("")  # a blank line after the table: a line right below it would be read as a row
    rest = [f for f in shown if f not in top]
    if rest:
        lines.append(f"Also {'facial' if shown is facial else 'annotated'}: {_banded(rest)}.")
    if shown is facial:
        if senses:
            lines.append(f"Sight and hearing: {_banded(senses)}.")
        if beside:  # the face was asked about: the rest in a line, its frequent ones named
            frequent = [f.name for f in textbook(beside)]
            lines.append(f"Beside the face, {len(beside)} findings" + (f", frequent: {', '.join(frequent)}"
                                                                        if frequent else "") + ".")
    return "\n".join(lines).rstrip()


def _typical(top: list[Finding], kind: str) -> str:
    named = [f.name for f in top[:FIRST_NAMED]]
    if not named:
        return ""
    cardinal = all(f.cardinal for f in top[:FIRST_NAMED])
    return (f"the typical {kind} are {and_list(named)}"
            + (" (very frequent here, rare elsewhere). " if cardinal else ". "))


def _banded(findings: list[Finding]) -> str:
    """'very frequent — A, B; frequent — C; frequency not given — D; counted in few patients — E (2 of 3
    patients)': every finding, the long tail last."""
    bands: dict[str, list[str]] = {}
    for finding in findings:  # already in reading order
        if finding.counted is None and finding.patients:
            bands.setdefault("counted in few patients", []).append(f"{finding.name} ({finding.text})")
        else:
            bands.setdefault(finding.band, []).append(finding.name)
    return "; ".join(f"{band} — {', '.join(names)}" for band, names in bands.items())
