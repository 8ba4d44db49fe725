"""The app's parts in-process: handlers on the real pipeline, formatting, the evidence picture, CLI defaults."""

from __future__ import annotations

import platform
from dataclasses import replace

import gradio as gr
import pytest
from PIL import Image

from app.__main__ import default_host, default_port, limit_malloc_arenas, parse_args
from app.evidence_plot import MAX_PER_COLUMN, evidence_graph, render_png
from app.ui import MODE_CHOICES, ask, build_demo, diagnose
from app.ui_examples import example_label, phenotype_choices, publication_examples
from app.ui_format import PUBMED, RANKED_HEADERS, ranked_table, triple_rows
from diagnosis.ranker import RankedDisease
from fpkg.errors import InputError, SettingsError
from retrieval.result import Link, Triple
from retrieval.retriever import MODES
from service.pipeline import PipelineResult
from service.validation import parse_age

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CHD7 = dict(age="5", sex="female", ethnicity="Turkish", gene="CHD7", variant="c.2443-2A>G",
            phenotypes=["Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma", "Proptosis"],
            selective=False, option_a="", option_b="", option_c="", option_d="")


def _triple(head_id, head, head_label, relation, tail_id, tail, tail_label, pmids=()):
    return Triple(head, relation, tail, head_id, tail_id, head_label, tail_label, "FPKG", pmids)


# ---- the evidence picture --------------------------------------------------------------
def test_evidence_graph_keeps_the_answer_and_marks_the_patients_phenotypes():
    triples = [_triple(1, "CHD7", "Genotype", "Cause", 10, "CHARGE syndrome", "Disease"),
               _triple(10, "CHARGE syndrome", "Disease", "Exhibit", 20, "Proptosis", "FacePhenotype"),
               _triple(11, "Other", "Disease", "Exhibit", 21, "Ptosis", "FacePhenotype")]
    links = [Link("proptosis", "FACIAL_PHENOTYPE", 20, "FacePhenotype", "Proptosis", 1.0, "exact"),
             Link("CHD7", "GENE", 1, "Genotype", "CHD7", 1.0, "exact")]
    evidence = evidence_graph(triples, links, diseases=[10], answer=10)
    assert set(evidence.graph) == {1, 10, 20}  # the unranked disease's triple is left out
    assert evidence.matched == {20} and evidence.answer == 10
    png = render_png(evidence, "Evidence for CHARGE syndrome")
    assert png.startswith(PNG_MAGIC) and len(png) > 10_000


def test_evidence_graph_limits_each_column_but_keeps_matched_phenotypes():
    triples = [_triple(10, "Crouzon syndrome", "Disease", "Exhibit", 100 + i, f"phenotype {i}", "FacePhenotype")
               for i in range(MAX_PER_COLUMN + 10)]
    last = 100 + MAX_PER_COLUMN + 9
    links = [Link("p", "FACIAL_PHENOTYPE", last, "FacePhenotype", "phenotype", 1.0, "exact")]
    evidence = evidence_graph(triples, links)
    assert last in evidence.graph and evidence.matched == {last}
    assert evidence.graph.number_of_nodes() == MAX_PER_COLUMN + 1
    assert evidence.left_out == 10


def test_every_finding_given_is_drawn_those_no_disease_shows_marked():
    triples = [_triple(10, "CHARGE syndrome", "Disease", "Exhibit", 20, "Coloboma", "FacePhenotype")]
    links = [Link("coloboma", "FACIAL_PHENOTYPE", 20, "FacePhenotype", "Coloboma", 1.0, "exact"),
             Link("ptosis", "FACIAL_PHENOTYPE", 21, "FacePhenotype", "Ptosis", 1.0, "exact"),
             Link("seizures", "FINDING", None, None, "Seizure", 1.0, "exact", ("HP:0001250",)),
             Link("no cleft palate", "ABSENT", None, None, "Cleft palate", 1.0, "exact", ("HP:0000175",)),
             Link("zzz", "FACIAL_PHENOTYPE", None, method="none")]
    evidence = evidence_graph(triples, links, diseases=[10], answer=10)
    names = {evidence.graph.nodes[n]["name"] for n in evidence.graph}
    assert names == {"CHARGE syndrome", "Coloboma", "Ptosis", "Seizure"}  # absent and unread ones are not drawn
    assert evidence.matched == {20} and len(evidence.unmatched) == 2 and 21 in evidence.unmatched
    assert render_png(evidence, "Evidence").startswith(PNG_MAGIC)


def test_nothing_to_draw_gives_no_picture():
    assert render_png(evidence_graph([], [])) is None


