"""Two diseases side by side, as Markdown tables a clinician scans (finding | A | B, frequencies beside): their
genes and modes of inheritance, the findings that tell them apart, the findings they share; or, asked what
they have in common, the shared findings first and the rest after.

A finding "tells them apart" when it is textbook in one (cardinal, or frequent by a stated or well-counted
frequency: `kg_dump.cardinal`) and the other is annotated as showing it rarely (under 5 %, or a third as
often or less), or does not annotate it, nor a term below it, nor its parent term: absent from one annotation
list is not absent from that disease, so the cell says "not annotated", never "absent". A frequency counted
in a few published patients (one family) never tells two diseases apart. A group (Noonan syndrome) is
compared as a group: its own annotation, its members' genes, its members named, and no finding its members
are annotated with said to tell it apart.
"""

from __future__ import annotations

from fpkg.markdown import and_list, table
from kg_dump.cardinal import RARE, Finding, ancestors
from kg_dump.hpo_profiles import HpoProfiles
from service.disease_features import Disease, frequency_cell, textbook

TELLING_ROWS = 8  # findings that tell the diseases apart, per side and table
SHARED_NAMED = 12  # shared findings named in a first sentence or a line
GENES_SHOWN = 8
MEMBERS_SHOWN = 6
CLEARLY_LESS = 1 / 3  # the other shows a finding at most a third as often: it tells them apart
NOT_ANNOTATED = "not annotated"


def compare(hpo: HpoProfiles, first: Disease, second: Disease) -> str:
    """What tells the two apart first (see the module's docstring); `hpo`: the ontology their findings are in."""
    sections = _sections(hpo, first, second)
    said = [f"{disease.name} has {and_list([row[0] for row in _sides(sections['facial_telling'], side)][:3])}"
            for side, disease in enumerate((first, second)) if _sides(sections["facial_telling"], side)]
    lead = (f"{first.name} and {second.name} (HPO's annotations): "
            + ("; ".join(said) + ", which the other rarely shows or does not annotate" if said
               else "no facial finding frequent in one is rare or unannotated in the other")
            + f"; they share {len(sections['facial_shared'])} facial findings.")
    return "\n".join([lead, "", _overview(first, second), *_telling_tables(first, second, sections),
                      *_shared_parts(first, second, sections)])


def shared_first(hpo: HpoProfiles, first: Disease, second: Disease) -> str:
    """What the two have in common first: the shared facial findings named and tabled, then the comparison."""
    sections = _sections(hpo, first, second)
    shared = sections["facial_shared"]
    names = [a.name for a, _ in shared]
    lead = (f"{first.name} and {second.name} share {len(shared)} facial findings in HPO's annotations"
            + (f": {', '.join(names[:SHARED_NAMED])}" + (f" and {len(names) - SHARED_NAMED} more" if len(names)
                                                         > SHARED_NAMED else "") + "." if names else "."))
    return "\n".join([lead, *_shared_parts(first, second, sections), "", _overview(first, second),
                      *_telling_tables(first, second, sections)])


def _sections(hpo: HpoProfiles, first: Disease, second: Disease) -> dict[str, list]:
    found: dict[str, list] = {}
    for key, facial in (("facial", True), ("beside", False)):
        mine = [f for f in first.findings if f.facial == facial]
        theirs = [f for f in second.findings if f.facial == facial]
        found[f"{key}_shared"] = _shared(mine, theirs)
        found[f"{key}_telling"] = (_telling(hpo, first, second, mine, theirs, 0)
                                   + _telling(hpo, second, first, theirs, mine, 1))
    return found


def _sides(rows: list[list[str]], side: int) -> list[list[str]]:
    return [row for row in rows if row[-1] == side]


def _overview(first: Disease, second: Disease) -> str:
    rows = [["genes", _genes(first), _genes(second)],
            ["inheritance", _modes(first), _modes(second)]]
    if first.members or second.members:
        rows.append(["members", _members(first), _members(second)])
    return table(["", first.name, second.name], rows)


