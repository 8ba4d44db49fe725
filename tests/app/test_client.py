"""The named API endpoints `/diagnose` and `/ask`, called with gradio_client on the running app."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

from app.ui_format import RANKED_HEADERS, TRIPLE_HEADERS

pytestmark = pytest.mark.slow

CHD7_CASE = dict(age="5", sex="female", ethnicity="Turkish", gene="CHD7", variant="c.2443-2A>G",
                 phenotypes=["Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma", "Proptosis"],
                 selective=False, option_a="", option_b="", option_c="", option_d="")


@pytest.fixture(scope="module")
def client(app_server) -> Client:
    return Client(app_server.url, verbose=False)


def test_health_endpoint_answers(app_server):
    with urllib.request.urlopen(f"{app_server.url}/healthz", timeout=5) as response:
        assert response.status == 200
        health = json.loads(response.read())
        assert health["status"] == "ok" and health["ner"] == "rules only"  # the tests run NER_MODEL=rules
    app_server.wait_for_vector_index()
    assert "the vector index is ready" in app_server.log_path.read_text()  # the console says so too


def test_named_endpoints_are_listed(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert {"/diagnose", "/ask"} <= set(endpoints)
    names = [p["parameter_name"] for p in endpoints["/diagnose"]["parameters"]]
    assert names == [*CHD7_CASE, "mode", "backend", "temperature", "description", "phenopacket"]
    optional = {p["parameter_name"] for p in endpoints["/diagnose"]["parameters"] if p["parameter_has_default"]}
    assert {"description", "phenopacket"} <= optional  # a client written before them still works


def test_diagnose_returns_the_answer_and_its_evidence(client):
    answer, notices, ranked, triples, cypher, picture, timings, confidence = client.predict(
        *CHD7_CASE.values(), "cypher", "grounded", 0.0, api_name="/diagnose")
    assert confidence.startswith("Confidence ")
    assert answer.startswith("Most likely: CHARGE syndrome")
    headers = ranked["headers"]  # the fixed columns, and the kinds of evidence that speak in this answer
    assert headers[:3] == ["#", "disease", "score"] and headers[-2:] == ["id", "evidence"]
    assert {"gene", "variant", "findings"} <= set(headers) and "option" not in headers
    assert [h for h in RANKED_HEADERS if h in headers] == headers and ranked["data"][0][1] == "CHARGE syndrome"
    assert triples["headers"] == TRIPLE_HEADERS and triples["data"]
    assert any("pubmed.ncbi.nlm.nih.gov/26551301" in row[4] for row in triples["data"])
    assert "MATCH" in cypher
    assert Path(picture).stat().st_size > 10_000
    steps = {name: ms for name, ms in timings.items() if name != "total"}
    assert {"linking", "queries", "ranking", "generation", "evidence_picture"} <= set(steps), timings
    assert timings["total"] == pytest.approx(sum(steps.values()), abs=0.1)  # the total is of the steps shown
    assert "⚠" not in notices  # no warning: only how each name was linked
    assert notices.replace("\\", "").startswith("- Linked: CHD7 → CHD7 (exact)")


def test_ask_answers_a_free_question(client):
    answer, notices, triples, cypher, picture, timings = client.predict(
        "What facial phenotypes are associated with Crouzon syndrome?", "cypher", "grounded", 0.0, api_name="/ask")
    assert "Hypertelorism" in answer
    assert all(row[0] == "Crouzon syndrome" for row in triples["data"])
    assert "template:phenotypes" in cypher
    assert Path(picture).is_file()


def test_input_errors_come_back_as_plain_messages(client):
    case = {**CHD7_CASE, "age": "500"}
    with pytest.raises(AppError, match="An age of 500 years is not possible"):
        client.predict(*case.values(), "cypher", "grounded", 0.0, api_name="/diagnose")
    case = {**CHD7_CASE, "gene": "", "phenotypes": []}
    with pytest.raises(AppError, match="Give at least one facial phenotype or a gene"):
        client.predict(*case.values(), "cypher", "grounded", 0.0, api_name="/diagnose")
    # Gradio checks a value against the choices before the handler (which checks again) runs.
    with pytest.raises(AppError, match="local"):
        client.predict(*CHD7_CASE.values(), "cypher", "local", 0.0, api_name="/diagnose")
    with pytest.raises(AppError, match="graph"):
        client.predict("What causes CHARGE syndrome?", "graph", "grounded", 0.0, api_name="/ask")


def test_explore_returns_the_sankey_table_and_html(client):
    message, plot, table, html, cypher = client.predict("Kabuki syndrome 2", ["FPKG", "HPO"], 1, api_name="/explore")
    assert cypher.count("```cypher") == 2 and "$id" in cypher  # the patients' query and HPO's
    assert message.startswith("**Kabuki syndrome 2 (KS2)** (disease) (matched from 'Kabuki syndrome 2')")
    figure = json.loads(plot["plot"])
    assert figure["data"][0]["type"] == "sankey" and "KDM6A" in figure["data"][0]["node"]["label"]
    assert table["headers"][:2] == ["from", "from type"] and {row[5] for row in table["data"]} == {"FPKG", "HPO"}
    assert "Plotly.newPlot" in Path(html).read_text()


@pytest.mark.parametrize("name, sources, min_count, told", [
    ("", ["FPKG"], 1, "Type a gene symbol or a disease name"),
    ("KDM6A", [], 1, "Choose one or more sources"),
    ("KDM6A", ["FPKG"], 0, "less than minimum value 1"),  # Gradio checks this before the handler does
    ("x" * 400, ["FPKG"], 1, "the limit is 300"),
    ("Qwertyuiop zxcv", ["FPKG"], 1, "No gene or disease named 'Qwertyuiop zxcv'"),
])
def test_explore_bad_input_is_told_plainly(client, name, sources, min_count, told):
    with pytest.raises(AppError, match=told):
        client.predict(name, sources, min_count, api_name="/explore")


def test_explore_with_nothing_to_draw_says_so(client, pipeline):
    name = pipeline.store.query("MATCH (d:Disease) WHERE NOT (:Genotype)-[:Cause]->(d) "
                                "AND NOT (:Variation)-[:Cause]->(d) RETURN d.dname AS name ORDER BY d.nid LIMIT 1")[0]
    message, plot, table, html, cypher = client.predict(name["name"], ["FPKG"], 1, api_name="/explore")
    assert message.endswith("FPKG or HPO has nothing to draw for it.") and plot is None and html is None
    assert cypher.count("```cypher") == 2  # both were asked


@pytest.mark.parametrize("sex", ["", None, "unknown"])
def test_what_clinicians_type_through_the_api(client, sex):
    """Issue 37 (README's example): findings typed in one string, no sex given."""
    answer, notices, ranked, *_ = client.predict(
        "18 months", sex, "Turkish", "CHD7", "c.2443-2A>G", ["coloboma, low-set ears; facial asymmetry"],
        False, "", "", "", "", "cypher", "grounded", 0.0, api_name="/diagnose")
    assert answer.startswith("Most likely: CHARGE syndrome")
    assert "findings given" not in notices and "low-set ears" not in notices.replace("Low-set ears", "")


def test_the_api_description_is_short_and_findings_are_free_strings(client):
    described = client.view_api(print_info=False, return_format="str")
    assert len(described) < 20_000, len(described)  # it enumerated ~8,800 choices: 258 kB
    parameters = client.view_api(print_info=False, return_format="dict")["named_endpoints"]["/diagnose"]["parameters"]
    findings = next(p for p in parameters if p["parameter_name"] == "phenotypes")
    assert findings["type"]["type"] == "array" and findings["type"]["items"] == {"type": "string"}
    with pytest.raises(AppError, match="female, male or unknown"):
        client.predict("5", "martian", "", "CHD7", "", [], False, "", "", "", "", "cypher", "grounded", 0.0,
                       api_name="/diagnose")


PTPN11_DESCRIPTION = ("A 4-year-old boy with a de novo PTPN11 c.922A>G variant, hypertelorism, ptosis, low-set ears "
                      "and pulmonary valve stenosis; no intellectual disability")


def test_a_description_and_a_phenopacket_are_taken_by_name(client, store_phenopacket):
    answer, notices, *_ = client.predict(description=PTPN11_DESCRIPTION, api_name="/diagnose")
    assert answer.startswith("Most likely: Noonan syndrome 1")
    text = notices.replace("\\", "")
    assert "Pulmonic stenosis (HP:0001642, beside the face)" in text
    assert "Findings read, absent: intellectual disability → Intellectual disability (HP:0001249" in text
    assert "The variant c.922A>G counted" in text
    from_packet, *_ = client.predict(phenopacket=store_phenopacket.read_text(), api_name="/diagnose")
    assert from_packet.startswith("Most likely: ")
    with pytest.raises(AppError, match="not JSON"):
        client.predict(phenopacket="{not json", api_name="/diagnose")
