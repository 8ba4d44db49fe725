"""The curated layer on a real FalkorDB graph: merge, undo, replay after a rebuild, export/import, and
bad input (a fact outside the schema, a node the graph lacks, a damaged overlay) leaving the graph
and the overlay as they were."""

from __future__ import annotations

import json

import pytest

from curation.facts import Fact
from curation.graph_writes import CURATED
from curation.layer import CuratedLayer
from curation.overlay import Overlay
from fpkg.errors import InputError
from graphstore.graph import Graph, Node, Relationship

EXHIBIT = Fact("Disease", "Noonan syndrome", "Exhibit", "FacePhenotype", "Hypertelorism", "She had hypertelorism.")
CAUSE = Fact("Genotype", "PTPN11", "Cause", "Disease", "Noonan syndrome", "A PTPN11 variant was found.")
AFFECT = Fact("Genotype", "PTPN11", "Affect", "FacePhenotype", "Ptosis")


def graph() -> Graph:
    return Graph([Node(1, ["Disease"], {"dname": "Noonan syndrome", "source": "HPO"}),
                  Node(10, ["FacePhenotype"], {"phenotypeName": "Hypertelorism"}),
                  Node(11, ["FacePhenotype"], {"phenotypeName": "Ptosis"}),
                  Node(20, ["Genotype"], {"geneName": "PTPN11"})],
                 [Relationship(100, "Exhibit", 1, 11, {"source": "HPO"})])


def curated(store) -> set[tuple[str, str, str, int]]:
    rows = store.query("MATCH (h)-[r]->(t) WHERE r.source = $s RETURN coalesce(h.dname, h.geneName) AS h, "
                       "type(r) AS r, coalesce(t.dname, t.phenotypeName) AS t, r.batch AS b", {"s": CURATED})
    return {(row["h"], row["r"], row["t"], row["b"]) for row in rows}


def fingerprint(store, overlay: Overlay) -> tuple:
    rows = store.query("MATCH (h)-[r]->(t) RETURN id(h) AS h, type(r) AS r, id(t) AS t, properties(r) AS p")
    return sorted(json.dumps(row, sort_keys=True) for row in rows), (
        overlay.path.read_bytes() if overlay.path.is_file() else b"")


@pytest.fixture
def layer(falkordb_store, tmp_path) -> CuratedLayer:
    falkordb_store.load(graph())
    return CuratedLayer.open(falkordb_store, tmp_path / "overlay.jsonl")


def test_a_batch_is_merged_with_provenance_and_undone(layer):
    batch = layer.merge("cara", [EXHIBIT, CAUSE], pmid="12345678")
    assert curated(layer.store) == {("Noonan syndrome", "Exhibit", "Hypertelorism", 1),
                                    ("PTPN11", "Cause", "Noonan syndrome", 1)}
    [row] = layer.store.query("MATCH ()-[r:Cause]->() WHERE r.source = $s RETURN r.curator AS c, r.pmid AS p, "
                              "r.sentence AS s", {"s": CURATED})
    assert row == {"c": "cara", "p": 12345678, "s": "A PTPN11 variant was found."}
    second = layer.merge("cara", [AFFECT], text="PTPN11 carriers had ptosis.")
    assert second.batch == 2 and len(second.text_sha256) == 64 and not second.pmid
    layer.undo(batch.batch, "ada")
    assert curated(layer.store) == {("PTPN11", "Affect", "Ptosis", 2)}
    with pytest.raises(InputError, match="already undone by ada"):
        layer.undo(batch.batch, "ada")
    with pytest.raises(InputError, match="no curated batch 9"):
        layer.undo(9, "ada")
    state = layer.state()
    assert [b.batch for b in state.live()] == [2] and state.undone == {1: "ada"}


def test_a_rebuild_loses_no_curated_fact(layer, tmp_path):
    layer.merge("cara", [EXHIBIT], pmid="1")
    layer.merge("cara", [CAUSE], pmid="2")
    layer.undo(1, "ada")
    layer.store.load(graph())  # the build replaces the graph
    assert curated(layer.store) == set()
    reopened = CuratedLayer.open(layer.store, tmp_path / "overlay.jsonl")
    assert curated(layer.store) == {("PTPN11", "Cause", "Noonan syndrome", 2)}
    assert (reopened.replayed.batches, reopened.replayed.relationships) == (1, 1)
    CuratedLayer.open(layer.store, tmp_path / "overlay.jsonl")  # a start without a rebuild: no duplicate
    assert len(layer.store.query("MATCH ()-[r:Cause]->() RETURN r")) == 1


