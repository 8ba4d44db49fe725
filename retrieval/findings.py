"""Any HPO phenotype term, facial or not, by its name or a synonym: the findings a clinician gives beside
the face ("seizures", "ventricular septal defect") and those written as absent.

An HPO id ("HP:0000316") is that term. Exact and synonym (case, punctuation and plurals aside), then one
typo in a long name that keeps the finding (`fpkg.names.keeps_identity`). In free text, ids are found, then
names by longest match at word boundaries. A link carries the term's HPO id in `ids`; its `node_id` is the
graph's facial phenotype node when the graph holds the term, else None (non-facial terms are ranking
profiles, not nodes).
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from pathlib import Path

from rapidfuzz import fuzz, process

from fpkg.names import keeps_identity, normalise
from fpkg.pickles import read_pickle, write_pickle
from kg_dump.hpo_profiles import HpoProfiles
from kg_dump.translations import label_key
from retrieval.clinical_synonyms import CLINICAL_SYNONYMS
from retrieval.result import Link
from retrieval.word_forms import STOP_WORDS, WordForms, bags_of

FINDING = "FINDING"
TYPO_RATIO = 0.9
TYPO_MIN_CHARS = 8
MAX_WORDS = 8  # the longest name looked for in free text
MIN_CHARS = 4  # "ASD", "VSD": abbreviations in text are too often something else
# HPO synonyms that are a disease's name ("Crouzon syndrome" for Craniofacial dysostosis) or too
# common a word are no finding in text
_NOT_A_FINDING = re.compile(r"\b(syndrome|disease|disorder)\b|^(?:abnormal|normal|absent|present)$")
HPO_ID = re.compile(r"\bHP[:_](\d{7})\b", re.IGNORECASE)
_SUBJECTS = frozenset({"that", "which", "who", "it", "he", "she", "they"})  # a word after these is a verb
# words no bag of words reads across: coordination ("cleft lip and palate" is two findings) and negation ("seizures
# absent" is no absence seizure)
_COORDINATED = re.compile(r"\b(?:and|or|nor|no|not|without|absent|absence|negative|neither|none)\b", re.IGNORECASE)
_BREAK = re.compile(r"[^\s\-/'’]")  # what no name runs over in free text: punctuation but hyphens and slashes


NAMES_FORMAT = 13  # of the cached name keys
_NAMED_ID = re.compile(r"\(\s*(HP[:_]\d{7})\s*\)\s*$", re.IGNORECASE)  # "Hypotonia (HP:0001252)"


def term_id(mention: str) -> str | None:
    """The HPO id a finding is written as, alone or after its name in brackets; None for a name alone."""
    found = HPO_ID.fullmatch(mention.strip()) or _NAMED_ID.search(mention)
    if not found:
        return None
    digits = re.search(r"\d{7}", found.group()).group()
    return f"HP:{digits}"


def _name_keys(hpo: HpoProfiles) -> tuple[dict[str, int], dict[int, list[str]], WordForms, dict[str, int]]:
    """Each name's and synonym's key -> its term (names first: a synonym never hides another term's name),
    the keys by length (typos are looked for among keys of about the same length), the word forms of the
    names' words and each name's bag of words -> its term (retrieval/word_forms.py)."""
    exact: dict[str, int] = {}
    named = [(name, term) for term, name in enumerate(hpo.names)]
    named += [(synonym, term) for term, synonyms in enumerate(hpo.synonyms) for synonym in synonyms]
    named += [(name, hpo.index[hpo_id]) for name, hpo_id in CLINICAL_SYNONYMS.items() if hpo_id in hpo.index]
    for name, term in named:
        exact.setdefault(normalise(name), term)
    by_length: dict[int, list[str]] = defaultdict(list)
    for key in exact:
        by_length[len(key)].append(key)
    forms = WordForms.build(name for name, _ in named)
    return exact, dict(by_length), forms, bags_of(named, forms, _ancestors(hpo))


def _ancestors(hpo: HpoProfiles):
    """A term's ancestors (by number), worked out when first asked."""
    @functools.cache
    def above(term: int) -> frozenset[int]:
        return frozenset(p for parent in hpo.parents[term] for p in (parent, *above(parent)))
    return above


class FindingLinker:
    def __init__(self, hpo: HpoProfiles, known_words: set[str], node_of_term: dict[int, int] | None = None,
                 cache_dir: Path | None = None, translated: dict[str, int] | None = None):
        """`node_of_term`: the graph's facial phenotype node of a term, when there is one; `cache_dir`: where
        the names' keys are kept between starts (folding every HPO name and synonym takes most of a second);
        `translated`: the HPO's translated labels' keys (`kg_dump.translations.label_key`) -> their terms."""
        self.hpo, self.known_words, self.translated = hpo, known_words, translated or {}
        self.node_of_term = node_of_term or {}
        path = cache_dir / "hpo" / f"finding-names-{NAMES_FORMAT}-{hpo.release}-{len(hpo.terms)}.pickle" \
            if cache_dir and hpo.release else None
        made = read_pickle(path) if path else None
        if not isinstance(made, tuple) or len(made) != 4:
            made = _name_keys(hpo)
            if path:
                write_pickle(path, made)
        self.exact, self.by_length, self.forms, self.bags = made
        self.of_id = {hpo_id: term for term, hpo_id in enumerate(hpo.terms)}

    def link(self, mention: str, written: str | None = None) -> Link:
        """The term `mention` names (an HPO id is that term); `written`: the mention to keep in the link, when
        `mention` is the id it was read as."""
        by_id = HPO_ID.fullmatch(mention.strip())
        if by_id:
            term = self.of_id.get(f"HP:{by_id.group(1)}")
            written = written or mention
            return Link(written, FINDING, None, method="none") if term is None else self._link(written, term, 1.0, "id")
        key = normalise(mention)
        term = self.exact.get(key)
        method = "synonym" if term is not None and normalise(self.hpo.names[term]) != key else "exact"
        score = 1.0
        if term is None and not _COORDINATED.search(mention):  # its words in another form or order ("drooping
            term, method = self.bags.get(self.forms.bag(mention)), "word forms"  # eyelids")
        if term is None and self.translated:  # the HPO's label in another language ("Fente palatine")
            term = self.translated.get(label_key(mention, "fr")) or self.translated.get(label_key(mention, "zh"))
            method = "translation"
        if term is None and len(key) >= TYPO_MIN_CHARS:
            nearby = [k for n in range(len(key) - 2, len(key) + 3) for k in self.by_length.get(n, ())]
            found = process.extractOne(key, nearby, scorer=fuzz.ratio, score_cutoff=TYPO_RATIO * 100)
            if found and keeps_identity(mention, found[0], self.known_words):
                term, method, score = self.exact[found[0]], "typo", round(found[1] / 100, 4)
        if term is None:
            return Link(mention, FINDING, None, method="none")
        return self._link(mention, term, score, method)

    def term_named(self, name: str, forms: bool = True) -> int | None:
        """The term a name names exactly, or (`forms`) in other forms or order of its words
        (retrieval/word_forms.py; not across "and" or "or": "cleft lip and palate" is two findings)."""
        term = self.exact.get(normalise(name))
        if term is None and forms and not _COORDINATED.search(name):
            term = self.bags.get(self.forms.bag(name))
        return term

    def _link(self, mention: str, term: int, score: float, method: str) -> Link:
        node = self.node_of_term.get(term)
        return Link(mention, FINDING, node, "FacePhenotype" if node is not None else None, self.hpo.names[term],
                    score, method, (self.hpo.terms[term],))

    def find_in_text(self, text: str) -> list[tuple[int, int, Link]]:
        """(start, end, link) of each finding named in `text`, longest first, none overlapping."""
        found = [(m.start(), m.end(), self._link(m.group(), self.of_id[f"HP:{m.group(1)}"], 1.0, "id"))
                 for m in HPO_ID.finditer(text) if f"HP:{m.group(1)}" in self.of_id]
        ids = [(start, end) for start, end, _ in found]
        words = [w for w in re.finditer(r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*", text)
                 if not any(start <= w.start() < end for start, end in ids)]
        taken = set()
        # a name runs over spaces and hyphens, never over a comma or a stop ("short stature, mild hearing loss")
        joined = [not _BREAK.search(text[a.end():b.start()]) for a, b in zip(words, words[1:], strict=False)]
        for size in range(min(MAX_WORDS, len(words)), 0, -1):
            for first in range(len(words) - size + 1):
                span = range(first, first + size)
                if taken.intersection(span) or not all(joined[first:first + size - 1]):
                    continue
                start, end = words[first].start(), words[first + size - 1].end()
                phrase = text[start:end]
                ends = {words[first].group().lower(), words[first + size - 1].group().lower()}
                if _NOT_A_FINDING.search(phrase.lower()) or len(phrase) < MIN_CHARS or ends & STOP_WORDS \
                        or size == 1 and first and words[first - 1].group().lower() in _SUBJECTS:
                    continue  # "a tongue that falls backwards" says nothing of falls
                term, method = self.exact.get(normalise(phrase)), "exact"
                if term is None and not _COORDINATED.search(phrase):  # its words in another form or order
                    term, method = self.bags.get(self.forms.bag(phrase)), "word forms"  # ("ears low-set")
                if term is None:
                    continue
                found.append((start, end, self._link(phrase, term, 1.0, method)))
                taken.update(span)
        return sorted(found, key=lambda item: item[0])
