"""Diseases with both of two findings (retrieval/intersections.py), checked against hand-written pairs: each
pair's textbook syndrome is among them, and the diseases listed are exactly those the graph annotates with both
(or with a finding below one), found here by another query."""

from __future__ import annotations

import re

import pytest

from retrieval.intent import find_mentions
from retrieval.intersections import phenotype_slots

# (finding, finding, a syndrome a textbook names for the pair: part of its name as the graph writes it)
PAIRS = [
    ("lower lip pits", "cleft palate", "van der Woude syndrome 1"),
    ("ptosis", "blepharophimosis", "BLEPHAROPHIMOSIS, PTOSIS, AND EPICANTHUS INVERSUS"),
    ("synophrys", "long philtrum", "Cornelia de Lange syndrome 1"),
    ("coloboma", "choanal atresia", "CHARGE syndrome"),
    ("eversion of lateral third of lower eyelids", "long palpebral fissures", "Kabuki syndrome 1"),
    ("hypertelorism", "webbed neck", "Noonan syndrome"),
    ("epicanthus inversus", "blepharophimosis", "BLEPHAROPHIMOSIS, PTOSIS, AND EPICANTHUS INVERSUS"),
    ("periorbital fullness", "wide mouth", "Williams-Beuren syndrome"),
    ("macroglossia", "anterior creases of earlobe", "Beckwith-Wiedemann syndrome"),
    ("cleft palate", "micrognathia", "Stickler syndrome, type I"),
    ("frontal bossing", "macrocephaly", "Sotos syndrome"),
    ("glossoptosis", "micrognathia", "Pierre Robin"),
    ("sparse lateral eyebrow", "long eyelashes", "Kabuki syndrome"),
    ("coarse facial features", "macroglossia", "Mucopolysaccharidosis"),
    ("proptosis", "midface retrusion", "Crouzon syndrome"),
    ("long face", "macrotia", "Fragile X"),
    ("downslanted palpebral fissures", "lower eyelid coloboma", "Treacher Collins syndrome 1"),
    ("low posterior hairline", "webbed neck", "Noonan syndrome"),
    ("smooth philtrum", "thin upper lip vermilion", "Fetal alcohol"),
    ("highly arched eyebrow", "convex nasal ridge", "Rubinstein"),
    ("microtia", "preauricular skin tag", "Townes-Brocks syndrome"),
    ("hypotelorism", "single median maxillary incisor", "Holoprosencephaly"),
    ("ptosis", "hypertelorism", "Aarskog"),
    ("synophrys", "thick eyebrow", "Cornelia de Lange syndrome"),
]
WITH_ONE = ("MATCH (d:Disease)-[r:Exhibit]->(q:FacePhenotype)-[:is_a*0..12]->(p:FacePhenotype) "
            "WHERE p.nid = $id AND coalesce(r.frequency, 1.0) > 0 RETURN DISTINCT d.nid AS id")


@pytest.mark.parametrize(("first", "second", "syndrome"), PAIRS)
def test_both_findings_are_the_intersection_and_hold_the_textbook_syndrome(pipeline, first, second, syndrome):
    question = f"Which diseases have both {first} and {second}?"
    result = pipeline.ask(question, mode="cypher", backend="grounded")
    phenotypes = [link for link in result.links if link.label == "FacePhenotype" and link.node_id is not None]
    assert len(phenotypes) == 2, phenotypes
    expected = set.intersection(*({row["id"] for row in pipeline.store.query(WITH_ONE, {"id": link.node_id})}
                                  for link in phenotypes))
    listed = {t.head_id for t in result.triples if t.head_label == "Disease"}
    assert listed == expected  # every disease with both, and none with one only
    count = int(result.answer.split()[0])
    apart = result.answer.split("Entries named after a finding itself (not syndromes): ")[1:]
    assert count + (len(apart[0].split(", ")) if apart else 0) >= len({t.head for t in result.triples}) - 1
    assert syndrome.casefold() in result.answer.casefold(), (syndrome, result.answer[:300])
    assert re.match(rf"{count} diseases? ha(ve|s) both ", result.answer)


@pytest.mark.parametrize(("question", "slots", "union"), [
    ("Which syndromes cause lower lip pits with cleft lip or palate?",
     [["Lower lip pit"], ["Cleft lip", "Cleft palate"]], False),
    ("Which diseases have ptosis or blepharophimosis?", [["Ptosis"], ["Blepharophimosis"]], True),
    ("diseases with hypertelorism, ptosis and low-set ears", [["Hypertelorism"], ["Ptosis"], ["Low-set ears"]], False),
])
def test_or_joins_alternatives_and_anything_else_asks_for_all(pipeline, question, slots, union):
    found, either = phenotype_slots(question, find_mentions(question, pipeline.linker), pipeline.linker)
    assert [[link.name for link in slot.links] for slot in found] == slots and either is union
