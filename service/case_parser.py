"""A diagnostic case from free text: NER spans, completed by the graph's own vocabulary.

The NER model (when configured) and its rules find age, sex, ethnicity, gene and variant.
Facial phenotypes come from two recognisers, merged by one rule:
1. the model's FACIAL_PHENOTYPE spans, as written;
2. the dictionary matcher (`retrieval.intent.find_mentions`: HPO and FPKG labels and synonyms,
   longest match at word boundaries, typo-tolerant): a match is added unless it equals, lies
   inside or contains a phenotype already taken (the model's span names the finding as the
   writer did; the dictionary adds what the model missed).
So a case still parses when no model is available. Any other HPO finding named in the text
("seizures", "atrial septal defect": `retrieval.findings`) goes to `other_findings`. Findings
written after a negation ("no cleft palate", "no seizures") go to `excluded`, never to the present
ones (`ner.negation`)."""

from __future__ import annotations

from diagnosis.ranker import DiagnosisCase
from ner.negation import negated_mentions
from ner.recognizer import Recognizer
from retrieval.findings import FindingLinker
from retrieval.intent import find_mentions
from retrieval.linking import EntityLinker
from retrieval.options import split_question
from service.validation import age_in_years

SEX_WORDS = {"female": "female", "girl": "female", "woman": "female", "f": "female",
             "male": "male", "boy": "male", "man": "male", "m": "male"}
SEXES = tuple(dict.fromkeys(SEX_WORDS.values()))  # what the form offers


def parse_sex(text: str) -> str | None:
    return SEX_WORDS.get(text.strip().lower().rstrip("."))


def parse_case(question: str, recognizer: Recognizer | None, linker: EntityLinker,
               findings: FindingLinker | None = None) -> tuple[DiagnosisCase, list[str]]:
    """The case a question describes, its options if any, and notices about what was missing."""
    stem, options = split_question(question)
    spans = recognizer.predict(stem) if recognizer is not None else []
    first = {}
    phenotypes: list[str] = []
    for span in spans:
        if span.type == "FACIAL_PHENOTYPE":
            phenotypes.append(span.text)
        else:
            first.setdefault(span.type, span.text)
    known = {p.lower() for p in phenotypes}
    for link in find_mentions(stem, linker):
        if link.label == "FacePhenotype" and link.mention.lower() not in known and not _inside(link.mention, known):
            phenotypes.append(link.mention)
            known.add(link.mention.lower())
        elif link.label == "Genotype":
            first.setdefault("GENE", link.mention)
    others: list[str] = []
    for _, _, link in findings.find_in_text(stem) if findings is not None else ():
        if link.mention.lower() not in known and not _inside(link.mention, known):
            (phenotypes if link.node_id is not None else others).append(link.mention)  # a graph node: facial
            known.add(link.mention.lower())
    absent = negated_mentions(stem, phenotypes + others)
    age = next((span for span in spans if span.type == "AGE"), None)
    case = DiagnosisCase(
        phenotypes=tuple(p for p in phenotypes if p not in absent),
        other_findings=tuple(p for p in others if p not in absent),
        excluded=tuple(p for p in phenotypes + others if p in absent),
        gene=first.get("GENE"), variant=first.get("MUTATION"),
        age_years=age_in_years(_signed(stem, age)) if age else None,
        sex=parse_sex(first["GENDER"]) if "GENDER" in first else None,
        ethnicity=first.get("RACE"), options=options or None)
    notices = []
    if not case.phenotypes and not case.other_findings:
        notices.append("No finding was recognised in the text.")
    if not case.gene:
        notices.append("No gene was recognised in the text.")
    return case, notices


def _signed(text: str, span) -> str:
    """The span's text with a minus sign written just before it ("a -5 year old"), which the
    tagger leaves out: dropping it would turn an impossible age into a plausible one."""
    before = text[max(span.start - 2, 0):span.start]
    if before[-1:] in ("-", "\u2212") and (len(before) < 2 or before[0].isspace()):
        return "-" + span.text
    return span.text


def _inside(mention: str, known: set[str]) -> bool:
    lowered = mention.lower()
    return any(lowered in other or other in lowered for other in known)
