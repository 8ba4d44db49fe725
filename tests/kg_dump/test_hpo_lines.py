"""HPO's annotation lines with their sources (kg_dump/hpo_lines.py): what holding a paper out leaves of a disease."""

from __future__ import annotations

import math

import pytest

from kg_dump.hpo_lines import SourcedLines, papers_alone

TERMS = {"HP:0000001": {"name": "All"},
         "HP:0000316": {"name": "Hypertelorism", "is_a": ["HP:0000001"]},
         "HP:0000478": {"name": "Abnormality of the eye", "is_a": ["HP:0000001"]},
         "HP:0001250": {"name": "Seizure", "is_a": ["HP:0000001"]},
         "HP:0000006": {"name": "Autosomal dominant inheritance", "is_a": ["HP:0000001"]},
         "HP:0003674": {"name": "Onset", "is_a": ["HP:0000001"]},
         "HP:0003577": {"name": "Congenital onset", "is_a": ["HP:0003674"]}}
HEADER = "database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex\tmodifier\taspect\tb"
LINES = [  # disease, qualifier, term, sources, frequency, aspect
    ("OMIM:900001", "", "HP:0000316", "PMID:10", "3/4", "P"),
    ("OMIM:900001", "", "HP:0000316", "OMIM:900001", "", "P"),  # HPO's curators say it too: it stays
    ("OMIM:900001", "", "HP:0001250", "PMID:10;PMID:11", "1/2", "P"),  # two papers: goes with both
    ("OMIM:900001", "NOT", "HP:0000478", "PMID:10", "", "P"),
    ("OMIM:900001", "", "HP:0000006", "PMID:10", "", "I"),
    ("OMIM:900001", "", "HP:0003577", "PMID:10", "", "C"),
    ("OMIM:900002", "", "HP:0001250", "OMIM:900002", "", "P"),  # no line of it cites a paper alone
    ("ORPHA:9", "", "HP:0000316", "PMID:10", "", "P"),  # known from that paper alone
]


@pytest.fixture(scope="module")
def lines(tmp_path_factory) -> SourcedLines:
    path = tmp_path_factory.mktemp("hpo") / "phenotype.hpoa"
    rows = [f"{d}\tname\t{q}\t{t}\t{ref}\tPCS\t\t{f}\t\t\t{aspect}\tHPO:x" for d, q, t, ref, f, aspect in LINES]
    path.write_text("\n".join(["#version: test", HEADER, *rows]) + "\n")
    return SourcedLines.read(path, TERMS)


@pytest.mark.parametrize(("reference", "papers"), [("PMID:1", (1,)), ("PMID:2; PMID:1", (1, 2)), ("PMID:1;OMIM:2", ()),
                                                   ("ORPHA:3", ()), ("", ()), ("PMID:20037588P", (20037588,))])
def test_a_line_cites_papers_alone_or_not(reference, papers):
    assert papers_alone(reference) == papers


def test_only_the_diseases_whose_lines_cite_a_paper_alone_are_kept_with_them(lines):
    assert lines.diseases == ["OMIM:900001", "ORPHA:9"]
    assert lines.citing(frozenset({10})) == ["OMIM:900001", "ORPHA:9"]
    assert lines.citing(frozenset({11})) == ["OMIM:900001"] and lines.citing(frozenset({12})) == []


def test_nothing_held_out_a_disease_keeps_every_line(lines):
    kept = lines.kept("OMIM:900001", frozenset())
    assert kept.present["HP:0000316"] == 0.75 and kept.present["HP:0001250"] == 0.5
    assert kept.excluded == {"HP:0000478"} and kept.inheritance == {"Autosomal dominant inheritance"}
    assert kept.onset == {"HP:0003577"} and kept.any_left


def test_a_held_out_paper_takes_the_lines_it_alone_is_the_source_of(lines):
    kept = lines.kept("OMIM:900001", frozenset({10}))
    assert set(kept.present) == {"HP:0000316", "HP:0001250"}  # one still said by OMIM, one by another paper too
    assert math.isnan(kept.present["HP:0000316"])  # the paper's 3 of 4 went with it
    assert not kept.excluded and not kept.inheritance and not kept.onset and kept.any_left
    both = lines.kept("OMIM:900001", frozenset({10, 11}))
    assert set(both.present) == {"HP:0000316"}
    gone = lines.kept("ORPHA:9", frozenset({10}))
    assert not gone.present and not gone.any_left  # no gene row is left for it either
