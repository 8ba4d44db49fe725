"""Finding what a free question asks, without an LLM: the entities it names (by the graph's
own vocabulary) and the intent (cue words for the asked-for type, and the named types)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from fpkg.names import fold_name, normalise
from graphstore import schema
from retrieval.linking import EntityLinker
from retrieval.result import Link

# The labels a question's names are looked up in, in the order a tie between them is settled.
LABEL_TO_TYPE = {schema.DISEASE: "DISEASE", schema.PHENOTYPE: "FACIAL_PHENOTYPE", schema.GENE: "GENE"}
# Words and punctuation marks: OMIM's longer names run to a dozen words with commas and parentheses.
MAX_NAME_TOKENS = 40
TYPO_MAX_TOKENS = 24  # the longest run of words and punctuation looked up as a misspelt name
TYPO_MIN_LETTERS = 3  # a word that can hold a typo ("wth", "orl")
TYPO_LABELS = (schema.PHENOTYPE, schema.DISEASE)  # not genes: one edit turns CHD7 into CHD8, another gene

# Cue words for what the question asks for, in the vocabulary of the asked-for thing.
CUES = {
    "synonym": ("synonym", "other name", "also called", "also known", "alias", "alternative name", "alternative term",
                "alternate name", "alternate term", "alt name", "alt. name", "known as", " aka ", "else is",
                "else called", "is it called", "also termed", "other term", "another name", "different name",
                "other word", "equivalent term"),
    "article": ("article", "paper", "publication", "pmid", "literature", "reference"),
    "case": ("case", "patient", "sample", "individual"),
    "variant": ("variant", "mutation", "variation", "hgvs", "allele"),
    "FacePhenotype": ("phenotype", "feature", "sign", "finding", "dysmorphi", "characteristic", "face", "facial",
                      "look"),
    "Disease": ("disease", "syndrome", "disorder", "condition", "diagnos"),
    "Genotype": ("gene",),
}
# (asked-for thing, label of the named entity) → intent
INTENTS = {
    ("FacePhenotype", "Disease"): "phenotypes_of_disease",
    ("FacePhenotype", "Genotype"): "phenotypes_of_gene",
    ("Disease", "Genotype"): "diseases_of_gene",
    ("Disease", "FacePhenotype"): "diseases_with_phenotypes",
    ("Genotype", "Disease"): "genes_of_disease",
    ("Genotype", "FacePhenotype"): "genes_with_phenotype",
    ("synonym", "FacePhenotype"): "synonyms_of_phenotype",
    ("variant", "Genotype"): "variants_of_gene",
    ("case", "Genotype"): "cases_of_gene",
    ("article", "Disease"): "articles_of_disease",
    ("article", "Genotype"): "articles_of_gene",
}
DESCRIBING = ("case", "variant")
CUE_WORDS = frozenset(word for cues in CUES.values() for cue in cues for word in cue.split())
DISEASE_WORDS = re.compile(r"\b(syndrom\w*|disease|disorder|condition|sequence|dysplasia)\b", re.IGNORECASE)
_WORD = re.compile(r"[\w'-]+|\S")


@dataclass(frozen=True)
class Intent:
    name: str
    label: str  # the label of the nodes the template takes
    links: tuple[Link, ...]


def find_mentions(question: str, linker: EntityLinker, alternatives: bool = False) -> list[Link]:
    """Names of graph nodes in the question (`mention_spans` without their places)."""
    return [link for _, _, link in mention_spans(question, linker, alternatives)]


def mention_spans(question: str, linker: EntityLinker,
                  alternatives: bool = False) -> list[tuple[int, int, Link]]:
    """Names of graph nodes in the question, longest first and without overlaps, each with its character span.

    A node's own name beats another label's synonym ("Crouzon syndrome" is a disease before
    it is a synonym of a phenotype), and a disease's every name (MONDO's label, an OMIM or Orphanet
    label MONDO maps: "Frontorhiny") is read as that disease before its words are read as phenotypes
    ("Blepharophimosis, ptosis, and epicanthus inversus"); with `alternatives`, the other readings
    follow at the end, for intent detection to fall back on. A gene symbol in lower case counts unless it is an
    ordinary word ("set" in "low set ears", "was"); words that match no name are then looked up as
    misspelt phenotype or disease names."""
    words = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(question)]
    # a run's key is its tokens' keys joined: what normalise() gives the run's text, tokens folded once
    pieces = [normalise(token) for token, _, _ in words]
    folds = [fold_name(token) for token, _, _ in words]  # as MONDO's names are keyed (plurals kept)
    wordlike = [_is_word(token) for token, _, _ in words]  # a name starts and ends with a word, not punctuation
    vocabularies = {label: linker.vocabulary(label) for label in LABEL_TO_TYPE}
    ordinary = ordinary_words(linker)
    # A run holding a word that no name holds is no name: most runs of a question are passed over
    # without being joined and looked up (counts of such words before each token, per kind of name).
    no_name = _counts_of(pieces, name_words(linker))
    no_mondo = _counts_of(folds, linker.mondo.name_words if linker.mondo else frozenset())
    taken = [False] * len(words)
    links: list[tuple[int, int, Link]] = []
    others: list[tuple[int, int, Link]] = []
    for size in range(min(MAX_NAME_TOKENS, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            # a name starts and ends with a word of its own (not a word of another script it folds away)
            if not pieces[i] or not pieces[i + size - 1] or not wordlike[i] or not wordlike[i + size - 1] \
                    or any(taken[i:i + size]):
                continue
            if no_name[i + size] > no_name[i] and no_mondo[i + size] > no_mondo[i]:
                continue
            text = question[words[i][1]:words[i + size - 1][2]]
            key = " ".join(piece for piece in pieces[i:i + size] if piece)
            found = [linker.link(text, LABEL_TO_TYPE[label]) for label, vocabulary in vocabularies.items()
                     if key and key in vocabulary
                     and (label != "Genotype" or _written_as_gene(words, i, text, ordinary))]
            found = [link for link in found if link.node_id is not None]
            if not found and (size > 1 or key not in ordinary):  # a name MONDO, OMIM or Orphanet gives it
                folded = " ".join(fold for fold in folds[i:i + size] if fold)
                named = linker.mondo_link(text) if linker.mondo and linker.mondo.named_folded(folded) else None
                found = [named] if named is not None and named.node_id is not None else []
            if found:
                found.sort(key=lambda link: (link.method != "exact", list(LABEL_TO_TYPE).index(link.label)))
                span = (words[i][1], words[i + size - 1][2])
                links.append((*span, found[0]))
                others.extend((*span, link) for link in found[1:])
                taken[i:i + size] = [True] * size
    links += _typo_mentions(question, words, taken, linker, ordinary, pieces, wordlike)
    return links + others if alternatives else links


@functools.lru_cache(maxsize=8)  # once per linker: a pipeline has one
def ordinary_words(linker: EntityLinker) -> frozenset[str]:
    """English function words and the words of phenotype and disease names: what a question is
    written in, as opposed to gene symbols and misspellings."""
    english = ENGLISH_STOP_WORDS | CUE_WORDS
    # disease names hold gene symbols ("FGFR2-related craniosynostosis"): those stay symbols
    disease_words = linker.words("Disease") - set(linker.vocabulary("Genotype"))
    return frozenset(english | {normalise(word) for word in english} | linker.words("FacePhenotype") | disease_words)


@functools.lru_cache(maxsize=8)  # once per linker: a pipeline has one
def name_words(linker: EntityLinker) -> frozenset[str]:
    """Every word of every name and synonym the linker looks runs of words up in."""
    return frozenset(word for label in LABEL_TO_TYPE for key in linker.vocabulary(label) for word in key.split())


def _counts_of(keys: list[str], known: frozenset[str]) -> list[int]:
    """How many of the tokens before each position hold a word outside `known` (an empty key holds none)."""
    counts = [0]
    for key in keys:
        counts.append(counts[-1] + (not all(word in known for word in key.split())))
    return counts


def _typo_mentions(question: str, words: list[tuple[str, int, int]], taken: list[bool], linker: EntityLinker,
                   ordinary: frozenset[str], pieces: list[str], wordlike: list[bool]) -> list[tuple[int, int, Link]]:
    """Misspelt names among the words nothing matched: runs of words that hold at least one word
    of no name or English (the likely typo), matched by edit similarity, longest runs first."""
    unknown = [is_word and len(token) >= TYPO_MIN_LETTERS and not any(c.isdigit() for c in token)
               and not all(word in ordinary for word in piece.split())
               for (token, _, _), piece, is_word in zip(words, pieces, wordlike, strict=True)]
    found: list[tuple[int, int, Link]] = []
    for size in range(min(TYPO_MAX_TOKENS, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            if not wordlike[i] or not wordlike[i + size - 1] or words[i][0].lower() in ENGLISH_STOP_WORDS \
                    or not any(unknown[i:i + size]) or any(taken[i:i + size]):  # "for Autosomal ..." is no name
                continue
            run = words[i:i + size]
            text = question[run[0][1]:run[-1][2]]
            matches = [m for label in TYPO_LABELS if (m := linker.typo_match(text, LABEL_TO_TYPE[label]))]
            if matches:  # a disease before a phenotype's synonym when the name says so ("syndrom"), or on a tie
                disease_meant = bool(DISEASE_WORDS.search(text))
                found.append((run[0][1], run[-1][2],
                              max(matches, key=lambda link: (link.label == schema.DISEASE and disease_meant,
                                                             link.score, link.label == schema.DISEASE))))
                taken[i:i + size] = [True] * size
    return found


def _is_word(token: str) -> bool:
    return any(c.isalnum() for c in token)


def _written_as_gene(words: list[tuple[str, int, int]], i: int, text: str, ordinary: frozenset[str]) -> bool:
    """A symbol in capitals, one after the word 'gene', or one in lower case that is no ordinary word."""
    after_gene = i > 0 and words[i - 1][0].lower() in ("gene", "genes")
    if after_gene:
        return True
    if len(text) < 2 or not any(c.isalpha() for c in text):
        return False
    return text.upper() == text or text.lower() not in ordinary


def asked_for(question: str) -> list[str]:
    """The things the question's cue words name, in the order they appear; patients and variants
    last, because they often describe the case ("patients with TDP2 variants: how do they look?")
    rather than name what is asked for."""
    lowered = question.lower()
    found = []
    for thing, cues in CUES.items():
        positions = [lowered.find(cue) for cue in cues if cue in lowered]
        if positions:
            found.append((thing in DESCRIBING, min(positions), thing))
    return [thing for _, _, thing in sorted(found)]


LOOKED_FOR_CHARS = 80
EXAMPLE_QUESTIONS = {"Disease": "What facial phenotypes are associated with {}?",
                     "Genotype": "Which diseases is {} linked to?",
                     "FacePhenotype": "Which diseases show {}?"}


def nothing_found(question: str, links: list[Link]) -> str:
    """What to say when no question type was recognised: the entities that were found, with a
    question the graph can answer about the first; else the words that were looked for."""
    found = list(dict.fromkeys(link.name for link in links if link.name))
    if found:
        first = next(link for link in links if link.name == found[0])
        example = EXAMPLE_QUESTIONS.get(first.label, "What is known about {}?").format(first.name)
        return (f"Found {', '.join(found[:5])} in the graph, but not what is asked about "
                f"{'it' if len(found) == 1 else 'them'}; ask, for example: “{example}”")
    content = [w for w in _WORD.findall(question) if any(c.isalnum() for c in w)
               and w.lower() not in ENGLISH_STOP_WORDS and not w.lower().startswith(tuple(CUE_WORDS))]  # and plurals
    if not content:
        return "Nothing to look for: the question holds only common words or punctuation."
    looked_for = " ".join(content)
    if len(looked_for) > LOOKED_FOR_CHARS:
        looked_for = looked_for[:LOOKED_FOR_CHARS].rsplit(" ", 1)[0] + " …"
    said = f"Nothing found for “{looked_for}”: no disease, gene or facial phenotype of the graph was recognised."
    return " ".join([said, *unknown_names(question)])


# written as a gene symbol (capitals and digits), or as a name with capitals ending in syndrome or disease
_SYMBOL = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]+)?(?![\w-])")
_NAMED_DISEASE = re.compile(r"(?:\b[A-Z][\w'’]*(?:[\s-]+(?:and\s+)?[A-Z][\w'’]*)*)\s+(?:syndrome|disease)\b")
_NOT_SYMBOLS = frozenset({"DNA", "RNA", "OMIM", "HPO", "MONDO", "FPKG", "ORPHA", "HGVS", "II", "III", "IV", "VI",
                          "VII", "VIII", "IX", "XI", "XII", "WHAT", "WHICH", "GENE", "GENES"})


def unknown_names(question: str) -> list[str]:
    """What the question names that reads as a real name the graph lacks (a gene symbol, an eponym): said
    to be unknown, since no such name is ever read as a neighbouring one."""
    said = []
    symbols = [s for s in _SYMBOL.findall(question) if s not in _NOT_SYMBOLS and (len(s) > 2 or s[-1].isdigit())]
    said += [f"“{symbol}” reads as a gene symbol that the graph does not hold; no other gene is read in its place."
             for symbol in dict.fromkeys(symbols)]
    said += [f"“{name}” reads as a disease name that neither the graph nor MONDO holds; no other disease is read "
             "in its place." for name in dict.fromkeys(_NAMED_DISEASE.findall(question))]
    return said[:3]




def detect_intent(question: str, links: list[Link]) -> Intent | None:
    """The intent whose asked-for thing is cued and whose entity type is linked."""
    linked_labels = [link.label for link in links if link.node_id is not None]
    for thing in asked_for(question):
        for label in dict.fromkeys(linked_labels):
            if thing == label:
                continue
            intent = INTENTS.get((thing, label))
            if intent:
                chosen = tuple(link for link in links if link.label == label)
                return Intent(intent, label, chosen)
    return None
