"""Entity linking: a mention and its NER type → graph nodes with scores.

Tried in order: exact name, synonym (both after normalising case, punctuation and
plurals); for a disease, a name MONDO gives it (MONDO's, OMIM's or Orphanet's label: the node
with that MONDO id, or, when the graph lacks the disease, a link without a node that carries
its ids); then candidates from character n-gram TF-IDF and from sentence embeddings in
FAISS: one a few edits away (rapidfuzz ratio) is taken as a typo, else the closest in
meaning. A typo never changes a number, a Roman numeral, a subtype letter or a known word
(`fpkg.names.keeps_identity`). Below the thresholds a mention links to nothing, and says so.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Set
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np
import sklearn
from rapidfuzz import fuzz, process
from sklearn.feature_extraction.text import TfidfVectorizer

from fpkg.names import fold_name, keeps_identity, normalise, without_abbreviation
from fpkg.pickles import read_pickle, write_pickle
from fpkg.variant_keys import variant_keys
from graphstore import schema
from graphstore.store import GraphStore
from identity.mondo import Mondo
from retrieval.result import Link
from retrieval.vector.embedder import embed

TYPE_TO_LABEL = {"FACIAL_PHENOTYPE": schema.PHENOTYPE, "GENE": schema.GENE, "DISEASE": schema.DISEASE,
                 "MUTATION": schema.VARIANT}
EMBEDDED_LABELS = (schema.PHENOTYPE,)  # names that vary in wording; diseases and genes use n-grams
EMBEDDING_THRESHOLD = 0.78
FUZZY_THRESHOLD = 0.8  # edit similarity (rapidfuzz ratio / 100) of an n-gram candidate
PLACEHOLDERS = {"none", "na", "n/a", "null", "-"}  # "synonyms" FPKG stores for none
TYPO_RATIO = 0.88  # edit similarity of a typo found inside a question: one edit in a 9-letter name
INDEX_FORMAT = 2  # of the cached text index (_text_index): a new format is made anew, not misread
TYPO_MIN_CHARS = 7  # shorter names are too close to other names for one edit to be a typo

_ALIAS_QUERIES = {
    "FacePhenotype": "MATCH (n:FacePhenotype) RETURN n.nid AS id, n.phenotypeName AS name, "
                     "n.synonyms AS synonyms",
    "Disease": "MATCH (n:Disease) RETURN n.nid AS id, n.dname AS name, n.hpo_name AS synonyms, "
               "n.other_names AS more_synonyms, n.mondo_id AS mondo",
    "Genotype": "MATCH (n:Genotype) RETURN n.nid AS id, n.geneName AS name, null AS synonyms",
}
_VARIATION_QUERY = ("MATCH (n:Variation) RETURN n.nid AS id, n.details AS name, "
                    "n.variation_gene_name AS gene")


@dataclass(frozen=True)
class Alias:
    node_id: int
    label: str
    name: str  # the node's own name
    text: str  # the name or one synonym
    is_synonym: bool


def _split_synonyms(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if v]
    return [s.strip() for s in str(value or "").split(";") if s.strip()]


def aliases_from_store(store: GraphStore) -> list[Alias]:
    aliases: list[Alias] = []
    for label, cypher in _ALIAS_QUERIES.items():
        for row in store.query(cypher, timeout_ms=60_000):
            if not row["name"]:
                continue
            aliases.append(Alias(row["id"], label, row["name"], row["name"], False))
            synonyms = [*_split_synonyms(row["synonyms"]), *_split_synonyms(row.get("more_synonyms"))]
            aliases.extend(Alias(row["id"], label, row["name"], synonym, True)
                           for synonym in dict.fromkeys(synonyms)
                           if synonym != row["name"] and synonym.lower() not in PLACEHOLDERS)
    return aliases


def _hgvs_key(text: str) -> str:
    return re.sub(r"[\s()\[\]]+", "", text.lower())


class _LabelIndex:
    """Everything needed to link mentions to one label's nodes."""

    def __init__(self, aliases: list[Alias], vectors: np.ndarray | None, cache_dir: Path | None = None):
        self.aliases = aliases
        self.exact, self.ngrams, self.ngram_matrix, self.nearby, self.words = _cached(
            _text_index, aliases, cache_dir / "linking" if cache_dir else None, "text")
        self.faiss = None
        if vectors is not None and len(vectors):
            self.faiss = faiss.IndexFlatIP(vectors.shape[1])  # exact search: ~20k names
            self.faiss.add(vectors)


