"""Gene symbols that are also ordinary words: counted as the patient's gene only where a gene is meant.

"The rest of the examination", "their son", "born at term, AGA", "a CAT scan", the French article "des": each is a
gene symbol of the graph (REST, SON, AGA, CAT, DES) and none names a gene. Such a symbol counts only with a gene
cue beside it in its clause ("a heterozygous SON variant", "the CAT gene", "DES c.735+1G>A"). Ordinary: an English
word (lemminflect's lexicon, sklearn's stop words), a common word of another language the app reads (the
translator's), or an abbreviation of clinical notes (below). The set is worked out once per gene vocabulary and
kept in the cache: lemminflect's lexicon takes a second and a half to load.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from fpkg.pickles import read_pickle, write_pickle

FORMAT = 1
# Abbreviations of genetics and paediatric clinic notes that are also gene symbols or read like them: appropriate
# for gestational age, autosomal recessive / dominant, cerebral palsy, heart rate, creatine kinase, ...
CLINICAL_ABBREVIATIONS = frozenset({
    "aga", "sga", "lga", "ar", "ad", "xl", "xlr", "xld", "cp", "hr", "bp", "rr", "ck", "id", "dd", "gdd", "asd",
    "vsd", "pda", "pfo", "tof", "iugr", "ftt", "ofc", "hc", "ct", "cat", "mri", "eeg", "ecg", "ekg", "pet", "nicu",
    "picu", "ent", "gi", "gp", "ms", "ot", "pt", "slp", "hcm", "dcm", "chd", "snhl", "chl", "adhd", "ocd", "vus",
    "wes", "wgs", "cma", "fish", "ngs", "pcr", "mlpa", "snp", "cnv", "loh", "upd", "dna", "rna", "icu", "er", "or",
    "iq", "tsh", "gh", "lh", "fsh", "acth", "pth", "alt", "ast", "ldh", "crp", "esr", "hb", "wbc", "mcv", "plt",
})
# Words beside a symbol that say it names a gene
GENE_CUES = frozenset({
    "gene", "genes", "variant", "variants", "mutation", "mutations", "mutated", "heterozygous", "homozygous",
    "hemizygous", "compound", "novo", "pathogenic", "deletion", "duplication", "frameshift", "missense", "nonsense",
    "splice", "splicing", "allele", "alleles", "exon", "intron", "sequencing", "related", "carrier",
    "truncating", "biallelic", "monoallelic", "germline", "mosaic", "locus",
})
CUE_WINDOW = 3  # words on each side
_WORD = re.compile(r"[A-Za-z0-9]+")
_CLAUSE_END = re.compile(r"[;,:()\n]|\.(?:\s|$)")
_VARIANT = re.compile(r"\b[cgp]\.\S|\bp\.\(|\bexon\b", re.IGNORECASE)


def ordinary_symbols(symbols: Iterable[str], other_words: Iterable[str], cache_dir: Path | None) -> frozenset[str]:
    """The symbols (as given) whose lower case is an ordinary word (see the module's docstring); `other_words`:
    the other languages' common words."""
    symbols = sorted(set(symbols))
    others = frozenset(word.lower() for word in other_words)
    digest = hashlib.sha256("\n".join([*symbols, "", *sorted(others)]).encode()).hexdigest()[:16]
    path = cache_dir / "reader" / f"ordinary-symbols-{FORMAT}-{digest}.pickle" if cache_dir else None
    found = read_pickle(path) if path else None
    if isinstance(found, frozenset):
        return found
    from lemminflect import getAllLemmas
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    def ordinary(word: str) -> bool:
        return (word in ENGLISH_STOP_WORDS or word in CLINICAL_ABBREVIATIONS or word in others
                or (word.isalpha() and bool(getAllLemmas(word))))

    found = frozenset(symbol for symbol in symbols if ordinary(symbol.lower()))
    if path:
        write_pickle(path, found)
    return found


def has_gene_cue(text: str, start: int, end: int) -> bool:
    """Whether the words around `text[start:end]` (a symbol), within its clause, say it names a gene."""
    left = _CLAUSE_END.split(text[:start])[-1]
    right = _CLAUSE_END.split(text[end:])[0]
    before, after = _WORD.findall(left)[-CUE_WINDOW:], _WORD.findall(right)[:CUE_WINDOW]
    if any(word.lower() in GENE_CUES for word in before + after):
        return True
    return bool(_VARIANT.search(right[:40]))
