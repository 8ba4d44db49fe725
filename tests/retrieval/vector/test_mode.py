"""Vector mode: the cached node index, GLEE, retrieval over neighbourhoods, the refit baseline."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from graphstore.falkordb_store import FalkorDBStore
from graphstore.graph import Graph, Node, Relationship
from retrieval.result import Link
from retrieval.vector.glee import adjacency, glee, glee_refit_per_question
from retrieval.vector.index import IndexConfig, VectorIndex, node_text
from retrieval.vector.mode import VectorRetriever

CONFIG = IndexConfig(structure_dim=8)
HYPERTELORISM = 100


def small_graph() -> Graph:
    """A few diseases, genes, variants, patients and articles shaped like FPKG."""
    phenotypes = {HYPERTELORISM: ("Hypertelorism", "Wide-set eyes;Increased interpupillary distance"),
                  101: ("Cleft palate", "Palatoschisis"), 102: ("Low-set ears", "Low set ears"),
                  103: ("Wide nasal bridge", "Broad nasal bridge"), 104: ("Proptosis", "Bulging eyes"),
                  105: ("Long philtrum", ""), 106: ("Downslanted palpebral fissures", "")}
    nodes = [Node(nid, ["FacePhenotype"], {"phenotypeName": name, "synonyms": syn, "source": "FPKG"})
             for nid, (name, syn) in phenotypes.items()]
    nodes.append(Node(107, ["FacePhenotype"], {"pid": "", "source": "FPKG"}))  # nameless, as in FPKG
    diseases = {200: "Crouzon syndrome", 201: "CHARGE syndrome", 202: "Noonan syndrome 1",
                203: "Apert syndrome"}
    nodes += [Node(nid, ["Disease"], {"dname": name, "source": "FPKG"}) for nid, name in diseases.items()]
    genes = {300: "FGFR2", 301: "CHD7", 302: "PTPN11"}
    nodes += [Node(nid, ["Genotype"], {"geneName": name, "source": "FPKG"}) for nid, name in genes.items()]
    nodes += [Node(400, ["Variation"], {"details": "c.1012G>C p.Gly338Arg", "variation_gene_name": "FGFR2",
                                        "source": "FPKG"}),
              Node(401, ["Variation"], {"details": "c.2443-2A>G", "variation_gene_name": "CHD7", "source": "FPKG"}),
              Node(500, ["Sample"], {"sid": "s_1_1", "gender": "F", "race": "Turkish", "year": "5 y",
                                     "source": "FPKG"}),
              Node(600, ["Article"], {"articleName": "CHD7 mutations in CHARGE syndrome", "pmid": 16400610,
                                      "source": "FPKG"})]
    edges = [(200, "Exhibit", 100, 111), (200, "Exhibit", 104, 111), (200, "Exhibit", 103, None),
             (201, "Exhibit", 102, 222), (201, "Exhibit", 101, 222), (202, "Exhibit", 100, None),
             (202, "Exhibit", 106, None), (202, "Exhibit", 105, None), (203, "Exhibit", 100, None),
             (203, "Exhibit", 101, None), (300, "Affect", 100, 111), (300, "Affect", 100, 112),
             (301, "Affect", 102, 222), (302, "Affect", 106, None), (400, "Have", 300, None),
             (401, "Have", 301, None), (400, "Cause", 200, 111), (401, "Cause", 201, 222),
             (102, "with_FP", 500, None), (103, "with_FP", 500, None), (500, "with_Var", 401, None),
             (500, "From", 600, None), (104, "is_a", 100, None)]
    rels = [Relationship(i, t, s, e, {"source": "FPKG", **({"pmid": p} if p else {})})
            for i, (s, t, e, p) in enumerate(edges)]
    return Graph(nodes, rels)


def open_store(server, name: str, graph: Graph) -> FalkorDBStore:
    store = FalkorDBStore(f"{name}_{uuid.uuid4().hex[:8]}", server=server)
    store.load(graph)
    return store


def drop(store: FalkorDBStore) -> None:
    store.load(Graph())  # loading the empty graph deletes it
    store.close()


@pytest.fixture(scope="module")
def store(falkordb_server):
    """The small graph on the session's FalkorDB, shared by this module (the index is
    built once)."""
    store = open_store(falkordb_server, "vector_mode", small_graph())
    yield store
    drop(store)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def index(store, cache_dir):
    return VectorIndex.load_or_build(store, cache_dir, CONFIG)


@pytest.fixture(scope="module")
def retriever(store, index):
    return VectorRetriever(store, index)


def stored_relationships(graph: Graph) -> set[tuple[int, str, int]]:
    return {(r.start, r.type, r.end) for r in graph.relationships}


def link(node_id: int, mention: str = "hypertelorism") -> Link:
    return Link(mention, "FACIAL_PHENOTYPE", node_id, "FacePhenotype", mention, 1.0, "exact")


# ---- GLEE -------------------------------------------------------------------------------

def test_glee_with_all_eigenvectors_reconstructs_the_laplacian():
    edges = np.array([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (1, 0)])  # (1, 0) duplicates (0, 1)
    adj = adjacency(5, edges)
    vectors, values = glee(adj, 4)  # all but the zero eigenvalue of a connected graph
    laplacian = np.diag(adj.sum(axis=1).A1) - adj.toarray()
    assert np.allclose(vectors @ vectors.T, laplacian, atol=1e-4)
    assert list(values) == sorted(values, reverse=True)


def test_glee_sparse_path_is_repeatable():
    rng = np.random.default_rng(0)
    edges = rng.integers(0, 800, size=(3000, 2))
    adj = adjacency(800, edges)
    first, values = glee(adj, 8)
    again, _ = glee(adj, 8)
    assert first.shape == (800, 8) and np.allclose(first, again, atol=1e-4)
    assert np.all(values[:-1] >= values[1:])
    with pytest.raises(ValueError):
        glee(adj, 800)


def test_refit_baseline_ranks_nodes_without_the_patient():
    graph = small_graph()
    result = glee_refit_per_question([n.id for n in graph.nodes], [(r.start, r.end) for r in graph.relationships],
                                     [HYPERTELORISM, 103], top_k=5, dim=6)
    assert len(result.node_ids) == 5 and -1 not in result.node_ids
    assert set(result.node_ids) <= {n.id for n in graph.nodes}
    assert result.scores == sorted(result.scores, reverse=True)


# ---- the index ----------------------------------------------------------------------------

def test_node_text_names_type_and_synonyms():
    text = node_text("FacePhenotype", {"phenotypeName": "Hypertelorism",
                                       "synonyms": "Hypertelorism;Wide-set eyes;Widely spaced eyes"})
    assert text == "FacePhenotype: Hypertelorism; synonyms: Wide-set eyes, Widely spaced eyes"


def test_index_builds_once_and_loads_from_cache(store, index, cache_dir):
    graph = small_graph()
    assert index.stats["loaded_from_cache"] is False
    assert len(index) == len(graph.nodes) and set(index.ids.tolist()) == {n.id for n in graph.nodes}
    assert 107 not in index.searchable.tolist() and index.faiss.ntotal == len(graph.nodes) - 1
    assert np.allclose(np.linalg.norm(index.vectors, axis=1)[index.searchable], 1.0, atol=1e-5)
    folder = cache_dir / "vectors" / index.fingerprint
    assert {"ids.npy", "text.npy", "structure.npy", "meta.json"} <= {p.name for p in folder.iterdir()}

    again = VectorIndex.load_or_build(store, cache_dir, CONFIG)
    assert again.stats["loaded_from_cache"] is True and again.fingerprint == index.fingerprint
    assert np.array_equal(again.vectors, index.vectors) and again.names == index.names
    assert again.faiss.ntotal == index.faiss.ntotal


def test_search_gives_the_nearest_rows_with_their_exact_scores(index):
    query = index.vectors[3] + 0.5 * index.vectors[0]
    query /= np.linalg.norm(query)
    exact = index.vectors[index.searchable] @ query
    order = np.lexsort((index.searchable, -exact))  # best first, ties by row
    for k in (1, 3, len(index.searchable), len(index.searchable) + 5):
        found = index.search(query, k)
        assert [row for row, _ in found] == index.searchable[order[:k]].tolist()
        assert np.allclose([score for _, score in found], exact[order[:k]], atol=1e-6)
    assert index.search(query, 0) == []


def test_similarities_are_the_inner_products_of_the_rows_asked(index):
    query = index.vectors[3] + index.vectors[0]
    rows = np.array([5, 0, 3, 5, len(index) - 1])  # any order, repeats allowed
    assert np.allclose(index.similarities(rows, query), index.vectors[rows] @ query, atol=1e-5)
    assert index.similarities(np.array([], dtype=np.int64), query).shape == (0,)
    with pytest.raises(IndexError, match="rows must lie in"):  # the FAISS kernel would read past the end
        index.similarities(np.array([len(index)]), query)
    with pytest.raises(ValueError, match="dimensions"):
        index.similarities(rows, query[:-1])


@pytest.mark.parametrize("damaged, content", [("structure.npy", b"not an array"), ("text.npy", b""),
                                              ("meta.json", b"{"), ("rel_pmids.npy", b"")])
def test_a_damaged_cached_index_is_rebuilt_and_said_once(store, index, tmp_path, damaged, content):
    cache = tmp_path / "cache"
    VectorIndex.load_or_build(store, cache, CONFIG)  # a cache of its own, then damaged
    (cache / "vectors" / index.fingerprint / damaged).write_bytes(content)
    rebuilt = VectorIndex.load_or_build(store, cache, CONFIG)
    assert rebuilt.stats["loaded_from_cache"] is False and "could not be read" in rebuilt.stats["rebuilt"]
    assert np.array_equal(rebuilt.ids, index.ids)
    retriever = VectorRetriever(store, rebuilt)
    first = retriever.retrieve("Which diseases show hypertelorism?", [link(HYPERTELORISM)])
    assert any("it was rebuilt" in notice for notice in first.notices)
    again = retriever.retrieve("Which diseases show hypertelorism?", [link(HYPERTELORISM)])
    assert not any("rebuilt" in notice for notice in again.notices)
    assert VectorIndex.load_or_build(store, cache, CONFIG).stats["loaded_from_cache"] is True  # saved whole


def test_a_changed_graph_or_config_rebuilds(falkordb_server, index, cache_dir):
    graph = small_graph()
    graph.nodes.append(Node(204, ["Disease"], {"dname": "Pfeiffer syndrome", "source": "FPKG"}))
    graph.relationships.append(Relationship(99, "Exhibit", 204, HYPERTELORISM, {"source": "FPKG"}))
    changed_store = open_store(falkordb_server, "vector_mode_changed", graph)
    try:
        changed = VectorIndex.load_or_build(changed_store, cache_dir, CONFIG)
        assert changed.fingerprint != index.fingerprint and changed.stats["loaded_from_cache"] is False
        assert 204 in changed.row_of
        other_config = VectorIndex.load_or_build(changed_store, cache_dir, IndexConfig(structure_dim=4))
        assert other_config.fingerprint != changed.fingerprint and other_config.structure.shape[1] == 4
    finally:
        drop(changed_store)


# ---- retrieval ----------------------------------------------------------------------------

def test_a_linked_phenotype_brings_its_exhibit_triples(retriever):
    result = retriever.retrieve("Which diseases exhibit hypertelorism?", [link(HYPERTELORISM)], threshold=0.0)
    assert result.mode == "vector" and result.links == [link(HYPERTELORISM)]
    exhibits = {t.head_id for t in result.triples if t.relation == "Exhibit" and t.tail_id == HYPERTELORISM}
    assert exhibits == {200, 202, 203}
    assert set(result.timings_ms) == {"embed", "search", "neighbourhood", "relation", "rerank", "total"}


def test_triples_exist_with_direction_names_and_pmids_as_stored(retriever):
    graph = small_graph()
    stored = stored_relationships(graph)
    names = {n.id: n.properties.get("phenotypeName") or n.properties.get("dname") or n.properties.get("geneName")
             for n in graph.nodes}
    result = retriever.retrieve("hypertelorism and a wide nasal bridge in Crouzon syndrome",
                                [link(HYPERTELORISM)], threshold=-1.0, top_n=100)
    assert result.triples
    for t in result.triples:
        assert (t.head_id, t.relation, t.tail_id) in stored
        if names.get(t.head_id):
            assert t.head == names[t.head_id]
        assert t.source == "FPKG"
    # FGFR2 affects hypertelorism in two articles: one triple, both PMIDs
    fgfr2 = [t for t in result.triples if (t.head_id, t.relation, t.tail_id) == (300, "Affect", HYPERTELORISM)]
    assert len(fgfr2) == 1 and set(fgfr2[0].pmids) == {111, 112}
    assert len({(t.head_id, t.relation, t.tail_id) for t in result.triples}) == len(result.triples)


def test_relationships_between_linked_nodes_survive_the_per_seed_limit(store, index):
    retriever = VectorRetriever(store, index, per_seed=1, shared=0)
    links = [Link("CHARGE", "DISEASE", 201, "Disease", "CHARGE syndrome"), link(102, "low-set ears"),
             Link("CHD7", "GENE", 301, "Genotype", "CHD7")]
    result = retriever.retrieve("CHARGE syndrome with low-set ears", links, top_k=0, threshold=-1.0, top_n=100)
    keys = {(t.head_id, t.relation, t.tail_id) for t in result.triples}
    assert {(201, "Exhibit", 102), (301, "Affect", 102)} <= keys
    assert len(keys) <= 2 + 3  # the two between the seeds, at most one more per seed


def test_nodes_adjacent_to_several_seeds_bring_their_relationships(store, index):
    """Crouzon syndrome exhibits both linked phenotypes: its two Exhibit triples come back
    even when each seed may bring only one neighbour of its own."""
    links = [link(HYPERTELORISM), link(104, "proptosis")]
    result = VectorRetriever(store, index, per_seed=1).retrieve(  # the neighbourhood alone, no question kind
        "hypertelorism and proptosis", links, top_k=0, threshold=-1.0, top_n=100, relation=False)
    keys = {(t.head_id, t.relation, t.tail_id) for t in result.triples}
    assert {(200, "Exhibit", HYPERTELORISM), (200, "Exhibit", 104), (104, "is_a", HYPERTELORISM)} <= keys
    unshared = VectorRetriever(store, index, per_seed=1, shared=0).retrieve(
        "hypertelorism and proptosis", links, top_k=0, threshold=-1.0, top_n=100, relation=False)
    assert len(unshared.triples) < len(result.triples)


@pytest.fixture
def embedded(monkeypatch) -> list[str]:
    """Every text vector mode embeds, in order."""
    from retrieval.vector import mode as vector_mode
    from retrieval.vector.embedder import embed

    texts: list[str] = []

    def counting_embed(batch, *args, **kwargs):
        texts.extend(batch)
        return embed(batch, *args, **kwargs)

    monkeypatch.setattr(vector_mode, "embed", counting_embed)
    return texts


def test_a_given_question_vector_is_used_as_is(retriever, index, embedded):
    from retrieval.vector.embedder import embed

    question = "Which diseases exhibit hypertelorism?"
    vector = embed([question])[0]
    given = retriever.retrieve(question, [link(HYPERTELORISM)], question_vector=vector, threshold=-1.0)
    assert not any(question in text for text in embedded), embedded  # the given vector, not a new one
    computed = retriever.retrieve(question, [link(HYPERTELORISM)], threshold=-1.0)
    assert any(question in text for text in embedded)
    assert [t.score for t in given.triples] == [t.score for t in computed.triples]


def test_scores_sorted_and_threshold_and_top_n_respected(retriever):
    question = "Which diseases exhibit hypertelorism?"
    loose = retriever.retrieve(question, [link(HYPERTELORISM)], threshold=-1.0, top_n=100, relation=False)
    scores = [t.score for t in loose.triples]
    assert scores == sorted(scores, reverse=True)
    strict = retriever.retrieve(question, [link(HYPERTELORISM)], threshold=0.5, top_n=100, relation=False)
    assert all(t.score >= 0.5 for t in strict.triples)
    assert [t for t in loose.triples if t.score >= 0.5] == strict.triples
    assert len(retriever.retrieve(question, [link(HYPERTELORISM)], threshold=-1.0, top_n=3,
                                  relation=False).triples) == 3


@pytest.mark.parametrize("question, mention, intent, expected", [
    ("other names for hypertelorism?", "hypertelorism", "synonyms_of_phenotype",
     {("has_synonym", "Wide-set eyes"), ("has_synonym", "Increased interpupillary distance")}),
    ("Which diseases show hypertelorism?", "hypertelorism", "diseases_with_phenotypes",
     {("Exhibit", "Crouzon syndrome"), ("Exhibit", "Noonan syndrome 1"), ("Exhibit", "Apert syndrome")}),
    ("Which genes are linked to hypertelorism?", "hypertelorism", "genes_with_phenotype", {("Affect", "FGFR2")}),
])
def test_the_relation_asked_comes_back_whole_before_the_near_triples(retriever, question, mention, intent, expected):
    """Its whole neighbourhood, even with room for one near triple: a list answer is complete."""
    result = retriever.retrieve(question, [link(HYPERTELORISM, mention)], top_n=1)
    assert result.intent == intent and result.cypher  # the read query that fetched it is shown
    asked = [t for t in result.triples if t.score is None]
    named = {(t.relation, t.tail if t.relation == "has_synonym" else t.head) for t in asked}
    assert named == expected
    assert result.triples[:len(asked)] == asked and len(result.triples) <= len(asked) + 1


def test_a_disease_name_is_asked_as_its_feature_when_the_relation_needs_one(store, index):
    """"distichiasis" names a disease and a facial feature; asked for other names, the feature's."""
    class Linker:  # the linker's exact lookup, for the feature named as the linked disease
        def link(self, mention, kind):
            found = kind == "FACIAL_PHENOTYPE" and mention.lower() == "crouzon syndrome"
            return Link(mention, kind, HYPERTELORISM if found else None, "FacePhenotype", "Hypertelorism",
                        1.0, "exact" if found else "none")

    disease = Link("Crouzon syndrome", "DISEASE", 200, "Disease", "Crouzon syndrome", 1.0, "exact")
    result = VectorRetriever(store, index, linker=Linker()).retrieve("other names for Crouzon syndrome?", [disease])
    assert result.intent == "synonyms_of_phenotype"
    assert {t.tail for t in result.triples if t.relation == "has_synonym"} == {"Wide-set eyes",
                                                                              "Increased interpupillary distance"}


