"""Finding label noise in the corpus: the same words tagged differently, stray ``I-`` tags,
and the 'in exon N' convention that differs between splits."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from ner.corpus import Sentence
from ner.labels import tag_spans

_LOCATION_WORDS = frozenset({"exon", "exons", "intron", "introns"})


def audit(splits: Mapping[str, Sequence[Sentence]]) -> dict:
    """Findings per kind; each finding names the split and the sentence's file:line."""
    return {
        "type_conflicts": _type_conflicts(splits),
        "gene_spans_like_names": _name_like_genes(splits),
        "orphan_inside_tags": _orphans(splits),
        "exon_convention": _exon_convention(splits),
    }


def _type_conflicts(splits: Mapping[str, Sequence[Sentence]]) -> list[dict]:
    """Surface strings tagged with more than one type."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    where: dict[tuple[str, str], list[str]] = defaultdict(list)
    for sentences in splits.values():
        for sentence in sentences:
            for kind, a, b in tag_spans(sentence.tags):
                surface = " ".join(sentence.tokens[a:b]).lower()
                seen[surface][kind] += 1
                where[(surface, kind)].append(sentence.source)
    findings = [
        {"text": surface, "types": dict(kinds.most_common()),
         "where": {kind: where[(surface, kind)][:3] for kind in kinds}}
        for surface, kinds in seen.items() if len(kinds) > 1
    ]
    return sorted(findings, key=lambda f: f["text"])


def _name_like_genes(splits: Mapping[str, Sequence[Sentence]]) -> list[dict]:
    """GENE spans of several words: usually a disease name ('FRONTONASAL DYSPLASIA 2 ( FND2 )')."""
    findings = []
    for sentences in splits.values():
        for sentence in sentences:
            for kind, a, b in tag_spans(sentence.tags):
                if kind == "GENE" and b - a > 1:
                    findings.append({"text": " ".join(sentence.tokens[a:b]), "where": sentence.source})
    return findings


def _orphans(splits: Mapping[str, Sequence[Sentence]]) -> list[dict]:
    """``I-X`` tags that do not continue an ``X`` entity (invalid IOB2)."""
    findings = []
    for sentences in splits.values():
        for sentence in sentences:
            previous = "O"
            for token, tag in zip(sentence.tokens, sentence.tags, strict=True):
                if tag.startswith("I-") and previous[2:] != tag[2:]:
                    findings.append({"token": token, "tag": tag, "after": previous, "where": sentence.source})
                previous = tag
    return findings


def _exon_convention(splits: Mapping[str, Sequence[Sentence]]) -> dict[str, dict[str, int]]:
    """How often 'exon'/'intron' right after a MUTATION is inside it versus outside it."""
    counts: dict[str, dict[str, int]] = {}
    for split, sentences in splits.items():
        inside = outside = 0
        for sentence in sentences:
            for i, (token, tag) in enumerate(zip(sentence.tokens, sentence.tags, strict=True)):
                if token.lower() not in _LOCATION_WORDS or i < 2:
                    continue
                if tag == "I-MUTATION":
                    inside += 1
                elif tag == "O" and sentence.tags[i - 2] in ("B-MUTATION", "I-MUTATION"):
                    outside += 1  # '<variant> in exon N' with 'in exon N' left out
        counts[split] = {"inside_mutation": inside, "outside_mutation": outside}
    return counts


def format_audit(findings: dict) -> str:
    lines = ["The same text tagged with different types:"]
    for f in findings["type_conflicts"]:
        counts = ", ".join(f"{kind} x{n}" for kind, n in f["types"].items())
        places = "; ".join(f"{kind} at {', '.join(w)}" for kind, w in f["where"].items())
        lines.append(f"  {f['text']!r}: {counts} ({places})")
    lines.append("GENE spans of several words (names rather than symbols):")
    for f in findings["gene_spans_like_names"]:
        lines.append(f"  {f['text']!r} at {f['where']}")
    lines.append("I- tags that continue no entity:")
    for f in findings["orphan_inside_tags"]:
        lines.append(f"  {f['token']!r} {f['tag']} after {f['after']} at {f['where']}")
    lines.append("'exon/intron N' after a variant (inside / outside the MUTATION span):")
    for split, c in findings["exon_convention"].items():
        lines.append(f"  {split}: {c['inside_mutation']} inside, {c['outside_mutation']} outside")
    return "\n".join(lines)
