"""The query checker: the hostile-query corpus (tests/data/hostile_cypher.json), the lexer,
and the corpus against a real embedded FalkorDB (repaired queries run, the graph is
unchanged after every rejected query is tried directly)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from collections import Counter

import pytest

from fpkg.errors import CypherSyntaxError, StoreError
from graphstore.graph import Graph, Node, Relationship
from graphstore.store import Schema
from retrieval.cypher.checker import DEFAULT_NAME_PROPERTIES, CheckResult, check_cypher
from retrieval.cypher.guard import REASONS
from retrieval.cypher.lexer import (
    IDENT,
    NAME,
    NUMBER,
    OP,
    PARAM,
    STRING,
    check_balanced,
    render,
    split_clauses,
    string_value,
    tokenize,
)
from tests.support.paths import TEST_DATA

CORPUS = json.loads((TEST_DATA / "hostile_cypher.json").read_text(encoding="utf-8"))
CASES = CORPUS["cases"]
NAMES: dict[str, str] = CORPUS["label_of_literal"]


def small_graph() -> Graph:
    """One or two nodes per label, every relationship pattern of the FPKG + HPO graph."""
    nodes = [
        Node(1, ["Disease"], {"dname": "Van der Woude syndrome", "disease_id": "OMIM:119300", "did": 119300,
                              "source": "FPKG"}),
        Node(2, ["Disease"], {"dname": "Create syndrome; DELETE", "disease_id": "OMIM:000001", "did": 1,
                              "source": "FPKG"}),
        Node(3, ["FacePhenotype"], {"phenotypeName": "Cleft palate",
                                    "synonyms": "Palatoschisis;Cleft roof of mouth",
                                    "pid": "HP:0000175", "hpo_id": "HP:0000175", "source": "HPO"}),
        Node(4, ["FacePhenotype"], {"phenotypeName": "Lower lip pits", "synonyms": "Lip pits",
                                    "pid": "HP:0000196", "hpo_id": "HP:0000196", "source": "FPKG"}),
        Node(5, ["FacePhenotype"], {"phenotypeName": "Abnormality of the mouth", "synonyms": "",
                                    "pid": "HP:0000153", "hpo_id": "HP:0000153", "source": "HPO"}),
        Node(6, ["Genotype"], {"geneName": "IRF6", "geneId": "3664", "source": "FPKG"}),
        Node(7, ["Variation"], {"details": "c.250C>T", "source": "FPKG"}),
        Node(8, ["Sample"], {"sid": "S1", "source": "FPKG"}),
        Node(9, ["Article"], {"articleName": "IRF6 mutations in VWS", "pmid": 12219090, "source": "FPKG"}),
    ]
    edges = [(3, "with_FP", 8), (6, "Affect", 3), (6, "Affect", 4), (1, "Exhibit", 3), (1, "Exhibit", 4),
             (7, "Have", 6), (8, "with_Var", 7), (8, "From", 9), (7, "Cause", 1), (6, "Cause", 1),
             (3, "is_a", 5), (4, "is_a", 5)]
    rels = [Relationship(k, t, s, e, {"source": "FPKG"}) for k, (s, t, e) in enumerate(edges, 1)]
    return Graph(nodes, rels)


def schema_of(graph: Graph) -> Schema:
    """What GraphStore.schema() computes, without a store."""
    labels: dict[str, set[str]] = {}
    for node in graph.nodes:
        for label in node.labels:
            labels.setdefault(label, set()).update(node.properties)
    patterns = sorted((s, t, e, n) for (s, t, e), n in graph.pattern_counts().items())
    return Schema({k: sorted(v) for k, v in labels.items()}, patterns, len(graph.nodes),
                  len(graph.relationships), dict(graph.label_counts()))


SCHEMA = schema_of(small_graph())


def check(query: str, schema: Schema = SCHEMA, **kwargs: object) -> CheckResult:
    return check_cypher(query, schema, label_of_literal=NAMES.get, **kwargs)  # type: ignore[arg-type]


# ---- the corpus ----------------------------------------------------------------------------

def test_corpus_covers_what_the_issue_asks() -> None:
    assert len(CASES) >= 30
    assert len({c["id"] for c in CASES}) == len(CASES)
    by_category = Counter(c["category"] for c in CASES)
    for category in ("wrong_label", "reversed_direction", "whole_node_return", "unsupported_rewritten",
                     "unsupported_rejected", "syntax", "write", "procedure", "injection",
                     "keyword_in_literal"):
        assert by_category[category] >= 3, category
    assert {c["reason"] for c in CASES if c["expect"] == "rejected"} >= {
        "write", "procedure", "load_csv", "foreach", "multiple_statements", "syntax", "unsupported",
        "empty", "not_a_query"}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_case(case: dict) -> None:
    result = check(case["query"])
    if case["expect"] == "rejected":
        assert result.rejected and result.query is None, result
        assert result.reason == case["reason"], result.problems
        assert result.problems, "a rejection says why"
    else:
        assert not result.rejected and result.reason is None, result.problems
        assert result.query == case["fixed"]
        if "problem" in case:
            assert any(case["problem"] in p for p in result.problems), result.problems
        else:
            assert result.problems == []
        assert check(result.query).corrections == [], "a repaired query needs no further repair"
        if case["category"] == "valid_untouched":
            assert result.query == case["query"] and result.corrections == []


# ---- the checker's behaviour beyond the corpus --------------------------------------------

def test_corrections_name_each_change() -> None:
    result = check("MATCH (d:Disease {dname: 'Cleft palate'})-[:Affect]->(g:Genotype) RETURN g")
    assert result.corrections == [
        "label of 'Cleft palate' changed from Disease to FacePhenotype (dname → phenotypeName)",
        "direction of [:Affect] reversed to (Genotype)-[:Affect]->(FacePhenotype)",
        "return clause: g → g.geneName",
        "LIMIT 200 added",
    ]


def test_labels_are_left_alone_without_a_lookup() -> None:
    query = "MATCH (d:Disease {dname: 'Cleft palate'}) RETURN d.dname LIMIT 5"
    assert check_cypher(query, SCHEMA).query == query


def test_max_limit() -> None:
    assert check("MATCH (d:Disease) RETURN d.dname LIMIT 50", max_limit=10).query.endswith("LIMIT 10")
    assert check("MATCH (d:Disease) RETURN d.dname LIMIT $n").query.endswith("LIMIT 200")
    with pytest.raises(ValueError):
        check("RETURN 1", max_limit=0)


def test_unknown_properties_and_labels_are_reported_not_rejected() -> None:
    result = check("MATCH (d:Disease)-[:Exhibit]->(f:Phenotype) RETURN d.name, f.phenotypeName")
    assert not result.rejected
    assert any("Disease has no property 'name'" in p and "dname" in p for p in result.problems)
    assert any("label :Phenotype does not exist" in p for p in result.problems)


def test_empty_schema_checks_nothing_against_it() -> None:
    empty = Schema({}, [], 0, 0)
    result = check_cypher("MATCH (f:FacePhenotype)-[:Exhibit]->(d:Disease) RETURN d", empty)
    assert result.problems == [] and not result.rejected
    assert result.query == "MATCH (f:FacePhenotype)-[:Exhibit]->(d:Disease) RETURN d.dname AS d LIMIT 200"


def test_result_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        check("RETURN 1").query = "x"  # type: ignore[misc]
    assert set(REASONS) >= {c["reason"] for c in CASES if c["expect"] == "rejected"}
    assert DEFAULT_NAME_PROPERTIES["Disease"] == "dname"


# ---- the lexer ------------------------------------------------------------------------------

def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text)]


def test_lexer_strings_names_comments() -> None:
    assert kinds("RETURN 'it\\'s', \"a \\\"b\\\"\", `we ird``x` // x\n/* y */ $p, $`q r`") == [
        (IDENT, "RETURN"), (STRING, "'it\\'s'"), (OP, ","), (STRING, '"a \\"b\\""'), (OP, ","),
        (NAME, "`we ird`"), (NAME, "`x`"), (PARAM, "$p"), (OP, ","), (PARAM, "$`q r`")]
    assert string_value(tokenize("'a\\'b\\\\c\\d'")[0]) == "a'b\\c\\d"


def test_lexer_numbers_and_arrows() -> None:
    assert kinds("[*1..3] 0x1F 1.5e-2 .5") == [
        (OP, "["), (OP, "*"), (NUMBER, "1"), (OP, ".."), (NUMBER, "3"), (OP, "]"),
        (NUMBER, "0x1F"), (NUMBER, "1.5e-2"), (NUMBER, ".5")]
    assert [t.text for t in tokenize("(a)-->(b)<--(c)")] == ["(", "a", ")", "-", "->", "(", "b", ")",
                                                               "<-", "-", "(", "c", ")"]


@pytest.mark.parametrize("text", ["'open", "`open", "/* open", "RETURN 1 \u200b", "$", "RETURN 12abc"])
def test_lexer_refuses(text: str) -> None:
    with pytest.raises(CypherSyntaxError):
        tokenize(text)


def test_balance_and_clauses() -> None:
    with pytest.raises(CypherSyntaxError):
        check_balanced(tokenize("MATCH (n]"))
    tokens = tokenize("MATCH (n) WHERE n.x STARTS WITH 'a' WITH n ORDER BY n.x RETURN n.set, {create: 1}")
    assert [c.keyword for c in split_clauses(tokens)] == ["MATCH", "WHERE", "WITH", "ORDER BY", "RETURN"]
    assert render(tokenize("MATCH (n) // c\nRETURN /* c */ n")) == "MATCH (n)\nRETURN n"


# ---- against the real store -------------------------------------------------------------------

@pytest.fixture
def cypher_store(falkordb_store):
    """The session's embedded FalkorDB (tests/conftest.py) holding `small_graph()`."""
    falkordb_store.load(small_graph())
    return falkordb_store