def test_a_patients_description_is_searched_by_its_text(retriever, embedded):
    """Its words find similar published patients, which the linked nodes' vectors alone do not."""
    description = "A 5-year-old girl with a CHD7 variant and low-set ears"
    retriever.for_diagnosis(description, [Link("CHD7", "GENE", 301, "Genotype", "CHD7"), link(102, "low-set ears")])
    assert embedded == [description]


def test_a_patients_options_are_not_embedded(retriever, embedded):
    """Linked already, their names would double the text to embed (and the time)."""
    case = "A girl with a CHD7 variant and low-set ears. What disease might this patient have?"
    links = [Link("CHD7", "GENE", 301, "Genotype", "CHD7"), link(102, "low-set ears")]
    with_options = retriever.for_diagnosis(
        f"{case} Choose from the following options: A.CHARGE syndrome B.Crouzon syndrome", links)
    assert embedded == [case]
    assert with_options.triples == retriever.for_diagnosis(case, links).triples


def test_curated_facts_count_at_once_and_undone_ones_go(falkordb_server, tmp_path):
    """Vector mode reads neighbourhoods from its copy of the relationships: a merge or an undo
    refreshes the copy's curated part, and a restart finds the same cached index with the facts
    of the moment."""
    from curation.facts import Fact
    from curation.layer import CuratedLayer

    store = open_store(falkordb_server, "vector_curated", small_graph())
    try:
        layer = CuratedLayer.open(store, tmp_path / "overlay.jsonl")
        index = VectorIndex.load_or_build(store, tmp_path / "cache", CONFIG)
        retriever = VectorRetriever(store, index)
        layer.listeners.append(retriever.curated_changed)
        apert_proptosis = (203, "Exhibit", 104)

        def keys() -> set[tuple[int, str, int]]:
            result = retriever.retrieve("Which diseases show proptosis?", [link(104, "proptosis")],
                                        threshold=-1.0, top_n=100)
            return {(t.head_id, t.relation, t.tail_id) for t in result.triples}

        assert apert_proptosis not in keys()
        batch = layer.merge("cara", [Fact("Disease", "Apert syndrome", "Exhibit", "FacePhenotype", "Proptosis")],
                            pmid="1234")
        assert apert_proptosis in keys()
        restarted = VectorIndex.load_or_build(store, tmp_path / "cache", CONFIG)
        assert restarted.stats["loaded_from_cache"] is True and restarted.fingerprint == index.fingerprint
        assert apert_proptosis in {(int(restarted.ids[h]), t, int(restarted.ids[e]))
                                   for h, t, e, _, _ in map(restarted.relationships.row,
                                                            range(len(restarted.relationships)))}
        layer.undo(batch.batch, "ada")
        assert apert_proptosis not in keys()
    finally:
        drop(store)


