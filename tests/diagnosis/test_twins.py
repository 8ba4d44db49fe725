"""One entry per disease where MONDO is silent: an Orphanet twin folds into its OMIM entry; a group never does."""

from __future__ import annotations

from diagnosis.ranker import RankedDisease
from diagnosis.twins import find_twins, merge_twins, name_words, other_name_words


def entry(name: str, disease_id: str, score: float) -> RankedDisease:
    return RankedDisease(name, hash(disease_id) % 1000, disease_id, score, {"phenotype": score}, [name])


def test_an_orphanet_group_is_not_folded_into_its_subtype_by_name():
    # MONDO says ORPHA:861 groups the Treacher Collins subtypes: a group is never shown as a member
    ranked = [entry("Treacher-Collins syndrome", "ORPHA:861", 3.0), entry("Nager syndrome", "OMIM:154400", 2.5),
              entry("Treacher Collins syndrome 1", "OMIM:154500", 2.0)]
    assert [(r.disease_id, r.other_ids) for r in merge_twins(ranked)] == [
        ("ORPHA:861", ()), ("OMIM:154400", ()), ("OMIM:154500", ())]


def test_mondo_decides_before_the_twin_rules():
    genes = {1: frozenset({10}), 2: frozenset({10})}
    profiles = {1: {100, 101, 102}, 2: {100, 101, 103}}
    assert find_twins(genes, IDS, profiles) == {1: 2}  # MONDO silent on both
    assert find_twins(genes, IDS, profiles, mapped={1}) == {1: 2}  # silent on one
    assert find_twins(genes, IDS, profiles, mapped={1, 2}) == {}  # two MONDO ids: two diseases
    assert find_twins(genes, IDS, profiles, groups={1}) == {}  # a group is never a twin


def test_two_omim_entries_never_merge():
    ranked = [entry("Cutis laxa", "OMIM:1", 2.0), entry("Cutis laxa 1", "OMIM:2", 1.0)]
    assert [r.disease_id for r in merge_twins(ranked)] == ["OMIM:1", "OMIM:2"]


IDS = {1: "ORPHA:1", 2: "OMIM:2", 3: "OMIM:3", 4: "ORPHA:4", 5: "OMIM:5", 6: "ORPHA:6"}


def test_twins_share_exactly_their_genes_and_most_of_their_annotations():
    genes = {1: frozenset({10}), 2: frozenset({10}), 3: frozenset({10}), 4: frozenset({10, 11}),
             5: frozenset({11}), 6: frozenset({12})}
    profiles = {1: {100, 101, 102}, 2: {100, 101, 103}, 3: {100, 200, 201, 202}, 4: {100, 101, 102},
                5: {100, 101, 102}, 6: {100, 101, 102}}
    # ORPHA:1 and OMIM:2 (Jaccard 0.5) rather than OMIM:3 (1/6); ORPHA:4's genes match no OMIM entry's;
    # ORPHA:6's gene has no OMIM entry; OMIM entries are never twins of one another
    assert find_twins(genes, IDS, profiles) == {1: 2}


def test_twins_below_the_overlap_threshold_stay_apart():
    genes = {1: frozenset({10}), 2: frozenset({10})}
    assert find_twins(genes, IDS, {1: {100, 101, 102, 103}, 2: {100, 200, 201, 202}}) == {}


def test_names_with_the_same_words_in_another_order_are_the_same_name():
    assert name_words("Spinocerebellar ataxia type 6") == name_words("SPINOCEREBELLAR ATAXIA 6")
    assert name_words("Progressive osseous heteroplasia") == name_words("Osseous heteroplasia, progressive")
    assert name_words("Bainbridge-Ropers syndrome") == name_words("Bainbridge‐Ropers syndrome(BRPS)")
    assert name_words("Spinocerebellar ataxia type 29") != name_words("Spinocerebellar ataxia 15")
    assert name_words("Wolfram-like syndrome") != name_words("Wolfram-Like syndrome, autosomal dominant")


