"""Turn raw LLM replies into something scoreable: clean text, an option letter, a disease name, a query.

Replies from different models wrap the same answer differently: reasoning in `<think>` blocks, chat
special tokens left in, code fences, "Answer:" labels, a letter with or without parentheses, the
option's name instead of its letter. These functions undo that; when a reply names two different
options it is ambiguous and `parse_option_answer` returns None rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rapidfuzz import fuzz, process

from fpkg.names import fold_name
from llm.prompts import NO_EVIDENCE_REPLY

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.S | re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)
_THINK_OPEN = re.compile(r"<think>", re.I)
_SPECIAL = re.compile(
    r"\[INST\].*?\[/INST\]"  # an echoed Llama-2/Mistral prompt
    r"|<\|im_start\|>[ \t]*\w*"  # ChatML turn start with its role
    r"|<\|start_header_id\|>\s*\w*\s*<\|end_header_id\|>"  # Llama-3 header
    r"|<\|[a-z0-9_]{1,40}\|>"  # <|im_end|>, <|eot_id|>, <|endoftext|>, <|assistant|> ...
    r"|<(?:start|end)_of_turn>(?:model|user)?"  # Gemma
    r"|\[/?INST\]|</?s>",
    re.S | re.I,
)
_FENCE = re.compile(r"```[\w+-]*[ \t]*\n?(.*?)(?:```|\Z)", re.S)
_LABEL = re.compile(
    r"^(?:\*\*|__)?\s*(?:final answer|answer|cypher query|cypher|query|most likely diagnosis|diagnosis)"
    r"\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*",
    re.I,
)
_LEAD_PHRASE = re.compile(
    r"^(?:based on [^,]*,\s*)?(?:the\s+)?(?:single\s+)?(?:most\s+likely|likely|probable|final)?\s*"
    r"(?:genetic\s+)?(?:diagnosis|disease|answer)\s+(?:is|would be)\s*:?\s*",
    re.I,
)
_BULLET = re.compile(r"^(?:[-*•]\s+|\d+[.)]\s+)")
_CYPHER_START = re.compile(r"^\s*(?:OPTIONAL\s+MATCH|MATCH|WITH|UNWIND|CALL|RETURN)\b", re.I | re.M)


def _strip_think_and_specials(text: str) -> str:
    text = _THINK_BLOCK.sub("", text)
    # A reply may start inside reasoning whose "<think>" was in the prompt: keep what follows "</think>".
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    # Reasoning that never closed (cut off by max tokens) holds no answer: drop it to the end.
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return _SPECIAL.sub("", text)


def clean_llm_output(text: str) -> str:
    """Reply text without reasoning, chat special tokens, code fence markers or a leading label."""
    text = _strip_think_and_specials(text)
    text = _FENCE.sub(lambda m: m.group(1), text).strip()
    return _LABEL.sub("", text, count=1).strip()


def extract_cypher(text: str) -> str:
    """The Cypher query in a reply: the first fenced block if any, else from the first clause keyword;
    prose around it and a trailing semicolon are dropped."""
    text = _strip_think_and_specials(text)
    fenced = _FENCE.search(text)
    body = _LABEL.sub("", (fenced.group(1) if fenced else text).strip(), count=1)
    start = _CYPHER_START.search(body)
    if start:
        body = body[start.start() :]
    paragraphs = re.split(r"\n\s*\n", body.strip())
    kept = [paragraphs[0]]
    for paragraph in paragraphs[1:]:  # stop at the first paragraph of prose after the query
        if not _CYPHER_START.match(paragraph):
            break
        kept.append(paragraph)
    return "\n".join(kept).strip().rstrip(";").strip()


def _mentions(text: str, names: Sequence[str]) -> list[tuple[int, int]]:
    """(position, index into names) for each name in `text`, whole words, first mention, in text order.

    A name inside a longer mentioned name ('Noonan syndrome' in 'Noonan syndrome with multiple
    lentigines') does not count."""
    norm_text = f" {fold_name(text)} "
    spans: list[tuple[int, int, int]] = []
    for index, name in enumerate(names):
        norm = fold_name(name)
        if not norm or f" {norm} " not in norm_text:
            continue
        start = norm_text.index(f" {norm} ")
        spans.append((start, start + len(norm) + 1, index))
    kept = [
        (start, index)
        for start, end, index in spans
        if not any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in spans)
    ]
    return sorted(kept)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = _BULLET.sub("", line.replace("**", "").strip())
        if line:
            return line
    return ""