def _text_index(aliases: list[Alias]) -> tuple:
    """Exact keys, character n-grams, keys by length and common words of one label's aliases."""
    exact: dict[str, list[Alias]] = defaultdict(list)
    for alias in sorted(aliases, key=lambda a: a.is_synonym):  # names before synonyms
        exact[normalise(alias.text)].append(alias)
    ngrams = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), lowercase=True)
    ngram_matrix = ngrams.fit_transform([normalise(a.text) for a in aliases])
    # a typo is looked for among names of about its length with the same initials only
    by_shape: dict[tuple[int, str], list[str]] = defaultdict(list)
    for key in exact:
        by_shape[(len(key), _initials(key))].append(key)
    nearby: dict[tuple[int, str], list[str]] = defaultdict(list)
    for (size, initials), keys in by_shape.items():
        for near in range(max(size - 2, 0), size + 3):
            nearby[(near, initials)] += keys
    # words of two names or more: one name's own misspelling ("Seckel sydrome") is no word
    uses = Counter(word for key in exact for word in key.split())
    words = {word for word, count in uses.items() if count >= 2}
    return dict(exact), ngrams, ngram_matrix, dict(nearby), words


def _cached(make, aliases: list[Alias], folder: Path | None, kind: str):
    """`make(aliases)`, kept in `folder` under a hash of the aliases: the n-gram fit and the name
    keys take a second of every start, and change only with the graph's names."""
    if folder is None:
        return make(aliases)
    # pickles follow sklearn's version and this module's format
    contents = [INDEX_FORMAT, sklearn.__version__, *(tuple(vars(a).values()) for a in aliases)]
    key = hashlib.sha256(repr(contents).encode()).hexdigest()[:16]
    path = folder / f"{aliases[0].label}-{key}-{kind}.pickle"
    made = read_pickle(path)
    if made is None:  # not made yet, or damaged: make it again
        made = make(aliases)
        write_pickle(path, made)
    return made


