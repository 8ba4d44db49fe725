"""Ask answers the question asked (issue 57), through the service in both modes: the kind of question decides
the first line (inheritance by gene, yes/no for the entity asked about, "with" and "both" as intersections,
"in common" with the shared findings first), genes in the order that matters, the textbook features first, and
Markdown a clinician can scan (tables, numbered lists, names written once)."""

from __future__ import annotations

import re

import pytest

from tests.support.markdown_tables import table_rows

MODES = ["cypher", "vector"]


def ask(pipeline, question: str, mode: str = "cypher") -> str:
    return pipeline.ask(question, mode=mode, backend="grounded").answer


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("question", ["How is Cornelia de Lange syndrome inherited?",
                                      "What is the recurrence risk in Cornelia de Lange syndrome?",
                                      "Cornelia de Lange syndrome: mode of inheritance?"])
def test_inheritance_is_answered_with_the_modes_by_gene(pipeline, question, mode):
    answer = ask(pipeline, question, mode)
    first = answer.splitlines()[0]
    found = re.match(r"Cornelia de Lange syndrome \(CdLS\) is inherited autosomal dominant \((.+?)\) or X-linked "
                     r"\((.+?)\), by gene", first)
    assert found, first
    assert set(found.group(1).split(", ")) >= {"NIPBL", "SMC3", "RAD21", "BRD4"}
    assert set(found.group(2).split(", ")) == {"SMC1A", "HDAC8"}
    rows = table_rows(answer, "| gene | disease | mode of inheritance (HPO) |")
    assert rows[0][:2] == ["NIPBL", "Cornelia de Lange syndrome 1"]  # the genes in the order that matters
    assert {row[0] for row in rows} >= {"NIPBL", "SMC1A", "SMC3", "RAD21", "HDAC8", "BRD4"}


@pytest.mark.parametrize("mode", MODES)
def test_a_gene_of_a_related_entry_is_a_no_for_the_disease_asked_about(pipeline, mode):
    answer = ask(pipeline, "Is FGFR3 associated with Crouzon syndrome?", mode)
    first, second = answer.splitlines()[:2]
    assert first.startswith("No: classic Crouzon syndrome is FGFR2") and first.endswith("not FGFR3."), first
    assert second.startswith("FGFR3 causes Crouzon syndrome with acanthosis nigricans"), second
    assert not answer.startswith("Yes")


@pytest.mark.parametrize("mode", MODES)
def test_yes_no_over_a_group_and_its_members(pipeline, mode):
    group = ask(pipeline, "Is BRAF associated with Noonan syndrome?", mode)
    assert group.startswith("Yes, through a member: BRAF causes Noonan syndrome 7, a member of the Noonan "
                            "syndrome group."), group
    member = ask(pipeline, "Is PTPN11 associated with Noonan syndrome 7?", mode)
    first, second = member.splitlines()[:2]
    assert first == "No: Noonan syndrome 7 is BRAF in the graph, not PTPN11.", first
    assert "PTPN11 causes Noonan syndrome 1" in second and "another member of the Noonan syndrome group" in second
    assert ask(pipeline, "Does CHD7 cause CHARGE syndrome?", mode).startswith("Yes: CHD7 causes CHARGE syndrome")


HAS_WITH_CLOSURE = ("MATCH (d:Disease)-[r:Exhibit]->(q:FacePhenotype)-[:is_a*0..12]->(p:FacePhenotype) "
                    "WHERE d.dname = $disease AND p.phenotypeName IN $names AND coalesce(r.frequency, 1.0) > 0 "
                    "RETURN count(DISTINCT q) AS n")


@pytest.mark.parametrize("mode", MODES)
def test_with_means_both_and_or_means_either(pipeline, mode):
    answer = ask(pipeline, "Which syndromes cause lower lip pits with cleft lip or palate?", mode)
    first = answer.splitlines()[0]
    assert re.match(r"\d diseases have both Lower lip pit and Cleft lip or Cleft palate", first), first
    rows = table_rows(answer, "| # | disease | genes | Lower lip pit | Cleft lip or Cleft palate |")
    listed = {row[1]: row[2] for row in rows}
    assert "IRF6" in listed["van der Woude syndrome 1"] and "IRF6" in listed["Popliteal pterygium syndrome"]
    assert "GRHL3" in listed["Van der Woude syndrome"]  # the group: VWS1 (IRF6) and VWS2 (GRHL3)
    assert [row[1] for row in rows][0] == "van der Woude syndrome 1"
    for disease in listed:  # every one shows both: a lip pit, and a cleft lip or palate (or a finding below)
        lip_pit = pipeline.store.query(HAS_WITH_CLOSURE, {"disease": disease, "names": ["Lower lip pit"]})
        cleft = pipeline.store.query(HAS_WITH_CLOSURE, {"disease": disease, "names": ["Cleft lip", "Cleft palate"]})
        assert lip_pit[0]["n"] and cleft[0]["n"], disease
    assert "Split lower lip" not in listed and "Uvula, bifid" not in listed
    either = ask(pipeline, "Which diseases have ptosis or blepharophimosis?", mode)
    both = ask(pipeline, "Which diseases have ptosis and blepharophimosis?", mode)
    assert int(either.split()[either.split().index("diseases") - 1]) > int(both.split()[0]) > 10


