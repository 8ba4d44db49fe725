"""The other languages' grammar (issue 56): negation, family history and hedges in each language read with their
scope, a longer phrase never read as a shorter general term inside it, and nothing dropped in silence."""

from __future__ import annotations

import pytest

from ner.context import ABSENT, FAMILY_HISTORY, PRESENT

INTELLECTUAL_DISABILITY = "HP:0001249"


def terms(reading, polarity: str) -> set[str]:
    return {f.hpo_id for f in reading.findings if f.polarity == polarity}


@pytest.mark.parametrize("text", [
    "Garçon de 4 ans avec un ptosis. Pas de déficience intellectuelle.",
    "4岁男孩，上睑下垂，无智力障碍。",
    "Niño de 4 años con ptosis. No presenta discapacidad intelectual.",
    "Junge mit Ptosis, keine geistige Behinderung.",
    "Bambino con ptosi, nessuna disabilità intellettiva.",
    "4歳男児。眼瞼下垂を認める。知的障害なし。",
])
def test_no_intellectual_disability_is_read_as_absent_in_each_language(pipeline, text):
    reading = pipeline.read(text)
    assert INTELLECTUAL_DISABILITY in terms(reading, ABSENT) and INTELLECTUAL_DISABILITY not in terms(reading, PRESENT)
    assert "HP:0000508" in terms(reading, PRESENT)  # ptosis


def test_the_quoted_french_case_reads_as_written(pipeline):
    reading = pipeline.read("Garçon de 4 ans avec des fentes palpébrales obliques en bas, un hypertélorisme, un ptosis "
                            "et une sténose valvulaire pulmonaire. Pas de déficience intellectuelle.")
    assert "HP:0000071" not in {f.hpo_id for f in reading.findings}  # never Ureteral stenosis
    assert reading.gene is None  # the article "des" is no gene
    assert {"HP:0000316", "HP:0000508"} <= terms(reading, PRESENT)
    # what was not read is said, in the text's own words
    unread = " ".join(reading.unread)
    assert "stenose valvulaire pulmonaire" in unread or "HP:0001642" in terms(reading, PRESENT)


def test_a_chinese_description_drops_no_finding_in_silence(pipeline):
    reading = pipeline.read("4岁男孩，眼距过宽，睑裂下斜，蹼颈，肺动脉瓣狭窄，无智力障碍。")
    assert {"HP:0000316", "HP:0000465", "HP:0001642"} <= terms(reading, PRESENT)
    # the downslanting palpebral fissures, written in another order than the translation's, are said not read
    assert "HP:0000494" in terms(reading, PRESENT) or "睑裂下斜" in reading.unread


def test_family_history_in_japanese_and_spanish(pipeline):
    japanese = pipeline.read("4歳男児。眼瞼下垂を認める。小頭なし。母親に口蓋裂あり。")
    assert "HP:0000175" in terms(japanese, FAMILY_HISTORY) and "HP:0000252" in terms(japanese, ABSENT)
    spanish = pipeline.read("Niña de 3 años con hipertelorismo. Su madre tiene ptosis.")
    assert "HP:0000508" in terms(spanish, FAMILY_HISTORY) and "HP:0000316" in terms(spanish, PRESENT)


def test_a_word_put_into_english_word_for_word_is_read(pipeline):
    # no label says "visage allongé": its words do (Long face), in French order
    reading = pipeline.read("Garçon de 3 ans présentant une macrocéphalie et un retard de développement.")
    assert {"HP:0000256", "HP:0001263"} <= terms(reading, PRESENT)
