"""Turning retrieval into an answer: the messages for an LLM, and its reply back into a disease."""

from __future__ import annotations

import re

from diagnosis.ranker import Diagnosis, RankedDisease
from fpkg.names import fold_name, without_abbreviation
from llm.parse import parse_disease_answer, parse_option_answer
from retrieval.linking import EntityLinker
from retrieval.result import Link, Triple

MAX_EVIDENCE_DISEASES = 5
MAX_EVIDENCE_TRIPLES = 25


def diagnosis_evidence(diagnosis: Diagnosis, extra_triples: list[Triple] = ()) -> list[str]:
    """Evidence lines for a RAG prompt: the ranked candidates with their reasons, then facts."""
    lines = []
    for ranked in diagnosis.ranked[:MAX_EVIDENCE_DISEASES]:
        label = f"option {ranked.option}: " if ranked.option else ""
        reasons = "; ".join(ranked.evidence) or "no graph evidence"
        lines.append(f"{label}{ranked.name} (graph score {ranked.score:.2f}): {reasons}")
    lines.extend(conflict.text for conflict in diagnosis.conflicts)
    lines.extend(triple.text() for triple in [*diagnosis.triples, *extra_triples][:MAX_EVIDENCE_TRIPLES])
    return lines


# How a mention can be linked to a name it does not spell: worth telling the reader.
INEXACT_METHODS = {"typo": "a typo", "fuzzy": "a typo", "embedding": "closest in meaning"}


def readings(links: list[Link]) -> list[str]:
    """Notices for the names read as something they do not spell ("hypertelorsim" as Hypertelorism)."""
    shown = []
    for link in links:
        method = INEXACT_METHODS.get(link.method)
        if method and link.node_id is not None and link.name and fold_name(link.mention) != fold_name(link.name):
            shown.append(f"Read “{link.mention}” as {link.name} ({method}).")
    return list(dict.fromkeys(shown))


def named_otherwise(links: list[Link]) -> list[str]:
    """'“Frontorhiny” is Frontonasal dysplasia 1 in the graph (OMIM:136760).' for each disease the question
    names by another of its names (a synonym, MONDO's label, an OMIM or Orphanet label), so that the
    answer under the graph's name is read as the answer to the name asked about."""
    said, read = [], set()
    for link in links:
        if link.mention in read:  # another reading of words already read (a finding before a disease's synonym)
            continue
        read.add(link.mention)
        if link.type == "DISEASE" and link.node_id is not None and link.name and link.method in ("synonym", "mondo") \
                and fold_name(without_abbreviation(link.mention)) != fold_name(without_abbreviation(link.name)):
            ids = f" ({', '.join(link.ids)})" if link.ids else ""
            said.append(f"“{link.mention}” is {link.name} in the graph{ids}.")
    return list(dict.fromkeys(said))


LISTING_DISEASES = ("diseases_of_gene", "diseases_with_phenotypes")
OTHER_NAMES_SHOWN = 20  # diseases whose other names an answer lists


def other_names_line(retrieved, linker: EntityLinker) -> str | None:
    """'Also named: FRONTONASAL DYSPLASIA 1(FND1): frontorhiny; …' for the diseases an answer lists, when
    MONDO, OMIM or Orphanet name them otherwise than the graph: a reader who knows one name finds it."""
    if retrieved.intent not in LISTING_DISEASES or retrieved.complete:
        return None
    listed = list(dict.fromkeys((t.tail_id, t.tail) if t.tail_label == "Disease" else (t.head_id, t.head)
                                for t in retrieved.triples if "Disease" in (t.tail_label, t.head_label)))
    said = [f"{name}: {'; '.join(others)}" for node, name in listed[:OTHER_NAMES_SHOWN]
            if node is not None and (others := linker.other_names(node))]
    return ("Also named: " + " — ".join(said) + ".") if said else None


LINK_METHOD_WORDS = {"exact": "exact", "synonym": "synonym", "typo": "typo", "fuzzy": "typo",
                     "embedding": "closest in meaning", "ngram": "closest in spelling", "hgvs": "variant",
                     "hgvs change": "the same change written another way", "translation": "the HPO's translation"}