@pytest.mark.parametrize(("facts", "message"), [
    ([Fact("Disease", "Noonan syndrome", "Cause", "Genotype", "PTPN11")], "not in the graph's schema"),
    ([Fact("Sample", "s1", "with_FP", "FacePhenotype", "Ptosis")], "not in the graph's schema"),
    ([Fact("Disease", "Noonan syndrome", "DETACH DELETE", "FacePhenotype", "Ptosis")], "not in the graph's schema"),
    ([EXHIBIT, Fact("Disease", "Made-up syndrome", "Exhibit", "FacePhenotype", "Ptosis")],
     "no disease 'Made-up syndrome'"),
    ([Fact("Disease", "Noonan syndrome", "Exhibit", "FacePhenotype", "")], "1 to 300 characters"),
    ([], "accept at least one"),
    ([EXHIBIT] * 501, "at most 500"),
])
def test_a_bad_fact_changes_neither_graph_nor_overlay(layer, facts, message):
    layer.merge("cara", [AFFECT], pmid="3")
    before = fingerprint(layer.store, layer.overlay)
    with pytest.raises(InputError, match=message):
        layer.merge("cara", facts)
    assert fingerprint(layer.store, layer.overlay) == before


def test_a_bad_pmid_is_refused(layer):
    with pytest.raises(InputError, match="not a PubMed id"):
        layer.merge("cara", [EXHIBIT], pmid="12; DROP")
    assert curated(layer.store) == set()


def test_an_overlay_edited_by_hand_is_not_applied_and_says_which_line(layer, tmp_path):
    layer.merge("cara", [EXHIBIT], pmid="1")
    layer.merge("cara", [CAUSE], pmid="2")
    path = tmp_path / "overlay.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1].replace("PTPN11", "KRAS") + "\n")
    reopened = CuratedLayer.open(layer.store, path)
    assert "line 2" in reopened.problem and "changed by hand" in reopened.problem
    assert curated(layer.store) == set()  # none applied: the graph matches no half-read overlay
    with pytest.raises(InputError, match="switched off"):
        reopened.merge("cara", [AFFECT])


def test_a_last_line_cut_short_is_ignored_then_cut_away(layer, tmp_path):
    layer.merge("cara", [EXHIBIT], pmid="1")
    path = tmp_path / "overlay.jsonl"
    with open(path, "a") as out:
        out.write('{"kind": "merge", "batch": 2, "cur')  # a crash in the middle of a write
    reopened = CuratedLayer.open(layer.store, path)
    assert reopened.problem is None and reopened.overlay.read().cut_short
    assert curated(layer.store) == {("Noonan syndrome", "Exhibit", "Hypertelorism", 1)}
    reopened.merge("cara", [CAUSE], pmid="2")
    assert not reopened.overlay.read().cut_short and [b.batch for b in reopened.state().live()] == [1, 2]


def test_an_export_imports_as_new_batches_and_a_damaged_one_is_refused(layer, falkordb_store, tmp_path):
    layer.merge("cara", [EXHIBIT, CAUSE], pmid="7")
    exported = layer.export_text()
    falkordb_store.load(graph())
    other = CuratedLayer.open(falkordb_store, tmp_path / "other.jsonl")
    [batch] = other.import_text(exported, "ida")
    assert batch.curator == "ida" and batch.pmid == "7" and len(batch.facts) == 2
    assert {(h, r, t) for h, r, t, _ in curated(falkordb_store)} == {
        ("Noonan syndrome", "Exhibit", "Hypertelorism"), ("PTPN11", "Cause", "Noonan syndrome")}
    before = fingerprint(falkordb_store, other.overlay)
    from fpkg.errors import OverlayError

    with pytest.raises(OverlayError, match="changed by hand"):
        other.import_text(exported.replace("Hypertelorism", "Ptosis"), "ida")
    with pytest.raises(InputError, match="no curated batch"):
        other.import_text("", "ida")
    assert fingerprint(falkordb_store, other.overlay) == before


def test_a_fact_hpo_excludes_is_named(falkordb_store, tmp_path):
    excluded = graph()
    excluded.nodes[0].properties["excludes"] = "HP:0000508"
    excluded.nodes[2].properties["hpo_id"] = "HP:0000508"  # Ptosis
    falkordb_store.load(excluded)
    from curation.layer import hpo_exclusions

    ptosis = Fact("Disease", "Noonan syndrome", "Exhibit", "FacePhenotype", "Ptosis")
    assert hpo_exclusions(falkordb_store, [EXHIBIT, ptosis, CAUSE]) == [
        "HPO records Noonan syndrome as NOT having Ptosis (HP:0000508)."]
    assert hpo_exclusions(falkordb_store, [CAUSE]) == []


