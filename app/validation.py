"""What the user must fix: checked before anything runs, reported in plain words."""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from retrieval.diagnose import DiagnosisCase

MAX_QUESTION_CHARS = 5000
MAX_FIELD_CHARS = 300
MAX_PHENOTYPES = 60
MAX_AGE_YEARS = 130


class InputError(ValueError):
    """Input the user has to correct; the message says what and how."""


def clean_text(text: object) -> str:
    """Control and zero-width characters removed, spaces folded."""
    if text is None:
        return ""
    kept = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(text)
                   if unicodedata.category(c) != "Cf")
    return " ".join(kept.split())


def validate_question(question: object) -> str:
    text = clean_text(question)
    if not text:
        raise InputError("The question is empty: type a question about a disease, a gene or a facial phenotype.")
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(f"The question is {len(text):,} characters long; the limit is {MAX_QUESTION_CHARS:,}.")
    return text


def _field(value: object, name: str) -> str | None:
    text = clean_text(value)
    if len(text) > MAX_FIELD_CHARS:
        raise InputError(f"The {name} is {len(text):,} characters long; the limit is {MAX_FIELD_CHARS}.")
    return text or None


def validate_case(case: DiagnosisCase, mode: str) -> DiagnosisCase:
    from app.pipeline import MODES

    if mode not in MODES:
        raise InputError(f"Unknown retrieval mode {mode!r}; choose one of {', '.join(MODES)}.")
    if case.age_years is not None and not 0 <= case.age_years <= MAX_AGE_YEARS:
        raise InputError(f"An age of {case.age_years:g} years is not possible; give an age from 0 to {MAX_AGE_YEARS}.")
    phenotypes = [p for p in (_field(p, "facial phenotype") for p in case.phenotypes) if p]
    phenotypes = list(dict.fromkeys(phenotypes))
    if len(phenotypes) > MAX_PHENOTYPES:
        raise InputError(f"{len(phenotypes)} phenotypes were given; the limit is {MAX_PHENOTYPES}.")
    gene = _field(case.gene, "gene")
    if not phenotypes and not gene:
        raise InputError("Give at least one facial phenotype or a gene: there is nothing to diagnose from.")
    options = None
    if case.options:
        options = {letter: name for letter, name in
                   ((clean_text(k)[:1].upper(), _field(v, "option")) for k, v in case.options.items()) if name}
        if len(options) < 2:
            raise InputError("A selective question needs at least two answer options.")
        if len({name.lower() for name in options.values()}) < len(options):
            raise InputError("Two answer options are the same; give distinct options.")
    return replace(case, phenotypes=tuple(phenotypes), gene=gene, variant=_field(case.variant, "variant"),
                   sex=_field(case.sex, "sex"), ethnicity=_field(case.ethnicity, "ethnicity"), options=options)
