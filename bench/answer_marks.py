"""What the answer check (service/answer_check.py) marked in each LLM answer, and a second opinion on
each mark, for `bench diagnosis`.

Per answer: the names checked, those marked not in the evidence and those marked contradicted, and the
marks the audit finds wrong. The audit asks other sources than the check does:
- not in the evidence: wrong when any of the node's names (the graph's, its synonyms, MONDO's, OMIM's and
  Orphanet's) is written in what the model was given or in the evidence's facts;
- a gene contradicted: wrong when the graph joins the gene and the disease by any path of up to three
  Cause, Have or member_of relationships, either way;
- a finding contradicted: wrong when HPO's own annotation (the profiles read from its release files, not
  the graph's `excludes`) does not say NOT for that disease and finding.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fpkg.names import normalise, without_abbreviation
from service.answer_check import CONTRADICTED, NOT_IN_EVIDENCE

TIMEOUT_MS = 5000
JOINED = ("MATCH (g:Genotype), (d:Disease) WHERE g.nid = $gene AND d.nid = $disease "
          "MATCH p = (g)-[:Cause|Have|member_of*1..3]-(d) RETURN count(p) AS paths")
HPO_ID = "MATCH (p:FacePhenotype) WHERE p.nid = $node RETURN p.hpo_id AS hpo_id"


class MarkAudit:
    """The second opinion; each node's names are gathered once."""

    def __init__(self, pipeline):
        self.pipeline = pipeline
        self._names: dict[int, set[str]] | None = None

    def names_of(self, node: int) -> set[str]:
        if self._names is None:
            self._names = defaultdict(set)
            for index in self.pipeline.linker.indexes.values():
                for alias in index.aliases:
                    self._names[alias.node_id].add(alias.text)
        return self._names[node] | set(self.pipeline.linker.other_names(node))

    def wrong(self, name, evidence) -> bool:
        """Whether a marked name's mark is wrong, by the sources above."""
        if name.status == NOT_IN_EVIDENCE:
            texts = {name.mention, name.name, *(self.names_of(name.node_id) if name.node_id is not None else ())}
            return any(f" {key} " in evidence.text for key in filter(None, (normalise(without_abbreviation(t))
                                                                             for t in texts)))
        if name.status != CONTRADICTED or name.about is None:
            return False
        store = self.pipeline.store
        if name.kind == "gene":
            rows = store.query(JOINED, {"gene": name.node_id, "disease": name.about}, timeout_ms=TIMEOUT_MS)
            return bool(rows and rows[0]["paths"])
        rows = store.query(HPO_ID, {"node": name.node_id}, timeout_ms=TIMEOUT_MS)
        term = int(rows[0]["hpo_id"].split(":")[1]) if rows and rows[0]["hpo_id"] else None
        return term not in self.pipeline.profiles.hpo_excluded.get(name.about, set())


def answer_marks(result, audit: MarkAudit) -> dict[str, Any] | None:
    """One answer's marks (None for an answer no LLM wrote)."""
    check = result.check
    if check is None:
        return None
    marked = check.marked()
    return {"names": len(check.names), "unsupported": [n.mention for n in marked if n.status == NOT_IN_EVIDENCE],
            "contradicted": [n.mention for n in marked if n.status == CONTRADICTED],
            "wrongly_marked": [n.mention for n in marked if audit.wrong(n, check.evidence)],
            "why": [n.why for n in marked], "standing": check.standing, "record": check.record}


def marks_summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Per answer (mean) and in all: names checked, unsupported, contradicted and wrongly marked."""
    checked = [i["marks"] for i in items if i.get("marks")]
    if not checked:
        return {"answers": 0}
    out: dict[str, Any] = {"answers": len(checked)}
    for key in ("names", "unsupported", "contradicted", "wrongly_marked"):
        counts = [m[key] if isinstance(m[key], int) else len(m[key]) for m in checked]
        out[key] = {"total": sum(counts), "per_answer": round(sum(counts) / len(counts), 3),
                    "answers_with": sum(1 for c in counts if c)}
    out["record_not_the_llms"] = sum(1 for m in checked if m["record"])
    return out


def marks_line(summary: dict[str, Any]) -> str:
    if not summary.get("answers"):
        return "no LLM answer was checked"
    parts = [f"{key.replace('_', ' ')} {summary[key]['total']} ({summary[key]['per_answer']:.2f} per answer)"
             for key in ("names", "unsupported", "contradicted", "wrongly_marked")]
    return (f"checked {summary['answers']} LLM answers: " + ", ".join(parts)
            + f"; the graph's first choice was the record in {summary['record_not_the_llms']}")