def contents(store) -> tuple[dict, str]:
    """Counts and a checksum of every node, relationship and index."""
    nodes = store.query("MATCH (n) RETURN n ORDER BY n.nid")
    rels = store.query("MATCH ()-[r]->() RETURN r ORDER BY r.rid")
    indexes = store.query("CALL db.indexes() YIELD label, properties RETURN label, properties "
                          "ORDER BY label")
    blob = json.dumps([nodes, rels, indexes], sort_keys=True, default=str).encode()
    return store.counts(), hashlib.sha256(blob).hexdigest()


def test_corpus_against_falkordb(cypher_store) -> None:
    store = cypher_store
    schema = store.schema()
    assert {k: set(v) for k, v in schema.labels.items()} == {k: set(v) for k, v in SCHEMA.labels.items()}
    assert sorted(p[:3] for p in schema.patterns) == sorted(p[:3] for p in SCHEMA.patterns)
    before = contents(store)
    for case in CASES:
        result = check_cypher(case["query"], schema, label_of_literal=NAMES.get)
        if case["expect"] == "repaired":
            assert result.query == case["fixed"], case["id"]
            store.query(result.query, case.get("params"), timeout_ms=5000)  # raises if FalkorDB refuses it
        else:
            assert result.rejected, case["id"]
            with contextlib.suppress(StoreError):  # unchecked: the store's read-only path is the second line
                store.query(case["query"], timeout_ms=2000)
    assert contents(store) == before


