"""The rule-based complements and their merge with model spans."""

from __future__ import annotations

import pytest

from ner.merge import merge_spans
from ner.rules import RuleTagger
from ner.spans import Span

GENES = ["KMT2D", "NSD1", "FGFR2", "NIPBL", "ANKRD11", "TCF4", "NF1", "CLOCK", "AR", "SET"]


def found(text: str, kind: str | None = None, genes=GENES) -> list[str]:
    spans = RuleTagger(genes).predict(text)
    for s in spans:
        assert text[s.start:s.end] == s.text and s.source == "rules"
    return [s.text for s in spans if kind is None or s.type == kind]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("variant c.1234del in KMT2D", ["c.1234del"]),
        ("c.5464C>T and c.2T>C", ["c.5464C>T", "c.2T>C"]),
        ("c.2908C > T ; ( p.Arg970Ter ) in exon 26", ["c.2908C > T ; ( p.Arg970Ter )"]),
        ("de novo NM_015338.6:c.1934dup (p.Gly646Trpfs*12) in ASXL1", ["NM_015338.6:c.1934dup (p.Gly646Trpfs*12)"]),
        ("NM_001042492.3(NF1):c.3826C>T", ["NM_001042492.3(NF1):c.3826C>T"]),
        ("c.6157C>T p.(Arg2053*).", ["c.6157C>T p.(Arg2053*)"]),
        ("splice c.5428-2A>G and c.2394+1G>A", ["c.5428-2A>G", "c.2394+1G>A"]),
        ("c.4369_4373delAAGAA, c.1262dupA, c.3103insC, c.100_102delinsAT",
         ["c.4369_4373delAAGAA", "c.1262dupA", "c.3103insC", "c.100_102delinsAT"]),
        ("NSD1 p.Arg604* and p.R604X", ["p.Arg604*", "p.R604X"]),
        ("g.12345A>G; IVS3+1G>A; c.C925T", ["g.12345A>G", "IVS3+1G>A", "c.C925T"]),
        ("an exon 3 deletion; deletion of exons 5 to 8; a 22q11.2 deletion",
         ["exon 3 deletion", "deletion of exons 5 to 8", "22q11.2 deletion"]),
        ("namely Arg448Trp", ["Arg448Trp"]),
        ("The patient is 5 years old with no variants (p = 0.05, c. 5 cm).", []),
    ],
)
def test_hgvs_and_other_variants(text, expected):
    assert found(text, "MUTATION") == expected


@pytest.mark.parametrize(
    ("text", "ages", "sexes"),
    [
        ("5yo F, c.1234del", ["5yo"], ["F"]),
        ("There is a 5.0 years old male Chinese patient", ["5.0"], ["male"]),
        ("18-month-old boy and a 3.5-year-old girl", ["18-month-old", "3.5-year-old"], ["boy", "girl"]),
        ("12 months M, kmt2d", ["12 months"], ["M"]),
        ("F, 2y, Caucasian", ["2y"], ["F"]),
        ("3 y/o male; 9 y.o. girl; 14 yo M", ["3", "9", "14"], ["male", "girl", "M"]),
        ("Patient (M, 7 yrs) w/ NSD1", ["7"], ["M"]),
        ("Age: 2; Sex: M", ["2"], ["M"]),
        ("aged 9 carrying; baby girl (5 weeks)", ["9", "5 weeks"], ["girl"]),
        ("4 y F, KRAS", ["4"], ["F"]),
        ("Seizures started at 4 years; vitamin D 3 years ago", [], []),
        ("Type M fibres and an F test", [], []),
    ],
)
def test_ages_and_sexes(text, ages, sexes):
    assert found(text, "AGE") == ages
    assert found(text, "GENDER") == sexes


def test_ethnicities_are_whole_words():
    assert found("18-month-old Chinese boy of Ashkenazi Jewish descent", "RACE") == ["Chinese", "Ashkenazi Jewish"]
    assert found("Indo-Chinese cuisine; chinese", "RACE") == []


