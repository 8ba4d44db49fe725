"""The GraphStore contract, run against every configured backend on a real server."""

from __future__ import annotations

import pytest

from fpkg.config import Settings
from fpkg.errors import GraphNotLoaded, LoadError, QueryRejected, QueryTimeout, SettingsError
from graphstore.falkordb_store import FalkorDBStore
from graphstore.graph import Graph, Node, Relationship
from graphstore.store import GraphStore, open_store


def small_graph() -> Graph:
    """A few labels, both directions between two labels, a list, unicode and a None."""
    nodes = [
        Node(1, ["Disease"], {"dname": "Noonan syndrome", "omim": "163950", "note": None}),
        Node(2, ["Disease"], {"dname": "Syndrome de Cornélia — “de Lange”", "omim": "122470"}),
        Node(10, ["FacePhenotype"], {"phenotypeName": "Cleft palate", "hpo": "HP:0000175",
                                     "synonyms": ["Palatoschisis", "Uranostaphyloschisis"]}),
        Node(11, ["FacePhenotype"], {"phenotypeName": "Hypertelorism", "hpo": "HP:0000316",
                                     "synonyms": []}),
        Node(20, ["Genotype"], {"geneName": "PTPN11", "weight": 0.75, "curated": True, "exon count": 16}),
    ]
    rels = [
        Relationship(100, "Exhibit", 1, 10, {"frequency": "frequent"}),
        Relationship(101, "Exhibit", 1, 11, {}),
        Relationship(102, "Exhibit", 2, 10, {"frequency": None}),
        Relationship(103, "Cause", 20, 1, {"source": "FPKG"}),
        Relationship(104, "Associated", 10, 1, {}),  # the other direction between the same labels
    ]
    return Graph(nodes, rels)


EXPECTED_COUNTS = {
    "nodes": {"Disease": 2, "FacePhenotype": 2, "Genotype": 1},
    "relationships": {"Exhibit": 3, "Cause": 1, "Associated": 1},
    "total_nodes": 5, "total_relationships": 5,
}


def test_load_gives_counts_schema_and_plain_rows(graph_store: GraphStore) -> None:
    graph_store.load(small_graph(), indexes=[("Disease", "dname"), ("Missing", "x")])
    assert graph_store.counts() == EXPECTED_COUNTS
    assert not graph_store.is_empty()
    assert graph_store.health()

    schema = graph_store.schema()
    assert schema.node_count == 5 and schema.relationship_count == 5
    assert schema.patterns == [
        ("Disease", "Exhibit", "FacePhenotype", 3),
        ("FacePhenotype", "Associated", "Disease", 1),
        ("Genotype", "Cause", "Disease", 1),
    ]
    assert schema.labels["Disease"] == ["dname", "omim"]  # None dropped, nid hidden
    assert schema.labels["FacePhenotype"] == ["hpo", "phenotypeName", "synonyms"]
    text = schema.describe()
    assert "(:Disease)-[:Exhibit]->(:FacePhenotype)" in text
    assert "(:Genotype {curated, `exon count`, geneName, weight})" in text

    rows = graph_store.query(
        "MATCH (d:Disease)-[r:Exhibit]->(fp:FacePhenotype {phenotypeName: $name}) "
        "RETURN d, r, fp, fp.synonyms AS syn ORDER BY d.omim", {"name": "Cleft palate"})
    assert [row["d"]["id"] for row in rows] == [2, 1]
    d, r, fp = rows[0]["d"], rows[0]["r"], rows[0]["fp"]
    assert d == {"id": 2, "labels": ["Disease"],
                 "properties": {"dname": "Syndrome de Cornélia — “de Lange”", "omim": "122470"}}
    assert r == {"id": 102, "type": "Exhibit", "start": 2, "end": 10, "properties": {}}
    assert fp["properties"]["synonyms"] == ["Palatoschisis", "Uranostaphyloschisis"]
    assert rows[0]["syn"] == ["Palatoschisis", "Uranostaphyloschisis"]

    genes = graph_store.query("MATCH (g:Genotype) RETURN g.weight AS w, g.curated AS c, g.nid AS nid, "
                              "g.`exon count` AS exons")
    assert genes == [{"w": 0.75, "c": True, "nid": 20, "exons": 16}]


