"""A differential that holds up on the classic cases (issue 55): textbook syndromes typed as a geneticist writes
them, with and without their usual gene, through the service as the page and the API ask it."""

from __future__ import annotations

import re

import pytest

from diagnosis.ranker import DiagnosisCase
from service.case_input import compose
from service.result_export import differential_tsv

PFEIFFER = ("A 2-year-old boy with a tall tower-shaped skull, flat midface, bulging eyes, broad deviated thumbs and "
            "broad big toes deviated inward.")
APERT = "A newborn girl with a tall skull, flat midface, bulging eyes, and complete fusion of the fingers and toes."
NOONAN_BOY = ("A 3-year-old boy with hypertelorism, downslanting palpebral fissures, low-set posteriorly rotated ears, "
              "webbed neck, pulmonic stenosis and short stature; no lentigines, normal hearing.")
STICKLER = "A 7-year-old boy with high myopia, retinal detachment, cleft palate, hearing loss and hypermobile joints."
MARFAN = ("A 15-year-old boy with tall stature, long thin fingers, dislocated lenses, a dilated aortic root and a "
          "sunken chest.")
PITT_HOPKINS = ("A 6-year-old girl with severe intellectual disability and no speech, episodes of hyperventilation "
                "followed by breath-holding, deep-set eyes, a broad beaked nose, a wide mouth with full lips and a "
                "cupid-bow upper lip, and chronic constipation.")
COSTELLO = ("A 4-year-old boy with coarse facial features, loose soft skin of the hands and feet, deep palmar creases, "
            "papillomas around the nose, hypertrophic cardiomyopathy and failure to thrive.")
RETT = ("A 5-year-old girl who lost purposeful hand use after normal early development, with hand-wringing, loss of "
        "speech, deceleration of head growth and episodes of hyperventilation.")
NOONAN_GIRL = ("A 3-year-old girl with hypertelorism, downslanting palpebral fissures, low-set posteriorly rotated "
               "ears, webbed neck, pulmonic stenosis and short stature.")
TREACHER_COLLINS = ("A newborn with downslanting palpebral fissures, coloboma of the lower eyelids, malar hypoplasia, "
                    "micrognathia, microtia and conductive hearing loss.")

GENE_CASES = [(PFEIFFER, "FGFR2"), (APERT, "FGFR2"), (NOONAN_BOY, "PTPN11"), (STICKLER, "COL2A1"), (MARFAN, "FBN1"),
              (PITT_HOPKINS, "TCF4"), (COSTELLO, "HRAS"), (RETT, "MECP2")]


def ranked(pipeline, text: str, gene: str | None = None):
    composed = compose(pipeline, DiagnosisCase(gene=gene), text)
    return pipeline.diagnose(composed.case).ranked


def test_classic_marfan_syndrome_is_shown_as_itself_and_first_for_the_teenager(pipeline):
    top = ranked(pipeline, MARFAN, "FBN1")[0]
    # OMIM:154700 is a disease, whatever subclasses MONDO gives it: never folded into its neonatal form
    assert top.disease_id == "OMIM:154700" and top.members == 0 and not top.group, top.title


@pytest.mark.parametrize("text, gene, not_syndromes", [
    (PITT_HOPKINS, "TCF4", ("ORPHA:171", "OMIM:613267")),  # primary sclerosing cholangitis, Fuchs dystrophy 3
    (COSTELLO, "HRAS", ("OMIM:109800", "OMIM:137550")),  # bladder cancer, congenital melanocytic naevus
    (RETT, "MECP2", ("ORPHA:536", "OMIM:152700")),  # systemic lupus erythematosus
])
def test_a_genes_cancer_or_organ_disease_stays_out_of_a_syndromic_childs_top_three(pipeline, text, gene,
                                                                                  not_syndromes):
    shown = ranked(pipeline, text, gene)
    assert not {r.disease_id for r in shown[:3]} & set(not_syndromes), [r.title for r in shown[:3]]
    for disease in shown:  # where such a disease is listed, its row says why its link counts for little
        if disease.disease_id in not_syndromes:
            assert any("the link counts for that share" in line for line in disease.evidence), disease.evidence


