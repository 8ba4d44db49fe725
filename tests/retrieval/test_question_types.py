"""Yes/no, intersection, comparison, count and compound questions, answered from the real graph
in Cypher mode by the grounded writer; each checked against the graph queried directly (the kinds issue 57
added: tests/service/test_ask_kinds.py)."""

from __future__ import annotations

import pytest

from service.disease_features import read_disease
from tests.support.markdown_tables import table_rows

GENE_DISEASES = ("MATCH (g:Genotype)-[:Cause]->(d:Disease) WHERE g.geneName = $gene RETURN DISTINCT d.nid AS id "
                 "UNION MATCH (g:Genotype)<-[:Have]-(:Variation)-[:Cause]->(d:Disease) WHERE g.geneName = $gene "
                 "RETURN DISTINCT d.nid AS id")
DISEASE_PHENOTYPES = ("MATCH (d:Disease)-[:Exhibit]->(p:FacePhenotype) WHERE d.dname = $name "
                      "RETURN DISTINCT p.nid AS id")


def annotated_names(pipeline, disease: str) -> set[str]:
    link = pipeline.linker.link(disease, "DISEASE")
    return {f.name for f in read_disease(pipeline.store, pipeline.annotations, link.node_id, link.name).findings}


def ask(pipeline, question: str):
    return pipeline.ask(question, mode="cypher", backend="grounded")


@pytest.mark.parametrize("question", [
    "Does CHD7 cause CHARGE syndrome?",
    "is proptosis seen in crouzon syndrome?",
    "Is hypertelorism a feature of Crouzon syndrome?",
])
def test_a_recorded_link_is_a_yes_with_its_triples(pipeline, question):
    result = ask(pipeline, question)
    assert result.answer.startswith("Yes: ")
    answering = [run for run in result.cypher if not run.origin.startswith("conflicts:")]  # not the exclusion check
    assert result.triples and answering and all(run.origin.startswith("template:") and "$a" in run.query
                                                for run in answering)


@pytest.mark.parametrize(("question", "first"), [
    ("Does FGFR2 cause Kabuki syndrome 1?", "No: Kabuki syndrome 1 (KS1) is KMT2D in the graph, not FGFR2."),
    ("Is chorioretinal coloboma seen in Apert syndrome?", "Not recorded:"),
])
def test_an_absent_link_is_a_no_for_a_disease_with_its_genes_else_not_recorded(pipeline, question, first):
    result = ask(pipeline, question)
    assert result.answer.startswith(first)
    # no fact links the two; what is shown is what the graph holds nearby, when anything
    asked = {link.node_id for link in result.links if link.node_id is not None}
    assert not any({t.head_id, t.tail_id} == asked for t in result.triples)


def test_a_no_points_the_way(pipeline):
    result = ask(pipeline, "Is KDM6A associated with Kabuki syndrome 1?")
    first, nearby = result.answer.split("\n")[:2]
    assert first == "No: Kabuki syndrome 1 (KS1) is KMT2D in the graph, not KDM6A."
    assert "KDM6A causes Kabuki syndrome 2 (KS2) (OMIM:300867), another member of the Kabuki syndrome group" in nearby
    other = ask(pipeline, "Does FGFR2 cause CHARGE syndrome?").answer
    assert other.startswith("No: CHARGE syndrome is CHD7") and "FGFR2 is linked to Apert Syndrome" in other
    unknown = ask(pipeline, "Is FGFR2 linked to blepharophimosis?").answer  # a gene and a phenotype
    assert unknown.startswith("Not recorded:") or unknown.startswith("Yes:")


def test_a_more_specific_annotation_answers_for_its_parent(pipeline):
    # HPO annotates diseases with specific terms; asking about a general one still finds them
    [parent] = pipeline.store.query(
        "MATCH (d:Disease {dname: 'CHARGE syndrome'})-[:Exhibit]->(:FacePhenotype)-[:is_a]->(p:FacePhenotype) "
        "WHERE NOT (d)-[:Exhibit]->(p) RETURN p.phenotypeName AS name ORDER BY name LIMIT 1")
    result = ask(pipeline, f"Is {parent['name'].lower()} seen in CHARGE syndrome?")
    assert result.answer.startswith("Yes")
    assert result.triples and all(t.tail != parent["name"] for t in result.triples)


def test_diseases_two_genes_have_in_common(pipeline):
    result = ask(pipeline, "Which diseases do FGFR2 and FGFR3 have in common?")
    shared = ({r["id"] for r in pipeline.store.query(GENE_DISEASES, {"gene": "FGFR2"})}
              & {r["id"] for r in pipeline.store.query(GENE_DISEASES, {"gene": "FGFR3"})})
    assert shared, "the graph links FGFR2 and FGFR3 to some of the same diseases"
    assert result.answer.startswith(f"{len(shared)} diseases linked to both FGFR2 and FGFR3:\n1. ")
    named = {t.tail_id for t in result.triples if t.tail_label == "Disease"}
    assert named == shared  # only what was asked for, not every disease of either gene