def test_a_patient_description_asks_no_relation_and_a_bare_name_its_summary(retriever):
    chd7 = Link("CHD7", "GENE", 301, "Genotype", "CHD7")
    patient = retriever.for_diagnosis("A 5-year-old girl with a CHD7 variant and low-set ears", [chd7])
    assert patient.intent is None and all(t.score is not None for t in patient.triples)
    bare = retriever.retrieve("CHD7", [chd7])  # issue 37: a bare name asks for its summary
    assert bare.intent == "summary_of_gene" and bare.complete and bare.lead.startswith("CHD7 is a gene")


def test_text_alone_finds_nodes(retriever):
    result = retriever.retrieve("What facial features does Crouzon syndrome have?", threshold=0.0)
    assert any(200 in (t.head_id, t.tail_id) for t in result.triples)


def test_embedded_rerank_agrees_on_shape(store, index):
    result = VectorRetriever(store, index, rerank="embed").retrieve(
        "Which diseases exhibit hypertelorism?", [link(HYPERTELORISM)], threshold=-1.0, relation=False)
    assert result.triples and [t.score for t in result.triples] == sorted(
        (t.score for t in result.triples), reverse=True)


@pytest.mark.parametrize("question", ["", "   ", "@@@ ### %%% ;;;", "zxqv " * 200, "🙂" * 50])
def test_empty_or_garbage_questions_give_small_results(retriever, question):
    result = retriever.retrieve(question, threshold=0.3, top_n=20)
    assert result.mode == "vector" and len(result.triples) <= 20
    if not question.strip():
        assert result.triples == [] and result.notices


