"""The one reader of a clinician's text: a description, a question's case, in English or another language the
HPO speaks. One result (`CaseReading`): each finding with its span, HPO term, polarity (present, absent, family
history, hedged) and whether it is facial; the gene and variant, each with why it was read so; age, sex,
ethnicity; what was not read. The form, the API, the notices and the benches all use it.

How a text is read:
1. another language is put into English first (service/languages.py);
2. findings by name: HPO's names and synonyms and ids (retrieval/findings.py), the graph's facial phenotype
   names with typos (retrieval/intent.py), the recogniser's FACIAL_PHENOTYPE spans (ner/), and the phrases
   clinicians write that no name has as such (service/finding_phrases.py); the longest span wins;
3. polarity by NegEx/ConText within the clause (ner/context.py);
4. genes only where meant: a symbol that is also an ordinary word needs a gene cue beside it
   (service/gene_words.py), and a gene tested negative is not the patient's;
5. age, sex, ethnicity and the variant from the recogniser's rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from diagnosis.ontology import PhenotypeOntology
from diagnosis.ranker import DiagnosisCase
from ner.context import ABSENT, FAMILY_HISTORY, FINDING, GENE, HEDGED, PRESENT, Target, context_reader
from ner.recognizer import Recognizer
from retrieval.findings import FindingLinker
from retrieval.intent import mention_spans
from retrieval.linking import EntityLinker
from retrieval.options import split_question
from service import finding_phrases
from service.abbreviations import abbreviations
from service.described_signs import described_signs
from service.gene_words import has_gene_cue
from service.unread import unread_parts
from service.validation import age_in_years

SEX_WORDS = {"female": "female", "girl": "female", "woman": "female", "f": "female",
             "male": "male", "boy": "male", "man": "male", "m": "male"}
SEXES = tuple(dict.fromkeys(SEX_WORDS.values()))  # what the form offers
# How a finding was found, best first when two spans are as long: a name as HPO writes it, then the graph's
# names, the recogniser's spans, the phrases
_HOW_ORDER = ("id", "sign", "exact", "synonym", "word forms", "absent-named", "normal", "severity", "episodic",
              "abbreviation", "translation", "graph", "typo", "model", "stacked", "shared")


def parse_sex(text: str) -> str | None:
    return SEX_WORDS.get(text.strip().lower().rstrip("."))


@dataclass(frozen=True)
class ReadFinding:
    text: str  # as written (in the English the text was read into)
    start: int
    end: int
    hpo_id: str | None  # None: a facial phenotype that only FPKG names
    name: str
    node_id: int | None  # the graph's facial phenotype node, when it has one
    facial: bool
    polarity: str  # present, absent, family, hedged
    how: str  # see _HOW_ORDER

    def shown(self) -> str:
        """'hypertelorism → Hypertelorism (HP:0000316, facial)'."""
        where = "facial" if self.facial else "beside the face"
        term = f"{self.name} ({self.hpo_id or 'FPKG’s own term'}, {where})"
        return term if self.text == self.name else f"{self.text} → {term}"


@dataclass(frozen=True)
class ReadGene:
    symbol: str
    text: str
    start: int
    end: int
    counted: bool  # the patient's gene
    why: str  # why it was read so


@dataclass
class CaseReading:
    text: str  # the text read, in English
    findings: list[ReadFinding] = field(default_factory=list)
    genes: list[ReadGene] = field(default_factory=list)
    variant: str | None = None
    age_years: float | None = None
    sex: str | None = None
    ethnicity: str | None = None
    options: dict[str, str] | None = None
    unread: list[str] = field(default_factory=list)  # parts of the text nothing was read in, as written
    said: list[str] = field(default_factory=list)  # the language the text was read from

    @property
    def gene(self) -> str | None:
        return next((gene.symbol for gene in self.genes if gene.counted), None)

    def of(self, polarity: str) -> list[ReadFinding]:
        return [f for f in self.findings if f.polarity == polarity]

    def case(self) -> DiagnosisCase:
        """The case the text describes: present findings as written (facial apart), absent ones, each with its
        HPO id (the ranker links them by it)."""
        present, absent = self.of(PRESENT), self.of(ABSENT)
        mention: dict[int, str] = {}  # each finding's mention: as written, by its term's name where two share words
        for finding in present + absent:
            taken = finding.text in mention.values()
            mention[id(finding)] = finding.name if taken else finding.text
        terms = {mention[id(f)]: f.hpo_id for f in present + absent if f.hpo_id}
        return DiagnosisCase(
            phenotypes=tuple(dict.fromkeys(mention[id(f)] for f in present if f.facial)),
            other_findings=tuple(dict.fromkeys(mention[id(f)] for f in present if not f.facial)),
            excluded=tuple(dict.fromkeys(mention[id(f)] for f in absent)),
            gene=self.gene, variant=self.variant if self.gene else None, age_years=self.age_years, sex=self.sex,
            ethnicity=self.ethnicity, options=self.options, terms=tuple(terms.items()))

    def notices(self, with_findings: bool = False) -> list[str]:
        """What was read, in words: the language; findings of a relative and hedged ones (present and absent
        ones too `with_findings`: the diagnosis says those from its links), the genes that do not count and why,
        what was not read."""
        lines = list(self.said)
        kinds = ((PRESENT, "present"), (ABSENT, "absent")) if with_findings else ()
        for polarity, words in (*kinds,
                                (FAMILY_HISTORY, "of a relative (family history, not counted as the patient's)"),
                                (HEDGED, "hedged (possible or suspected, not counted)")):
            found = list(dict.fromkeys(f.shown() for f in self.of(polarity)))
            if found:
                lines.append(f"Findings read, {words}: " + "; ".join(found) + ".")
        lines += [f"Not read as the patient's gene: “{gene.text}” ({gene.why})." for gene in self.genes
                  if not gene.counted]
        if not self.of(PRESENT) and not self.of(ABSENT):
            lines.append("No finding was recognised in the text.")
        if self.unread:
            lines.append("Not read: " + "; ".join(f"'{part}'" for part in self.unread) + ".")
        return lines


class Reader:
    def __init__(self, recognizer: Recognizer | None, linker: EntityLinker, findings: FindingLinker,
                 ontology: PhenotypeOntology, ordinary_symbols: frozenset[str] = frozenset(), translator=None):
        """`ordinary_symbols`: the gene symbols that are also ordinary words (service/gene_words.py); `translator`:
        reads another language into English (service/languages.Translator), None for English only."""
        self.recognizer, self.linker, self.findings, self.ontology = recognizer, linker, findings, ontology
        self.ordinary_symbols, self.translator = ordinary_symbols, translator

    def read(self, text: str) -> CaseReading:
        said, translated = [], None
        if self.translator is not None:
            translated = self.translator.read(text)
            text = translated.text
            said += [translated.said()] if translated.said() else []
        stem, options = split_question(text)
        spans = self.recognizer.predict(stem) if self.recognizer is not None else []
        graph_spans = mention_spans(stem, self.linker)
        findings, inside = self._findings(stem, spans, graph_spans)
        genes = self._genes(stem, spans, graph_spans)
        counted = [gene for gene in genes if gene.counted]  # an ordinary word is no target: "her son has ptosis"
        targets = [Target(f.start, f.end, FINDING) for f in findings] + [Target(g.start, g.end, GENE) for g in counted]
        polarities = context_reader().polarities(stem, targets) if targets else []
        read = len(findings)
        findings = [_with_polarity(f, p) for f, p in zip(findings, polarities[:read], strict=True)]
        findings += [_with_polarity(f, findings[parent].polarity) for parent, f in inside]
        tested = {id(gene): _tested(gene, p) for gene, p in zip(counted, polarities[read:], strict=True)}
        genes = [tested.get(id(gene), gene) for gene in genes]
        findings += self._shared(stem, findings)
        first = {}
        for span in spans:
            first.setdefault(span.type, span)
        age = first.get("AGE")
        years = age_in_years(_signed(stem, age)) if age else 0.0 if _NEWBORN.search(stem) else None
        reading = CaseReading(stem, findings, genes, first["MUTATION"].text if "MUTATION" in first else None, years,
                              parse_sex(first["GENDER"].text) if "GENDER" in first else None,
                              first["RACE"].text if "RACE" in first else None, options or None, said=said)
        covered = [(f.start, f.end) for f in findings] + [(g.start, g.end) for g in genes] + \
                  [(s.start, s.end) for s in spans if s.type != "FACIAL_PHENOTYPE"]
        # what was not read, in the text's own words (a word put into English word for word, as written)
        reading.unread = unread_parts(stem, covered, translated.as_written if translated else None)
        return reading

    # ---- findings ----------------------------------------------------------------------
    def _findings(self, text: str, spans, graph_spans) -> tuple[list[ReadFinding], list[tuple[int, ReadFinding]]]:
        """Every finding named in the text, longest span first, none overlapping; and the HPO terms named inside a
        finding that only FPKG names ("Low-set, posteriorly rotated ears": Posteriorly rotated ears), each with its
        place in the first list."""
        candidates: list[ReadFinding] = []
        for start, end, link in self.findings.find_in_text(text):
            candidates += self._finding(text, start, end, link.ids[0], link.node_id, link.method)
        for start, end, link in graph_spans:
            if link.label == "FacePhenotype" and link.node_id is not None:
                term = self.ontology.node_term.get(link.node_id)
                hpo_id = self.ontology.hpo_ids[term] if term is not None else None
                candidates += self._finding(text, start, end, hpo_id, link.node_id,
                                            "typo" if link.method == "typo" else "graph", link.name)
        for span in spans:
            if span.type == "FACIAL_PHENOTYPE":
                link = self.linker.link(span.text, "FACIAL_PHENOTYPE")
                if link.node_id is None:
                    link = self.findings.link(span.text)
                if link.node_id is not None or link.ids:
                    candidates += self._finding(text, span.start, span.end, link.ids[0] if link.ids else None,
                                                link.node_id, "model", link.name)
        for sign in described_signs(text):
            candidates += self._finding(text, sign.start, sign.end, sign.hpo_id, None, "sign")
        for short in abbreviations(text):
            candidates += self._finding(text, short.start, short.end, short.hpo_id, None, "abbreviation")
        words = finding_phrases.words_of(text)
        named = [(f.start, f.end, f.name) for f in candidates]
        lookup = self.findings.term_named
        def exact(name: str) -> int | None:  # as written, or each word in its one form ("absent radii")
            one_form = " ".join(self.findings.forms.one(word) for word in name.split())
            return lookup(name, forms=False) or lookup(one_form, forms=False)

        for phrase in [*finding_phrases.absent_named(words, exact), *finding_phrases.normal_named(words, lookup),
                       *finding_phrases.episodic(words, lookup), *finding_phrases.with_severity(words, lookup, named)]:
            hpo_id = phrase.term if isinstance(phrase.term, str) else self.findings.hpo.terms[phrase.term]
            candidates += self._finding(text, phrase.start, phrase.end, hpo_id, None, phrase.how)
        chosen = _longest_first(candidates)
        inside = []
        for parent, found in enumerate(chosen):
            if found.hpo_id is None:  # FPKG's own compound term: the HPO terms named inside it too
                within = [c for c in candidates if c.hpo_id and found.start <= c.start and c.end <= found.end]
                inside += [(parent, c) for c in _longest_first(within)]
            # a described sign whose words overlap the finding's ("broad big toes deviated inward": Hallux varus
            # beside Broad hallux; "fusion of the fingers and toes": toes beside fingers) is read beside it
            inside += [(parent, c) for c in candidates if c.how == "sign" and c.start < found.end
                       and found.start < c.end and c.hpo_id != found.hpo_id and c not in chosen]
        return chosen, inside

    def _finding(self, text: str, start: int, end: int, hpo_id: str | None, node_id: int | None, how: str,
                 name: str | None = None) -> list[ReadFinding]:
        term = self.ontology.index_of_hpo.get(hpo_id) if hpo_id else self.ontology.node_term.get(node_id)
        if term is None:
            return []
        node_id = node_id if node_id is not None else self.ontology.term_node.get(term)
        return [ReadFinding(text[start:end], start, end, hpo_id, self.ontology.names[term] or name or text[start:end],
                            node_id, bool(self.ontology.facial[term]), PRESENT, how)]

    def _shared(self, text: str, findings: list[ReadFinding]) -> list[ReadFinding]:
        """Findings that share words with one read ("a long narrow face": Long face too), with its polarity."""
        extra = []
        words = finding_phrases.words_of(text)
        by_span = {(f.start, f.end): f for f in findings}
        known = {(f.hpo_id, f.polarity) for f in findings}
        for phrase in finding_phrases.shared_words(words, self.findings.term_named, list(by_span)):
            hpo_id = self.findings.hpo.terms[phrase.term]
            main = next((f for (start, end), f in by_span.items() if start <= phrase.start < end
                         or start < phrase.end <= end), None)
            if main is None or (hpo_id, main.polarity) in known:
                continue
            for found in self._finding(text, phrase.start, phrase.end, hpo_id, None, phrase.how):
                known.add((hpo_id, main.polarity))
                extra.append(_with_polarity(found, main.polarity))
        return extra

    # ---- genes -------------------------------------------------------------------------
    def _genes(self, text: str, spans, graph_spans) -> list[ReadGene]:
        found: dict[tuple[int, int], ReadGene] = {}
        mentions = [(s.start, s.end, s.text) for s in spans if s.type == "GENE"]
        mentions += [(start, end, link.name) for start, end, link in graph_spans
                     if link.label == "Genotype" and link.node_id is not None]
        for start, end, symbol in sorted(mentions):
            if any(start < e and s < end for s, e in found):
                continue
            symbol = self.linker.link(symbol, "GENE").name or symbol
            written = text[start:end]
            if symbol in self.ordinary_symbols and not has_gene_cue(text, start, end):
                found[(start, end)] = ReadGene(symbol, written, start, end, False,
                                               "an ordinary word, with no gene, variant or mutation beside it")
            else:
                found[(start, end)] = ReadGene(symbol, written, start, end, True, "a gene symbol")
        return list(found.values())


def _with_polarity(finding: ReadFinding, polarity: str) -> ReadFinding:
    if finding.how == "normal":  # "normal hearing": the abnormality is absent (unless said of a relative, hedged)
        polarity = {PRESENT: ABSENT, ABSENT: PRESENT}.get(polarity, polarity)
    return replace(finding, polarity=polarity)


def _tested(gene: ReadGene, polarity: str) -> ReadGene:
    if gene.counted and polarity == ABSENT:
        return ReadGene(gene.symbol, gene.text, gene.start, gene.end, False, "tested negative")
    return gene


def _longest_first(candidates: list[ReadFinding]) -> list[ReadFinding]:
    order = {how: i for i, how in enumerate(_HOW_ORDER)}
    chosen: list[ReadFinding] = []
    for found in sorted(candidates, key=lambda f: (-(f.end - f.start), order.get(f.how, len(order)), f.start)):
        if not any(found.start < other.end and other.start < found.end for other in chosen):
            chosen.append(found)
    return sorted(chosen, key=lambda f: f.start)


_MINUS = re.compile(r"(?:^|\s)[-\u2212]$")
_NEWBORN = re.compile(r"\b(?:newborn|new-born|neonate)\b", re.IGNORECASE)  # an age in words: 0 years


def _signed(text: str, span) -> str:
    """The span's text with a minus sign written just before it ("a -5 year old"), which the tagger leaves out:
    dropping it would turn an impossible age into a plausible one."""
    return "-" + span.text if _MINUS.search(text[max(span.start - 2, 0):span.start]) else span.text