@pytest.mark.parametrize("mode", MODES)
def test_a_groups_genes_come_in_the_order_that_matters_with_its_members_genes(pipeline, mode):
    answer = ask(pipeline, "Which genes cause Noonan syndrome?", mode)
    first = answer.splitlines()[0]
    assert first.startswith("16 genes for Noonan syndrome, its members' included"), first
    items = [line for line in answer.splitlines() if re.match(r"\d+\. ", line)]
    assert items[0].startswith("1. PTPN11 — Noonan syndrome 1;") and "published patient" in items[0]
    assert any(item.split(". ", 1)[1].startswith("BRAF — Noonan syndrome 7") for item in items)
    assert len(items) == 16 and [int(item.split(".")[0]) for item in items] == list(range(1, 17))


@pytest.mark.parametrize("mode", MODES)
def test_a_comparison_is_a_table_of_what_tells_them_apart_from_textbook_frequencies(pipeline, mode):
    answer = ask(pipeline, "What distinguishes Kabuki syndrome from CHARGE syndrome?", mode)
    first = answer.splitlines()[0]
    assert first.startswith("Kabuki syndrome and CHARGE syndrome (HPO's annotations): Kabuki syndrome has "
                            "Eversion of lateral third of lower eyelids"), first
    overview = table_rows(answer, "|  | Kabuki syndrome | CHARGE syndrome |")
    assert overview[0] == ["genes", "KMT2D, KDM6A", "CHD7"]
    telling = table_rows(answer, "| facial finding | Kabuki syndrome | CHARGE syndrome |")
    charge = {row[0]: row[2] for row in telling if row[2] != "not annotated"}
    assert "Coloboma" in charge and "cardinal" in charge["Coloboma"]
    beside = table_rows(answer, "| finding | Kabuki syndrome | CHARGE syndrome |")
    for row in telling + beside:  # never a frequency counted in a few patients (one family)
        assert not re.search(r"\b\d of \d patients", " ".join(row)), row
    said = " ".join(row[0] for row in telling + beside)
    for one_family in ("Absent tibia", "Bifid femur", "Self-mutilation", "Unilateral microphthalmos"):
        assert one_family not in said
    for row in telling + beside:  # the names once, in the headers: never again in a cell
        assert not any("Kabuki" in cell or "CHARGE" in cell for cell in row), row


@pytest.mark.parametrize("mode", MODES)
def test_in_common_answers_with_the_shared_findings_first(pipeline, mode):
    answer = ask(pipeline, "Which facial phenotypes do Kabuki syndrome and CHARGE syndrome have in common?", mode)
    first = answer.splitlines()[0]
    found = re.match(r"Kabuki syndrome and CHARGE syndrome share (\d+) facial findings in HPO's annotations: (.+)\.$",
                     first)
    assert found, first
    shared = table_rows(answer, "| facial finding | Kabuki syndrome | CHARGE syndrome |")
    assert len(shared) == int(found.group(1)) and "Coloboma" in {row[0] for row in shared}
    assert answer.index("Facial findings shared:") < answer.index("Facial findings that tell them apart:")


@pytest.mark.parametrize("mode", MODES)
def test_a_diseases_features_lead_with_the_textbook_ones_in_a_table(pipeline, mode):
    answer = ask(pipeline, "Typical facial features of Williams syndrome", mode)
    first = answer.splitlines()[0]
    assert first.startswith("Williams-Beuren syndrome: the typical facial findings are Elfin facies"), first
    rows = table_rows(answer, "| facial finding | frequency |")
    assert rows[0] == ["Elfin facies", "80-99 % · cardinal"]
    assert all("patients" not in row[1] for row in rows)  # a count from a few patients is never in the table
    assert "Periorbital edema" in {row[0] for row in rows} and "Wide mouth" in {row[0] for row in rows}


def test_charges_features_say_how_many_patients_a_count_comes_from(pipeline):
    answer = ask(pipeline, "What are the facial features of CHARGE syndrome?")
    rows = table_rows(answer, "| facial finding | frequency |")
    assert {"Coloboma", "Choanal atresia"} <= {row[0] for row in rows}
    assert all(not re.search(r"\d of \d patients", row[1]) for row in rows)
    assert re.search(r"counted in few patients — [^;]*\(\d of \d patients\)", answer)


@pytest.mark.parametrize("mode", MODES)
def test_a_finding_named_like_an_omim_entry_is_read_as_the_finding(pipeline, mode):
    answer = ask(pipeline, "Which syndromes have bifid uvula and cleft palate?", mode)
    assert re.match(r"\d+ diseases have both Bifid uvula and Cleft palate", answer), answer[:200]
    assert "is Uvula, bifid in the graph" not in answer  # never said to be the OMIM entry it was not read as
    rows = table_rows(answer, "| # | disease | genes | Bifid uvula | Cleft palate |")
    assert rows and "Uvula, bifid" not in {row[1] for row in rows}


@pytest.mark.parametrize("question", ["How is Cornelia de Lange syndrome inherited?",
                                      "How is Marfan syndrome inherited?",
                                      "What are the facial features of CHARGE syndrome?",
                                      "What distinguishes Kabuki syndrome from CHARGE syndrome?",
                                      "Which syndromes cause lower lip pits with cleft lip or palate?"])
def test_a_table_ends_before_the_text_after_it(pipeline, question):
    lines = ask(pipeline, question).splitlines()
    for line, following in zip(lines, lines[1:], strict=False):
        if line.startswith("|"):  # Markdown reads a line right below a table as one of its rows
            assert following.startswith("|") or not following.strip(), (line, following)