def test_no_seed_at_all_gives_an_empty_result(retriever):
    result = retriever.retrieve("Which diseases exhibit hypertelorism?", top_k=0)
    assert result.triples == [] and result.notices


def test_unknown_and_unlinked_mentions_are_noticed(retriever):
    result = retriever.retrieve("hypertelorism", [link(987654, "ghost"), Link("x", "GENE", None)])
    assert any("987654" in n for n in result.notices)


def test_bad_arguments_are_rejected(store, index, retriever):
    with pytest.raises(ValueError):
        retriever.retrieve("q", top_n=0)
    with pytest.raises(ValueError):
        retriever.retrieve("q", threshold=2.0)
    with pytest.raises(ValueError):
        VectorRetriever(store, index, rerank="llm")


HOSTILE = ["'}) MATCH (n) DETACH DELETE n //", "\") CREATE (x:Pwned) RETURN x //",
           "$ids0 ] MERGE (m:Pwned) //", "CALL db.labels() YIELD label", "` DROP INDEX ON :Disease(nid) `"]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_only_ever_is_a_parameter(store, retriever, text):
    before = store.counts()
    retriever.retrieve(text, [Link(text, "FACIAL_PHENOTYPE", HYPERTELORISM, "FacePhenotype", text)])
    retriever.retrieve(f"Which diseases exhibit {text}?")
    assert store.counts() == before
    assert store.query("MATCH (n:Pwned) RETURN count(n) AS n")[0]["n"] == 0


def test_speed_benchmark_measures_both_methods(store, index):
    from bench.vector_speed import NameLinks, measure

    links = NameLinks(index)("A girl with Hypertelorism and Low-set ears, a mutation in FGFR2.")
    assert {x.node_id for x in links} == {HYPERTELORISM, 102, 300}
    out = measure(store, index, ["A girl with hypertelorism and a mutation in FGFR2.", "Cleft palate?"],
                  refit_questions=1, refit_dim=4)
    assert out["vector_ms"]["n"] == 2 and out["refit_ms"]["n"] == 1
    assert out["ratio_p50"] == out["refit_ms"]["p50"] / out["vector_ms"]["p50"]  # refit over vector, not inverted