def test_twins_by_name_need_their_genes_and_win_over_a_larger_overlap():
    names = {1: "Hereditary neuropathy with liability to pressure palsies",
             2: "Charcot-Marie-Tooth disease and deafness",
             3: "Neuropathy, hereditary, with liability to pressure palsies",
             4: "Spinocerebellar ataxia type 6", 5: "Spinocerebellar ataxia 6", 6: "Giant axonal neuropathy"}
    # annotated separately by HPO's curators: ORPHA:1 overlaps the other disease of its gene more
    genes = {1: frozenset({10}), 2: frozenset({10}), 3: frozenset({10}), 4: frozenset({11}), 5: frozenset({12}),
             6: frozenset({13})}
    profiles = {1: {100, 101}, 2: {100, 101, 102}, 3: {200}, 4: {300}, 5: {300}, 6: {400}}
    ids = {**IDS, 6: "ORPHA:6"}
    # ORPHA:1 -> its namesake OMIM:3; ORPHA:4's namesake OMIM:5 is linked to another gene; ORPHA:6 has none
    assert find_twins(genes, ids, profiles, names) == {1: 3}
    assert find_twins(genes, ids, profiles) == {1: 2}  # without names, the overlap alone decides


def test_an_orpha_name_given_in_brackets_after_an_omim_name_is_that_disease():
    assert other_name_words("Histiocytosis-lymphadenopathy plus syndrome（H syndrome）") == {"h"}
    assert other_name_words("Intellectual developmental disorder 36; MRD36") == {"mrd36"}
    assert other_name_words("Noonan syndrome 1") == frozenset()
    names = {1: "H syndrome", 2: "Histiocytosis-lymphadenopathy plus syndrome (H syndrome)",
             3: "Dysosteosclerosis"}
    genes = {1: frozenset({10}), 2: frozenset({10}), 3: frozenset({10})}
    assert find_twins(genes, IDS, {1: {100}, 2: {200}, 3: {300}}, names) == {1: 2}


def test_an_orpha_name_inside_the_one_omim_name_of_its_genes_is_that_disease_when_they_share_a_term():
    names = {1: "Microcephaly-lymphedema-chorioretinopathy syndrome",
             2: "Microcephaly with or without chorioretinopathy, lymphedema, or mental retardation",
             3: "Retinal dystrophy", 4: "Microvillus inclusion disease",
             5: "Retinal dystrophy and microvillus inclusion disease"}
    genes = {1: frozenset({10}), 2: frozenset({10}), 3: frozenset({10}), 4: frozenset({11}), 5: frozenset({11})}
    # ORPHA:4's words are in OMIM:5's name too, but the two share no annotation: kept apart
    profiles = {1: {100, 101, 102}, 2: {100, 103, 104, 105}, 3: {100, 301, 302, 303}, 4: {200}, 5: {300}}
    assert find_twins(genes, IDS, profiles, names) == {1: 2}
    # two OMIM entries of the genes both hold the ORPHA name's words: which one is meant is unknown
    names[3] = "Microcephaly, lymphedema and chorioretinopathy, autosomal recessive"
    assert find_twins(genes, IDS, profiles, names) == {}


def test_a_ranked_twin_pair_is_one_entry_named_by_omim():
    orpha = RankedDisease("Severe intellectual disability-progressive spastic diplegia syndrome", 1, "ORPHA:1", 3.0,
                          {"gene": 2.0, "phenotype": 1.0}, ["e"])
    other = RankedDisease("Something else", 7, "OMIM:7", 2.5, {}, [])
    omim = RankedDisease("Neurodevelopmental disorder with spastic diplegia and visual defects", 2, "OMIM:2", 2.2,
                         {"gene": 2.0, "phenotype": 0.2}, [])
    merged = merge_twins([orpha, other, omim], {1: 2})
    assert [(r.disease_id, r.other_ids, r.score) for r in merged] == [("OMIM:2", ("ORPHA:1",), 3.0),
                                                                     ("OMIM:7", (), 2.5)]
    assert merged[0].name.startswith("Neurodevelopmental") and merged[0].node_id == 1  # scored as ORPHA:1
