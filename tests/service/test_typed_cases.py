"""Issue 37: the form and the API take what clinicians type."""

from __future__ import annotations

import pytest

from app.form_fields import findings_box, parse_form_sex, sex_box, split_findings
from diagnosis.ranker import DiagnosisCase
from fpkg.errors import InputError


def test_findings_typed_in_one_box_are_split(pipeline):
    known = pipeline.linker.vocabulary("FacePhenotype")
    assert split_findings(["coloboma, low-set ears; facial asymmetry\nptosis"], known) == [
        "coloboma", "low-set ears", "facial asymmetry", "ptosis"]
    assert split_findings("Hypertelorism", known) == ["Hypertelorism"]
    assert split_findings([" ", None, "ptosis", "ptosis"], known) == ["ptosis"]
    with_comma = next(n for n in pipeline.linker.names("FacePhenotype") if "," in n)  # a name with a comma
    assert split_findings([with_comma], known) == [with_comma]


@pytest.mark.parametrize("given", ["", None, "unknown", "Unknown", " "])
def test_no_sex_given_is_accepted(given):
    assert parse_form_sex(given) is None


def test_sex_words_and_a_clear_error():
    assert parse_form_sex("F") == "female" and parse_form_sex("boy") == "male"
    with pytest.raises(InputError, match="female, male or unknown"):
        parse_form_sex("martian")


def test_the_findings_parameter_is_a_free_list_of_strings_in_the_api():
    box = findings_box([f"term {i}" for i in range(9000)])
    assert box.api_info()["type"] == "array" and box.api_info()["items"] == {"type": "string"}
    assert "enum" not in str(box.api_info()) and len(str(box.api_info())) < 300
    assert sex_box().api_info()["type"] == "string" and "unknown" in sex_box().api_info()["description"]


def test_a_case_whose_findings_all_fail_to_link_says_so_first_and_is_low(pipeline):
    case = DiagnosisCase(phenotypes=("xqzzv blorft", "wumpel snarg"), gene="CHD7")
    result = pipeline.diagnose(case)
    first = next(n for n in result.notices if "findings given" in n)
    assert result.notices.index(first) <= 1 and first.startswith("None of the 2 findings given was recognised")
    assert result.confidence is not None and result.confidence <= 0.3


def test_the_same_findings_split_link_and_rank(pipeline):
    known = pipeline.linker.vocabulary("FacePhenotype")
    findings = split_findings(["coloboma, low-set ears, facial asymmetry"], known)
    result = pipeline.diagnose(DiagnosisCase(phenotypes=tuple(findings), gene="CHD7"))
    assert not any("findings given" in n for n in result.notices)
    assert result.ranked[0].name == "CHARGE syndrome"


def test_the_start_up_line_says_which_recogniser_answers_and_why(pipeline):
    from types import SimpleNamespace

    from service.pipeline import recogniser_line

    assert recogniser_line(pipeline.recognizer, "NER_MODEL=rules") == \
        "NER in use: the HPO dictionary and rules only (NER_MODEL=rules)"
    offline = SimpleNamespace(model_name="hfchloe/FP_NER", notice="NER model hfchloe/FP_NER could not be loaded "
                              "(it is not in this machine's Hugging Face cache, and the Hugging Face Hub cannot be "
                              "reached); using rules only",
                              unavailable="it is not in this machine's Hugging Face cache, and the Hugging Face Hub "
                                          "cannot be reached")
    assert recogniser_line(offline, "the published weights", "HF_HUB_OFFLINE is set") == (
        "NER in use: the HPO dictionary and rules only. The model hfchloe/FP_NER could not be loaded: it is not in "
        "this machine's Hugging Face cache, and the Hugging Face Hub cannot be reached (HF_HUB_OFFLINE is set).")
    loaded = SimpleNamespace(model_name="hfchloe/FP_NER", notice=None)
    assert recogniser_line(loaded, "the published weights") == \
        "NER in use: the model hfchloe/FP_NER (the published weights), with the HPO dictionary and rules"


def test_one_findings_box_takes_findings_beside_the_face_and_absent_ones(pipeline):
    """Issue 36 through the form's one box: any HPO term counts, "no X" is an absent finding."""
    known = pipeline.linker.vocabulary("FacePhenotype")
    facial = ("Hypertelorism", "Downslanted palpebral fissures")
    typed = split_findings(["Hypertelorism, Downslanted palpebral fissures; Seizure\nno Ptosis"], known)
    result = pipeline.diagnose(DiagnosisCase(phenotypes=tuple(typed)))
    assert result.case.excluded == ("Ptosis",) and "Seizure" in result.case.phenotypes
    facial_only = pipeline.diagnose(DiagnosisCase(phenotypes=facial))
    assert [r.name for r in result.ranked[:5]] != [r.name for r in facial_only.ranked[:5]]
    with pytest.raises(InputError, match="absent"):  # absent findings alone are no case
        pipeline.diagnose(DiagnosisCase(phenotypes=tuple(split_findings(["no ptosis; no seizure"], known))))
