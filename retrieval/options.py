"""Answer options of selective questions: reading them from the question, linking them to diseases."""

from __future__ import annotations

import re
from dataclasses import replace

from retrieval.linking import EntityLinker
from retrieval.result import Link

OPTIONS_CUE = re.compile(r"choose from the following options\s*:?", re.IGNORECASE)
OPTION_LETTERS = "ABCDEFGH"  # at most eight options; the Publication set and the form use four
OPTION_LETTER = re.compile(rf"(?:^|\s)([{OPTION_LETTERS}])\s*[.)]\s*")
MIN_TYPO_SCORE = 0.8


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
    """The disease an option names: exact, synonym or a name MONDO gives it first (a disease the graph
    lacks then links without a node, with its ids), then a typo of a graph name that keeps the disease
    (`EntityLinker.candidates`); nothing when none is close."""
    links = [linker.link(variant, "DISEASE") for variant in name_variants(option)]
    named = [link for link in links if link.method in ("exact", "synonym", "mondo")]
    best = named[0] if named else max(links, key=lambda link: link.score)
    if named or (best.node_id is not None and best.score >= MIN_TYPO_SCORE):
        return replace(best, mention=option)
    return Link(option, "DISEASE", None, method="none")
