"""Findings a clinician writes in words no HPO name has as such, read as the terms they mean.

- "no speech", "without thumbs", "absence of eyebrows": HPO names these findings Absent speech, Absent thumb,
  Absent eyebrow; the patient has them (a modifier may be dropped: "absent medial eyelashes" is Absent eyelashes);
- "normal hearing", "development was normal": the abnormality absent (Hearing abnormality, Global developmental
  delay);
- "a long narrow face", "low-set posteriorly rotated ears", "large hands and feet": adjectives stacked before one
  noun, or one adjective over coordinated nouns, each a finding of its own (Long face and Narrow face).

Each function takes the text's words and a look-up of the HPO's names (a name, in any of its forms -> its term:
`FindingLinker.term_named`) and gives
candidates as `Phrase`s, for the reader (service/reader.py) to weigh against the names found verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from fpkg.names import normalise
from retrieval.word_forms import STOP_WORDS

Lookup = Callable[[str], "int | None"]
WORD = re.compile(r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")
ABSENCE_CUES = ("no", "without", "absent", "absence of", "lack of", "missing")
# Words that end a noun phrase in a clinician's list
_PHRASE_ENDS = {"and", "or", "nor", "with", "but", "in", "on", "at", "of", "from", "to", "since", "for", "by", "was",
                "were", "is", "are", "has", "had", "who", "which", "that", "so", "than", "as", "after", "before"}
_ARTICLES = {"a", "an", "the", "his", "her", "their", "its"}
# "normal X" names an abnormality these words do not ("development" is no HPO term of its own)
NORMAL_MEANS = {
    "development": "HP:0001263", "psychomotor development": "HP:0001263", "developmental milestone": "HP:0001263",
    "milestone": "HP:0001263", "neurodevelopment": "HP:0001263",
    "intelligence": "HP:0001249", "cognition": "HP:0001249", "intellect": "HP:0001249", "iq": "HP:0001249",
    "cognitive development": "HP:0001249", "cognitive function": "HP:0001249",
    "growth": "HP:0001507", "height": "HP:0000002", "stature": "HP:0000002",
    "head circumference": "HP:0000240", "head size": "HP:0000240",
    "echocardiogram": "HP:0001627", "echocardiography": "HP:0001627", "heart": "HP:0001627",
    "cardiac examination": "HP:0001627", "renal ultrasound": "HP:0000077", "kidney": "HP:0000077",
    "brain mri": "HP:0012443", "brain imaging": "HP:0012443", "mri of the brain": "HP:0012443",
    "muscle tone": "HP:0003808", "tone": "HP:0003808", "speech": "HP:0000750", "language": "HP:0000750",
    "behavior": "HP:0000708", "behaviour": "HP:0000708", "vision": "HP:0000504", "eyesight": "HP:0000504",
}
_ABNORMAL_FORMS = ("abnormality of {}", "abnormality of the {}", "abnormal {}", "{} abnormality",
                   "abnormal {} morphology", "abnormal {} physiology")
_IS = {"is", "was", "are", "were", "appeared", "appears", "seemed", "remained", "remains", "otherwise"}


@dataclass(frozen=True)
class Phrase:
    start: int  # character offsets of the words that name it
    end: int
    term: str | int  # an HPO id, or a term's number in the name keys
    how: str  # absent-named, normal, stacked, shared
    absent: bool = False  # "normal X": the term is said to be absent


def words_of(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in WORD.finditer(text)]


def _after_cues(words: list[tuple[str, int, int]], cues: tuple[str, ...]):
    """(the cue's first word, the first word after it, the noun phrase after it) for each cue in the words."""
    lowered = [w.lower() for w, _, _ in words]
    for i in range(len(words)):
        for cue in cues:
            size = len(cue.split())
            if " ".join(lowered[i:i + size]) == cue:
                yield i, i + size, _noun_phrase(lowered, i + size)


def absent_named(words: list[tuple[str, int, int]], exact: Lookup) -> list[Phrase]:
    """'no speech' as Absent speech: a cue of absence, then a noun phrase whose 'Absent …' is an HPO name."""
    found = []
    for i, after, phrase in _after_cues(words, ABSENCE_CUES):
        for candidate in _with_one_modifier_dropped(phrase) if phrase else ():
            # as the HPO writes it: "absence seizures" is no absence of seizures
            term = exact("absent " + " ".join(candidate)) or exact("absence of " + " ".join(candidate))
            if term is not None:
                found.append(Phrase(words[i][1], words[after + len(phrase) - 1][2], term, "absent-named"))
                break
    return found


def normal_named(words: list[tuple[str, int, int]], lookup: Lookup) -> list[Phrase]:
    """'normal hearing', 'hearing was normal': the abnormality the words name, absent."""
    found = []
    lowered = [w.lower() for w, _, _ in words]
    for i, word in enumerate(lowered):
        if word not in ("normal", "normally"):
            continue
        phrase = _noun_phrase(lowered, i + 1)  # "normal hearing", "normal development so far": longest first
        after = next(((n, term) for n in range(len(phrase), 0, -1)
                      if (term := _abnormality(phrase[:n], lookup)) is not None), None)
        if after is not None:
            n, term = after
            last = i + lowered[i + 1:].index(phrase[n - 1]) + 1
            found.append(Phrase(words[i][1], words[last][2], term, "normal", absent=True))
            continue
        end = i - 1 if i > 0 and lowered[i - 1] in _IS else i  # "hearing (was) normal"
        first = end
        while first > 0 and lowered[first - 1][0].isalnum() and lowered[first - 1] not in _PHRASE_ENDS \
                and lowered[first - 1] not in _ARTICLES:
            first -= 1
        for start in range(first, end):  # longest first
            if (term := _abnormality(lowered[start:end], lookup)) is not None:
                found.append(Phrase(words[start][1], words[i][2], term, "normal", absent=True))
                break
    return found


def shared_words(words: list[tuple[str, int, int]], lookup: Lookup,
                 found: list[tuple[int, int]]) -> list[Phrase]:
    """Findings that share words with one already found (`found`: its character span): adjectives stacked before
    its noun ('a long narrow face' gives Long face beside Narrow face) and a noun coordinated after it ('large hands
    and feet' gives Large feet beside Large hands)."""
    starts = {start: i for i, (_, start, _) in enumerate(words)}
    ends = {end: i for i, (_, _, end) in enumerate(words)}
    lowered = [w.lower() for w, _, _ in words]
    extra = []
    for start, end in found:
        if start not in starts or end not in ends:
            continue
        first, last = starts[start], ends[end]
        # stacked: each word before the finding, back to the phrase's start ("low-set posteriorly rotated ears")
        i = first - 1
        while i >= 0 and lowered[i][0].isalnum() and lowered[i] not in _PHRASE_ENDS and lowered[i] not in STOP_WORDS:
            for tail in (lowered[last:last + 1], lowered[first + 1:last + 1]):
                term = lookup(" ".join([lowered[i], *tail]))
                if term is not None:
                    extra.append(Phrase(words[i][1], end, term, "stacked"))
                    break
            i -= 1
        # shared: "large hands and feet", "broad thumbs and halluces"
        if last + 2 < len(words) and lowered[last + 1] == "and" and last > first:
            modifiers = lowered[first:last]
            noun = _noun_phrase(lowered, last + 2)
            if noun and (term := lookup(" ".join([*modifiers, *noun]))) is not None:
                extra.append(Phrase(start, words[last + 1 + len(noun)][2], term, "shared"))
    return extra


EPISODES = ("episodes of", "episode of", "attacks of", "bouts of", "spells of", "recurrent episodes of")
_EPISODIC_FORMS = ("episodic {}", "intermittent {}", "paroxysmal {}", "recurrent {}")


def episodic(words: list[tuple[str, int, int]], lookup: Lookup) -> list[Phrase]:
    """'episodes of hyperventilation' as Intermittent hyperventilation (HPO: Episodic hyperventilation)."""
    found = []
    for i, after, phrase in _after_cues(words, EPISODES):
        for n in range(len(phrase), 0, -1):
            said = " ".join(phrase[:n])
            term = next((t for form in _EPISODIC_FORMS if (t := lookup(form.format(said))) is not None), None)
            if term is not None:
                found.append(Phrase(words[i][1], words[after + n - 1][2], term, "episodic"))
                break
    return found


SEVERITY = {"mild": "mild", "mildly": "mild", "slight": "mild", "slightly": "mild", "moderate": "moderate",
            "moderately": "moderate", "severe": "severe", "severely": "severe", "very": "severe",
            "extremely": "severe", "extreme": "severe", "markedly": "severe", "marked": "severe",
            "profound": "profound", "profoundly": "profound"}


def with_severity(words: list[tuple[str, int, int]], lookup: Lookup, found: list[tuple[int, int, str]]
                  ) -> list[Phrase]:
    """'severe intellectual disability' as Intellectual disability, severe; 'very short stature' as Severe short
    stature: a severity word before a finding (`found`: its span and term name), where the HPO names that degree."""
    ends = {end: i for i, (_, _, end) in enumerate(words)}
    starts = {start: i for i, (_, start, _) in enumerate(words)}
    extra = []
    for start, end, name in found:
        i = starts.get(start)
        if i is None or i == 0 or words[i - 1][0].lower() not in SEVERITY:
            continue
        degree = SEVERITY[words[i - 1][0].lower()]
        written = text_of(words, i, ends.get(end, i))
        for key in (f"{degree} {name}", f"{name}, {degree}", f"{name} {degree}", f"{degree} {written}"):
            term = lookup(key)
            if term is not None:
                extra.append(Phrase(words[i - 1][1], end, term, "severity"))
                break
    return extra


def text_of(words: list[tuple[str, int, int]], first: int, last: int) -> str:
    return " ".join(word for word, _, _ in words[first:last + 1])


def _noun_phrase(lowered: list[str], start: int) -> list[str]:
    """The words from `start` to the end of the phrase (punctuation or a joining word), articles skipped before."""
    while start < len(lowered) and lowered[start] in _ARTICLES:
        start += 1
    phrase = []
    for word in lowered[start:]:
        if not word[0].isalnum() or word in _PHRASE_ENDS:
            break
        phrase.append(word)
    return phrase if len(phrase) <= 5 else []


def _with_one_modifier_dropped(phrase: list[str]) -> list[list[str]]:
    return [phrase, *([*phrase[:i], *phrase[i + 1:]] for i in range(len(phrase) - 1))]


def _abnormality(phrase: list[str], lookup: Lookup) -> str | int | None:
    said = " ".join(phrase)
    key = normalise(said)
    if key in NORMAL_MEANS or said in NORMAL_MEANS:
        return NORMAL_MEANS.get(key) or NORMAL_MEANS[said]
    for form in _ABNORMAL_FORMS:
        term = lookup(form.format(said))
        if term is not None:
            return term
    return None