def test_a_batch_without_provenance_is_refused(layer):
    before = fingerprint(layer.store, layer.overlay)
    for text in ("", "   \n"):
        with pytest.raises(InputError, match="Say where the facts come from"):
            layer.merge("cara", [EXHIBIT], pmid="", text=text)
    assert fingerprint(layer.store, layer.overlay) == before


def test_an_import_of_a_batch_without_provenance_is_refused_whole(layer, falkordb_store, tmp_path):
    from curation.overlay import Batch

    layer.merge("cara", [CAUSE], pmid="7")
    bare = Overlay(tmp_path / "bare.jsonl")  # an export written by an older version, or by hand
    bare.add_merge(Batch(1, "cara", "2026-01-01T00:00:00+00:00", (EXHIBIT,)))
    before = fingerprint(layer.store, layer.overlay)
    with pytest.raises(InputError, match="does not say where its facts come from"):
        layer.import_text(layer.export_text() + bare.path.read_text(), "ida")
    assert fingerprint(layer.store, layer.overlay) == before


@pytest.fixture
def two_person(falkordb_store, tmp_path) -> CuratedLayer:
    falkordb_store.load(graph())
    layer = CuratedLayer.open(falkordb_store, tmp_path / "overlay.jsonl")
    layer.review = "two"
    return layer


def test_with_two_person_review_a_batch_is_merged_by_another_curator(two_person, tmp_path):
    proposed = two_person.merge("cara", [EXHIBIT], pmid="11")
    assert curated(two_person.store) == set()  # proposed only: not in the graph
    assert [b.batch for b in two_person.state().pending()] == [1]
    with pytest.raises(InputError, match="proposed by cara: another curator must merge it"):
        two_person.approve(proposed.batch, "cara")
    with pytest.raises(InputError, match="no proposed batch 5"):
        two_person.approve(5, "ida")
    merged = two_person.approve(proposed.batch, "ida")
    assert merged.curator == "cara" and merged.approved_by == "ida" and merged.pmid == "11"
    assert curated(two_person.store) == {("Noonan syndrome", "Exhibit", "Hypertelorism", 1)}
    with pytest.raises(InputError, match="already merged"):
        two_person.approve(proposed.batch, "ida")
    declined = two_person.merge("ida", [CAUSE], text="A PTPN11 variant was found.")
    two_person.undo(declined.batch, "ada")  # an admin declines a proposal
    with pytest.raises(InputError, match="already declined by ada"):
        two_person.approve(declined.batch, "cara")
    state = two_person.state()
    assert state.pending() == [] and [b.batch for b in state.live()] == [1] and state.undone == {2: "ada"}
    two_person.store.load(graph())  # a rebuild replays what was merged, never a proposal
    CuratedLayer.open(two_person.store, tmp_path / "overlay.jsonl")
    assert curated(two_person.store) == {("Noonan syndrome", "Exhibit", "Hypertelorism", 1)}


def test_with_two_person_review_an_import_is_proposed(two_person, tmp_path):
    from curation.overlay import Batch

    exported = Overlay(tmp_path / "export.jsonl")
    exported.add_merge(Batch(1, "cara", "2026-01-01T00:00:00+00:00", (EXHIBIT, CAUSE), pmid="7"))
    [batch] = two_person.import_text(exported.path.read_text(), "ida")
    assert curated(two_person.store) == set() and [b.batch for b in two_person.state().pending()] == [batch.batch]


def test_an_overlay_damaged_while_running_is_reported_without_its_path(layer, tmp_path):
    layer.merge("cara", [EXHIBIT], pmid="1")
    assert layer.health() is None
    path = tmp_path / "overlay.jsonl"
    path.write_text(path.read_text().replace("Hypertelorism", "Ptosis"))
    problem = layer.health()
    assert "line 1" in problem and "changed by hand" in problem and str(tmp_path) not in problem
    with pytest.raises(InputError, match="switched off") as refused:
        layer.merge("cara", [CAUSE], pmid="2")
    assert str(tmp_path) not in str(refused.value)
    path.write_text("")  # mended (emptied): healthy again
    assert layer.health() is None