# ---- formatting --------------------------------------------------------------------------
def test_tables_keep_the_graphs_order_mark_the_answer_and_link_pmids():
    first = RankedDisease("A", 1, "OMIM:1", 3.0, {"gene": 2.0, "phenotype": 1.0}, ["a"])
    second = RankedDisease("B", 2, "OMIM:2", 4.0, {"gene": 2.0, "cases": 2.0}, ["b"])
    result = PipelineResult("diagnosis", "cypher", "grounded", ranked=[first, second], predicted=first,
                            triples=[_triple(1, "G", "Genotype", "Cause", 2, "B", "Disease", (123, 456))])
    table = ranked_table(result)
    assert list(table["disease"]) == ["A", "B"] and list(table["#"]) == ["1 ✓", "2"]
    # an LLM that chose the graph's second: the differential stays the graph's, its choice marked beside it
    chosen = ranked_table(replace(result, predicted=second, record=second))
    assert list(chosen["disease"]) == ["A", "B"] and list(chosen["#"]) == ["1", "2 ✓"]
    overruled = ranked_table(replace(result, predicted=second, record=first))  # its choice is not the record
    assert list(overruled["#"]) == ["1 ✓", "2 LLM"]
    # a family of evidence that speaks for any row is a column, each kind's part summed in its family
    assert table["gene"][0] == 2.0 and table["literature"][0] == 0.0 and table["literature"][1] == 2.0
    # only the families that speak in this answer, in the order of every column it may have; no option column
    assert list(table.columns) == ["#", "disease", "score", "gene", "findings", "literature", "id", "evidence"]
    assert [c for c in RANKED_HEADERS if c in table.columns] == list(table.columns)
    assert triple_rows(result)[0][4] == f"[123]({PUBMED.format(123)}), [456]({PUBMED.format(456)})"


def test_every_kind_of_evidence_is_in_one_column_of_the_ranked_table():
    from app.ui_format import PART_COLUMNS
    from diagnosis.ranker import PART_NAMES

    placed = [kind for kinds in PART_COLUMNS.values() for kind in kinds]
    assert sorted(placed) == sorted(PART_NAMES)


@pytest.mark.parametrize(("text", "years"), [("5", 5.0), (" 4.5 ", 4.5), ("18 months", 1.5), ("", None),
                                              (None, None), ("-3", -3.0), ("500", 500.0)])
def test_age_field(text, years):
    assert parse_age(text) == years


def test_age_that_is_not_a_number_is_explained():
    with pytest.raises(InputError, match="not a number of years"):
        parse_age("toddler")


# ---- handlers on the real pipeline --------------------------------------------------------
def test_the_radio_offers_exactly_the_pipelines_modes():
    assert tuple(value for _, value in MODE_CHOICES) == MODES


def test_diagnose_handler_streams_the_panel(pipeline):
    outputs = list(diagnose(pipeline, *CHD7.values(), "cypher", "grounded", 0.0))
    answer, notices, ranked, triples, cypher, picture, timings, confidence = outputs[-1]
    assert answer.startswith("Most likely: CHARGE syndrome")
    # gene, published variant and phenotypes agree: the calibrated confidence is high
    assert confidence.startswith("Confidence ") and "Low" not in confidence
    assert ranked["disease"][0] == "CHARGE syndrome" and triples and "MATCH" in cypher
    assert picture is not None and Image.open(picture).size[0] > 300  # a PNG file, drawn once per evidence
    again = list(diagnose(pipeline, *CHD7.values(), "cypher", "grounded", 0.0))
    assert len(again) == 1 and again[0][5] == picture  # the same evidence: one message, the same picture
    steps = {name: ms for name, ms in timings.items() if name != "total"}
    assert {"evidence_picture", "generation"} <= set(steps)
    assert timings["total"] == pytest.approx(sum(steps.values()), abs=0.1)


def test_selective_case_answers_with_an_option(pipeline):
    case = {**CHD7, "selective": True, "option_a": "Leigh syndrome", "option_b": "CHARGE syndrome",
            "option_c": "Cohen syndrome", "option_d": ""}
    ranked = list(diagnose(pipeline, *case.values(), "cypher", "grounded", 0.0))[-1][2]
    table = ranked
    assert table["disease"][0] == "CHARGE syndrome" and table["option"][0] == "B"


@pytest.mark.parametrize(("change", "message"), [
    ({"age": "500"}, "500 years is not possible"),
    ({"age": "old"}, "not a number of years"),
    ({"gene": "", "phenotypes": []}, "Give at least one facial phenotype or a gene"),
    ({"selective": True, "option_a": "CHARGE syndrome"}, "at least two answer options"),
])
def test_user_errors_become_gr_error(pipeline, change, message):
    with pytest.raises(gr.Error, match=message):
        list(diagnose(pipeline, *{**CHD7, **change}.values(), "cypher", "grounded", 0.0))


