"""MONDO's identity tables as the project reads them (the shared `mondo/` folder), and the rule that puts
HPO's series-artefact gene links where they belong."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from fpkg.errors import DataFileError
from identity.mondo import TABLES, Mondo
from identity.series import correct_series_links
from kg_dump.hpo_layer import default_hpo_dir

KABUKI, KS1, KS2 = "MONDO:0016512", "MONDO:0007843", "MONDO:0010465"


@pytest.fixture(scope="module")
def mondo(data_dir: Path) -> Mondo:
    folder = data_dir.parent / "mondo"
    if not folder.is_dir():
        pytest.skip(f"no MONDO tables beside {data_dir}")
    return Mondo.load(folder)


@pytest.fixture(scope="module")
def hpo_gene_links() -> set[tuple[str, str]]:
    with open(default_hpo_dir() / "genes_to_phenotype.txt", encoding="utf-8") as f:
        return {(r["gene_symbol"], r["disease_id"]) for r in csv.DictReader(f, delimiter="\t")}


def test_a_group_and_its_members(mondo):
    assert mondo.of("ORPHA:2322") == mondo.of("OMIMPS:147920") == KABUKI  # Orphanet's entry is the series
    assert mondo.of("OMIM:147920") == KS1 and mondo.of("OMIM:300867") == KS2
    assert mondo.is_group(KABUKI) and not mondo.is_group(KS1)
    assert mondo.descendants(KABUKI) == {KS1, KS2} and KABUKI in mondo.ancestors(KS2)
    assert mondo.omim_of(KS2) == "OMIM:300867"


def test_names_as_mondo_omim_and_orphanet_write_them(mondo):
    assert mondo.named("Kabuki syndrome 2") == mondo.named("KABUKI SYNDROME 2") == KS2
    assert mondo.named("Ullrich congenital muscular dystrophy 1B") == mondo.of("OMIM:620727")  # newer than HPO 2025-01
    assert mondo.named("Kabuki syndrome 12") is None


def test_missing_tables_leave_mondo_empty_and_a_part_of_them_is_an_error(tmp_path):
    assert not Mondo.load(tmp_path) and not Mondo.load(None)
    (tmp_path / TABLES[0]).write_text("mondo_id\tmondo_label\txref_id\txref_label\n")
    with pytest.raises(DataFileError, match="lacks the MONDO tables"):
        Mondo.load(tmp_path)


def test_series_links_go_to_the_member_the_gene_defines(mondo, hpo_gene_links):
    fixed, report = correct_series_links(hpo_gene_links, mondo)
    genes_of = lambda disease: sorted(g for g, d in fixed if d == disease)  # noqa: E731
    assert ("KDM6A", "OMIM:147920") in hpo_gene_links  # the artefact, as HPO's file has it
    assert genes_of("OMIM:147920") == ["KMT2D"] and "KDM6A" in genes_of("OMIM:300867")  # Kabuki 1 and 2
    assert genes_of("OMIM:163950") == ["PTPN11"]  # Noonan syndrome 1
    assert "BRAF" in genes_of("OMIM:613706")  # Noonan syndrome 7, which MONDO says BRAF defines
    assert ("MAP2K1", "OMIM:163950") in report.dropped  # linked to no member, nor to the series' entry
    assert report.artefact_entries > 40 and report.moved and not set(report.dropped) & fixed


def test_the_series_rule_on_a_small_example():
    mondo = Mondo(xrefs={"OMIMPS:100": "M:S", "OMIM:100": "M:1", "OMIM:200": "M:2", "ORPHA:9": "M:S"},
                  children={"M:S": {"M:1", "M:2"}}, series_gene={"M:2": "B"})
    links = {("A", "OMIM:100"), ("B", "OMIM:100"), ("C", "OMIM:100"), ("A", "ORPHA:9"), ("B", "OMIM:200")}
    fixed, report = correct_series_links(links, mondo)
    # B defines member 2; A is the series entry's (linked to the group's Orphanet entry); C to nothing
    assert fixed == {("A", "OMIM:100"), ("A", "ORPHA:9"), ("B", "OMIM:200")}
    assert report.moved == [("B", "OMIM:100", "OMIM:200")] and report.dropped == [("C", "OMIM:100")]


def test_a_name_in_another_word_order_is_the_same_disease(mondo):
    assert mondo.named("Distal renal tubular acidosis 2 with progressive sensorineural hearing loss") == \
        mondo.of("OMIM:267300")
    assert mondo.named("Renal tubular acidosis, distal, 3, with progressive sensorineural hearing loss") != \
        mondo.of("OMIM:267300")  # another number: another disease