@pytest.mark.parametrize("text, gene", GENE_CASES)
def test_the_table_reads_in_the_order_of_its_scores(pipeline, text, gene):
    scores = [r.score for r in ranked(pipeline, text, gene)]
    assert scores == sorted(scores, reverse=True), scores


@pytest.mark.parametrize("text, gene", GENE_CASES)
def test_no_group_label_a_clinician_would_not_use(pipeline, text, gene):
    for disease in ranked(pipeline, text, gene):
        if disease.group:  # a member is shown in a group only when it is named after it
            words = set(re.findall(r"[a-z0-9]+", disease.name.lower())) - {"syndrome", "type", "and", "of"}
            assert words & set(re.findall(r"[a-z0-9]+", disease.group.lower())), disease.title


def test_the_exported_disease_name_is_the_diseases_own(pipeline):
    shown = ranked(pipeline, NOONAN_BOY, "PTPN11")
    rows = differential_tsv(shown, {}, [], "test").splitlines()[1:]
    names = [row.split("\t")[0] for row in rows]
    assert names == [r.name for r in shown] and not any("in the group" in name for name in names)


def test_a_similarity_never_says_no_finding_shared(pipeline):
    for text, gene in GENE_CASES[:3]:
        for disease in ranked(pipeline, text, gene):
            assert not any("0 findings" in line for line in disease.evidence), disease.evidence


# Not yet: the fitted weights give the cardinal findings a case leaves out no weight when the gene is known (the
# development patients did not gain by it), so Apert syndrome's absent syndactyly, LEOPARD syndrome's absent
# lentigines and Kniest dysplasia's absent short stature do not yet decide (issue 55's note)
NOT_YET = pytest.mark.xfail(strict=True, reason="the findings a case leaves out do not yet decide among allelic "
                                                "disorders (issue 55's note)")


@pytest.mark.parametrize("text, gene, wanted", [
    pytest.param(PFEIFFER, "FGFR2", "OMIM:101600", marks=NOT_YET), (APERT, "FGFR2", "OMIM:101200"),
    pytest.param(NOONAN_BOY, "PTPN11", "OMIM:163950", marks=NOT_YET),
    pytest.param(STICKLER, "COL2A1", "OMIM:108300", marks=NOT_YET),
])
def test_the_findings_tell_a_genes_allelic_disorders_apart(pipeline, text, gene, wanted):
    top = ranked(pipeline, text, gene)[0]
    assert top.disease_id == wanted or wanted in {m.disease_id for m in top.ranked_members}, top.title


def test_noonan_syndrome_comes_first_without_a_gene(pipeline):
    # Noonan syndrome 6's large published cohort lifts it far above its siblings; the series holding the top
    # places is one the findings do not tell apart: the group first, its members under it
    top = ranked(pipeline, NOONAN_GIRL)[0]
    assert top.disease_id in {"OMIM:163950", "ORPHA:648"}, top.title


def test_treacher_collins_comes_first_without_a_gene(pipeline):
    top = ranked(pipeline, TREACHER_COLLINS)[0]
    assert "treacher" in top.name.lower(), top.title


SMITH_LEMLI_OPITZ = ("A 2-year-old boy with microcephaly, ptosis, a small upturned nose, micrognathia, cleft palate, "
                     "webbing between the second and third toes, hypospadias and low serum cholesterol.")


@pytest.mark.parametrize("text, wanted", [
    (APERT, "OMIM:101200"),
    pytest.param(PFEIFFER, "OMIM:101600", marks=pytest.mark.xfail(
        strict=True, reason="read as written; Robinow syndrome 2 ranks a hair above Pfeiffer (issue 55's note)")),
    pytest.param(SMITH_LEMLI_OPITZ, "OMIM:270400", marks=pytest.mark.xfail(
        strict=True, reason="read as written; lathosterolosis and Aarskog syndrome rank above (issue 55's note)")),
])
def test_a_classic_syndrome_comes_first_from_its_classic_signs_without_a_gene(pipeline, text, wanted):
    """Issue 54: the phrases read, the syndrome first from a description of its classic signs alone."""
    top = ranked(pipeline, text)[0]
    assert top.disease_id == wanted or wanted in {m.disease_id for m in top.ranked_members}, top.title