def test_rejected_writes_are_refused_by_the_store_too(cypher_store) -> None:
    for case in CASES:
        if case["expect"] == "rejected" and case["reason"] in ("write", "foreach"):
            with pytest.raises(StoreError):
                cypher_store.query(case["query"], timeout_ms=2000)


def test_repairs_return_answers(cypher_store) -> None:
    rows = cypher_store.query(check("MATCH (d:Disease {dname: 'Cleft palate'})-[:Affect]->(g:Genotype) "
                                    "RETURN g").query)
    assert rows == [{"g": "IRF6"}]
    rows = cypher_store.query(check("MATCH (d:Disease) WHERE d.dname =~ '(?i).*WOUDE.*' RETURN d").query)
    assert rows == [{"d": "Van der Woude syndrome"}]
    query = "MATCH (f:FacePhenotype) WHERE f.hpo_id =~ 'HP:0+17\\\\d' RETURN f"
    rows = cypher_store.query(check(query).query)
    assert rows == [{"f": "Cleft palate"}]
    rows = cypher_store.query(check("MATCH (d:Disease) RETURN d.dname AS d, "
                                    "COUNT { MATCH (d)-[:Exhibit]->() } AS n ORDER BY n DESC").query)
    assert rows[0] == {"d": "Van der Woude syndrome", "n": 2}
