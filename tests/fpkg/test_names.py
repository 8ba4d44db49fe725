"""A typo correction never turns one disease into another: numbers, numerals, subtype letters and known words."""

from __future__ import annotations

import pytest

from fpkg.names import keeps_identity, name_markers, short_variant, without_abbreviation

KNOWN = {"noonan", "syndrome", "ataxia", "alopecia", "with", "and", "kabuki", "fanconi", "anemia", "group",
         "complementation", "crouzon", "orofaciodigital", "bardet", "biedl", "type", "low", "set", "ear"}


@pytest.mark.parametrize(("mention", "name"), [
    ("Noonan syndrome 12", "Noonan syndrome 1"),
    ("Noonan syndrome 118", "Noonan syndrome 18"),
    ("Orofaciodigital syndrome XIV", "Orofaciodigital syndrome IV"),
    ("Orofaciodigital syndrome XXI", "Orofaciodigital syndrome XI"),
    ("Fanconi anemia complementation group T", "Fanconi anemia complementation group A"),
    ("Bardet-Biedl syndrome 22", "Bardet-Biedl syndrome 2"),
    ("Cone-rod dystrophy type 1DD", "Cone-rod dystrophy type 1D"),
    ("Noonan syndrome", "Noonan syndrome 1"),  # a number added
    ("Kabuki syndrome with ataxia and X", "Kabuki syndrome with alopecia and X"),
])
def test_a_correction_that_changes_the_disease_is_refused(mention, name):
    assert not keeps_identity(mention, name, KNOWN)


@pytest.mark.parametrize(("mention", "name"), [
    ("Kabukki syndrome", "Kabuki syndrome"), ("Noonan syndorme", "Noonan syndrome"),
    ("Crouzon syndrom", "Crouzon syndrome"), ("Low-set EARS", "low set ear"),
    ("Hutchinson-Gilford progeria", "Hutchinson-Gilford progeria syndrome"),  # a filler word
])
def test_real_typos_keep_the_disease(mention, name):
    assert keeps_identity(mention, name, KNOWN)


def test_markers_and_abbreviations():
    words = ["fanconi", "anemia", "group", "j", "type", "1dd", "xiv", "22", "mild"]
    assert name_markers(words) == ["j", "1dd", "xiv", "22"]
    assert without_abbreviation("Kabuki syndrome 1 (KS1)") == "Kabuki syndrome 1"
    assert without_abbreviation("Intellectual disorder 36; MRD36") == "Intellectual disorder 36"


@pytest.mark.parametrize(("details", "short"), [
    ("c.3159C>G, p.Cys1053Trp, in exon 26", "c.3159C>G"), ("c.1026C>G (C342W) in exon 10", "c.1026C>G"),
    ("c.674G>A p.(Arg225Gln)", "c.674G>A"), ("c.3220T>C [p.(Cys1074Arg)]", "c.3220T>C"),  # the protein change apart
    ("a 2.6 Mb deletion in 6q24.3–25.1", "a 2.6 Mb deletion in 6q24.3–25.1"), ("", "unnamed variant"),
])
def test_short_variant_is_the_change_alone(details, short):
    """Explore draws a variant by this name: one change, one node, whatever followed it in the paper."""
    assert short_variant(details) == short
