"""The dictionary beside the model: each rule of ner.dictionary on spans a model could give."""

from __future__ import annotations

from ner.dictionary import EntityDictionary
from ner.spans import Span
from ner.vocabulary import hpo_disease_names, hpo_phenotype_names

PHENOTYPES = ["Ptosis", "Hypertelorism", "Short nose", "Anteverted nares", "Cleft palate", "Coloboma",
              "Low-set ears", "Face", "Arched eyebrow", "Craniofacial dysostosis", "Crouzon syndrome", "Webbed neck"]
DISEASES = ["Kabuki syndrome", "Noonan syndrome", "Patau syndrome", "Bohring-Opitz syndrome", "Sotos syndrome"]
GENES = ["KMT2D", "CHD7", "PTPN11"]
DICTIONARY = EntityDictionary(PHENOTYPES, DISEASES, GENES)


def model(text: str, *tagged: tuple[str, str]) -> list[Span]:
    """Spans as a model would return them: (type, text) found in order in `text`."""
    spans, at = [], 0
    for kind, piece in tagged:
        start = text.index(piece, at)
        spans.append(Span(kind, piece, start, start + len(piece), 0.9))
        at = start + len(piece)
    return spans


def merged(text: str, *tagged: tuple[str, str]) -> list[tuple[str, str]]:
    return [(s.type, s.text) for s in DICTIONARY.merge(model(text, *tagged), text)]


def test_phenotype_names_are_found_longest_first_at_word_boundaries():
    text = "O/E: Low set ears, arched eyebrows and ptosis; no cleft palate. Face normal. Ptosisx"
    assert [s.text for s in DICTIONARY.matches(text)] == ["Low set ears", "arched eyebrows", "ptosis", "cleft palate"]
    # a disease named by an HPO synonym is no phenotype name: it is the disease
    assert DICTIONARY.matches("known Crouzon syndrome") == []


def test_a_model_phenotype_span_must_be_made_of_phenotype_words():
    text = "seen at Temple Street with hypertelorsim and hypercalcaemia"
    assert merged(text, ("FACIAL_PHENOTYPE", "Temple Street"), ("FACIAL_PHENOTYPE", "hypertelorsim"),
                  ("FACIAL_PHENOTYPE", "hypercalcaemia")) == [("FACIAL_PHENOTYPE", "hypertelorsim")]
    # one word must be a finding's name, not a word of one
    assert merged("the face is long", ("FACIAL_PHENOTYPE", "face")) == []


def test_two_findings_run_together_are_split_and_missed_ones_added():
    text = "short nose with anteverted nares. ptosis"
    assert merged(text, ("FACIAL_PHENOTYPE", "short nose with anteverted nares")) == [
        ("FACIAL_PHENOTYPE", "short nose"), ("FACIAL_PHENOTYPE", "anteverted nares"), ("FACIAL_PHENOTYPE", "ptosis")]


def test_disease_spans_are_judged_trimmed_and_retyped():
    text = "Dear Dr Sian Hughes: coloboma; top hit Bohring-Opitz syndrome; ?Patau syndrome in Ama"
    assert merged(text, ("DISEASE", "Sian"), ("DISEASE", "coloboma"), ("DISEASE", "hit Bohring-Opitz syndrome"),
                  ("DISEASE", "Patau syndrome in Ama")) == [
        ("FACIAL_PHENOTYPE", "coloboma"), ("DISEASE", "Bohring-Opitz syndrome"), ("DISEASE", "Patau syndrome")]


def test_a_lone_head_word_joins_what_the_model_cut_off():
    text = "consistent with Kabuki syndrome; also syndrome"
    assert merged(text, ("GENE", "Kabuki"), ("DISEASE", "syndrome"), ("DISEASE", "syndrome")) == [
        ("DISEASE", "Kabuki syndrome")]


def test_genes_must_be_in_the_list_and_variants_and_ages_must_look_like_them():
    text = "gnomAD: KMT2D c.123del in a noonan family; father aged 7, OFC 54.5 cm, seen at 14:00"
    assert merged(text, ("GENE", "gnomAD"), ("GENE", "KMT2D"), ("MUTATION", "c.123del"), ("GENE", "noonan"),
                  ("MUTATION", "father"), ("AGE", "7"), ("AGE", "54.5"), ("AGE", "14")) == [
        ("GENE", "KMT2D"), ("MUTATION", "c.123del"), ("DISEASE", "noonan"), ("AGE", "7")]


def test_the_hpo_vocabulary_leaves_neck_terms_out():
    names = hpo_phenotype_names()
    assert "Hypertelorism" in names and "Webbed neck" not in names
    assert "Kabuki syndrome" in " ".join(hpo_disease_names())


def test_the_free_text_failure_classes_with_hpos_own_names():
    """What a corpus-trained model did on letters and reports, judged with the real HPO vocabulary
    (an article inside a span is cut before, when spans are built: tests/ner/test_spans.py)."""
    from ner.merge import merge_spans
    from ner.rules import RuleTagger
    from ner.vocabulary import hpo_gene_symbols

    dictionary = EntityDictionary(hpo_phenotype_names(), hpo_disease_names(), hpo_gene_symbols())
    text = ("Dear Dr Okafor, Heterozygous pathogenic heterozygous NSD1 variant c.1234del (het). Mol Genet, ward 4. "
            "Consistent with a cleft lip.")
    spans = model(text, ("GENE", "Okafor"), ("FACIAL_PHENOTYPE", "Heterozygous"), ("FACIAL_PHENOTYPE", "pathogenic"),
                  ("DISEASE", "heterozygous NSD1 variant"), ("MUTATION", "c.1234del (het)"), ("GENE", "Mol"),
                  ("GENE", "ward"), ("FACIAL_PHENOTYPE", "Consistent"), ("FACIAL_PHENOTYPE", "cleft lip"))
    judged = merge_spans(dictionary.merge(spans, text), RuleTagger(hpo_gene_symbols()).predict(text))
    assert [(s.type, s.text) for s in judged] == [
        ("GENE", "NSD1"), ("MUTATION", "c.1234del"), ("FACIAL_PHENOTYPE", "cleft lip")]
