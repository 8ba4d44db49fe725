"""The classic signs as clinicians describe them rather than name them, each read as the most specific HPO term its
words support and no more specific: which cranial sutures are fused, which digits are joined and how, the skull's
shape, how thumbs and big toes lie, which segment of the limbs is short.

Written from clinical usage (dysmorphology examination notes and textbook descriptions of the craniosynostoses and
skeletal dysplasias); the terms are HPO 2025-01-16's. Each pattern matches the folded text (service/reader.py
passes its words' spans back to the text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EARLY = r"(?:premature|early|prenatal|congenital)?\s*"
_JOINED = r"(?:fusion|closure|synostosis|fused|closed|joining)"
_OF = r"\s+(?:of|between|involving)\s+(?:the\s+)?"
_BOTH = r"(?P<both>both|bilateral|the two)\s+"
_ONE = r"(?P<one>one|a single|the right|the left|right|left|unilateral)\s+"
_SUTURE = r"(?P<suture>coronal|sagittal|metopic|lambdoid(?:al)?)"
_SIDE = r"(?:\s+on\s+(?P<side>one side|both sides|the right|the left))?"
_DIGITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4,
           "5th": 5, "index": 2, "middle": 3, "ring": 4, "little": 5}
_DIGIT = r"(?:first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|index|middle|ring|little)"


@dataclass(frozen=True)
class Sign:
    start: int
    end: int
    hpo_id: str


def _suture(match: re.Match) -> list[str]:
    suture = match.group("suture").replace("lambdoidal", "lambdoid")
    both = match.groupdict().get("both") or (match.groupdict().get("side") or "").startswith("both") \
        or match.group().rstrip().endswith("sutures")
    one = match.groupdict().get("one") or (match.groupdict().get("side") or "") in ("one side", "the right", "the left")
    if suture == "coronal":
        return ["HP:0011318" if both and not one else "HP:0011315" if one else "HP:0004440"]
    if suture == "lambdoid":
        return ["HP:0011319" if both and not one else "HP:0011320" if one else "HP:0004443"]
    return {"sagittal": ["HP:0004442"], "metopic": ["HP:0011330"]}[suture]


def _syndactyly(match: re.Match) -> list[str]:
    said = match.group()
    bony = bool(re.search(r"\b(?:bony|osseous)\b", said))
    skin = bool(re.search(r"\b(?:webbing|webbed|cutaneous|soft[- ]tissue|skin)\b", said))
    first, second = match.groupdict().get("first"), match.groupdict().get("second")
    found = []
    for part in ("finger", "toe"):
        if not re.search(rf"\b{part}s?\b", said) and not (part == "finger" and re.search(r"\bhands?\b", said)):
            continue
        if first and second:
            pair = sorted((_DIGITS[first], _DIGITS[second]))
            found.append(_PAIRS.get((part, *pair, "skin" if skin else ""), _PAIRS.get((part, *pair, ""))))
        elif part == "finger":
            found.append("HP:0010492" if bony else "HP:0010554" if skin and "complete" not in said else "HP:0006101")
        else:
            found.append("HP:0010717" if bony else "HP:0001770")
    return [hpo_id for hpo_id in found if hpo_id]


_PAIRS = {("finger", 2, 3, "skin"): "HP:0001233", ("finger", 2, 3, ""): "HP:0001233",
          ("finger", 3, 4, ""): "HP:0006101", ("finger", 4, 5, ""): "HP:0006101",
          ("toe", 2, 3, "skin"): "HP:0005709", ("toe", 2, 3, ""): "HP:0004691", ("toe", 4, 5, ""): "HP:0004692",
          ("toe", 1, 2, ""): "HP:0001770", ("toe", 3, 4, ""): "HP:0001770"}

# (pattern on the folded text, what it means: HPO ids, or a function of the match that gives them)
SIGNS: list[tuple[re.Pattern, object]] = [
    # cranial sutures: "premature fusion of both coronal sutures", "early closure of the coronal suture on one side",
    # "fused sagittal suture", "bicoronal synostosis" is named already
    (re.compile(_EARLY + _JOINED + _OF + rf"(?:{_BOTH}|{_ONE})?{_SUTURE}\s+sutures?{_SIDE}"), _suture),
    (re.compile(rf"(?:{_BOTH}|{_ONE})?(?:fused|closed)\s+{_SUTURE}\s+sutures?{_SIDE}"), _suture),
    (re.compile(_EARLY + _JOINED + _OF + r"(?:multiple|several|many|all|most)\s+(?:cranial\s+)?sutures"),
     ["HP:0011324"]),
    # digits: "complete fusion of the fingers and toes", "webbing between the second and third toes",
    # "fused second and third toes", "bony syndactyly of the fingers"
    (re.compile(r"(?:(?:complete|partial|cutaneous|soft[- ]tissue|bony|osseous|skin)\s+)*"
                r"(?:fusion|webbing|syndactyly|joining)" + _OF +
                rf"(?:(?P<first>{_DIGIT})\s+(?:and|to)\s+(?P<second>{_DIGIT})\s+)?(?:fingers?|toes?|digits)"
                r"(?:\s+(?:and|or)\s+(?:the\s+)?(?:fingers?|toes?))?"), _syndactyly),
    (re.compile(rf"(?:fused|webbed|joined)\s+(?:(?P<first>{_DIGIT})\s+(?:and|to)\s+(?P<second>{_DIGIT})\s+)?"
                r"(?:fingers|toes)(?:\s+and\s+(?:fingers|toes))?"), _syndactyly),
    # skull shapes
    (re.compile(r"\b(?:tall|high|tower)(?:[- ]shaped)?\s+(?:tower(?:[- ]shaped)?\s+)?(?:skull|head|cranium)"),
     ["HP:0000262"]),
    (re.compile(r"\bboat[- ]shaped\s+(?:skull|head)"), ["HP:0030799"]),
    (re.compile(r"\b(?:long(?:,)?\s+(?:and\s+)?narrow|elongated)\s+(?:skull|head)"), ["HP:0000268"]),
    (re.compile(r"\b(?:short(?:,)?\s+(?:and\s+)?broad|flat(?:tened)?[- ]backed)\s+(?:skull|head)"), ["HP:0000248"]),
    (re.compile(r"\b(?:triangular|keel[- ]shaped|pointed)\s+forehead"), ["HP:0000243"]),
    (re.compile(r"\bclover[- ]?leaf(?:[- ]shaped)?\s+(?:skull|head|cranium)"), ["HP:0002676"]),
    (re.compile(r"\b(?:flat(?:tened|tening)?)\s+(?:of\s+)?(?:the\s+)?back\s+of\s+the\s+head|"
                r"\bflattening\s+of\s+the\s+back\s+of\s+the\s+head"), ["HP:0005469"]),
    # thumbs and big toes: "broad thumbs deviated outward", "big toes deviated inward" (the span is the deviation's
    # words: "broad thumbs" is a finding of its own)
    (re.compile(r"\bthumbs?\s+(?:that\s+are\s+|which\s+are\s+)?(?P<said>(?:deviated|angled|bent|pointing)\s+"
                r"(?:outwards?|radially|laterally|away))"), ["HP:0009603"]),
    (re.compile(r"\b(?:big|great)\s+toes?\s+(?:that\s+are\s+)?(?P<said>(?:deviated|angled|bent|pointing)\s+"
                r"(?:inwards?|medially|toward(?:s)? the other foot))"), ["HP:0008080"]),
    (re.compile(r"\b(?:big|great)\s+toes?\s+(?:that\s+are\s+)?(?P<said>(?:deviated|angled|bent|pointing)\s+"
                r"(?:outwards?|laterally))"), ["HP:0001822"]),
    # limb segments
    (re.compile(r"\bshort\s+(?:upper\s+arms?\s+and\s+thighs|upper\s+arms?\s+and\s+(?:upper\s+)?legs|"
                r"proximal\s+(?:limbs|segments))"), ["HP:0008905"]),
    (re.compile(r"\bshort\s+(?:forearms?\s+and\s+(?:lower\s+legs|shins)|middle\s+(?:limb\s+)?segments)"),
     ["HP:0003027"]),
    (re.compile(r"\bshort\s+(?:arms\s+and\s+legs|limbs)"), ["HP:0009826"]),
]


def described_signs(text: str) -> list[Sign]:
    """The signs `text` describes, with the span of their words."""
    lowered = text.lower()
    found = []
    for pattern, meaning in SIGNS:
        for match in pattern.finditer(lowered):
            span = match.span("said") if "said" in pattern.groupindex else match.span()
            for hpo_id in (meaning(match) if callable(meaning) else meaning):
                found.append(Sign(*span, hpo_id))
    return found
