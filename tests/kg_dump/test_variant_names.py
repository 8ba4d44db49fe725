"""FPKG's variant names: one written form per change, and names that are no variant told apart.
The strings are FPKG.dump's own (`Variation.details`)."""

from __future__ import annotations

import pytest

from kg_dump.variant_names import (
    PLACEHOLDER,
    SENTENCE,
    STRUCTURAL,
    VARIANT,
    identity,
    kind_of,
    same_variant,
    written_form,
)


@pytest.mark.parametrize(("details", "form"), [
    ("c.1026C > G (C342W) in exon 10", "c.1026C>G (C342W) in exon 10"),
    ("c. 128 _ 129delCA; p. (Thr43AsnfsTer9)", "c.128_129delCA; p.(Thr43AsnfsTer9)"),
    ("c.481 + 1G > A", "c.481+1G>A"),
    ("c.8698G\u2009>\u2009T, p.E2900X", "c.8698G>T, p.E2900X"),  # thin spaces
    ("C. 371A > G (p.H124R)", "c.371A>G (p.H124R)"),  # a capital prefix
    ("c1859A>T; (p.Lys620Met)", "c.1859A>T; (p.Lys620Met)"),  # the dot left out
    ("c.7100 delC; p.P2366RfsX35", "c.7100delC; p.P2366RfsX35"),
    ("c.1137_1146del TAGTATGTCT in exon 8", "c.1137_1146delTAGTATGTCT in exon 8"),
    ("NM_138576.2: c.2461_2462 ins GAGCCACACCGGCG(p.Glu821Glyfs*28)",
     "NM_138576.2: c.2461_2462insGAGCCACACCGGCG(p.Glu821Glyfs*28)"),
    ("c.607 C>T", "c.607C>T"),
    ("502C > G", "502C>G"), ("578_581 delCTGA", "578_581delCTGA"), ("1722 C>A", "1722C>A"),  # no "c." added
    ("c. 259C > T (p. Gln87 *)", "c.259C>T (p.Gln87*)"),
    ("c.3085dup p.Gln1029Pro fsX4", "c.3085dup p.Gln1029ProfsX4"),
    ("c.735\u20101G\u2009>\u2009T; Splice variant", "c.735-1G>T; Splice variant"),  # a Unicode hyphen
    ("c.3159C > G ,p.Cys1053Trp, in exon 26", "c.3159C>G, p.Cys1053Trp, in exon 26"),
    ("c.2828G > A \uff08p.R943Q\uff09", "c.2828G>A (p.R943Q)"),  # full-width brackets
])
def test_written_form_writes_each_change_as_hgvs_does(details, form):
    assert written_form(details) == form


@pytest.mark.parametrize("details", [
    "a 2.6 Mb deletion in 6q24.3–25.1", "46,del(18)(p11.1-pter)",
    "an interstitial deletion at 8q23.1-q24.12 of 12.5 Mb",
    "Arr cgh 16p13.3 (chr16:1,324,176-4,813,101)(hg18-build36)x3; 3.5Mb encompass the CREBBP gene",
    "chr18:53243454_ 53287927 deletion 46 kb exon 1-3",
    "a supernumerary 18p isochromosome with two copies of the p arm of chromosome 18",
    "trp16p12.1p12.3", "deletion of exons 5 to 8",
])
def test_structural_changes_in_words_are_kept_as_written(details):
    assert kind_of(details) == STRUCTURAL
    assert written_form(details) == " ".join(details.split())


@pytest.mark.parametrize(("details", "kind"), [
    ("c.2344_2347delTTGC; p. Leu782Thrfs*2 in exon 13", VARIANT),
    ("(NM_004238.2: c.1842G>A)", VARIANT),
    ("c.-?_1710+?del", VARIANT),  # breakpoints unknown
    ("c.G491A", VARIANT),  # the old order of a substitution
    ("chr9:g.94371974_94844329del", VARIANT),
    ("IVS1-2A>G", VARIANT), ("IVS4 + 4delAAGT", VARIANT), ("delta F508", VARIANT), ("rs121909211", VARIANT),
    ("502C > G", VARIANT), ("578_581 delCTGA", VARIANT), ("353G>T; Ser118Ile", VARIANT),
    ("a missense mutation, T>G at position 530", VARIANT),
    ("NA", PLACEHOLDER), ("See article for more details", PLACEHOLDER), ("", PLACEHOLDER),
    ("CHD7 mutations account for ~60% of cases of CHARGE syndrome", SENTENCE),
    ("encodes the F-box domain and several leucine-rich repeats of FBXL7, is eliminated", SENTENCE),
    ("CHD7 deletions account for about 5% of cases", SENTENCE),  # a claim, though it names a deletion
])
def test_kind_of_tells_variants_from_names_that_are_none(details, kind):
    assert kind_of(details) == kind


def test_one_change_written_two_ways_is_one_variant():
    assert same_variant("c.1026C > G (C342W) in exon 10", "c.1026C>G; (p.Cys342Trp)")
    assert same_variant("c.807_828dup (P277Afs*103)", "c.807_828dup (p.P277Afs*103)")
    assert same_variant("c. 1630C > T; (p.R544X)", "c.1630C>T; (p.Arg544X)")  # one- and three-letter residues
    assert same_variant("46,del(18)(p11.1-pter)", "46,del(18)(p11.1-pter)")  # no change named: the text
    assert identity("c.607 C > T; p. Arg203Trp")[0] == identity("c.607C>T; p.(Arg203Trp)")[0] == "c.607C>T"


def test_other_changes_or_contradicting_proteins_are_other_variants():
    assert not same_variant("c.1026C>G", "c.1027C>G")
    assert not same_variant("c.1026C>G; p.Cys342Trp", "c.1026C>G; p.Cys342Ser")  # a typo somewhere: kept apart
    assert not same_variant("c.2635dup; p.Met879Asnfs*18 and c.795-1G>C", "c.2635dup")  # two changes, one
    assert not same_variant("46,del(18)(p11.1-pter)", "46,del(18)(p11.2-pter)")
