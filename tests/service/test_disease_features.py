"""A disease's features and two diseases compared, as a clinician reads them (issues 44 and 57): the textbook
findings first in a table, facial findings apart from sight, hearing and the rest, genes and inheritance beside
the findings, and nothing said to tell two diseases apart that both annotate as frequent, nor from a frequency
counted in a few patients."""

from __future__ import annotations

import pytest

from kg_dump.cardinal import FREQUENT, MIN_PATIENTS, RARE
from service.comparison import CLEARLY_LESS, NOT_ANNOTATED, _telling
from service.disease_features import read_disease
from tests.support.markdown_tables import table_rows

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
    for side, (one, other) in enumerate(((a, b), (b, a))):
        mine = {f.name: f for f in one.findings}
        theirs = {f.name: f for f in other.findings}
        for row in _telling(hpo, one, other, one.findings, other.findings, side):
            name, cells = row[0], row[1:3] if side == 0 else row[2:0:-1]
            finding = mine[name]
            assert finding.cardinal or (finding.counted or 0) >= FREQUENT, (first, second, row)
            assert not (0 < finding.patients < MIN_PATIENTS), row  # never from one family's count
            if cells[1] != NOT_ANNOTATED:
                less = theirs[name].counted
                assert less is not None and (less < RARE or less <= CLEARLY_LESS * finding.counted), row


def test_noonan_and_costello_compared_in_tables_with_genes_and_inheritance(pipeline):
    answer = pipeline.ask("What is the difference between Noonan syndrome and Costello syndrome?").answer
    overview = {row[0]: row[1:] for row in table_rows(answer, "|  | Noonan syndrome | Costello syndrome |")}
    assert overview["genes"][0].startswith("PTPN11") and "HRAS" in overview["genes"][1]
    assert "autosomal dominant" in overview["inheritance"][1] and "a group of 14" in overview["members"][0]
    assert " only in " not in answer and NOT_ANNOTATED in answer
    telling = table_rows(answer, "| facial finding | Noonan syndrome | Costello syndrome |")
    for classic in ("Low-set ears", "Epicanthus", "Depressed nasal bridge"):  # classic Noonan signs too
        assert not any(row[0] == classic and row[1] == NOT_ANNOTATED for row in telling), classic
    assert "Facial findings shared:" in answer and "Findings beside the face that tell them apart:" in answer


@pytest.mark.parametrize("mode", ["cypher", "vector"])
def test_williams_features_lead_with_the_cardinal_ones(pipeline, mode):
    answer = pipeline.ask("What facial features does Williams syndrome have?", mode=mode).answer
    rows = table_rows(answer, "| facial finding | frequency |")
    assert rows[0] == ["Elfin facies", "80-99 % · cardinal"]
    assert all(row[1].startswith(("80-99 %", "100 %")) for row in rows[:5])
    assert "hearing" not in " ".join(row[0] for row in rows).lower()
    assert any(line.startswith("Sight and hearing: ") for line in answer.splitlines())
