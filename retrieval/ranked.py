"""A list answer's first line: how many things it holds, in what order (the templates rank them), and
where the whole list is (the triples: the app's table and its CSV download)."""

from __future__ import annotations

from fpkg.display import clean, display_name, is_sentence
from fpkg.markdown import numbered
from retrieval.cypher.templates import TEMPLATE_LIMIT
from retrieval.intent import Intent
from retrieval.intersections import finding_entry
from retrieval.linking import EntityLinker
from retrieval.result import Triple

NOUNS = {"phenotypes_of_disease": "facial phenotypes", "phenotypes_of_gene": "facial phenotypes",
         "diseases_of_gene": "diseases", "diseases_with_phenotypes": "diseases", "genes_of_disease": "genes",
         "genes_with_phenotype": "genes", "synonyms_of_phenotype": "synonyms", "variants_of_gene": "variants",
         "cases_of_gene": "published patients", "articles_of_disease": "articles", "articles_of_gene": "articles"}
ORDERS = {"diseases_with_phenotypes": "those matching most, then those in which they are very frequent, then the "
                                      "most specific first",
          "phenotypes_of_disease": "the most frequent and specific first",
          "phenotypes_of_gene": "the most specific first", "genes_with_phenotype": "the most specific first"}


# what each list holds: a companion query's triples (a variant published as causing the disease) name it on
# one side, and only the listed kind is counted ("2 diseases for ALX3", not one per published variant)
LISTED_LABELS = {"phenotypes_of_disease": "FacePhenotype", "phenotypes_of_gene": "FacePhenotype",
                 "diseases_of_gene": "Disease", "diseases_with_phenotypes": "Disease", "genes_of_disease": "Genotype",
                 "genes_with_phenotype": "Genotype", "variants_of_gene": "Variation", "cases_of_gene": "Sample",
                 "articles_of_disease": "Article", "articles_of_gene": "Article"}


def listed(intent: Intent, triples: list[Triple]) -> list[str]:
    """The listed things' names, each once, in the triples' order: the side of each triple of the listed
    kind that is not what was asked about."""
    return listed_names(intent.name, {link.node_id for link in intent.links}, triples)


def listed_names(intent: str, asked: set[int], triples: list[Triple]) -> list[str]:
    label = LISTED_LABELS.get(intent)
    names = []
    for triple in triples:
        if triple.relation == "has_synonym":
            names.append(triple.tail)
            continue
        sides = ((triple.tail_id, triple.tail, triple.tail_label), (triple.head_id, triple.head, triple.head_label))
        names += [name for node, name, kind in sides if node not in asked and kind == label][:1]
    return list(dict.fromkeys(names))


def listing(intent: str, asked: set[int], triples: list[Triple], linker: EntityLinker | None = None) -> str | None:
    """The list answer's items, numbered in the triples' order (the templates rank them), as shown: a
    variant in HGVS form, a name that is a sentence (source noise) left out, an OMIM entry named after a
    finding alone said apart from the diseases (`linker` tells them); None for no list intent."""
    label = LISTED_LABELS.get(intent)
    if label is None and intent != "synonyms_of_phenotype":
        return None
    items = list(dict.fromkeys(display_name(name, label or "") for name in listed_names(intent, asked, triples)
                               if not (label in ("Variation", "Genotype") and is_sentence(name))))
    apart = [item for item in items if label == "Disease" and finding_entry(item, linker)]
    text = numbered(item for item in items if item not in apart)
    if apart:
        text += "\n\nEntries named after a finding itself (not syndromes): " + ", ".join(apart) + "."
    return text.strip() or None


def list_lead(intent: Intent, triples: list[Triple], capped: bool = False) -> str | None:
    """'277 diseases for Hypertelorism (those matching most, then the most specific first):' — None
    when the list is empty or the intent lists nothing. `capped`: a query stopped at its row limit, so
    the graph holds more than are listed."""
    noun = NOUNS.get(intent.name)
    count = len(listed(intent, triples))
    if noun is None or not count:
        return None
    names = " and ".join(clean(link.name or link.mention) for link in intent.links[:3])
    order = f" ({ORDERS[intent.name]})" if intent.name in ORDERS else ""
    noun = noun if count != 1 else noun.rstrip("s")
    if capped:
        return f"The first {count} {noun} for {names}{order}, of more (each query stops at {TEMPLATE_LIMIT} rows):"
    return f"{count} {noun} for {names}{order}:"