def test_relationship_only_and_path_results_name_their_ends(graph_store: GraphStore) -> None:
    graph_store.load(small_graph())
    rows = graph_store.query("MATCH ()-[r:Cause]->() RETURN r")
    assert rows == [{"r": {"id": 103, "type": "Cause", "start": 20, "end": 1,
                           "properties": {"source": "FPKG"}}}]
    rows = graph_store.query("MATCH p = (:Genotype)-[:Cause]->(:Disease)-[:Exhibit]->(:FacePhenotype "
                             "{hpo: 'HP:0000316'}) RETURN p, [1, 'a'] AS l, {k: 'v'} AS m")
    path = rows[0]["p"]
    assert [n["id"] for n in path["nodes"]] == [20, 1, 11]
    assert [(r["start"], r["end"]) for r in path["relationships"]] == [(20, 1), (1, 11)]
    assert rows[0]["l"] == [1, "a"] and rows[0]["m"] == {"k": "v"}


def test_multi_label_nodes(graph_store: GraphStore) -> None:
    graph_store.load(Graph([Node(1, ["Zeta", "Alpha"], {"x": "y"}), Node(2, ["Alpha"])],
                           [Relationship(7, "R", 1, 2)]))
    assert graph_store.query("MATCH (n:Zeta) RETURN n") == [
        {"n": {"id": 1, "labels": ["Alpha", "Zeta"], "properties": {"x": "y"}}}]
    assert graph_store.counts()["nodes"] == {"Alpha": 2, "Zeta": 1}
    assert graph_store.schema().patterns == [("Alpha", "R", "Alpha", 1), ("Zeta", "R", "Alpha", 1)]


def test_reload_is_idempotent_and_replaces(graph_store: GraphStore) -> None:
    graph_store.load(small_graph())
    graph_store.load(small_graph())
    assert graph_store.counts() == EXPECTED_COUNTS
    graph_store.load(Graph([Node(1, ["Other"], {"x": 1})]))
    assert graph_store.counts()["nodes"] == {"Other": 1}
    assert graph_store.schema().labels == {"Other": ["x"]}  # the schema cache was dropped


def test_failed_load_keeps_the_previous_graph(graph_store: GraphStore) -> None:
    graph_store.load(small_graph())
    broken = small_graph()
    broken.nodes.extend(Node(1000 + i, ["Extra"], {"i": i}) for i in range(30))
    broken.relationships.append(Relationship(999, "Exhibit", 1, 424242))  # no node 424242
    with pytest.raises(LoadError, match="424242"):
        graph_store.load(broken, batch_size=7)  # nodes are written before the bad relationship
    assert graph_store.counts() == EXPECTED_COUNTS
    assert len(graph_store.query("MATCH (d:Disease) RETURN d")) == 2


@pytest.mark.parametrize("bad", [
    Graph([Node(1, ["A"]), Node(1, ["A"])]),
    Graph([Node(1, ["A"], {"p": {"nested": "map"}})]),
    Graph([Node(1, ["A"], {"p": float("nan")})]),
    Graph([Node(1, ["A"], {"p": [1, "mixed"]})]),
    Graph([Node(1, ["A"], {"nid": 5})]),
    Graph([Node(1, ["A`) DETACH DELETE n //"])]),
])
def test_invalid_graphs_are_refused_before_writing(graph_store: GraphStore, bad: Graph) -> None:
    graph_store.load(small_graph())
    with pytest.raises(LoadError):
        graph_store.load(bad)
    assert graph_store.counts() == EXPECTED_COUNTS


