"""Every language the HPO speaks (issue 45), on the real graph and the real translations: questions and
descriptions in French, Spanish and Chinese read into English, findings typed in the form in French, and
English left as it is."""

from __future__ import annotations

import pytest

from diagnosis.ranker import DiagnosisCase
from kg_dump.translations import load_translations

MODES = ["cypher", "vector"]


@pytest.fixture(autouse=True)
def translations_present(pipeline):
    if not pipeline.translator.languages():
        pytest.skip("no HPO translations in the data folder")


def genes(result) -> set[str]:
    return {name for t in result.triples for name, label in ((t.head, t.head_label), (t.tail, t.tail_label))
            if label == "Genotype"}


def facts(result) -> set[tuple]:
    return {(t.head_id, t.relation, t.tail_id) for t in result.triples}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("question", "language"), [("Quels gènes causent le syndrome de Kabuki ?", "French"),
                                                    ("¿Qué genes causan el síndrome de Kabuki?", "Spanish")])
def test_which_genes_cause_kabuki_syndrome_in_french_and_spanish(pipeline, question, language, mode):
    result = pipeline.ask(question, mode=mode)
    first = result.answer.splitlines()[0]
    assert first.startswith(f"Read as {language}: «") and "= Kabuki syndrome" in first, first
    assert "KMT2D" in result.answer and "KDM6A" in result.answer
    english = pipeline.ask("Which genes cause Kabuki syndrome?", mode=mode)
    assert genes(result) == genes(english) and {"KMT2D", "KDM6A"} <= genes(result)


def test_noonan_s_facial_signs_asked_in_french(pipeline):
    result = pipeline.ask("Quels signes faciaux présente le syndrome de Noonan ?")
    lines = result.answer.splitlines()
    assert lines[0].startswith("Read as French")
    assert any(line.startswith("Noonan syndrome: ") and "facial findings" in line for line in lines)


def test_a_finding_by_its_official_french_label(pipeline):
    result = pipeline.ask("Quels gènes sont associés à « Fente palatine » ?")
    assert result.answer.startswith("Read as French: « Fente palatine » = Cleft palate.")
    assert facts(result) and facts(result) == facts(pipeline.ask("Which genes are associated with Cleft palate?"))


def test_a_chinese_description_is_read_as_its_english_one(pipeline):
    chinese, notices = pipeline.parse_question("一名5岁男孩，PTPN11基因突变，表现为：眼距过宽、上睑下垂、低位耳。")
    english, _ = pipeline.parse_question("A 5-year-old boy with a PTPN11 variant: hypertelorism, ptosis, low-set ears.")
    assert notices[0] == ("Read as Chinese: « 眼距过宽 » = Hypertelorism; « 上睑下垂 » = Ptosis; "
                          "« 低位耳 » = Low-set ears.")
    assert chinese.gene == "PTPN11" and chinese.sex == english.sex and chinese.age_years == english.age_years == 5
    assert sorted(p.lower() for p in chinese.phenotypes) == sorted(p.lower() for p in english.phenotypes)
    assert len(chinese.phenotypes) == 3
    ranked = [r.name for r in pipeline.diagnose(chinese).ranked[:5]]
    assert ranked == [r.name for r in pipeline.diagnose(english).ranked[:5]]


def test_a_finding_typed_in_french_in_the_form_links_to_its_term(pipeline):
    result = pipeline.diagnose(DiagnosisCase(gene="FGFR2", phenotypes=("Fente palatine", "Hypertélorisme")))
    linked = {link.mention: (link.name, link.method) for link in result.links if link.type != "GENE"}
    assert linked["Fente palatine"] == ("Cleft palate", "translation")
    assert linked["Hypertélorisme"][0] == "Hypertelorism"
    chinese = pipeline.diagnose(DiagnosisCase(phenotypes=("眼距过宽",)))
    assert [(link.name, link.method) for link in chinese.links] == [("Hypertelorism", "translation")]


@pytest.mark.parametrize("text", [
    "What facial features does Cornelia de Lange syndrome have?", "Which genes cause ptosis?",
    "Is KDM6A associated with Kabuki syndrome 1?", "Tell me about Crouzon syndrome",
    "A 4-year-old boy with a de novo PTPN11 c.922A>G variant, hypertelorism, ptosis and low-set ears",
    "Which diseases have hypertelorism and cleft palate?", "Is there a syndrome with a long face?"])
def test_english_is_left_as_it_is(pipeline, text):
    reading = pipeline.translator.read(text)
    assert reading.language == "en" and reading.text == text and reading.said() is None


def test_a_language_the_hpo_does_not_speak_is_not_guessed(pipeline):
    result = pipeline.ask("Какие гены вызывают синдром Кабуки?")
    assert result.answer.startswith("Nothing found") and not result.triples


def test_the_reader_keeps_official_and_candidate_labels_and_french_synonyms(tmp_path):
    (tmp_path / "hp-de.babelon.tsv").write_text(
        "subject_id\tsource_language\ttranslation_language\tpredicate_id\tsource_value\ttranslation_status\t"
        "translation_value\n"
        "HP:0000316\ten\tde\trdfs:label\tHypertelorism\tCANDIDATE\tHypertelorismus\n"
        "HP:0000175\ten\tde\trdfs:label\tCleft palate\tNOT_TRANSLATED\tNA\n"
        "HP:0000175\ten\tde\tIAO:0000115\tA definition\tOFFICIAL\tEine Definition\n", encoding="utf-8")
    (tmp_path / "hp-fr.synonyms.tsv").write_text(
        "subject_id\ttranslation_value\tcomment\tStatus\tLine number\nID\tAL oboInOwl:hasExactSynonym@fr\t\t\t\n"
        "HP:0000175\tPalais fendu\tsynonyms of HP:0000175\tOFFICIAL\t1\n", encoding="utf-8")
    read = load_translations(tmp_path, tmp_path / "cache")
    assert read.labels == {"de": [("HP:0000316", "Hypertelorismus")], "fr": [("HP:0000175", "Palais fendu")]}
    assert read.official == {"de": 0, "fr": 1}
    assert load_translations(tmp_path, tmp_path / "cache") == read  # from the cache the second time
    assert not load_translations(tmp_path / "none")
