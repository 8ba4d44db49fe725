"""The token-classification model applied to lists of words, with sliding windows.

Shared by training (dev scores), evaluation and inference so that all three read the
model's output the same way: one prediction per word, from its first sub-token, taken
from the window where that sub-token has the most context on both sides.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from transformers import AutoModelForTokenClassification, AutoTokenizer
from transformers.utils import logging as hf_logging

from fpkg.errors import LabelError
from ner.labels import resolve_id2label
from ner.spans import WordTag

DEFAULT_MAX_LENGTH = 256
DEFAULT_STRIDE = 64


class WordTagger:
    """Labels pre-split words with a token-classification model."""

    def __init__(self, model, tokenizer, *, max_length: int = DEFAULT_MAX_LENGTH,
                 stride: int = DEFAULT_STRIDE, batch_size: int = 16) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise LabelError("a fast tokenizer (tokenizer.json) is needed for word alignment")
        if stride >= max_length - 2:
            raise ValueError(f"stride {stride} must be smaller than max_length {max_length} - 2")
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.id2label = resolve_id2label(model.config.id2label)
        self.max_length = max_length
        self.stride = stride
        self.batch_size = batch_size

    @classmethod
    def from_pretrained(cls, name_or_path: str | Path, *, local_files_only: bool = False,
                        **kwargs) -> WordTagger:
        hf_logging.disable_progress_bar()  # no "Loading weights" bar in a server's log: the start says it in words
        tokenizer = AutoTokenizer.from_pretrained(str(name_or_path), local_files_only=local_files_only)
        model = AutoModelForTokenClassification.from_pretrained(
            str(name_or_path), local_files_only=local_files_only
        )
        return cls(model, tokenizer, **kwargs)

    @torch.inference_mode()
    def tag(self, sentences: Sequence[Sequence[str]]) -> list[list[WordTag]]:
        """One :class:`WordTag` per word of each sentence (``O`` for words with no sub-token)."""
        results: list[list[WordTag]] = [[WordTag("O", 1.0)] * len(words) for words in sentences]
        # Shortest first so that each batch pads little.
        order = sorted((i for i, words in enumerate(sentences) if words), key=lambda i: len(sentences[i]))
        for chunk_start in range(0, len(order), self.batch_size):
            chunk = order[chunk_start:chunk_start + self.batch_size]
            self._tag_chunk([list(sentences[i]) for i in chunk], [results[i] for i in chunk])
        return results

    def _tag_chunk(self, batch: list[list[str]], outputs: list[list[WordTag]]) -> None:
        enc = self.tokenizer(
            batch, is_split_into_words=True, truncation=True, max_length=self.max_length,
            stride=self.stride, return_overflowing_tokens=True, return_offsets_mapping=True,
            padding=True, return_tensors="pt",
        )
        sample_of = enc["overflow_to_sample_mapping"].tolist()
        offsets = enc["offset_mapping"].tolist()
        probs = []
        for start in range(0, len(sample_of), self.batch_size):
            window = slice(start, start + self.batch_size)
            logits = self.model(
                input_ids=enc["input_ids"][window], attention_mask=enc["attention_mask"][window]
            ).logits
            probs.append(torch.softmax(logits.float(), dim=-1))
        probs_all = torch.cat(probs)
        best_score, best_label = probs_all.max(dim=-1)
        # word -> (is_word_start, context margin, window, position) of its best sub-token
        chosen: list[dict[int, tuple[bool, int, int, int]]] = [{} for _ in batch]
        for w, sample in enumerate(sample_of):
            word_ids = enc.word_ids(w)
            length = sum(1 for wid in word_ids if wid is not None)
            seen = set()
            for position, word in enumerate(word_ids):
                if word is None or word in seen:
                    continue
                seen.add(word)
                key = (offsets[w][position][0] == 0, min(position - 1, length - position), w, position)
                if word not in chosen[sample] or key[:2] > chosen[sample][word][:2]:
                    chosen[sample][word] = key
        for sample, words in enumerate(chosen):
            for word, (_, _, w, position) in words.items():
                outputs[sample][word] = WordTag(
                    self.id2label[int(best_label[w, position])], float(best_score[w, position])
                )