HOSTILE = [
    "'}) DETACH DELETE n //",
    '"}) DETACH DELETE n //',
    "\\", "\\\"", "x\\", "\\'})", "$name", "` MATCH (n) DELETE n",
    "*/ MATCH (n) DETACH DELETE n /*", "\r\n\t", "Cornélia \u202e😀 “quoted”",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_parameters_are_data(graph_store: GraphStore, value: str) -> None:
    graph_store.load(small_graph())
    assert graph_store.query("RETURN $v AS v", {"v": value}) == [{"v": value}]
    assert graph_store.query("MATCH (d:Disease {dname: $v}) RETURN d", {"v": value}) == []
    assert graph_store.query("MATCH (d:Disease) WHERE d.dname IN $vs RETURN count(d) AS n",
                             {"vs": [value, "Noonan syndrome"]}) == [{"n": 1}]
    assert graph_store.counts() == EXPECTED_COUNTS


WRITES = [
    "CREATE (n:Disease {dname: 'x'})",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n:Disease) DELETE n",
    "MATCH (n:Disease) SET n.dname = 'x'",
    "MATCH (n:Disease) REMOVE n.omim",
    "MERGE (n:Disease {dname: 'new'})",
    "MATCH (n:Disease) WITH n LIMIT 1 CREATE (n)-[:Exhibit]->(:FacePhenotype)",
    "CREATE INDEX FOR (n:Disease) ON (n.omim)",
    "CALL db.idx.fulltext.createNodeIndex('Disease', 'dname')",
]


@pytest.mark.parametrize("cypher", WRITES)
def test_writes_through_query_are_rejected(graph_store: GraphStore, cypher: str) -> None:
    graph_store.load(small_graph())
    with pytest.raises(QueryRejected):
        graph_store.query(cypher)
    assert graph_store.counts() == EXPECTED_COUNTS
    assert graph_store.query("MATCH (d:Disease) RETURN d.dname AS n ORDER BY n")[0]["n"] == "Noonan syndrome"


@pytest.mark.parametrize("cypher, says", [  # the server's own words (FalkorDB's and Neo4j's alike)
    ("MATCH (n RETURN n", "Invalid input"),
    ("RETURN no_such_function(1)", "Unknown function 'no_such_function'"),
    ("MATCH (n) RETURN m", "[`']m[`'] not defined"),
])
def test_invalid_queries_are_rejected_with_the_server_message(graph_store: GraphStore, cypher: str,
                                                              says: str) -> None:
    graph_store.load(small_graph())
    with pytest.raises(QueryRejected, match=says):
        graph_store.query(cypher)


def test_slow_query_times_out_in_bounded_time(graph_store: GraphStore) -> None:
    """4e8 rows: without the 300 ms limit the query would run to its end and return a count."""
    graph_store.load(small_graph())
    with pytest.raises(QueryTimeout, match="stopped at its time limit"):
        graph_store.query("UNWIND range(1, 20000) AS x UNWIND range(1, 20000) AS y "
                          "WITH x, y WHERE x * y = -1 RETURN count(*) AS n", timeout_ms=300)
    assert graph_store.query("RETURN 1 AS one") == [{"one": 1}]  # the store still works


def test_empty_graph(graph_store: GraphStore) -> None:
    graph_store.load(Graph())
    assert graph_store.is_empty()
    assert graph_store.counts() == {"nodes": {}, "relationships": {}, "total_nodes": 0,
                                    "total_relationships": 0}
    assert graph_store.schema().patterns == []


# ---- FalkorDB specifics ---------------------------------------------------------------

def test_falkordb_missing_graph_and_bad_parameters(falkordb_store: FalkorDBStore) -> None:
    with pytest.raises(GraphNotLoaded, match="kg_dump build"):
        falkordb_store.query("MATCH (n) RETURN n")
    falkordb_store.load(small_graph())
    for value in ["a\x00b", float("nan"), {"k": [float("inf")]}]:
        with pytest.raises(QueryRejected):
            falkordb_store.query("RETURN $v AS v", {"v": value})


