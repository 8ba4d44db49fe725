"""All of a patient's findings: those beside the face rank diseases, excluded ones count against the
diseases that show them, and a gene whose diseases have no facial feature still yields them."""

from __future__ import annotations

from diagnosis.ranker import DiagnosisCase

CHARGE = ("Wide nasal bridge", "Chorioretinal coloboma", "Low-set ears")


def test_a_finding_beside_the_face_changes_the_ranking(pipeline):
    facial = pipeline.diagnose(DiagnosisCase(CHARGE)).ranked
    whole = pipeline.diagnose(DiagnosisCase(CHARGE, other_findings=("Choanal atresia", "Tetralogy of Fallot",
                                                                    "Hypogonadotropic hypogonadism"))).ranked
    assert [r.node_id for r in whole[:5]] != [r.node_id for r in facial[:5]]
    assert "CHARGE" in whole[0].name.upper()


def test_an_excluded_finding_lowers_a_disease_that_shows_it(pipeline):
    case = DiagnosisCase(CHARGE, other_findings=("Choanal atresia",))
    shown = {r.node_id: r for r in pipeline.diagnose(case).ranked}
    lacking = {r.node_id: r for r in pipeline.diagnose(
        DiagnosisCase(CHARGE, other_findings=("Choanal atresia",), excluded=("Hearing impairment",))).ranked}
    charge = next(node for node, r in shown.items() if "CHARGE" in r.name.upper())
    assert lacking[charge].parts.get("contradicted", 0) < 0 and lacking[charge].score < shown[charge].score
    assert any("lacks" in line for line in lacking[charge].evidence)


def test_a_gene_whose_diseases_have_no_facial_feature_still_yields_them(pipeline):
    diagnosis = pipeline.diagnose(DiagnosisCase(gene="F8", other_findings=("Prolonged partial thromboplastin time",)))
    top = diagnosis.predicted  # hemophilia A: factor VIII deficiency (OMIM), one of Orphanet's by severity, a group
    named = [top.name, *(member.name for member in top.ranked_members)]
    assert any("hemophilia a" in name.lower() or "factor viii deficiency" in name.lower() for name in named)
    assert "gene" in top.parts, top.title
    assert {"phenotype", "annotated", "profile", "exact"} & set(top.parts)  # the finding spoke too


def test_free_text_finds_findings_beside_the_face_and_what_is_absent(pipeline):
    case = pipeline.read("A 3-year-old boy with hypertelorism, seizures and an atrial septal defect, but no "
                         "cleft palate and no hearing impairment.").case()
    assert "hypertelorism" in {p.lower() for p in case.phenotypes}
    assert {"seizures", "atrial septal defect"} <= {f.lower() for f in case.other_findings}
    assert {"cleft palate", "hearing impairment"} <= {f.lower() for f in case.excluded}


def test_a_finding_no_vocabulary_knows_is_said_so(pipeline):
    result = pipeline.diagnose(DiagnosisCase(("Hypertelorism",), gene="CHD7", other_findings=("zzgrumble of toes",)))
    assert any("'zzgrumble of toes' matches no HPO phenotype" in notice for notice in result.notices)