def test_a_comparison_of_two_diseases_lists_what_both_show_and_what_tells_them_apart(pipeline):
    result = ask(pipeline, "How does Crouzon syndrome differ from Pfeiffer syndrome?")
    assert result.answer.startswith("Crouzon syndrome and Pfeiffer syndrome (HPO's annotations): ")
    after = result.answer.split("Facial findings shared:")[1]
    shared = {row[0] for row in table_rows(after.strip(), "| facial finding | Crouzon syndrome | Pfeiffer syndrome |")}
    crouzon, pfeiffer = (annotated_names(pipeline, name) for name in ("Crouzon syndrome", "Pfeiffer syndrome"))
    assert "Hypertelorism" in shared and shared <= crouzon & pfeiffer
    assert "Facial findings that tell them apart:" in result.answer


def test_a_count_question_answers_with_the_number_first(pipeline):
    result = ask(pipeline, "how many genes are associated with Noonan syndrome 1?")
    genes = {t.head_id for t in result.triples if t.head_label == "Genotype"} | \
        {t.tail_id for t in result.triples if t.tail_label == "Genotype"}
    assert genes and result.answer.startswith(f"{len(genes)} gene")


def test_a_compound_question_gets_both_parts(pipeline):
    result = ask(pipeline, "Which genes are associated with Coffin-Siris syndrome 1 and what facial phenotypes "
                           "does it have?")
    relations = {t.relation for t in result.triples}
    assert {"Cause", "Exhibit"} <= relations
    assert result.answer.startswith("Both parts of the question")


def test_a_plain_question_is_still_answered_by_its_intent(pipeline):
    result = ask(pipeline, "What facial phenotypes are associated with Crouzon syndrome?")
    # (MONDO files Crouzon syndrome with acanthosis nigricans under it, so a group note may lead)
    assert any(line.startswith("Crouzon syndrome: ") and "facial findings" in line
               for line in result.answer.splitlines())


def test_a_feature_seen_in_no_reported_patient_is_neither_a_yes_nor_used_by_the_differential(pipeline):
    rows = pipeline.store.query(
        "MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WITH d, p, max(coalesce(r.frequency, 1.0)) AS most "
        "WHERE most = 0 RETURN d.nid AS disease, d.dname AS name, p.nid AS phenotype, p.phenotypeName AS feature "
        "ORDER BY d.nid, p.nid LIMIT 1")
    assert rows, "HPO has annotations seen in 0 of n patients"
    row = rows[0]
    assert row["phenotype"] not in {a.phenotype for a in pipeline.profiles.by_disease[row["disease"]]}
    result = ask(pipeline, f"Is {row['feature'].lower()} seen in {row['name']}?")
    assert result.answer.startswith("Not recorded")


@pytest.mark.parametrize("mode", ["cypher", "vector"])
def test_diseases_for_either_phenotype_lead_with_those_that_show_both_very_often(pipeline, mode):
    result = pipeline.ask("Which diseases have hypertelorism or cleft palate?", mode=mode, backend="grounded")
    listed = list(dict.fromkeys(t.head_id for t in result.triples if t.head_label == "Disease"))
    rows = pipeline.store.query(
        "MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE d.nid IN $ids AND p.phenotypeName IN $names "
        "RETURN d.nid AS id, count(DISTINCT p) AS matched, "
        "sum(CASE WHEN r.frequency >= 0.8 THEN 1 ELSE 0 END) AS frequent",
        {"ids": listed, "names": ["Hypertelorism", "Cleft palate"]})
    order = {row["id"]: (int(row["matched"]), int(row["frequent"])) for row in rows}
    keys = [order[node] for node in listed if order[node][0] == 2]  # the diseases that show both
    assert keys == sorted(keys, reverse=True)  # both very frequent, then one, before the rest
    assert keys[0] == (2, 2) and (2, 0) in keys


@pytest.mark.parametrize("mode", ["cypher", "vector"])
def test_diseases_with_both_phenotypes_lead_with_those_that_show_them_often_and_specifically(pipeline, mode):
    answer = pipeline.ask("Which diseases have hypertelorism and cleft palate?", mode=mode, backend="grounded").answer
    rows = table_rows(answer, "| # | disease | genes | Hypertelorism | Cleft palate |")
    assert [row[0] for row in rows] == [str(i) for i in range(1, len(rows) + 1)] and len(rows) == 30
    assert all(cell.endswith(("80-99 %", "100 %")) for cell in rows[0][3:])  # the first shows both very often