def test_falkordb_indexes_and_no_staging_left(falkordb_store: FalkorDBStore,
                                              falkordb_server) -> None:
    falkordb_store.load(small_graph(), indexes=[("Disease", "dname"), ("FacePhenotype", "hpo")])
    rows = falkordb_store.query("CALL db.indexes() YIELD label, properties, status")
    indexed = {(row["label"], prop) for row in rows for prop in row["properties"]}
    assert {("Disease", "nid"), ("Disease", "dname"), ("FacePhenotype", "hpo"),
            ("Genotype", "nid")} <= indexed
    assert {row["status"] for row in rows} == {"OPERATIONAL"}
    falkordb_store.create_indexes([("Genotype", "geneName"), ("Disease", "dname")])  # idempotent
    plan = falkordb_server.client().execute_command(
        "GRAPH.EXPLAIN", falkordb_store.graph_name, "MATCH (g:Genotype {geneName: 'PTPN11'}) RETURN g")
    assert any(b"Index Scan" in line for line in plan)

    broken = Graph([Node(1, ["A"])], [Relationship(1, "R", 1, 2)])
    with pytest.raises(LoadError):
        falkordb_store.load(broken)
    assert not falkordb_server.client().exists(falkordb_store.staging_name)


def test_falkordb_refuses_concurrent_loads(falkordb_store: FalkorDBStore, falkordb_server) -> None:
    falkordb_store.load(small_graph())
    client = falkordb_server.client()
    client.set(falkordb_store.load_lock_name, "another-loader", ex=60)
    try:
        with pytest.raises(LoadError, match="another load"):
            falkordb_store.load(Graph())
    finally:
        client.delete(falkordb_store.load_lock_name)
    assert falkordb_store.counts() == EXPECTED_COUNTS
    falkordb_store.load(Graph())
    assert not client.exists(falkordb_store.load_lock_name)


def test_open_store_factory(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path / "data", cache_dir=tmp_path / "cache", graph_name="g")
    with open_store(settings) as store:
        assert isinstance(store, FalkorDBStore) and store.health()
        assert store.is_empty()
        server = store.server
        assert server is not None and (tmp_path / "cache" / "falkordb").is_dir()
    assert not server.is_alive()  # the store started it, so closing it stopped it
    with pytest.raises(SettingsError, match="GRAPH_BACKEND='sqlite' is not known; use one of falkordb, neo4j"):
        open_store(Settings(data_dir=tmp_path, cache_dir=tmp_path, graph_backend="sqlite"))
    with pytest.raises(SettingsError, match="NEO4J_URI"):
        open_store(Settings(data_dir=tmp_path, cache_dir=tmp_path, graph_backend="neo4j"))


def test_write_runs_one_parameterised_statement_and_query_stays_read_only(graph_store):
    graph_store.load(small_graph())
    made = graph_store.write("MATCH (d:Disease {dname: $d}), (p:FacePhenotype {phenotypeName: $p}) "
                             "MERGE (d)-[r:Exhibit {batch: $b}]->(p) SET r.source = 'curated'",
                             {"d": "Noonan syndrome", "p": "Cleft palate", "b": 1})
    assert made.relationships_created == 1
    rows = graph_store.query("MATCH (:Disease)-[r:Exhibit]->(p) WHERE r.source = 'curated' RETURN p.phenotypeName AS p")
    assert rows == [{"p": "Cleft palate"}]
    removed = graph_store.write("MATCH ()-[r]->() WHERE r.source = $s DELETE r", {"s": "curated"})
    assert removed.relationships_deleted == 1
    with pytest.raises(QueryRejected):
        graph_store.write("MATCH (n) RETURN n.", {})
    with pytest.raises(QueryRejected):
        graph_store.query("MATCH (d:Disease) SET d.x = 1")
