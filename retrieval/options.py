"""Answer options of selective questions: reading them from the question, linking them to diseases."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from fpkg.names import normalise
from retrieval.linking import EntityLinker
from retrieval.result import Link

OPTIONS_CUE = re.compile(r"choose from the following options\s*:?", re.IGNORECASE)
OPTION_LETTERS = "ABCDEFGH"  # at most eight options; the Publication set and the form use four
OPTION_LETTER = re.compile(rf"(?:^|\s)([{OPTION_LETTERS}])\s*[.)]\s*")
FUZZY_THRESHOLD = 90


def split_question(question: str) -> tuple[str, dict[str, str]]:
    """The question without its options, and the options as {letter: name} (empty if none)."""
    match = OPTIONS_CUE.search(question)
    if not match:
        return question.strip(), {}
    stem, listed = question[:match.start()], question[match.end():]
    positions = list(OPTION_LETTER.finditer(listed))
    options: dict[str, str] = {}
    for i, letter in enumerate(positions):
        end = positions[i + 1].start() if i + 1 < len(positions) else len(listed)
        name = " ".join(listed[letter.end():end].split())
        if name and letter.group(1) not in options:
            options[letter.group(1)] = name
    return stem.strip(), options


def name_variants(option: str) -> list[str]:
    """The option as written, without a trailing abbreviation '(OI)' or '; SOTOS', and both."""
    variants = [option]
    no_semicolon = option.split(";")[0].strip()
    no_parenthesis = re.sub(r"\s*\([^)]*\)\s*$", "", no_semicolon).strip()
    for variant in (no_semicolon, no_parenthesis):
        if variant and variant not in variants:
            variants.append(variant)
    return variants


def link_option(option: str, linker: EntityLinker) -> Link:
    """The disease an option names: exact or synonym first, then character n-grams, then a
    fuzzy token match against every disease name; nothing when none is close."""
    for variant in name_variants(option):
        link = linker.link(variant, "DISEASE")
        if link.node_id is not None and link.method in ("exact", "synonym"):
            return Link(option, "DISEASE", link.node_id, link.label, link.name, link.score, link.method)
    best = max((linker.link(v, "DISEASE") for v in name_variants(option)), key=lambda lk: lk.score)
    if best.node_id is not None and best.score >= 0.8:
        return Link(option, "DISEASE", best.node_id, best.label, best.name, best.score, best.method)
    wanted = normalise(name_variants(option)[-1])
    scored = [(fuzz.token_sort_ratio(wanted, normalise(c.name or "")), c)
              for v in name_variants(option) for c in linker.candidates(v, "DISEASE", k=5)]
    scored = [item for item in scored if item[0] >= FUZZY_THRESHOLD]
    if scored:
        score, link = max(scored, key=lambda item: (item[0], -(item[1].node_id or 0)))
        return Link(option, "DISEASE", link.node_id, link.label, link.name, round(score / 100, 3), "fuzzy")
    return Link(option, "DISEASE", None, method="none")