def _genes(disease: Disease) -> str:
    if not disease.genes:
        return "no gene in the graph"
    more = len(disease.genes) - GENES_SHOWN
    return ", ".join(disease.genes[:GENES_SHOWN]) + (f" and {more} more" if more > 0 else "")


def _modes(disease: Disease) -> str:
    return ", ".join(mode_text(mode) for mode in disease.inheritance) or "not recorded"


def mode_text(mode: str) -> str:
    """'Autosomal dominant inheritance' -> 'autosomal dominant'; 'X-linked recessive inheritance' keeps its X."""
    text = mode.removesuffix(" inheritance")
    return text if text[:2] in ("X-", "Y-") else text[:1].lower() + text[1:]


def _members(disease: Disease) -> str:
    if not disease.members:
        return "—"
    shown = ", ".join(disease.members[:MEMBERS_SHOWN])
    return f"a group of {len(disease.members)}: {shown}" + (" and more" if len(disease.members) > MEMBERS_SHOWN
                                                            else "")


def _telling_tables(first: Disease, second: Disease, sections: dict[str, list]) -> list[str]:
    parts = []
    for key, title, column in (("facial_telling", "Facial findings that tell them apart", "facial finding"),
                               ("beside_telling", "Findings beside the face that tell them apart", "finding")):
        rows = [row[:3] for row in sections[key]]
        if rows:
            parts += ["", f"{title}:", "", table([column, first.name, second.name], rows)]
    return parts


def _shared_parts(first: Disease, second: Disease, sections: dict[str, list]) -> list[str]:
    parts = []
    shared = sections["facial_shared"]
    if shared:
        parts += ["", "Facial findings shared:", "",
                  table(["facial finding", first.name, second.name],
                        ([a.name, frequency_cell(a), frequency_cell(b)] for a, b in shared))]
    beside = sections["beside_shared"]
    if beside:
        named = [f"{a.name} ({a.text} / {b.text})" for a, b in beside[:SHARED_NAMED]]
        parts += ["", "Findings beside the face, shared: " + ", ".join(named)
                  + (f" and {len(beside) - SHARED_NAMED} more" if len(beside) > SHARED_NAMED else "") + "."]
    return parts


def _shared(mine: list[Finding], theirs: list[Finding]) -> list[tuple[Finding, Finding]]:
    """The findings both annotate (any frequency but excluded), in the first one's reading order."""
    by_term = {f.term: f for f in theirs}
    return [(f, by_term[f.term]) for f in mine if f.term in by_term]


def _telling(hpo: HpoProfiles, one: Disease, other: Disease, mine: list[Finding], theirs: list[Finding],
             side: int) -> list[list]:
    """Rows [finding, cell for the first disease, cell for the second, side] for the findings textbook in `one`
    that `other` shows clearly less often, or does not annotate (nor a term below or just above)."""
    covered = {f.term: f for f in theirs}
    around = _around(hpo, other)
    rows = []
    for finding in textbook(mine):
        counterpart = covered.get(finding.term)
        if counterpart is not None:
            less = counterpart.counted
            if less is None or not (less < RARE or less <= CLEARLY_LESS * (finding.counted or 0)):
                continue  # both show it (or the other's frequency is not known well enough to say)
            theirs_text = frequency_cell(counterpart)
        elif finding.term in around or set(hpo.parents[finding.term]) & {*(f.term for f in other.findings),
                                                                         *other.member_terms}:
            continue
        else:
            theirs_text = NOT_ANNOTATED
        cells = [frequency_cell(finding), theirs_text]
        rows.append([finding.name, *(cells if side == 0 else cells[::-1]), side])
        if len(rows) == TELLING_ROWS:
            break
    return rows


def _around(hpo: HpoProfiles, disease: Disease) -> set[int]:
    """The terms the disease shows, themselves or through a term below them (its findings, a group's
    members' findings, and their ancestors)."""
    shown = {f.term for f in disease.findings if f.counted is None or f.counted >= RARE} | set(disease.member_terms)
    return shown.union(*(ancestors(hpo, term) for term in shown))
