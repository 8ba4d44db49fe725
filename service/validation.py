"""What the user must fix: checked before anything runs, reported in plain words."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from diagnosis.ranker import DiagnosisCase
from fpkg.errors import InputError
from retrieval.options import OPTION_LETTERS
from retrieval.retriever import MODES

# Every limit on what a user sends, in one place (each refusal names its limit; nothing is cut silently).
MAX_QUESTION_CHARS = 5000
MAX_DESCRIPTION_CHARS = 5000  # the Diagnosis form's free-text description
MAX_FINDINGS_CHARS = 3000  # the findings box, all entries together: a longer paste belongs in the description
MAX_PHENOPACKET_BYTES = 500_000  # one patient's GA4GH phenopacket is a few kB
MAX_FIELD_CHARS = 300
MAX_PHENOTYPES = 60
MAX_AGE_YEARS = 130
MAX_TEMPERATURE = 2.0  # the OpenAI API's upper bound
NEGATED_ENTRY = re.compile(r"^(?:no|not|without)\s+(.+)$", re.IGNORECASE)  # "no ptosis" in the phenotype field
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_MONTHS = re.compile(r"month|mo\b", re.IGNORECASE)


def clean_text(text: object) -> str:
    """Control and zero-width characters removed, spaces folded."""
    if text is None:
        return ""
    if isinstance(text, str) and text.isascii() and text.isprintable():  # nothing to remove: the common case
        return " ".join(text.split())
    # Cf: zero-width and direction marks; Cs: lone surrogates, which UTF-8 cannot encode
    kept = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(text)
                   if unicodedata.category(c) not in ("Cf", "Cs"))
    return " ".join(kept.split())


def validate_question(question: object) -> str:
    text = clean_text(question)
    if not text:
        raise InputError("The question is empty: type a question about a disease, a gene or a facial phenotype.",
                         "question")
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(f"The question is {len(text):,} characters long; the limit is {MAX_QUESTION_CHARS:,}.",
                         "question")
    return text


def validate_mode(mode: object) -> str:
    """The one check of a retrieval mode's name."""
    if mode not in MODES:
        raise InputError(f"Unknown retrieval mode {mode!r}; choose one of {', '.join(MODES)}.", "mode")
    return mode


def validate_backend(backend: object, served: tuple[str, ...]) -> str:
    """The one check of an LLM backend's name against the backends this service serves."""
    name = backend.strip().lower() if isinstance(backend, str) else backend
    if name not in served:
        raise InputError(f"The LLM backend {backend!r} is not available here; choose one of {', '.join(served)}.",
                         "backend")
    return name


def validate_temperature(temperature: object) -> float:
    try:
        value = float(temperature)
    except (TypeError, ValueError):
        raise InputError(f"The temperature {temperature!r} is not a number.", "temperature") from None
    if not 0.0 <= value <= MAX_TEMPERATURE:  # also refuses NaN
        raise InputError(f"A temperature of {value:g} is out of range; give one from 0 to {MAX_TEMPERATURE:g}.",
                         "temperature")
    return value


def age_in_years(text: str) -> float | None:
    """The first number in `text` as years ("18 months" -> 1.5, "5yo" -> 5); None when there is none."""
    number = _NUMBER.search(text)
    if not number:
        return None
    value = float(number.group())
    return round(value / 12, 2) if _MONTHS.search(text) else value


