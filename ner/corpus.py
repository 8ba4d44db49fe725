"""Reading the CoNLL corpus: ``token -X- _ TAG`` lines, a blank line between sentences.

A line ``# text = ...`` before a sentence gives its raw text (our free-text test file
uses it so that predictions on realistic text can be scored by character offsets);
other lines starting with ``#`` that are not token lines are comments.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fpkg.errors import CorpusError
from ner.labels import is_valid_tag, tag_spans

__all__ = ["SPLITS", "CorpusError", "Sentence", "corpus_path", "read_conll"]

SPLITS = ("train", "dev", "test")
_TEXT_PREFIX = "# text = "


@dataclass(frozen=True)
class Sentence:
    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    text: str | None = None  # raw text from a ``# text =`` line, when given
    source: str = ""  # "file:line" of the first token, for messages
    offsets: tuple[tuple[int, int], ...] = field(default=(), compare=False)

    def raw_text(self) -> str:
        return self.text if self.text is not None else " ".join(self.tokens)

    def char_offsets(self) -> tuple[tuple[int, int], ...]:
        """Character range of each token in :meth:`raw_text`."""
        if self.offsets:
            return self.offsets
        return _locate(self.tokens, self.raw_text(), self.source)

    def entities(self) -> list[tuple[str, int, int]]:
        """Gold entities as ``(type, char_start, char_end)`` in :meth:`raw_text`."""
        offsets = self.char_offsets()
        return [(kind, offsets[a][0], offsets[b - 1][1]) for kind, a, b in tag_spans(self.tags)]


def corpus_path(data_dir: Path, split: str) -> Path:
    """Where a split lives under the data folder (``Settings.data_dir``)."""
    if split not in SPLITS:
        raise CorpusError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    return Path(data_dir) / "corpus" / f"{split}.txt"


def read_conll(path: str | Path) -> list[Sentence]:
    """Read one CoNLL file; raise :class:`CorpusError` naming the file and line on bad input."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as e:
        raise CorpusError(f"{path}: file not found") from e
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from e
    return list(_parse(lines, str(path)))


def _parse(lines: Iterable[str], name: str) -> Iterable[Sentence]:
    tokens: list[str] = []
    tags: list[str] = []
    text: str | None = None
    first_line = 0
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            if tokens:
                yield _sentence(tokens, tags, text, f"{name}:{first_line}")
                tokens, tags = [], []
            text = None
            continue
        if len(fields) != 4 and line.startswith("#"):
            if line.startswith(_TEXT_PREFIX):
                if tokens:
                    raise CorpusError(f"{name}:{number}: '# text =' inside a sentence")
                text = line[len(_TEXT_PREFIX):]
            continue
        if len(fields) != 4:
            raise CorpusError(
                f"{name}:{number}: expected 4 fields 'token -X- _ TAG', found {len(fields)}: {line!r}"
            )
        token, tag = fields[0], fields[3]
        if not is_valid_tag(tag):
            raise CorpusError(f"{name}:{number}: unknown tag {tag!r} for token {token!r}")
        if not tokens:
            first_line = number
        tokens.append(token)
        tags.append(tag)
    if tokens:
        yield _sentence(tokens, tags, text, f"{name}:{first_line}")


def _sentence(tokens: list[str], tags: list[str], text: str | None, source: str) -> Sentence:
    offsets = _locate(tokens, text, source) if text is not None else ()
    return Sentence(tuple(tokens), tuple(tags), text, source, offsets)


def _locate(tokens: Iterable[str], text: str, source: str) -> tuple[tuple[int, int], ...]:
    """Find each token in order in the raw text; only whitespace may lie between them."""
    offsets = []
    position = 0
    for token in tokens:
        start = text.find(token, position)
        if start < 0 or text[position:start].strip():
            raise CorpusError(f"{source}: token {token!r} does not follow in the '# text =' line")
        position = start + len(token)
        offsets.append((start, position))
    if text[position:].strip():
        raise CorpusError(f"{source}: the '# text =' line has text after the last token")
    return tuple(offsets)
