"""Bad input through the pipeline API: each case gets a clear InputError or a correct (maybe
partial) answer, no other exception escapes, and the graph is unchanged afterwards.

A case's expectation is `Refused(pattern)` (an InputError whose message matches) or
`Answered(...)` (a finished result, optionally containing a text, a notice, a linked name).
"""

from __future__ import annotations

import csv
import re
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from diagnosis.ranker import DiagnosisCase
from fpkg.errors import InputError
from service.pipeline import PipelineResult
from tests.support.hardening_support import unchanged_graph

CROUZON_Q = "What facial phenotypes are associated with Crouzon syndrome?"
CHARGE = DiagnosisCase(("Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma"),
                       gene="CHD7", variant="c.2443-2A>G", age_years=5, sex="female", ethnicity="Turkish")
CYPHER = "x'}) MATCH (n) DETACH DELETE n //"
CYPHER_2 = '"}) WITH 1 AS x CALL dbms.killQueries() MERGE (m:Disease {dname: "pwned"}) RETURN x //'
SQL = "'; DROP TABLE diseases; --"
SQL_2 = "1 OR 1=1 UNION SELECT password FROM users"
HTML = "<script>alert('x')</script><img src=x onerror=alert(1)>"
BIG = "lorem ipsum " * 8600  # ~100 kB
NOTHING_TO_DIAGNOSE = "at least one facial phenotype or a gene"


@dataclass(frozen=True)
class Refused:
    pattern: str


@dataclass(frozen=True)
class Answered:
    contains: str | None = None     # in the answer
    notice: str | None = None       # in one of the notices
    not_contains: str | None = None  # not in the answer


def check(call, expected) -> PipelineResult | None:
    """Run `call`; an InputError must match a Refused, a result must fit an Answered.
    Any other exception propagates and fails the test (pytest-timeout stops one that hangs)."""
    try:
        result = call()
    except InputError as e:
        assert isinstance(expected, Refused), f"unexpected InputError: {e}"
        assert re.search(expected.pattern, str(e)), str(e)
        assert len(str(e)) < 300 and "Traceback" not in str(e)
        return None
    assert isinstance(expected, Answered), f"expected an InputError, got the answer {result.answer[:200]!r}"
    assert result.done and result.answer.strip()
    if expected.contains:
        assert expected.contains in result.answer, result.answer[:500]
    if expected.not_contains:
        assert expected.not_contains not in result.answer, result.answer[:500]
    if expected.notice:
        assert any(expected.notice in notice for notice in result.notices), result.notices
    return result


