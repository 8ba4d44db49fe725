"""The phrases clinicians write (issue 54): everyday words, word forms, abbreviations and the classic signs by their
description, each read as the term it means and no more specific."""

from __future__ import annotations

import pytest

from ner.context import PRESENT
from service.abbreviations import abbreviations
from service.described_signs import described_signs

READ_AS = [
    ("droopy eyelids", "HP:0000508"), ("drooping eyelid", "HP:0000508"), ("sunken chest", "HP:0000767"),
    ("very tall", "HP:0000098"), ("dilated aortic root", "HP:0002616"), ("a large protruding tongue", "HP:0000158"),
    ("earlobe creases", "HP:0009908"), ("low serum cholesterol", "HP:0003146"), ("iris colobomas", "HP:0000612"),
    ("multiple neurofibromas", "HP:0001067"), ("epicanthal folds", "HP:0000286"), ("dislocated lenses", "HP:0001083"),
    ("broad halluces", "HP:0010055"), ("absent radii", "HP:0003974"), ("pits in the palms", "HP:0010610"),
    ("ears that are low-set", "HP:0000369"), ("a tall tower-shaped skull", "HP:0000262"),
    ("premature fusion of both coronal sutures", "HP:0011318"),
    ("early closure of the coronal suture on one side", "HP:0011315"),
    ("early fusion of the metopic suture", "HP:0011330"), ("fusion of multiple cranial sutures", "HP:0011324"),
    ("webbing between the second and third toes", "HP:0005709"), ("short upper arms and thighs", "HP:0008905"),
    ("big toes deviated inward", "HP:0008080"), ("extremely short stature", "HP:0003510"),
    ("mild intellectual disability", "HP:0001256"), ("episodes of hyperventilation", "HP:0004879"),
]


@pytest.mark.parametrize("said, hpo_id", READ_AS)
def test_a_phrase_is_read_as_the_term_it_means(pipeline, said, hpo_id):
    reading = pipeline.read(f"A 4-year-old child with {said}.")
    assert hpo_id in {f.hpo_id for f in reading.findings if f.polarity == PRESENT}, reading.findings


def test_a_sign_is_read_no_more_specifically_than_its_words():
    # "fusion of the fingers and toes" says neither bony nor which digits: the general terms
    found = {sign.hpo_id for sign in described_signs("complete fusion of the fingers and toes")}
    assert found == {"HP:0006101", "HP:0001770"}
    assert {s.hpo_id for s in described_signs("bony fusion of the fingers")} == {"HP:0010492"}
    # one suture named, no side said: coronal craniosynostosis, neither uni- nor bicoronal
    assert {s.hpo_id for s in described_signs("premature fusion of the coronal suture")} == {"HP:0004440"}


def test_broad_thumbs_deviated_outward_are_two_findings(pipeline):
    reading = pipeline.read("A boy with broad thumbs deviated outward and broad big toes.")
    assert {"HP:0011304", "HP:0009603", "HP:0010055"} <= {f.hpo_id for f in reading.findings}


def test_abbreviations_are_read_where_no_gene_is_meant():
    assert [a.hpo_id for a in abbreviations("A girl with GDD, a VSD and a PDA.")] == \
        ["HP:0001263", "HP:0001629", "HP:0001643"]
    assert [a.hpo_id for a in abbreviations("An atrial defect (ASD) and IUGR.")] == ["HP:0001631", "HP:0001511"]
    # ASD is autism where the text speaks of it
    assert [a.hpo_id for a in abbreviations("ID and ASD (autism spectrum disorder).")] == ["HP:0001249", "HP:0000729"]
    assert abbreviations("a heterozygous CP variant") == []  # a gene meant as one


def test_newborn_is_an_age(pipeline):
    assert pipeline.read("A newborn boy with a cleft palate.").age_years == 0.0


def test_an_ordinary_verb_after_that_is_no_finding(pipeline):
    reading = pipeline.read("A newborn with a tongue that falls backwards.")
    assert "HP:0002527" not in {f.hpo_id for f in reading.findings}  # Falls