def test_gene_symbols_from_the_vocabulary():
    text = "kmt2d c.1A>G; NIPBL-related; nipbl; Nsd1; tcf4; the clock; CLOCK; AR inheritance; SET."
    assert found(text, "GENE") == ["kmt2d", "NIPBL", "nipbl", "Nsd1", "tcf4", "CLOCK", "SET"]
    assert found("KMT2D", "GENE", genes=[]) == []
    # a symbol inside an HGVS transcript prefix belongs to the variant
    assert found("NM_000267.3(NF1):c.3826C>T", "GENE") == []


def test_nothing_in_plain_prose():
    prose = ("The diagnosis was made after a careful review of the family history, and the parents "
             "were reassured; follow-up is planned in a year when the results are set out in full.")
    assert found(prose) == []


def test_bad_input_gives_no_error():
    tagger = RuleTagger(GENES)
    for text in ["", " \n\t", "\x00\x01\x02", "患者5岁女孩，KMT2D突变", "ð" * 1000, "c." * 5000]:
        spans = tagger.predict(text)
        assert all(0 <= s.start < s.end <= len(text) and text[s.start:s.end] == s.text for s in spans), spans


def span(kind, start, end, source="model", text="x"):
    return Span(kind, text, start, end, 0.9 if source == "model" else 1.0, source)


def test_merge_precedence():
    # 1. no overlap: added
    assert merge_spans([span("GENE", 0, 5)], [span("AGE", 10, 13, "rules")]) == [
        span("GENE", 0, 5), span("AGE", 10, 13, "rules")]
    # 2. same-type model span containing the rule span is kept
    model = [span("MUTATION", 0, 30)]
    assert merge_spans(model, [span("MUTATION", 0, 12, "rules")]) == model
    # 3. a gene symbol inside a longer model entity of another type: the model wins
    disease = [span("DISEASE", 0, 40)]
    assert merge_spans(disease, [span("GENE", 30, 35, "rules")]) == disease
    # 4. otherwise the rule wins: partial overlap, wider rule span, variant inside a phenotype
    assert merge_spans([span("AGE", 0, 2)], [span("AGE", 0, 9, "rules")]) == [span("AGE", 0, 9, "rules")]
    assert merge_spans([span("MUTATION", 5, 12), span("GENE", 20, 25)], [span("MUTATION", 0, 10, "rules")]) == [
        span("MUTATION", 0, 10, "rules"), span("GENE", 20, 25)]
    assert merge_spans([span("FACIAL_PHENOTYPE", 0, 30)], [span("MUTATION", 10, 20, "rules")]) == [
        span("MUTATION", 10, 20, "rules")]


def named(kind: str, text: str, whole: str, source: str = "model") -> Span:
    start = whole.index(text)
    return Span(kind, text, start, start + len(text), 0.9, source)


def test_a_model_variant_longer_than_the_rules_one_is_kept_only_for_variant_words():
    whole = "c.2346_2361del ; p.G783A fs*24 and then c.922A>G - dx"
    rule_a, rule_b = named("MUTATION", "c.2346_2361del ; p.G783A", whole, "rules"), named("MUTATION", "c.922A>G", whole,
                                                                                          "rules")
    longer_a, longer_b = named("MUTATION", "c.2346_2361del ; p.G783A fs*24", whole), named("MUTATION",
                                                                                            "c.922A>G - dx", whole)
    assert merge_spans([longer_a, longer_b], [rule_a, rule_b]) == [longer_a, rule_b]


@pytest.mark.parametrize(("text", "expected"), [
    ("a 15q11-q13 deletion", ["15q11-q13 deletion"]), ("11p15 LOM confirmed", ["11p15 LOM"]),
    ("upd(7)mat on methylation", ["upd(7)mat"]), ("CTG repeat expansion in DMPK", ["CTG repeat expansion"]),
    ("consistent with 22q11.2 deletion syndrome", []),  # the disease, not the variant
])
def test_structural_and_imprinting_variants(text, expected):
    assert [s.text for s in RuleTagger().predict(text)] == expected