MAX_LINKS_SHOWN = 12


def linked_names(links: list[Link]) -> str | None:
    """How each name in the text was linked to the graph: 'chd7 → CHD7 (case)', 'wide-set eyes →
    Hypertelorism (synonym)', 'hypertelorsim → Hypertelorism (typo)'; None when nothing was linked."""
    shown = []
    for link in links:
        if link.node_id is None or not link.name:
            continue
        how = LINK_METHOD_WORDS.get(link.method, link.method)
        if how == "exact" and link.mention != link.name:
            how = "case" if link.mention.casefold() == link.name.casefold() else "exact"
        shown.append(f"{link.mention} → {link.name} ({how})")
    shown = list(dict.fromkeys(shown))
    if not shown:
        return None
    more = f" and {len(shown) - MAX_LINKS_SHOWN} more" if len(shown) > MAX_LINKS_SHOWN else ""
    return "Linked: " + "; ".join(shown[:MAX_LINKS_SHOWN]) + more


# Facts that share a head and a relation go on one line: "(Crouzon syndrome) -[Exhibit]-> (Proptosis);
# (Hypertelorism); ...". A list answer's evidence is then about a third as long, and on a CPU reading
# the prompt is most of an answer's time (SmolLM2: ~200 prompt tokens a second).
TAILS_PER_LINE = 20


def facts_evidence(triples: list[Triple]) -> list[str]:
    """The facts as evidence lines, grouped by head and relation in the order they came."""
    groups: dict[tuple[str, str], list[str]] = {}
    for triple in triples[:MAX_EVIDENCE_TRIPLES * 4]:
        tails = groups.setdefault((triple.head, triple.relation), [])
        if triple.tail not in tails:
            tails.append(triple.tail)
    return [f"({head}) -[{relation}]-> " + "; ".join(f"({tail})" for tail in tails[i:i + TAILS_PER_LINE])
            for (head, relation), tails in groups.items() for i in range(0, len(tails), TAILS_PER_LINE)]


# Words that make a phrase a disease's name when the graph does not hold it (a newer disease).
DISEASE_CUES = re.compile(r"syndrome|disease|disorder|dysplasia|deficiency|dystrophy|anomal|atresia|sequence|"
                          r"(?:emia|osis|pathy|plasia|trophy|itis|oma|ism|\w{4,}ia)\b", re.IGNORECASE)


def names_a_disease(phrase: str, linker: EntityLinker) -> bool:
    """Whether a reply's phrase is a disease's name: one with a disease word, one the graph holds
    (as written, a typo away, or its start: "Noonan", "CHARGE"). "I am not sure", or a refusal in
    French, is none."""
    if DISEASE_CUES.search(phrase):
        return True
    if linker.link(phrase, "DISEASE").method in ("exact", "synonym", "fuzzy"):
        return True
    start = fold_name(phrase)
    return bool(start) and any(fold_name(name).startswith(start + " ") for name in linker.names("Disease"))


def reply_to_prediction(reply: str, diagnosis: Diagnosis | None, options: dict[str, str] | None,
                        linker: EntityLinker) -> RankedDisease | None:
    """The disease an LLM's reply names: an option letter or name, else a ranked candidate's
    name, else the reply's own first line when it is a disease's name (one the graph may not hold)."""
    ranked = diagnosis.ranked if diagnosis else []
    if options:
        letter = parse_option_answer(reply, options)
        if letter is None:
            return None
        found = next((r for r in ranked if r.option == letter), None)
        return found or RankedDisease(options[letter], None, None, 0.0, option=letter, in_graph=False)
    name = parse_disease_answer(reply, [r.name for r in ranked])
    if not name:
        return None
    found = next((r for r in ranked if r.name == name), None)
    if found is None and not names_a_disease(name, linker):
        return None
    return found or RankedDisease(name, None, None, 0.0, in_graph=False)