def test_unknown_mode_and_backend_are_refused(pipeline):
    with pytest.raises(gr.Error, match="Unknown retrieval mode"):
        list(ask(pipeline, "Which genes cause CHARGE syndrome?", "graph", "grounded", 0.0))
    with pytest.raises(gr.Error, match="not available here"):
        list(ask(pipeline, "Which genes cause CHARGE syndrome?", "cypher", "nonsense", 0.0))
    assert pipeline.backends == ("grounded",)


def test_ask_handler_without_retrieval_says_there_is_nothing_to_answer_with(pipeline):
    answer, *_, picture, timings = list(ask(pipeline, "What causes CHARGE syndrome?", "none", "grounded", 0.0))[-1]
    assert answer.startswith("Nothing to answer with") and picture is None


def test_form_vocabulary_and_examples(pipeline):
    choices = phenotype_choices(pipeline.linker)
    assert len({c.lower() for c in choices}) == len(choices) > len(pipeline.linker.names("FacePhenotype"))
    assert "Proptosis" in choices
    examples = publication_examples(pipeline)
    assert examples[0][3] == "CHD7" and examples[0][6] is True and "CHARGE syndrome" in examples[0][7:]
    assert example_label(examples[0]).startswith("CHD7 ")


def test_demo_names_its_api_endpoints(pipeline):
    demo = build_demo(pipeline)
    names = {fn.api_name for fn in demo.fns.values()}
    assert {"diagnose", "ask"} <= names
    frequency, age = demo.delete_cache  # evidence pictures do not pile up on a long-running server's disk
    assert 0 < frequency <= 86_400 and 0 < age <= 86_400
    assert {"extract", "merge", "undo", "import_overlay", "audit"} <= names
    assert not demo.expects_oauth  # off a Space: no Hugging Face sign-in


def test_on_a_space_the_page_offers_sign_in_with_hugging_face(pipeline, monkeypatch):
    from app.access import Access
    from fpkg.config import access_settings

    # what a Space with `hf_oauth: true` sets (Gradio reads the OAuth ones when it is imported)
    monkeypatch.setenv("SYSTEM", "spaces")
    monkeypatch.setenv("SPACE_ID", "someone/fpkg-rag")
    for name, value in (("OAUTH_CLIENT_ID", "client"), ("OAUTH_CLIENT_SECRET", "secret"),
                        ("OAUTH_SCOPES", "openid profile"), ("OPENID_PROVIDER_URL", "https://huggingface.co")):
        monkeypatch.setattr(f"gradio.oauth.{name}", value)

    demo = build_demo(pipeline, Access(access_settings(pipeline.settings), hf_oauth=True))
    assert demo.expects_oauth
    assert any(isinstance(block, gr.LoginButton) for block in demo.blocks.values())
    assert "/login/huggingface" in {getattr(route, "path", "") for route in demo.app.routes}


# ---- command line --------------------------------------------------------------------------
def test_host_is_loopback_unless_in_a_container_or_space():
    assert default_host({}) == "127.0.0.1"
    assert default_host({"FPKG_IN_CONTAINER": "1"}) == "0.0.0.0"
    assert default_host({"SPACE_ID": "someone/fpkg-rag"}) == "0.0.0.0"
    args = parse_args(["--port", "8123", "--host", "0.0.0.0"])
    assert (args.port, args.host, args.warm_up) == (8123, "0.0.0.0", False)


def test_gradio_server_variables_then_port_then_the_default():
    assert default_host({"GRADIO_SERVER_NAME": "10.0.0.5", "SPACE_ID": "a/b"}) == "10.0.0.5"
    assert default_port({}) == 7860
    assert default_port({"PORT": "8080"}) == 8080
    assert default_port({"GRADIO_SERVER_PORT": "9000", "PORT": "8080"}) == 9000
    with pytest.raises(SettingsError, match="GRADIO_SERVER_PORT='http' is not a port number"):
        default_port({"GRADIO_SERVER_PORT": "http"})
    assert parse_args([]).port is None  # resolved from the environment at start; a flag wins


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_malloc_arenas_are_limited_unless_set():
    assert limit_malloc_arenas({}) is True  # glibc accepted the limit
    assert limit_malloc_arenas({"MALLOC_ARENA_MAX": "4"}) is False  # an explicit setting wins


def test_nothing_typed_in_the_form_changes_the_graph(pipeline):
    before = pipeline.store.counts()
    hostile = "X'}) MATCH (n) DETACH DELETE n //"
    case = {**CHD7, "gene": hostile, "variant": "'; CREATE (:Evil) //", "phenotypes": [hostile, "Proptosis"]}
    list(diagnose(pipeline, *case.values(), "cypher", "grounded", 0.0))
    list(ask(pipeline, "MATCH (n) DETACH DELETE n RETURN count(n)", "cypher", "grounded", 0.0))
    assert pipeline.store.counts() == before
