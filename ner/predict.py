"""Inference on raw text: the public entry point the pipeline calls.

    recognizer = EntityRecognizer.load(settings.ner_model, gene_vocabulary=graph_gene_symbols)
    spans = recognizer.predict("5yo F, c.1234del in KMT2D, arched eyebrows")

A model that cannot be loaded (no setting, a missing folder, a Hub id while offline) does
not stop the caller: the rules still run and ``notice`` says why the model is missing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ner.dictionary import EntityDictionary
from ner.merge import merge_spans
from ner.rules import RuleTagger
from ner.spans import Span, spans_from_words
from ner.text import clean, split_words
from ner.vocabulary import hpo_disease_names, hpo_phenotype_names

if TYPE_CHECKING:  # torch and transformers load only when a model does (seconds of a start)
    from ner.tagger import WordTagger

__all__ = ["EntityRecognizer", "Span"]

log = logging.getLogger(__name__)


class EntityRecognizer:
    """Model spans and rule spans, merged (see :mod:`ner.merge` for the precedence)."""

    def __init__(self, tagger: WordTagger | None, rules: RuleTagger | None,
                 notice: str | None = None, model_name: str | None = None,
                 dictionary: EntityDictionary | None = None) -> None:
        self.tagger = tagger
        self.rules = rules
        self.dictionary = dictionary
        self.notice = notice
        self.model_name = model_name

    @property
    def model_available(self) -> bool:
        return self.tagger is not None

    @classmethod
    def load(cls, model: str | Path | None, gene_vocabulary: Iterable[str] = (), *,
             rules: bool = True, phenotype_vocabulary: Iterable[str] | None = None,
             disease_vocabulary: Iterable[str] | None = None,
             revision: str | None = None) -> EntityRecognizer:
        """Load ``model`` (a folder, or a Hub id such as ``hfchloe/FP_NER`` at ``revision``); never raises
        for a model that is missing or unreadable: the recognizer falls back to rules. With
        ``rules``, the dictionary (``phenotype_vocabulary`` and ``disease_vocabulary``, else HPO's
        facial phenotype and disease names) judges and completes the model's phenotype and disease
        spans (see :mod:`ner.dictionary`)."""
        gene_vocabulary = list(gene_vocabulary)
        rule_tagger = RuleTagger(gene_vocabulary) if rules else None
        dictionary = EntityDictionary(
            hpo_phenotype_names() if phenotype_vocabulary is None else phenotype_vocabulary,
            hpo_disease_names() if disease_vocabulary is None else disease_vocabulary,
            gene_vocabulary) if rules else None
        if model is None or not str(model).strip():
            return cls(None, rule_tagger, "no NER model configured (NER_MODEL); using rules only", None, dictionary)
        name = str(model).strip()
        looks_local = Path(name).expanduser().exists() or name.startswith((".", "/", "~")) or name.count("/") > 1
        if looks_local and not Path(name).expanduser().is_dir():
            return cls(None, rule_tagger, f"NER model folder {name} not found; using rules only", name, dictionary)
        from safetensors import SafetensorError

        from ner.tagger import WordTagger

        try:
            folder = Path(name).expanduser() if looks_local else _hub_snapshot(name, revision)
            tagger = WordTagger.from_pretrained(folder)
        except (OSError, ValueError, SafetensorError) as e:
            # OSError: an unreachable Hub, a missing repo or file (huggingface_hub's errors
            # derive from it); ValueError: a bad id or config, or labels we cannot read;
            # SafetensorError: damaged weights.
            where = "" if looks_local else "no such folder, and from the Hub: "
            notice = f"NER model {name} could not be loaded ({where}{_first_line(e)}); using rules only"
            log.info(notice)  # the caller gets it as .notice and decides how to show it
            return cls(None, rule_tagger, notice, name, dictionary)
        return cls(tagger, rule_tagger, None, name, dictionary)

    def predict(self, text: str | None) -> list[Span]:
        """Entity spans in ``text`` (offsets into ``text`` as given); [] for empty input."""
        return self.predict_batch([text])[0]

    def predict_batch(self, texts: Sequence[str | None]) -> list[list[Span]]:
        cleaned = [clean(t) if t else "" for t in texts]
        words = [split_words(t) for t in cleaned]
        model_spans: list[list[Span]] = [[] for _ in texts]
        if self.tagger is not None:
            tags = self.tagger.tag([[w.text for w in ws] for ws in words])
            model_spans = [spans_from_words(t, ws, tg) for t, ws, tg in zip(cleaned, words, tags, strict=True)]
        results = []
        for text, original, spans in zip(cleaned, texts, model_spans, strict=True):
            if self.dictionary is not None:
                spans = self.dictionary.merge(spans, text)
            if self.rules is not None:
                spans = merge_spans(spans, self.rules.predict(text))
            # offsets are the same in the cleaned text; report the caller's characters
            results.append([_with_text(s, original) for s in spans] if text != original else spans)
        return results


def _hub_snapshot(repo_id: str, revision: str | None) -> Path:
    """Download (or find in the local cache) the files a token classifier needs.

    One snapshot call fails at once when the Hub is unreachable and nothing is cached,
    where ``from_pretrained`` would retry each file for tens of seconds.
    """
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(repo_id, revision=revision, allow_patterns=_MODEL_FILES))


_MODEL_FILES = ["*.json", "*.safetensors", "pytorch_model*.bin", "vocab.txt", "*.model", "merges.txt"]


def _with_text(span: Span, original: str | None) -> Span:
    text = (original or "")[span.start:span.end]
    return Span(span.type, text, span.start, span.end, span.score, span.source)


def _first_line(error: BaseException) -> str:
    message = str(error).strip().splitlines()
    return message[0] if message else type(error).__name__
