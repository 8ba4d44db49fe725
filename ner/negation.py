"""Findings written as absent ("no cleft palate", "ptosis was not seen"), in the manner of NegEx:
a negation cue before a mention, in the same clause with no scope-ending word between them, or a
cue just after it. A list after one cue is negated whole ("no cleft palate or ptosis")."""

from __future__ import annotations

import re

BEFORE = ("no", "not", "without", "absent", "absence of", "denies", "denied", "negative for", "free of", "never",
          "lacks", "lacking", "rules out", "ruled out", "excluded", "nor")
AFTER = ("absent", "not seen", "not present", "not observed", "not noted", "not found", "ruled out", "excluded",
         "was negative", "were negative")
# Words that end a negation's scope: a new clause or an affirmed finding follows.
SCOPE_ENDS = (".", ";", ":", "but", "however", "although", "though", "yet", "while", "whereas", "has", "had", "have",
              "shows", "showed", "presents", "presented", "with", "and has", "except")
_BEFORE = re.compile(r"\b(" + "|".join(map(re.escape, sorted(BEFORE, key=len, reverse=True))) + r")\b")
_AFTER = re.compile(r"^\s*(?:(?:is|are|was|were)\s+)?(" + "|".join(map(re.escape, AFTER)) + r")\b")
_ENDS = re.compile(r"[.;:]|\b(" + "|".join(re.escape(w) for w in SCOPE_ENDS if w[0].isalpha()) + r")\b")


def is_negated(text: str, start: int, end: int) -> bool:
    """Whether the finding at text[start:end] is written as absent."""
    lowered = text.lower()
    before = lowered[:start]
    cues = list(_BEFORE.finditer(before))
    if cues and not _ENDS.search(before[cues[-1].end():]):
        return True
    return bool(_AFTER.match(lowered[end:]))


def negated_mentions(text: str, mentions: list[str]) -> set[str]:
    """The mentions (as written) whose first occurrence in `text` is negated."""
    lowered = text.lower()
    found = set()
    for mention in mentions:
        start = lowered.find(mention.lower())
        if start >= 0 and is_negated(text, start, start + len(mention)):
            found.add(mention)
    return found