def parse_age(value: object) -> float | None:
    """Years from a form field or a case: 5, "4.5", "18 months"; None when empty. The range is
    checked by `validate_case`, so "-3" comes back as -3 to be refused there with its reason."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    text = clean_text(value) if not isinstance(value, bool) else "?"
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        years = age_in_years(text)
    if years is None:
        raise InputError(f"The age {text[:40]!r} is not a number of years; give e.g. 5, 4.5 or 18 months.", "age")
    return years


def _age(value: object) -> float | None:
    age = parse_age(value)
    if age is None:
        return None
    if not 0 <= age <= MAX_AGE_YEARS:  # also refuses NaN
        raise InputError(f"An age of {age:g} years is not possible; give an age from 0 to {MAX_AGE_YEARS}.", "age")
    return age


def _options(options: object) -> dict[str, str] | None:
    """{letter: disease name}; a plain list of names is lettered A, B, ... in order."""
    if not options:
        return None
    if isinstance(options, str) or len(options) > len(OPTION_LETTERS):
        raise InputError(f"Give the answer options as up to {len(OPTION_LETTERS)} separate names, one per letter.",
                         "options")
    pairs = list(options.items() if isinstance(options, dict) else zip(OPTION_LETTERS, options, strict=False))
    letters = [clean_text(k)[:1].upper() for k, _ in pairs]
    if "" in letters or len(set(letters)) < len(letters):
        # two keys folding to one letter would silently drop an option
        raise InputError("Each answer option needs a letter of its own (A, B, C, ...).", "options")
    named = {letter: _field(v, "option") for letter, (_, v) in zip(letters, pairs, strict=True)}
    kept = {letter: name for letter, name in named.items() if name}
    if len(kept) < 2:
        raise InputError("A selective question needs at least two answer options.", "options")
    if len({name.lower() for name in kept.values()}) < len(kept):
        raise InputError("Two answer options are the same; give distinct options.", "options")
    return kept


# the input a named value comes from, where it is not its own name (InputError.field)
FIELD_OF = {"facial phenotype": "phenotypes", "finding": "phenotypes", "excluded finding": "phenotypes",
            "option": "options"}


def _field(value: object, name: str) -> str | None:
    text = clean_text(value)
    if len(text) > MAX_FIELD_CHARS:
        raise InputError(f"The {name} is {len(text):,} characters long; the limit is {MAX_FIELD_CHARS}.",
                         FIELD_OF.get(name, name))
    return text or None


def _findings(given: object, name: str) -> list[str]:
    """Names from a tuple or list of them (one string is one name, not its letters), cleaned, once each."""
    names = (given,) if isinstance(given, str) else given or ()
    return list(dict.fromkeys(n for n in (_field(x, name) for x in names) if n))


def validate_case(case: DiagnosisCase, complete: bool = True) -> DiagnosisCase:
    """The case, cleaned, or InputError naming the input at fault. Not `complete` (the form's fields before
    a description or a phenopacket beside them is read), a case with nothing to diagnose from may still gain
    it, so that is not refused."""
    age = _age(case.age_years)
    phenotypes = _findings(case.phenotypes, "facial phenotype")
    # "no ptosis" typed into a findings field is a finding written as absent (not "no speech" that the reader read
    # as Absent speech: a finding with its HPO id is as read)
    known = dict(case.terms)
    typed = [*phenotypes, *_findings(case.other_findings, "finding")]
    negated = [p for p in typed if NEGATED_ENTRY.match(p) and p not in known]
    excluded = [*case.excluded, *(NEGATED_ENTRY.match(p).group(1) for p in negated)]
    phenotypes = [p for p in phenotypes if p not in negated]
    others = [p for p in _findings(case.other_findings, "finding") if p not in negated]
    if len(phenotypes) + len(others) > MAX_PHENOTYPES:
        raise InputError(f"{len(phenotypes) + len(others)} findings were given; the limit is {MAX_PHENOTYPES}.",
                         "phenotypes")
    gene = _field(case.gene, "gene")
    if complete and not phenotypes and not others and not gene:
        if excluded:
            raise InputError("Only findings written as absent were given: give at least one present finding "
                             "or a gene.", "phenotypes")
        raise InputError("Give at least one facial phenotype or a gene: there is nothing to diagnose from.",
                         "phenotypes")
    return replace(case, phenotypes=tuple(phenotypes), other_findings=tuple(others), gene=gene,
                   variant=_field(case.variant, "variant"), age_years=age, sex=_field(case.sex, "sex"),
                   ethnicity=_field(case.ethnicity, "ethnicity"), options=_options(case.options),
                   excluded=tuple(dict.fromkeys(e for e in (_field(x, "excluded finding") for x in excluded) if e)))
