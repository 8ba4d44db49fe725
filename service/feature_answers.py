"""The answers the service writes from HPO's whole annotation, where the retrieval mode recognised their kind
(the retrieved facts stay the evidence): a disease's features (`service.disease_features`), two diseases
compared or what they share (`service.comparison`), a disease's modes of inheritance and its genes in the
order that matters (`service.disease_lists`), the facial findings a disease's summary names.
"""

from __future__ import annotations

import re

from graphstore.store import GraphStore
from kg_dump.cardinal import DiseaseAnnotations
from service.comparison import compare, shared_first
from service.disease_features import feature_list, read_disease
from service.disease_lists import gene_list, inheritance

SUMMARY_SHOWN = 10  # facial findings a summary names

FACE_ASKED = re.compile(r"\b(fac(e|es|ial)|dysmorph\w*|craniofacial)\b", re.IGNORECASE)


def answer_features(retrieved, question: str, store: GraphStore, annotations: DiseaseAnnotations) -> None:
    """The answers written from HPO's whole annotation (the retrieved facts stay the evidence): a disease's
    features, two diseases compared or what they share, a disease's modes of inheritance, its genes in the
    order that matters. Nothing changes when HPO annotates none of them."""
    diseases = [link for link in retrieved.links if link.type == "DISEASE" and link.node_id is not None]
    diseases = list({link.node_id: link for link in diseases}.values())
    if retrieved.intent in ("compare_diseases", "shared_by_diseases") and len(diseases) >= 2:
        first, second = (read_disease(store, annotations, link.node_id, link.name) for link in diseases[:2])
        if first.findings and second.findings:
            write = shared_first if retrieved.intent == "shared_by_diseases" else compare
            retrieved.lead, retrieved.complete = write(annotations.hpo, first, second), True
    elif retrieved.intent == "inheritance_of_disease" and diseases:
        retrieved.lead, retrieved.complete = inheritance(store, annotations, diseases[0]), True
    elif retrieved.intent == "genes_of_disease" and len(diseases) == 1 and (retrieved.listing or not retrieved.lead):
        gene_list(retrieved, store, annotations, diseases[0])
    elif retrieved.intent == "summary_of_disease" and retrieved.lead:
        _summary_findings(retrieved, store, annotations, diseases)
    elif retrieved.intent == "phenotypes_of_disease" and len(diseases) == 1 and not retrieved.complete \
            and (retrieved.listing or not retrieved.lead):  # a list, not a count or a yes/no
        disease = read_disease(store, annotations, diseases[0].node_id, diseases[0].name)
        text = feature_list(annotations.hpo, disease, facial_asked=bool(FACE_ASKED.search(question)))
        if text:
            listed = {f.name.casefold() for f in disease.findings}
            more = list(dict.fromkeys(t.tail for t in retrieved.triples if t.relation == "Exhibit"
                                      and t.head_id == disease.node and t.tail.casefold() not in listed))
            if more:  # FPKG's own facial phenotypes, and those of its published patients
                text += "\n\nAlso in the graph (FPKG): " + ", ".join(more) + "."
            retrieved.lead, retrieved.complete = text, True


SUMMARY_FINDINGS = "Facial findings (most frequent and specific first) ("


def _summary_findings(retrieved, store: GraphStore, annotations: DiseaseAnnotations, diseases) -> None:
    """A disease's summary names its facial findings in reading order from HPO's whole annotation (stated
    frequencies first, a count from a few patients not read as one), where HPO annotates it."""
    link = next((lk for lk in diseases if retrieved.lead.startswith(lk.name or "\0")), None)
    if link is None:
        return
    facial = [f for f in read_disease(store, annotations, link.node_id, link.name).findings if f.facial]
    if not facial:
        return
    shown = ", ".join(f.name for f in facial[:SUMMARY_SHOWN])
    more = f" and {len(facial) - SUMMARY_SHOWN} more" if len(facial) > SUMMARY_SHOWN else ""
    said = f"{SUMMARY_FINDINGS}{len(facial)}): {shown}{more} (HPO)."
    retrieved.lead = "\n".join(said if line.startswith(SUMMARY_FINDINGS) else line
                                for line in retrieved.lead.split("\n"))
