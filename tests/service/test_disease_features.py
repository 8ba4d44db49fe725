"""A disease's features and two diseases compared, as a clinician reads them (issue 44): cardinal findings
first, facial findings apart from sight, hearing and the rest, genes and inheritance beside the findings, and
nothing said to tell two diseases apart that both annotate as frequent."""

from __future__ import annotations

import re

import pytest

from kg_dump.cardinal import FREQUENT, known
from service.disease_features import _telling, read_disease

PAIRS = [("Noonan syndrome", "Costello syndrome"), ("CHARGE syndrome", "Kabuki syndrome 1"),
         ("Apert syndrome", "Crouzon syndrome"), ("Williams-Beuren syndrome", "Noonan syndrome 1"),
         ("Sotos syndrome", "Weaver syndrome"), ("Treacher Collins syndrome 1", "Nager syndrome"),
         ("Cornelia de Lange syndrome 1", "Rubinstein-Taybi syndrome 1"),
         ("Smith-Lemli-Opitz syndrome", "Smith-Magenis syndrome"), ("Angelman syndrome", "Prader-Willi syndrome"),
         ("Pfeiffer syndrome", "Saethre-Chotzen syndrome"), ("Cardiofaciocutaneous syndrome 1", "Costello syndrome"),
         ("Mowat-Wilson syndrome", "Angelman syndrome"), ("Coffin-Siris syndrome 1", "Nicolaides-Baraitser syndrome"),
         ("Kabuki syndrome 1", "Kabuki syndrome 2"), ("Wolf-Hirschhorn syndrome", "Cri-du-chat syndrome"),
         ("Aarskog-Scott syndrome", "Noonan syndrome 1"),
         ("Beckwith-Wiedemann syndrome", "Simpson-Golabi-Behmel syndrome, type 1"),
         ("Stickler syndrome, type I", "Marshall syndrome"), ("Rett syndrome", "Angelman syndrome"),
         ("Loeys-Dietz syndrome 1", "Marfan syndrome")]


def disease(pipeline, name: str):
    link = pipeline.linker.link(name, "DISEASE")
    assert link.node_id is not None, name
    return read_disease(pipeline.store, pipeline.annotations, link.node_id, link.name)


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_nothing_that_both_annotate_as_frequent_is_said_to_tell_them_apart(pipeline, first, second):
    a, b = disease(pipeline, first), disease(pipeline, second)
    hpo = pipeline.annotations.hpo
    for one, other in ((a, b), (b, a)):
        said = _telling(hpo, one, other, one.findings, other.findings)
        frequency_in = {f.name: known(f.frequency) for f in other.findings}
        for line in said:
            name = line.split(" (", 1)[0]
            theirs = frequency_in.get(name)
            assert theirs is None or theirs < FREQUENT, (first, second, line)
            assert " only in " not in line and ("annotated for" in line or re.search(r"\d+ %\)$", line)), line


def test_noonan_and_costello_compared_with_genes_sections_and_no_only_in(pipeline):
    answer = pipeline.ask("What is the difference between Noonan syndrome and Costello syndrome?").answer
    lines = answer.splitlines()
    noonan = next(line for line in lines if line.startswith("Noonan syndrome: genes"))
    costello = next(line for line in lines if line.startswith("Costello syndrome: genes"))
    assert "PTPN11" in noonan and "a group of 14" in noonan and "HRAS" in costello
    assert "autosomal dominant" in costello
    assert any(line.startswith("Facial findings, shared:") for line in lines)
    assert any(line.startswith("Findings beside the face") for line in lines)
    assert " only in " not in answer and "annotated for" in answer
    telling = " ".join(line for line in lines if "tell them apart" in line)
    for classic in ("Low-set ears", "Epicanthus", "Depressed nasal bridge"):  # classic Noonan signs too
        assert f"{classic} (Costello syndrome" not in telling, classic
    facial_shared = next(line for line in lines if line.startswith("Facial findings, shared:"))
    assert "hearing" not in facial_shared.lower()


@pytest.mark.parametrize("mode", ["cypher", "vector"])
def test_williams_features_lead_with_the_cardinal_ones(pipeline, mode):
    answer = pipeline.ask("What facial features does Williams syndrome have?", mode=mode).answer
    lines = answer.splitlines()
    cardinal = next(line for line in lines if line.startswith("Cardinal"))
    assert lines.index(cardinal) <= 2 and "Elfin facies (80-99 %)" in cardinal
    facial = next(line for line in lines if line.startswith("Facial: very frequent"))
    assert "hearing" not in facial.lower() and "Nystagmus" not in facial.split(";")[0]
