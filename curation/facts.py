"""A curated fact: a triple between two nodes the graph already holds, in the graph's schema.

Curators add knowledge links only; a fact whose (head label, relation, tail label) is not one of
CURATED_PATTERNS is refused, as is one naming a node the graph does not hold (new nodes would need
their ontology placement and identifiers: a later step). Nodes are named, not numbered: names
survive a rebuild, node ids do not.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from fpkg.errors import InputError
from graphstore import schema

# (head label, relation, tail label): what a curator may add, as FPKG stores it
CURATED_PATTERNS = schema.CURATABLE
KIND_WORDS = {schema.DISEASE: "disease", schema.PHENOTYPE: "facial phenotype", schema.GENE: "gene"}
NAME_PROPERTY = {label: schema.NAME_PROPERTIES[label] for label in KIND_WORDS}
MAX_NAME = 300
MAX_SENTENCE = 2000


@dataclass(frozen=True)
class Fact:
    head_label: str
    head: str
    relation: str
    tail_label: str
    tail: str
    sentence: str = ""  # where it was read (empty when typed by the curator)

    def pattern(self) -> tuple[str, str, str]:
        return self.head_label, self.relation, self.tail_label

    def text(self) -> str:
        return f"({self.head}) -[{self.relation}]-> ({self.tail})"

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Fact:
        return checked(cls(**{key: str(data.get(key, "")) for key in cls.__dataclass_fields__}))


def allowed_patterns() -> str:
    return "; ".join(f"({h})-[{r}]->({t})" for h, r, t in CURATED_PATTERNS)


def checked(fact: Fact) -> Fact:
    """The fact with its names trimmed, or InputError saying what breaks the schema."""
    fact = Fact(*(" ".join(str(value).split()) for value in (fact.head_label, fact.head, fact.relation,
                                                              fact.tail_label, fact.tail)),
                sentence=" ".join(str(fact.sentence).split())[:MAX_SENTENCE])
    if fact.pattern() not in CURATED_PATTERNS:
        raise InputError(f"{fact.text()} as ({fact.head_label})-[{fact.relation}]->({fact.tail_label}) is not in "
                         f"the graph's schema for curated facts; use one of: {allowed_patterns()}.")
    for name in (fact.head, fact.tail):
        if not name or len(name) > MAX_NAME:
            raise InputError(f"{fact.text()}: a name must be 1 to {MAX_NAME} characters long.")
    return fact
