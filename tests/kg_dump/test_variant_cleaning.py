"""The build's pass over FPKG's Variation nodes, on a small graph in FPKG's shape (one variant node per
patient, `(Sample)-[:with_Var]->(Variation)-[:Have]->(Genotype)`, `-[:Cause]->(Disease)`)."""

from __future__ import annotations

from graphstore.graph import Graph, Node, Relationship
from kg_dump.variant_cleaning import UNNAMED, clean_variants

GENE, DISEASE, OTHER_DISEASE = 1, 2, 3


class _Dump:
    """Builds a graph as FPKG.dump holds one: a node per patient's variant."""

    def __init__(self):
        self.graph = Graph([Node(GENE, ["Genotype"], {"geneName": "FGFR2"}), Node(DISEASE, ["Disease"], {"dname": "A"}),
                            Node(OTHER_DISEASE, ["Disease"], {"dname": "B"})], [])
        self.next_id = 10

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def patient(self, *variants: int) -> int:
        sample = self._id()
        self.graph.nodes.append(Node(sample, ["Sample"], {"sid": f"s_{sample}"}))
        for variant in variants:
            self.graph.relationships.append(Relationship(self._id(), "with_Var", sample, variant))
        return sample

    def variant(self, details: str, pmid: int = 100, category: str = "heterozygous missense",
                disease: int = DISEASE) -> int:
        node = self._id()
        self.graph.nodes.append(Node(node, ["Variation"], {"details": details, "variation_gene_name": "FGFR2",
                                                           "pmid": pmid, "category": category}))
        self.graph.relationships += [Relationship(self._id(), "Have", node, GENE),
                                     Relationship(self._id(), "Cause", node, disease)]
        return node

    def variants(self) -> dict[int, Node]:
        return {n.id: n for n in self.graph.nodes if "Variation" in n.labels}

    def ends(self, start: int, rel_type: str) -> list[int]:
        return sorted(r.end for r in self.graph.relationships if r.start == start and r.type == rel_type)


def test_two_spellings_in_one_paper_become_one_node_carried_by_both_patients():
    dump = _Dump()
    first, second = dump.variant("c.1026C>G; (p.Cys342Trp)"), dump.variant("c.1026C > G (C342W) in exon 10")
    one, other = dump.patient(first), dump.patient(second)
    report = clean_variants(dump.graph)
    assert list(dump.variants()) == [first]
    assert dump.ends(one, "with_Var") == dump.ends(other, "with_Var") == [first]
    assert dump.ends(first, "Have") == [GENE] and dump.ends(first, "Cause") == [DISEASE]  # once each
    kept = dump.variants()[first].properties
    assert kept["details"] == "c.1026C>G; (p.Cys342Trp)" and kept["other_details"] == "c.1026C>G (C342W) in exon 10"
    assert (report.merged, report.merged_spellings, report.rewritten) == (1, 1, 1)
    assert report.summary()["examples"]["merged spellings"] == [
        "FGFR2 PMID 100: c.1026C>G; (p.Cys342Trp) = c.1026C>G (C342W) in exon 10"]


def test_a_sentence_names_no_node_and_its_patient_keeps_gene_and_disease():
    dump = _Dump()
    sentence = dump.variant("CHD7 mutations account for ~60% of cases of CHARGE syndrome")
    patient = dump.patient(sentence)
    report = clean_variants(dump.graph)
    assert dump.variants()[sentence].properties["details"] == UNNAMED
    assert not any("account for" in str(n.properties) for n in dump.graph.nodes)
    assert dump.ends(patient, "with_Var") == [sentence] and dump.ends(sentence, "Cause") == [DISEASE]
    assert report.set_aside == {"sentence": 1}
    assert report.summary()["examples"]["set aside (sentence)"] == [
        "FGFR2 PMID 100: CHD7 mutations account for ~60% of cases of CHARGE syndrome"]


def test_what_differs_stays_apart():
    dump = _Dump()
    kept = dump.variant("c.1026C>G")
    other_paper = dump.variant("c.1026C > G", pmid=200)  # a paper's variant is held out with it
    homozygous = dump.variant("c.1026C>G", category="homozygous missense")
    other_disease = dump.variant("c.1026C>G", disease=OTHER_DISEASE)
    cohort_twice = dump.variant("c.1026C>G")  # a cohort record carrying it for two of its patients
    other_change = dump.variant("c.1027C>G")
    dump.patient(kept), dump.patient(other_paper), dump.patient(homozygous), dump.patient(other_disease)
    cohort = dump.patient(kept, cohort_twice)
    report = clean_variants(dump.graph)
    assert set(dump.variants()) == {kept, other_paper, homozygous, other_disease, cohort_twice, other_change}
    assert dump.variants()[other_paper].properties["details"] == "c.1026C>G"  # written as the first
    assert dump.ends(cohort, "with_Var") == [kept, cohort_twice]
    assert (report.merged, report.kept_apart) == (0, 3)


def test_same_spelling_in_one_paper_is_one_node_and_each_relationship_once():
    dump = _Dump()
    nodes = [dump.variant("c.3460C>T (p.Arg1154Trp)") for _ in range(3)]
    patients = [dump.patient(node) for node in nodes]
    before = len(dump.graph.relationships)
    report = clean_variants(dump.graph)
    assert list(dump.variants()) == nodes[:1]
    assert all(dump.ends(p, "with_Var") == nodes[:1] for p in patients)
    assert len(dump.graph.relationships) == before - 4  # two Have and two Cause fewer; every with_Var kept
    assert (report.merged, report.merged_spellings) == (2, 0)
