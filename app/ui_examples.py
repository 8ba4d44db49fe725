"""What the form offers: the phenotype vocabulary, Publication-set example cases, sample questions."""

from __future__ import annotations

import csv

from fpkg.errors import DataFileError, InputError
from kg_dump.data_files import PUBLICATION_SET, data_file
from retrieval.linking import EntityLinker
from retrieval.options import OPTION_LETTERS
from service.pipeline import Pipeline

FORM_LETTERS = OPTION_LETTERS[:4]  # the form's option fields, as in the Publication set

N_EXAMPLES = 6
# The CHD7 / CHARGE syndrome case first: it is the one the browser tests fill by hand.
FIRST_EXAMPLE_GENE = "CHD7"
QUESTIONS = [
    "What facial phenotypes are associated with Crouzon syndrome?",
    "Which genes cause CHARGE syndrome?",
    "Which diseases present with Hypertelorism and Proptosis?",
]


def phenotype_choices(linker: EntityLinker) -> list[str]:
    """Facial phenotype names and their synonyms, one spelling per case-insensitive text."""
    return names_and_synonyms(linker, "FacePhenotype")


def names_and_synonyms(linker: EntityLinker, label: str) -> list[str]:
    """One label's names and their synonyms, one spelling per case-insensitive text."""
    index = linker.indexes.get(label)
    texts = [a.text for a in index.aliases] if index else linker.names(label)
    unique = {text.strip().lower(): text.strip() for text in sorted(texts, reverse=True) if text.strip()}
    return sorted(unique.values(), key=str.lower)


def publication_examples(pipeline: Pipeline, n: int = N_EXAMPLES) -> list[list]:
    """Rows for the Diagnosis form (age, sex, ethnicity, gene, variant, phenotypes, selective,
    options A-D) parsed from the Publication set (fetched like the graph's dump when missing);
    none when it cannot be had."""
    try:
        path = data_file(pipeline.settings.data_dir, PUBLICATION_SET, mirror=pipeline.settings.sources_mirror)
    except DataFileError:
        return []
    with open(path, newline="", encoding="utf-8") as f:
        questions = list(dict.fromkeys(row["Patient_question"] for row in csv.DictReader(f)))
    questions.sort(key=lambda q: FIRST_EXAMPLE_GENE not in q)  # stable: file order otherwise
    rows = []
    for question in questions:
        try:
            case, _ = pipeline.parse_question(question)
        except InputError:
            continue
        if not case.phenotypes or not case.gene:
            continue
        options = [(case.options or {}).get(letter, "") for letter in FORM_LETTERS]
        age = f"{case.age_years:g}" if case.age_years is not None else ""
        rows.append([age, case.sex, case.ethnicity or "", case.gene, case.variant or "",
                     list(case.phenotypes), bool(case.options), *options])
        if len(rows) == n:
            break
    return rows


def example_label(row: list) -> str:
    """One line per example instead of a wide table of every field."""
    age, sex, ethnicity, gene, variant, phenotypes, selective = row[:7]
    who = " ".join(part for part in [f"{age} y" if age else "", sex or "", ethnicity] if part)
    kind = "4 options" if selective else "open"
    return f"{gene} {variant} · {who} · {len(phenotypes)} phenotypes · {kind}"