# ---- free questions (ask) --------------------------------------------------------------------
NO_TYPE = "No known question type"
NOTHING_TO_LOOK_FOR = "Nothing to look for"
QUESTIONS = {
    "empty": ("", Refused("empty")),
    "whitespace": (" \t\n\r  ", Refused("empty")),
    "zero-width only": ("\u200b\u200c\u200d\ufeff\u2060", Refused("empty")),
    "control only": ("\x00\x07\x1b\x7f", Refused("empty")),
    "none": (None, Refused("empty")),
    "100 kB text": (BIG, Refused("characters long")),
    "100 kB of a real question": (CROUZON_Q * 1700, Refused("characters long")),
    "100 kB whitespace": (" " * 100_000, Refused("empty")),
    "control chars inside": ("What\x00 facial\x07 phenotypes are\x1b associated with Crouzon\x08 syndrome?",
                             Answered("Hypertelorism")),
    "zero-width inside words": ("What facial pheno\u200btypes are associated with Crou\u200czon syn\u200ddrome?",
                                Answered("Hypertelorism")),
    "bidi override": ("\u202eWhat facial phenotypes are associated with Crouzon syndrome?\u202c",
                      Answered("Hypertelorism")),
    "lone surrogate": ("\ud800" + CROUZON_Q, Answered("Hypertelorism")),
    "emoji around": ("🧬 " + CROUZON_Q + " 🙏😀", Answered("Hypertelorism")),
    "emoji only": ("🧬🧬😀👨‍👩‍👧", Answered(notice=NO_TYPE)),
    "chinese": ("克鲁宗综合征的面部表型是什么？", Answered(notice=NO_TYPE)),
    "arabic": ("ما هي الأنماط الظاهرية للوجه المرتبطة بمتلازمة كروزون؟", Answered(notice=NO_TYPE)),
    "cyrillic with a latin name": ("Какие гены вызывают CHARGE syndrome?", Answered()),
    "html around": (HTML + CROUZON_Q + "</div>", Answered("Hypertelorism", not_contains="<script")),
    "html only": ("<b><i><u></u></i></b>", Answered(notice=NO_TYPE)),
    "cypher statement": ("MATCH (n) DETACH DELETE n", Answered()),
    "cypher inside a question": ("What facial phenotypes are associated with Crouzon syndrome " + CYPHER,
                                 Answered("Hypertelorism")),
    "cypher procedure": ("CALL dbms.components() YIELD name RETURN name", Answered()),
    "sql": (SQL, Answered(notice=NO_TYPE)),
    "sql union": (SQL_2, Answered(notice=NO_TYPE)),
    "template injection": ("{{7*7}} ${jndi:ldap://127.0.0.1/a} %s%n", Answered(notice=NO_TYPE)),
    "at the length limit": ((CROUZON_Q + " ") * 80, Answered("Hypertelorism")),
    "a number": (12345, Answered(notice=NO_TYPE)),
    "punctuation only": ("?!?!...;;;", Answered(notice=NO_TYPE)),
    # each answer names what was looked for, or says there was nothing to look for
    "one character": ("a", Answered(NOTHING_TO_LOOK_FOR, notice=NO_TYPE)),
    "only stop words": ("Is it the one that they have, and what of it?", Answered(NOTHING_TO_LOOK_FOR)),
    "10,000 characters": (("Which genes cause Kabuki syndrome? " * 300)[:10_000],
                          Refused("characters long; the limit is 5,000")),
    "an unknown word": ("zygomaticoid", Answered("Nothing found for “zygomaticoid”")),
    # issue 37: a bare name, misspelt or not, is answered with its summary
    "only a typo": ("hypertelorsim", Answered("Hypertelorism (HP:0000316) is a facial phenotype", notice="a typo")),
    "a question about an unknown name": ("Which genes cause Qwerty-Uiop syndrome?",
                                         Answered("Nothing found for “cause Qwerty-Uiop”")),
    "french around a name": ("Quels gènes causent le Kabuki syndrome ?", Answered("KMT2D")),
    "german with an english name": ("Welche Gene verursachen Kabuki syndrome?", Answered("KMT2D")),
    # issue 45: the HPO's languages are read; one it does not speak is not guessed
    "spanish": ("¿Qué fenotipos faciales tiene el síndrome de Noonan?", Answered("Read as Spanish")),
    "russian": ("Какие гены вызывают синдром Нунан?", Answered("Nothing found for")),
}


