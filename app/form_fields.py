"""Form fields that take what clinicians type, through the page and through the API alike.

- `findings_box`: the findings dropdown (type to search ~8,800 names and synonyms, free text allowed),
  described to the API as a free list of strings: listing every choice made `view_api()` print 258 kB.
- `sex_box`: female, male or unknown; the API may send "", None or "unknown" (none given).
- `option_box` and `DiseaseNames`: an answer option with suggestions of the graph's disease names as the
  user types (asked of the server: ~10,000 names in each of four boxes would weigh on every page and session).
- `split_findings`: one entry per finding, whether they were picked one by one or typed as
  "coloboma, low-set ears; facial asymmetry" (a name that itself holds a comma is kept whole).
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from typing import Any

import gradio as gr

from fpkg.errors import InputError
from fpkg.names import normalise
from service.reader import SEXES, parse_sex
from service.validation import NEGATED_ENTRY

UNKNOWN_SEX = ("", "unknown", "not known", "none", "n/a", "na", "-", "?")
_SEPARATORS = re.compile(r"[,;\n\r]+")
_WITH_ID = re.compile(r"^[^\n;]*\(HP:\d{7}\)$")  # "Intellectual disability, mild (HP:0001256)" is one finding


def findings_box(choices: list[str], **kwargs: Any) -> gr.Dropdown:
    """A multiselect dropdown over `choices` whose API type is a free list of strings, not an enum of
    them. (Its description is set on the instance: a subclass of a Gradio component makes Gradio write a
    .pyi file beside this module at import.)"""
    box = gr.Dropdown(choices, multiselect=True, allow_custom_value=True, **kwargs)
    return _described(box, {"type": "array", "items": {"type": "string"},
                            "description": "findings, e.g. ['Hypertelorism', 'low-set ears'] (free text; "
                                           "commas split)"}, ["Hypertelorism"])


def option_box(**kwargs: Any) -> gr.Dropdown:
    """A disease name, typed freely, with the names that match what is typed offered (`DiseaseNames`)."""
    box = gr.Dropdown([], value=None, allow_custom_value=True, filterable=True, **kwargs)
    return _described(box, {"type": "string", "description": "a disease name (free text)"}, "CHARGE syndrome")


class DiseaseNames:
    """The graph's disease names and synonyms, for suggestions: those starting with what is typed first,
    then those holding it, shortest first."""

    SHOWN = 20
    MIN_CHARS = 2

    def __init__(self, names: Iterable[str]):
        self.names = sorted({name.strip(): None for name in names if name.strip()}, key=lambda n: (len(n), n))
        self.folded = [normalise(name) for name in self.names]

    def matching(self, text: object) -> list[str]:
        typed = normalise(str(text or ""))
        if len(typed) < self.MIN_CHARS:
            return []
        starts = [n for n, f in zip(self.names, self.folded, strict=True) if f.startswith(typed)]
        holds = [n for n, f in zip(self.names, self.folded, strict=True) if typed in f and not f.startswith(typed)]
        return (starts + holds)[:self.SHOWN]


def suggest(names: DiseaseNames, key: gr.KeyUpData) -> dict:
    """The option box's suggestions for what is typed in it."""
    return gr.update(choices=names.matching(key.input_value))


def sex_box(**kwargs: Any) -> gr.Dropdown:
    """female, male or unknown; any string reaches the handler, which checks it (`parse_form_sex`)."""
    box = gr.Dropdown(sex_choices(), allow_custom_value=True, **kwargs)
    return _described(box, {"type": "string", "description": f"{', '.join(SEXES)} or unknown (also '' or null)"},
                      "female")


def _described(box: gr.Dropdown, info: dict[str, Any], example: Any) -> gr.Dropdown:
    box.api_info = lambda: info
    box.example_payload = box.example_value = lambda: example
    return box


def sex_choices() -> list[str]:
    return [*SEXES, "unknown"]


def parse_form_sex(value: object) -> str | None:
    """'female' / 'male' (or 'F', 'boy', ...), None for '', None or 'unknown'; anything else is an error."""
    if value is None or (isinstance(value, str) and value.strip().lower() in UNKNOWN_SEX):
        return None
    sex = parse_sex(str(value))
    if sex is None:
        raise InputError(f"Sex {str(value)[:40]!r} is not understood: give female, male or unknown "
                         "(or leave it empty).", "sex")
    return sex


def split_findings(entries: Iterable[str] | str | None, known: Container[str] = frozenset()) -> list[str]:
    """Each entry split on commas, semicolons and new lines, unless it is a known name as a whole, or "no"
    and one (`known`: normalised phenotype names and synonyms); empty pieces dropped, order and case kept."""
    if entries is None:
        return []
    if isinstance(entries, str):
        entries = [entries]
    found: list[str] = []
    for entry in entries:
        text = str(entry or "").strip()
        if not text:
            continue
        named = NEGATED_ENTRY.match(text)  # "no Intellectual disability, mild": the name after "no" is whole
        whole = normalise(named.group(1) if named else text) in known or _WITH_ID.search(text)
        pieces = [text] if whole else [p.strip() for p in _SEPARATORS.split(text)]
        found.extend(piece for piece in pieces if piece)
    return list(dict.fromkeys(found))