_LETTER_ALONE = re.compile(r"^\(?([A-Z])\)?[.):]?$")
_LETTER_LEADING = re.compile(r"^(?:\(([A-Z])\)|([A-Z])(?:[.):]|\s+[-–—]\s))")
_LETTER_INLINE = re.compile(
    r"(?i:\b(?:answer|option|choice))\s*(?:(?i:is|would be)\s*)?:?\s*(?:\(([A-Za-z])\)|([A-Z])(?![\w-]))"
)
_LETTER_PARENS = re.compile(r"\(([A-Z])\)")


def _letters(text: str, keys: Mapping[str, str]) -> tuple[str | None, set[str]]:
    """(letter the reply starts with, all letters it names explicitly) among the option keys."""
    flat = text.replace("**", "").strip()
    lead = None
    match = _LETTER_ALONE.match(flat) or _LETTER_LEADING.match(flat)
    if match:
        lead = keys.get(next(g for g in match.groups() if g).upper())
    found = {(m.group(1) or m.group(2)).upper() for m in _LETTER_INLINE.finditer(flat)}
    found.update(m.group(1) for m in _LETTER_PARENS.finditer(flat))
    return lead, {keys[letter] for letter in found if letter in keys}


def parse_option_answer(text: str, options: Mapping[str, str]) -> str | None:
    """The option key (e.g. "B") a reply chooses, from its letter or the option's name; None if unclear.

    `options` maps keys to disease names, e.g. {"A": "Kabuki syndrome", "B": "Noonan syndrome"}."""
    cleaned = clean_llm_output(text)
    if not cleaned or not options:
        return None
    keys = {key.strip().upper(): key for key in options}
    lead, letters = _letters(cleaned, keys)
    option_keys = list(options)
    names = [options[key] for key in option_keys]
    first = _first_line(cleaned)
    named = [option_keys[i] for _, i in _mentions(first, names)] or [
        option_keys[i] for _, i in _mentions(cleaned, names)
    ]
    letter = lead or (next(iter(letters)) if len(letters) == 1 else None)
    if letter is not None:
        # A letter contradicted by the only name given ('B. Kabuki syndrome' with Kabuki as C) is unclear.
        return None if named and len(set(named)) == 1 and named[0] != letter else letter
    if letters:
        return None  # several letters and none leading: ambiguous
    if named:
        return named[0] if len(set(named)) == 1 else None
    return _fuzzy_option(first, option_keys, names)


def _fuzzy_option(line: str, keys: list[str], names: list[str]) -> str | None:
    # A misspelt name ('Noonan syndrom'): accept one clear best match only.
    norm_line = fold_name(line)
    scores = sorted(
        (
            (fuzz.partial_ratio(fold_name(name), norm_line), key)
            for key, name in zip(keys, names, strict=True)
            if len(fold_name(name)) >= 5
        ),
        reverse=True,
    )
    if scores and scores[0][0] >= 90 and (len(scores) == 1 or scores[0][0] - scores[1][0] >= 5):
        return scores[0][1]
    return None


def _answer_phrase(line: str) -> str:
    line = _LEAD_PHRASE.sub("", line).strip()
    line = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", line)  # evidence citations like [1, 2]
    return line.strip().rstrip(".").strip()


def parse_disease_answer(text: str, candidate_names: Sequence[str]) -> str | None:
    """The candidate disease a reply names (as spelt in `candidate_names`), else its first line cleaned.

    None when the reply is empty or says the knowledge graph has no evidence."""
    cleaned = clean_llm_output(text)
    first = _first_line(cleaned)
    if not first or fold_name(first).startswith(fold_name(NO_EVIDENCE_REPLY)):
        return None
    answer = _answer_phrase(first)
    candidates = list(candidate_names)
    hits = _mentions(first, candidates)
    if hits:
        return candidates[hits[0][1]]
    if candidates and answer:
        normalized = [fold_name(name) for name in candidates]
        best = process.extractOne(fold_name(answer), normalized, scorer=fuzz.ratio, score_cutoff=85)
        if best is not None:
            return candidates[best[2]]
    hits = _mentions(cleaned, candidates)
    if hits:
        return candidates[hits[0][1]]
    return answer or first
