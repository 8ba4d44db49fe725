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

from fpkg.errors import ModelNotFound
from ner.dictionary import EntityDictionary
from ner.merge import merge_spans
from ner.model_choice import looks_local
from ner.rules import RuleTagger
from ner.spans import Span, spans_from_words
from ner.text import clean, split_words
from ner.vocabulary import default_dictionary, hpo_disease_names, hpo_phenotype_names

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
        self.unavailable: str | None = None  # why the named model is not used, in plain words

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
        dictionary = None
        if rules and phenotype_vocabulary is None and disease_vocabulary is None:
            dictionary = default_dictionary(gene_vocabulary)  # made once, kept in the cache
        elif rules:
            dictionary = EntityDictionary(
                hpo_phenotype_names() if phenotype_vocabulary is None else phenotype_vocabulary,
                hpo_disease_names() if disease_vocabulary is None else disease_vocabulary,
                gene_vocabulary)
        if model is None or not str(model).strip():
            return cls(None, rule_tagger, "no NER model configured (NER_MODEL); using rules only", None, dictionary)
        name = str(model).strip()
        local = looks_local(name)
        if local and not Path(name).expanduser().is_dir():
            return cls(None, rule_tagger, f"NER model folder {name} not found; using rules only", name, dictionary)
        try:
            folder = Path(name).expanduser() if local else _hub_snapshot(name, revision)
        except ModelNotFound as e:
            return cls._without_model(name, str(e), rule_tagger, dictionary)
        from safetensors import SafetensorError

        from ner.tagger import WordTagger  # torch and transformers: only for a model that is there

        try:
            tagger = WordTagger.from_pretrained(folder, local_files_only=True)
        except (OSError, ValueError, SafetensorError) as e:
            # OSError: a missing or unreadable file; ValueError: a bad config, or labels we cannot read;
            # SafetensorError: damaged weights.
            return cls._without_model(name, _first_line(e), rule_tagger, dictionary)
        return cls(tagger, rule_tagger, None, name, dictionary)

    @classmethod
    def _without_model(cls, name: str, why: str, rules: RuleTagger | None,
                       dictionary: EntityDictionary | None) -> EntityRecognizer:
        notice = f"NER model {name} could not be loaded ({why}); using rules only"
        log.info(notice)  # the caller gets it as .notice and decides how to show it
        recognizer = cls(None, rules, notice, name, dictionary)
        recognizer.unavailable = why
        return recognizer

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
    """The files a token classifier needs, from the local Hub cache, downloaded first when the Hub can
    be reached (fpkg.hub learns that once per process: offline, no lookup tries the network)."""
    from fpkg import hub

    offline = hub.offline_reason()
    at = f" at {revision}" if revision else ""
    if offline is not None:
        folder = hub.cached_snapshot(repo_id, revision)
        if folder is None:
            raise ModelNotFound(f"it is not in this machine's Hugging Face cache{at}, and the Hugging Face Hub "
                                "cannot be reached")
        return folder
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import (
        HfHubHTTPError,
        HFValidationError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    try:
        return Path(snapshot_download(repo_id, revision=revision, allow_patterns=_MODEL_FILES))
    except LocalEntryNotFoundError as e:  # the Hub answered the probe but not the lookup
        status = getattr(getattr(e.__cause__, "response", None), "status_code", None)
        if status is not None:  # it answered, with an error
            raise ModelNotFound(f"it is not in this machine's Hugging Face cache{at}, and the Hugging Face Hub "
                                f"answered HTTP {status}") from None
        hub.went_offline("the Hugging Face Hub did not answer")  # no later lookup asks it again
        raise ModelNotFound(f"it is not in this machine's Hugging Face cache{at}, and the Hugging Face Hub "
                            "did not answer") from None
    except RevisionNotFoundError:
        raise ModelNotFound(f"the Hugging Face Hub has no revision {revision} of it") from None
    except RepositoryNotFoundError:
        raise ModelNotFound("the Hugging Face Hub has no model of that name (or it is private)") from None
    except HFValidationError:
        raise ModelNotFound("that is not a Hugging Face model id") from None
    except HfHubHTTPError as e:
        status = getattr(getattr(e, "response", None), "status_code", None)
        raise ModelNotFound(f"the Hugging Face Hub answered HTTP {status}" if status else
                            "the Hugging Face Hub could not be read") from None
    except (OSError, ValueError) as e:  # the cache folder cannot be written, an odd answer
        raise ModelNotFound(_first_line(e)) from None


_MODEL_FILES = ["*.json", "*.safetensors", "pytorch_model*.bin", "vocab.txt", "*.model", "merges.txt"]


def _with_text(span: Span, original: str | None) -> Span:
    text = (original or "")[span.start:span.end]
    return Span(span.type, text, span.start, span.end, span.score, span.source)


def _first_line(error: BaseException) -> str:
    message = str(error).strip().splitlines()
    return message[0] if message else type(error).__name__
