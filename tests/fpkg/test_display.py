"""Issue 37: display text: no HTML escapes, variants in HGVS form, sentences are no names."""

from __future__ import annotations

import pytest

from fpkg.display import clean, display_name, hgvs, is_sentence, plain


@pytest.mark.parametrize(("stored", "shown"), [
    ("c. 16295G > A", "c.16295G>A"),
    ("c.481 + 1G > A", "c.481+1G>A"),
    ("c.3838C > T; p. Arg1280Cys in exon 17", "c.3838C>T; p.Arg1280Cys in exon 17"),
    ("c.3159C > G ,p.Cys1053Trp, in exon 26", "c.3159C>G, p.Cys1053Trp, in exon 26"),
    ("c.1557C&gt;G", "c.1557C>G"),
    ("c.5051-2A > G", "c.5051-2A>G"),
])
def test_variants_in_hgvs_form(stored, shown):
    assert hgvs(stored) == shown
    assert display_name(stored, "Variation") == shown


def test_clean_undoes_html_escapes_and_keeps_other_names():
    assert clean("Hypoplasia &amp; aplasia  of the   nose") == "Hypoplasia & aplasia of the nose"
    assert display_name("Kabuki syndrome - type 1", "Disease") == "Kabuki syndrome - type 1"


def test_a_sentence_is_no_name():
    assert is_sentence("CHD7 mutations account for ~60% of cases of CHARGE syndrome")
    assert not is_sentence("CHD7")
    assert not is_sentence("c.3838C > T; p. Arg1280Cys in exon 17")


def test_full_width_forms_are_shown_in_ascii():
    assert plain("Intellectual developmental disorder（IDDFBA）") == "Intellectual developmental disorder(IDDFBA)"
    assert plain("Ｆ１：ａ") == "F1:a" and plain("眼距过宽") == "眼距过宽"  # other scripts as they are


def test_an_age_is_written_as_a_clinician_writes_it():
    from fpkg.display import age_words

    assert [age_words(y) for y in (11 / 12, 1.5, 1 / 12, 4.5, 12)] == \
        ["11 months", "18 months", "1 month", "4.5 years", "12 years"]