class EntityLinker:
    def __init__(self, aliases: list[Alias], cache_dir: Path | None = None,
                 variations: list[dict] | None = None, mondo: Mondo | None = None,
                 disease_of_mondo: dict[str, int] | None = None):
        by_label: dict[str, list[Alias]] = defaultdict(list)
        for alias in aliases:
            by_label[alias.label].append(alias)
        self.indexes = {label: _LabelIndex(items, self._vectors(label, items, cache_dir), cache_dir)
                        for label, items in by_label.items()}
        self.variations = [(row["id"], row["name"], _hgvs_key(row["name"]), (row["gene"] or "").upper(),
                            variant_keys(row["name"])) for row in variations or [] if row["name"]]
        self.mondo = mondo or Mondo()
        self.disease_of_mondo = disease_of_mondo or {}  # MONDO id -> the disease node that has it
        self.mondo_of_disease = {node: mondo_id for mondo_id, node in self.disease_of_mondo.items()}
        self.name_of_node = {a.node_id: a.name for a in by_label.get(schema.DISEASE, ())}
        self.disease_synonyms: dict[int, list[str]] = defaultdict(list)  # the graph's other names of a disease
        for alias in by_label.get(schema.DISEASE, ()):
            if alias.is_synonym:
                self.disease_synonyms[alias.node_id].append(alias.text)
        # a second and a half of every start (every MONDO and OMIM label folded): kept with the text indexes
        mondo_key = f"known-words-{self.mondo.release or 'none'}-{len(self.mondo.labels)}-{len(self.mondo.xref_labels)}"
        self.known_words = _cached(lambda names: _known_words(names, self.mondo), aliases, cache_dir, mondo_key) \
            if aliases else _known_words(aliases, self.mondo)

    @classmethod
    def from_store(cls, store: GraphStore, cache_dir: Path | None = None, mondo: Mondo | None = None) -> EntityLinker:
        variations = store.query(_VARIATION_QUERY, timeout_ms=60_000)
        return cls(aliases_from_store(store), cache_dir, variations, mondo, _diseases_by_mondo(store))

    @staticmethod
    def _vectors(label: str, aliases: list[Alias], cache_dir: Path | None) -> np.ndarray | None:
        if label not in EMBEDDED_LABELS:
            return None
        texts = [a.text for a in aliases]
        key = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
        path = cache_dir / "linking" / f"{label}-{key}.npy" if cache_dir else None
        if path is not None and path.exists():
            return np.load(path)
        vectors = embed(texts, desc=f"embedding {label} names", workers=0)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, vectors)
        return vectors

    def vocabulary(self, label: str) -> Set[str]:
        """Normalised names and synonyms of one label's nodes (a view: looked up per word run)."""
        index = self.indexes.get(label)
        return index.exact.keys() if index else frozenset()

    def words(self, label: str) -> set[str]:
        """The words of one label's normalised names and synonyms."""
        index = self.indexes.get(label)
        return index.words if index else set()

    def typo_match(self, mention: str, entity_type: str, min_ratio: float = TYPO_RATIO) -> Link | None:
        """The name `mention` is a typo of (one or two edits in a long name), None when none is that close.
        Looked for among names within two characters of its length, by edit similarity alone."""
        label = TYPE_TO_LABEL[entity_type]
        index = self.indexes.get(label)
        if index is None:
            return None
        found = []
        # with and without plurals folded: folding a misspelt word ("strabisums") makes it worse
        for key in {normalise(mention), fold_name(mention)}:
            if len(key) < TYPO_MIN_CHARS:
                continue
            # a slip of the keyboard keeps each word's first letter: "TABLE diseases" is no "Eales disease"
            match = process.extractOne(key, index.nearby.get((len(key), _initials(key)), ()), scorer=fuzz.ratio,
                                       score_cutoff=min_ratio * 100)
            found += [match] if match else []
        found = [match for match in found if keeps_identity(mention, match[0], self.known_words)]
        if not found:
            return None
        best = max(found, key=lambda match: match[1])
        alias = index.exact[best[0]][0]
        return Link(mention, entity_type, alias.node_id, label, alias.name, round(best[1] / 100, 4), "typo")

    def names(self, label: str) -> list[str]:
        index = self.indexes.get(label)
        return sorted({a.name for a in index.aliases}) if index else []

    def link(self, mention: str, entity_type: str, gene: str | None = None) -> Link:
        """The best node for `mention`, or a Link with node_id None saying nothing matched."""
        found = self.candidates(mention, entity_type, k=1, gene=gene)
        return found[0] if found else Link(mention, entity_type, None, method="none")

    def candidates(self, mention: str, entity_type: str, k: int = 5,
                   gene: str | None = None) -> list[Link]:
        label = TYPE_TO_LABEL.get(entity_type)
        mention = mention.strip()
        if not mention or label is None:
            return []
        if label == "Variation":
            return self._link_variation(mention, entity_type, gene)[:k]
        index = self.indexes.get(label)
        if index is None:
            return []
        key = normalise(mention)
        if not key:  # only punctuation, emoji or a redaction ('*****'): nothing to match on
            return []
        exact = index.exact.get(key)
        if label == "Genotype" and not exact:
            exact = index.exact.get(key.replace(" ", ""))
        if exact:
            alias = exact[0]
            # a disease asked about by another name: its ids go with it, for the answer to say which it is
            other_name = alias.is_synonym and label == schema.DISEASE
            ids = self._ids_of_mondo(self.mondo_of_disease.get(alias.node_id)) if other_name else ()
            return [Link(mention, entity_type, alias.node_id, label, alias.name, 1.0,
                         "synonym" if alias.is_synonym else "exact", ids)]
        if label == schema.DISEASE and (named := self.mondo_link(mention)) is not None:
            return [named]
        # A typo: the n-gram and embedding candidates that are a few edits away, the same disease or finding.
        candidates = [*self._by_ngrams(index, key, 20), *self._by_embedding(index, mention, k * 3)]
        fuzzy = sorted(((fuzz.ratio(key, normalise(a.text)) / 100, a) for _, a, _ in candidates
                        if keeps_identity(mention, a.text, self.known_words)),
                       key=lambda item: (-item[0], item[1].is_synonym, item[1].name))
        if fuzzy and fuzzy[0][0] >= FUZZY_THRESHOLD:
            scored = {}
            for score, alias in fuzzy:
                if score >= FUZZY_THRESHOLD and alias.node_id not in scored:
                    scored[alias.node_id] = (score, alias, "fuzzy")
        else:  # a paraphrase: meaning, not spelling
            scored = {}
            for score, alias, method in candidates:
                if method == "embedding" and score >= EMBEDDING_THRESHOLD and alias.node_id not in scored:
                    scored[alias.node_id] = (score, alias, method)
        ranked = sorted(scored.values(), key=lambda s: (-s[0], s[1].name))[:k]
        return [Link(mention, entity_type, a.node_id, label, a.name, round(s, 4), m) for s, a, m in ranked]

    def other_names(self, node: int) -> list[str]:
        """The names a graph disease has besides the graph's own (those its merged entries and published
        patients give it, then MONDO's label and the OMIM and Orphanet labels it maps), one per folded
        spelling: "Frontorhiny" for FRONTONASAL DYSPLASIA 1(FND1)."""
        mondo_id = self.mondo_of_disease.get(node)
        seen, found = {fold_name(without_abbreviation(self.name_of_node.get(node, "")))}, []
        for name in [*self.disease_synonyms.get(node, ()), *(self.mondo.names_of(mondo_id) if mondo_id else ())]:
            key = fold_name(without_abbreviation(name))
            if key not in seen:
                seen.add(key)
                found.append(name)
        return found

    def mondo_link(self, mention: str) -> Link | None:
        """The disease MONDO names so (its label, or an OMIM or Orphanet label it maps): the graph's node
        with that MONDO id, else a link without a node that carries the disease's OMIM and MONDO ids."""
        mondo_id = self.mondo.named(mention)
        if mondo_id is None:
            return None
        label = self.mondo.label(mondo_id)
        ids = self._ids_of_mondo(mondo_id)
        node = self.disease_of_mondo.get(mondo_id)
        if node is not None:
            return Link(mention, "DISEASE", node, schema.DISEASE, self.name_of_node.get(node, label), 1.0, "mondo", ids)
        return Link(mention, "DISEASE", None, None, label, 1.0, "mondo", ids)

    def _ids_of_mondo(self, mondo_id: str | None) -> tuple[str, ...]:
        """A MONDO disease's OMIM id and its MONDO id (those known)."""
        return tuple(x for x in (self.mondo.omim_of(mondo_id), mondo_id) if x) if mondo_id else ()

    @staticmethod
    def _by_embedding(index: _LabelIndex, mention: str, k: int) -> list[tuple[float, Alias, str]]:
        if index.faiss is None:
            return []
        scores, rows = index.faiss.search(embed([mention]), min(k, index.faiss.ntotal))
        return [(float(s), index.aliases[r], "embedding") for s, r in zip(scores[0], rows[0], strict=True)
                if r >= 0]

    @staticmethod
    def _by_ngrams(index: _LabelIndex, key: str, k: int) -> list[tuple[float, Alias, str]]:
        if not key:
            return []
        similarities = (index.ngram_matrix @ index.ngrams.transform([key]).T).toarray().ravel()
        top = np.argsort(-similarities)[:k]
        return [(float(similarities[i]), index.aliases[i], "ngram") for i in top if similarities[i] > 0]

    def _link_variation(self, mention: str, entity_type: str, gene: str | None) -> list[Link]:
        """The variations whose text holds the mention, then, within the gene, those that share one of
        its HGVS changes however written ("p.(P253R)" and "c.758C>G; p.Pro253Arg": `variant_keys`)."""
        key = _hgvs_key(mention)
        if len(key) < 4:
            return []
        gene = (gene or "").upper()
        if not gene:
            return [Link(mention, entity_type, vid, "Variation", name, 1.0, "hgvs")
                    for vid, name, details, _, _ in self.variations if key in details]
        keys, of_gene = variant_keys(mention), self.variations_of_gene.get(gene, ())
        links = [Link(mention, entity_type, vid, "Variation", name, 1.0, "hgvs")
                 for vid, name, details, _, _ in of_gene if key in details]
        found = {link.node_id for link in links}
        links += [Link(mention, entity_type, vid, "Variation", name, 1.0, "hgvs change")
                  for vid, name, _, _, changes in of_gene if keys & changes and vid not in found]
        return links

    @functools.cached_property
    def variations_of_gene(self) -> dict[str, list[tuple]]:
        """The variations (as `variations` holds them, in its order) of each gene symbol."""
        found: dict[str, list[tuple]] = defaultdict(list)
        for row in self.variations:
            found[row[3]].append(row)
        return dict(found)


