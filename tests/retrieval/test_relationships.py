"""The in-memory copy of the graph's relationships that vector mode reads neighbourhoods from."""

from __future__ import annotations

import numpy as np

from retrieval.vector.relationships import Relationships, pmid_list

ROWS = [{"s": 10, "t": "Exhibit", "e": 20, "src": "HPO", "pmid": None},
        {"s": 10, "t": "Exhibit", "e": 20, "src": "FPKG", "pmid": "111;112"},
        {"s": 30, "t": "Affect", "e": 10, "src": "FPKG", "pmid": 113},
        {"s": 30, "t": "Cause", "e": 40, "src": "curated", "pmid": [114]},
        {"s": 99, "t": "Cause", "e": 40, "src": "FPKG", "pmid": None}]  # 99 is not in the index
ROW_OF = {10: 0, 20: 1, 30: 2, 40: 3}


def relationships() -> Relationships:
    return Relationships.from_rows(ROWS, ROW_OF, 4)


def test_rows_keep_direction_type_source_and_pmids_and_skip_unknown_nodes():
    rel = relationships()
    assert len(rel) == 4
    assert [rel.row(i) for i in range(4)] == [(0, "Exhibit", 1, "HPO", []), (0, "Exhibit", 1, "FPKG", [111, 112]),
                                              (2, "Affect", 0, "FPKG", [113]), (2, "Cause", 3, "curated", [114])]
    assert rel.pairs().tolist() == [[0, 1], [0, 1], [2, 0], [2, 3]]


def test_between_finds_every_relationship_of_each_pair_either_way_round():
    rel = relationships()
    assert sorted(rel.between([(1, 0)]).tolist()) == [0, 1]  # both parallel ones, asked end to start
    assert sorted(rel.between([(0, 2), (3, 2), (1, 3)]).tolist()) == [2, 3]
    assert rel.between([]).tolist() == [] and rel.between([(1, 3)]).tolist() == []


def test_curated_rows_are_replaced_by_the_stores_current_ones():
    rel = relationships()
    now = Relationships.from_rows([{"s": 40, "t": "Exhibit", "e": 20, "src": "curated", "pmid": 115}], ROW_OF, 4)
    swapped = rel.with_curated(now)
    rows = [swapped.row(i) for i in range(len(swapped))]
    assert (2, "Cause", 3, "curated", [114]) not in rows and (3, "Exhibit", 1, "curated", [115]) in rows
    assert len(swapped) == 4 and swapped.between([(2, 3)]).tolist() == []
    assert [swapped.row(i) for i in swapped.between([(1, 3)])] == [(3, "Exhibit", 1, "curated", [115])]
    assert len(rel.with_curated(Relationships.from_rows([], ROW_OF, 4))) == 3  # all undone
    new_type = Relationships.from_rows([{"s": 20, "t": "Resembles", "e": 40, "src": "curated", "pmid": None}],
                                       ROW_OF, 4)
    assert [rel.with_curated(new_type).row(i) for i in rel.with_curated(new_type).between([(1, 3)])] == [
        (1, "Resembles", 3, "curated", [])]


def test_saved_and_loaded_alike(tmp_path):
    rel = relationships()
    loaded = Relationships.load(tmp_path, rel.save(tmp_path))
    assert [loaded.row(i) for i in range(len(loaded))] == [rel.row(i) for i in range(len(rel))]
    assert np.array_equal(np.sort(loaded.between([(0, 1), (2, 3)])), np.sort(rel.between([(0, 1), (2, 3)])))


def test_pmids_are_read_from_every_stored_form():
    assert pmid_list("111; 112,113") == [111, 112, 113]
    assert pmid_list([5, "6", 7.0, None, True, 5]) == [5, 6, 7]
    assert pmid_list(None) == [] and pmid_list("n/a") == []