@pytest.mark.parametrize("question, expected", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_ask_bad_questions(pipeline, question, expected):
    check(lambda: pipeline.ask(question), expected)


@pytest.mark.parametrize("question, asked", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_the_same_questions_as_cases_never_escape(pipeline, question, asked):
    """As a case description the same texts have another expectation, but the same rule:
    an InputError, or an answer. A text refused as a question is refused for the same reason;
    one answered may still name nothing to diagnose from."""
    refused = asked.pattern if isinstance(asked, Refused) else NOTHING_TO_DIAGNOSE
    try:
        result = pipeline.diagnose_question(question)
    except InputError as e:
        assert re.search(refused, str(e)), str(e)
        assert len(str(e)) < 300 and "Traceback" not in str(e)
        return
    assert not isinstance(asked, Refused), f"refused as a question, answered as a case: {result.answer[:200]!r}"
    assert result.done and result.answer.strip()


# ---- case descriptions (diagnose_question) ---------------------------------------------------
OPTIONS = " Choose from the following options: "
CASE_TEXTS = {
    "age 500": ("A 500 year old boy with a CHD7 mutation and chorioretinal coloboma", Refused("500 years is not")),
    "age -5": ("A -5 year old boy with a CHD7 mutation and chorioretinal coloboma", Refused("-5 years is not")),
    "age written 5-year-old": ("A 5-year-old boy with a CHD7 mutation and chorioretinal coloboma",
                               Answered("CHARGE syndrome")),
    "nothing to diagnose from": ("Hello doctor, how are you today?", Refused("at least one facial phenotype")),
    "duplicated options": ("A girl with a CHD7 mutation." + OPTIONS + "A. CHARGE syndrome B. charge syndrome",
                           Refused("same")),
    "a single option": ("A girl with a CHD7 mutation." + OPTIONS + "A. CHARGE syndrome", Refused("at least two")),
    "options that are not in the graph": (
        "A girl with a CHD7 mutation." + OPTIONS + "A. Zorblax fever B. Quux disease", Answered()),
    "malformed hgvs": ("A girl with a mutation in CHD7, namely, c.>>>del<<<(?) and chorioretinal coloboma",
                       Answered("CHARGE syndrome")),
    "unknown gene": ("A girl with a mutation in NOTAGENE1 and chorioretinal coloboma",
                     Answered(notice="is not in the graph")),
    # "CHD7x'})..." is no gene symbol: the case is diagnosed from coloboma alone, and says so
    "cypher in the description": ("A girl with a mutation in CHD7" + CYPHER + " and coloboma",
                                  Answered("Most likely", notice="ranked by the findings", not_contains="DELETE")),
}


@pytest.mark.parametrize("text, expected", CASE_TEXTS.values(), ids=CASE_TEXTS.keys())
def test_diagnose_bad_descriptions(pipeline, text, expected):
    check(lambda: pipeline.diagnose_question(text), expected)


def gmdb_questions(data_dir: Path) -> list[str]:
    found = []
    for path in sorted((data_dir / "datasets").glob("GMDB_patient_question*.csv")):
        with open(path, encoding="utf-8") as f:
            found += [row["Patient_question"] for row in csv.DictReader(f)]
    return found


def test_redacted_gmdb_questions(pipeline, data_dir):
    """The GMDB set is published redacted ('*****' for age, sex, gene, variant, phenotypes):
    as a case it names nothing to diagnose from, which must be said, not guessed around."""
    questions = gmdb_questions(data_dir)
    assert len(questions) >= 200 and all("*****" in q for q in questions)
    for question in questions:
        check(lambda q=question: pipeline.diagnose_question(q), Refused("at least one facial phenotype or a gene"))
    for question in questions[::20]:  # as free questions: an answer saying there is no evidence
        check(lambda q=question: pipeline.ask(q), Answered())


# ---- case forms (diagnose) ------------------------------------------------------------------
def case(**changes) -> DiagnosisCase:
    return replace(CHARGE, **changes)


CASES = {
    "age -5": (case(age_years=-5), Refused("-5 years is not possible")),
    "age 500": (case(age_years=500), Refused("500 years is not possible")),
    "age not a number": (case(age_years="five"), Refused("not a number")),
    "age NaN": (case(age_years=float("nan")), Refused("not possible")),
    "age as a numeric string": (case(age_years="5"), Answered("CHARGE syndrome")),
    "empty case": (DiagnosisCase(()), Refused("at least one facial phenotype or a gene")),
    "blank phenotypes only": (DiagnosisCase((" ", "\u200b", "\x00", "")), Refused("at least one facial phenotype")),
    "61 phenotypes": (case(phenotypes=tuple(f"phenotype {i}" for i in range(61))), Refused("limit is 60")),
    "duplicated phenotypes": (case(phenotypes=("Chorioretinal coloboma",) * 5 + ("chorioretinal coloboma",)),
                              Answered("CHARGE syndrome")),
    "phenotypes as one string": (DiagnosisCase("Chorioretinal coloboma"), Answered()),
    "unknown gene": (case(gene="NOTAGENE1"), Answered(notice="NOTAGENE1")),
    "emoji gene": (case(gene="💥", phenotypes=("Chorioretinal coloboma",)),
                   Answered(notice="not in the graph", not_contains="Wolf-Hirschhorn")),
    "redacted gene": (case(gene="*****", phenotypes=("Chorioretinal coloboma",)),
                      Answered(notice="not in the graph", not_contains="Wolf-Hirschhorn")),
    "punctuation gene": (case(gene="---", phenotypes=("Chorioretinal coloboma",)),
                         Answered(notice="not in the graph", not_contains="Wolf-Hirschhorn")),
    "lower-case gene": (case(gene="chd7"), Answered("CHARGE syndrome")),
    "100 kB gene": (case(gene=BIG), Refused("characters long")),
    "100 kB phenotype": (case(phenotypes=(BIG,)), Refused("characters long")),
    "malformed hgvs c.>>>": (case(variant="c.>>>"), Answered("CHARGE syndrome")),
    "malformed hgvs p.(Arg?": (case(variant="p.(Arg?"), Answered("CHARGE syndrome")),
    "malformed hgvs chained": (case(variant="c.2443-2A>G>T>>C"), Answered("CHARGE syndrome")),
    "malformed hgvs brackets": (case(variant="NM_;;;[[[(((c.1A>G"), Answered("CHARGE syndrome")),
    "hgvs with control chars": (case(variant="\x00c.2443\x1b-2A>G"), Answered("CHARGE syndrome")),
    "non-latin phenotype": (case(phenotypes=("гипертелоризм",), gene=None),
                            Answered(notice="matches no HPO phenotype")),
    "emoji phenotype": (case(phenotypes=("😀",), gene=None), Answered(notice="matches no HPO phenotype")),
    "html in every text field": (case(ethnicity=HTML, sex=HTML, variant=HTML, phenotypes=(HTML, "Proptosis")),
                                 Answered(not_contains="<script")),
    "cypher in every field": (DiagnosisCase((CYPHER, CYPHER_2), gene=CYPHER, variant=CYPHER, sex=CYPHER,
                                            ethnicity=CYPHER_2, options={"A": CYPHER, "B": CYPHER_2}), Answered()),
    "sql in every field": (DiagnosisCase((SQL, SQL_2), gene=SQL, variant=SQL_2, sex=SQL, ethnicity=SQL,
                                         options={"A": SQL, "B": SQL_2}), Answered()),
    "cypher gene beside real phenotypes": (case(gene=CYPHER), Answered(notice="not in the graph")),
    "duplicated options": (case(options={"A": "CHARGE syndrome", "B": "charge syndrome"}), Refused("same")),
    "a single option": (case(options={"A": "CHARGE syndrome"}), Refused("at least two")),
    "blank options": (case(options={"A": " ", "B": "\u200b", "C": ""}), Refused("at least two")),
    "option keys folding to one letter": (case(options={"Apple": "CHARGE syndrome", "avocado": "Noonan syndrome"}),
                                          Refused("letter of its own")),
    "option with an empty key": (case(options={"": "CHARGE syndrome", "B": "Noonan syndrome"}),
                                 Refused("letter of its own")),
    "options as a list": (case(options=["Noonan syndrome", "CHARGE syndrome"]), Answered("B. CHARGE syndrome")),
    "options as one string": (case(options="A. CHARGE syndrome B. Noonan syndrome"), Refused("separate names")),
    "options not in the graph": (case(options={"A": "Zorblax fever", "B": "CHARGE syndrome"}), Answered("B.")),
    "a 301-character option": (case(options={"A": "x" * 301, "B": "CHARGE syndrome"}), Refused("characters long")),
    "nonsense sex": (case(sex="banana"), Answered("CHARGE syndrome")),
}


@pytest.mark.parametrize("given, expected", CASES.values(), ids=CASES.keys())
def test_diagnose_bad_cases(pipeline, given, expected):
    check(lambda: pipeline.diagnose(given), expected)


SETTINGS = {
    "unknown mode (diagnose)": (lambda p: p.diagnose(CHARGE, mode="graph"), Refused("Unknown retrieval mode")),
    "unknown mode (ask)": (lambda p: p.ask(CROUZON_Q, mode="graph"), Refused("Unknown retrieval mode")),
    "unknown backend": (lambda p: p.diagnose(CHARGE, backend="gpt-5"), Refused("is not available here")),
    "negative temperature": (lambda p: p.ask(CROUZON_Q, temperature=-1), Refused("out of range")),
    "NaN temperature": (lambda p: p.diagnose(CHARGE, temperature=float("nan")), Refused("out of range")),
    "temperature not a number": (lambda p: p.diagnose(CHARGE, temperature="hot"), Refused("not a number")),
    "streamed bad case": (lambda p: list(p.diagnose_stream(DiagnosisCase(()))), Refused("at least one")),
    "streamed bad question": (lambda p: list(p.ask_stream("\u200b")), Refused("empty")),
}


@pytest.mark.parametrize("call, expected", SETTINGS.values(), ids=SETTINGS.keys())
def test_bad_settings(pipeline, call, expected):
    check(lambda: call(pipeline), expected)


def every_call(pipeline, data_dir: Path):
    """Every call the cases above make, to run again between two fingerprints."""
    for question, _ in QUESTIONS.values():
        yield lambda q=question: pipeline.ask(q)
        yield lambda q=question: pipeline.diagnose_question(q)
    for text, _ in CASE_TEXTS.values():
        yield lambda t=text: pipeline.diagnose_question(t)
    questions = gmdb_questions(data_dir)
    for question in questions:
        yield lambda q=question: pipeline.diagnose_question(q)
    for question in questions[::20]:
        yield lambda q=question: pipeline.ask(q)
    for given, _ in CASES.values():
        yield lambda g=given: pipeline.diagnose(g)
    for call, _ in SETTINGS.values():
        yield lambda c=call: c(pipeline)


def test_graph_unchanged_by_every_case(pipeline, graph_baseline, data_dir):
    """Every case above again, between this test's own two fingerprints of the graph: none of
    them changed a node, a relationship or a property (the tests above check the answers)."""
    with unchanged_graph(pipeline.store, graph_baseline):
        for call in every_call(pipeline, data_dir):
            with suppress(InputError):  # a refusal; which one is for the tests above to check
                call()
