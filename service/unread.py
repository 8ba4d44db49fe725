"""What a text says that nothing read: the runs of words between what was read, within a clause, that hold a word
of substance. A part is either read or listed as not read, never both."""

from __future__ import annotations

import re

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from ner.cue_words import FAMILY, GENE_TESTED_NEGATIVE, HEDGE

_CLAUSE_ENDS = re.compile(r"[,;:()\n]|\.(?:\s|$)|\b(?:and|or|with|but|nor)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{3,}")
# Words of a description that carry no finding: who, when, how it was found, how sure, how much
_FILLER = frozenset({
    "patient", "proband", "child", "infant", "baby", "presents", "presented", "presenting", "showing", "shows",
    "showed", "shown", "noted", "seen", "found", "observed", "identified", "detected", "reported", "old", "year",
    "years", "month", "months", "week", "weeks", "day", "days", "aged", "age", "born", "birth", "features", "findings",
    "finding", "including", "variant", "variants", "mutation", "mutations", "novo", "heterozygous", "homozygous",
    "hemizygous", "pathogenic", "likely", "gene", "genes", "testing", "tested", "test", "sequencing", "analysis",
    "panel", "negative", "positive", "also", "signs", "sign", "referred", "evaluation", "examination", "exam",
    "history", "family", "affected", "unaffected", "both", "parents", "mild", "mildly", "moderate", "severe",
    "severely", "marked", "markedly", "slight", "slightly", "bilateral", "bilaterally", "unilateral", "left",
    "right", "very", "notable", "notably", "prominent", "significant", "normal", "absent", "present", "possible",
    "possibly", "probable", "suspected", "questionable", "noticed", "diagnosed", "diagnosis", "clinical",
    "clinically", "typical", "dysmorphic", "multiple", "frameshift", "missense", "nonsense", "splice", "deletion",
    "duplication", "confirmed", "revealed", "demonstrated", "remainder", "rest", "otherwise", "unremarkable",
    "newborn", "neonate", "female", "male", "girl", "boy", "woman", "man", "son", "daughter",
})
_CUE_WORDS = frozenset(word for cues in (FAMILY, HEDGE, GENE_TESTED_NEGATIVE)
                       for cue in cues.preceding + cues.following for word in cue.split())
_SKIPPED = ENGLISH_STOP_WORDS | _FILLER | _CUE_WORDS


def unread_parts(text: str, read: list[tuple[int, int]], written=None) -> list[str]:
    """The clauses' parts outside the `read` spans that hold a word of substance, as written (`written`: a part's
    span -> its words as the writer wrote them, for a text put into English)."""
    bounds = sorted({0, len(text), *(i for m in _CLAUSE_ENDS.finditer(text) for i in m.span()),
                     *(i for span in read for i in span)})  # a read span ends a run too
    parts = []
    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        if any(s <= start and end <= e for s, e in read):
            continue
        run = text[start:end]
        if any(w.lower() not in _SKIPPED for w in _WORD.findall(run)):
            parts.append((written(start, end) if written else run).strip(" .,;:-"))
    return list(dict.fromkeys(part for part in parts if part))