def _known_words(aliases: list[Alias], mondo: Mondo) -> set[str]:
    """Words of two names or more, the graph's and MONDO's: a typo turns no such word into another."""
    texts = [a.text for a in aliases if a.label in (schema.DISEASE, schema.PHENOTYPE)]
    texts += [*mondo.labels.values(), *mondo.xref_labels.values()]
    uses = Counter(word for text in texts for word in set(normalise(text).split()))
    # a word a few names misspell alike ("syndrom") is no word: one edit from a word ten times as common
    common: dict[str, int] = {}
    for word, count in uses.items():
        for key in _deletions(word):
            common[key] = max(common.get(key, 0), count)
    return {word for word, count in uses.items() if count >= 2 and not any(
        common.get(key, 0) >= 10 * count for key in (word, *_deletions(word)))}


def _deletions(word: str) -> set[str]:
    """The word with one letter left out, every way (two words one edit apart share one of these)."""
    return {word[:i] + word[i + 1:] for i in range(len(word))} if len(word) > 3 else set()


_MONDO_IDS = "MATCH (d:Disease) WHERE d.mondo_id IS NOT NULL RETURN d.nid AS id, d.mondo_id AS mondo"


def _diseases_by_mondo(store: GraphStore) -> dict[str, int]:
    return {row["mondo"]: row["id"] for row in store.query(_MONDO_IDS, timeout_ms=60_000)}


def _initials(key: str) -> str:
    return "".join(word[0] for word in key.split())
