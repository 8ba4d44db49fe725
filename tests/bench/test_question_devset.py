"""bench question-devset: the generator on the real HPO release, the CSV through bench domain's
reader, and the right-or-wrong scores of yes/no and count answers."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench.__main__ import main
from bench.coverage import AliasIndex
from bench.devsets import split_of
from bench.domain import count_right, read_questions, run, yes_no_right
from bench.question_devset import NOT_RECORDED, PHRASINGS, TASKS, YES, generate, write_csv
from fpkg.errors import BenchError
from fpkg.names import fold_name, normalise
from identity.mondo import Mondo
from identity.series import correct_series_links
from kg_dump.build import mondo_folder
from kg_dump.hpo_layer import load_hpo_layer

REPO = Path(__file__).resolve().parents[2]
LIST_TASKS = ("phenotypes_of_disease", "phenotypes_of_gene", "diseases_of_gene", "synonyms_of_phenotype",
              "genes_of_phenotype")


@pytest.fixture(scope="module")
def layer(test_settings):
    return load_hpo_layer(test_settings.hpo_dir, test_settings.cache_dir)


@pytest.fixture(scope="module")
def mondo(test_settings):
    return Mondo.load(mondo_folder(test_settings))


@pytest.fixture(scope="module")
def rows(layer, mondo):
    """The default set, dev and test (MONDO corrects a series' gene links for the counts, as the command does)."""
    return generate(layer, split="all", mondo=mondo)


@pytest.fixture(scope="module")
def many(layer, mondo):
    """15 times as many: enough to meet the rare mistakes (1 random phenotype in 80 is an ancestor
    of a disease's annotations, which a "Not recorded" pair must not be)."""
    return generate(layer, per_task=600, split="all", mondo=mondo)


@pytest.fixture(scope="module")
def hpo(layer):
    """The layer's links, looked up by the names the questions use (independent of the generator's index)."""
    disease_ids = defaultdict(set)
    for disease_id, name in layer.diseases.items():
        disease_ids[name].add(disease_id)
    links = {"disease_phenotype": defaultdict(set), "absent": defaultdict(set), "gene_phenotype": defaultdict(set),
             "gene_disease": defaultdict(set)}
    for disease_id, hpo_id, frequency in layer.disease_phenotypes:
        links["disease_phenotype" if frequency != 0 else "absent"][disease_id].add(hpo_id)
    for gene, hpo_id in layer.gene_phenotypes:
        links["gene_phenotype"][gene].add(hpo_id)
    for gene, disease_id in layer.gene_diseases:
        links["gene_disease"][gene].add(disease_id)
    return {"phenotype_id": {p["name"]: p["hpo_id"] for p in layer.phenotypes},
            "phenotype_name": {p["hpo_id"]: p["name"] for p in layer.phenotypes},
            "phenotype": {p["hpo_id"]: p for p in layer.phenotypes}, "disease_ids": disease_ids, **links}


def the_disease(hpo, name: str) -> str:
    (disease_id,) = hpo["disease_ids"][name]  # the generator asks only about unambiguous names
    return disease_id


def items(row) -> list[str]:
    return row.reference.split(" ; ")


def folded_items(row) -> set[str]:
    """The reference's items as names compare; no two of them the same name spelled twice."""
    folded = [fold_name(item) for item in items(row)]
    assert len(set(folded)) == len(folded), row
    return set(folded)


def named(ids, names) -> set[str]:
    return {fold_name(names[i]) for i in ids}


def ancestors(hpo, hpo_id: str) -> set[str]:
    found, todo = set(), [hpo_id]
    while todo:
        term = todo.pop()
        if term not in found:
            found.add(term)
            todo += hpo["phenotype"][term]["parents"]
    return found


def one_letter_typos(name: str) -> set[str]:
    """Every swap of neighbours, dropped letter and doubled letter of `name`, lower case."""
    name = name.casefold()
    swaps = {name[:i] + name[i + 1] + name[i] + name[i + 2:] for i in range(len(name) - 1)}
    return swaps | {name[:i] + name[i + 1:] for i in range(len(name))} | {name[:i] + name[i] + name[i:]
                                                                         for i in range(len(name))}


def test_every_task_has_its_questions_in_both_splits(rows):
    counts = Counter((row.task, row.split) for row in rows)
    assert {task for task, _ in counts} == set(TASKS)
    assert all(counts[(task, split)] == 40 for task in TASKS for split in ("dev", "test"))
    assert len({row.question.casefold() for row in rows}) == len(rows)
    for task in TASKS:
        assert len({row.question.split()[0].casefold() for row in rows if row.task == task}) >= 4, task


CUES = {"phenotypes_of_disease": ("face", "facial", "feature", "sign", "phenotype", "look"),
        "phenotypes_of_gene": ("face", "facial", "feature", "sign", "phenotype", "look"),
        "diseases_of_gene": ("disease", "syndrome", "condition", "disorder"),
        "synonyms_of_phenotype": ("synonym", "other name", "another name", "also called"),
        "genes_of_phenotype": ("gene",), "phenotype_in_disease": ("feature", "sign", "phenotype", "seen"),
        "gene_causes_disease": ("cause", "linked", "gene for", "associated"),
        "gene_has_phenotype": ("linked", "feature", "phenotype", "sign", "link"),
        "shared_by_genes": ("disease", "condition", "disorder"),
        "shared_by_phenotypes": ("disease", "syndrome", "condition", "disorder"),
        "count": ("how many",), "compound": ("gene",), "genes_of_disease": ("gene",),
        "described_genes": ("gene",), "described_diseases": ("disease", "syndrome", "condition", "disorder"),
        "described_name": ("name", "call", "term", "phenotype")}


def test_every_phrasing_keeps_a_cue_word_and_none_is_the_papers():
    assert set(CUES) == set(PHRASINGS)
    for kind, phrasings in PHRASINGS.items():
        assert len(phrasings) >= 6, kind
        for phrasing in phrasings:
            assert any(cue in phrasing.casefold() for cue in CUES[kind]), phrasing
            assert not phrasing.casefold().startswith("what facial phenotypes are associated with"), phrasing


def test_the_csv_round_trips_through_the_domain_reader(rows, tmp_path):
    path = tmp_path / "questions.csv"
    write_csv(rows, path)
    with open(path, newline="", encoding="utf-8") as f:
        assert next(csv.reader(f)) == ["task", "question", "reference", "split"]
    read = read_questions(path)
    assert [(q.task, q.question, q.reference) for q in read] == [(r.task, r.question, r.reference) for r in rows]
    assert all(list(q.items) == items(r) for q, r in zip(read, rows, strict=True))
    assert [q.index for q in read if q.task == "count"] == list(range(80))
    assert len(read_questions(path, limit=3)) == 3 * len(TASKS)


def test_list_references_are_the_layers_links(many, hpo, layer, mondo):
    checked = Counter()
    corrected, _ = correct_series_links({(g, d) for g, ds in hpo["gene_disease"].items() for d in ds}, mondo)
    for row in many:
        names = row.asked.names
        if row.task == "phenotypes_of_disease":
            expected = named(hpo["disease_phenotype"][the_disease(hpo, names["disease"])], hpo["phenotype_name"])
        elif row.task == "phenotypes_of_gene":
            expected = named(hpo["gene_phenotype"][names["gene"]], hpo["phenotype_name"])
        elif row.task == "diseases_of_gene":
            expected = named(hpo["gene_disease"][names["gene"]], layer.diseases)
        elif row.task == "synonyms_of_phenotype":  # other names: not the name again, nor its plural
            synonyms = hpo["phenotype"][hpo["phenotype_id"][names["phenotype"]]]["synonyms"]
            expected = {fold_name(s) for s in synonyms if normalise(s) != normalise(names["phenotype"])}
        elif row.task == "genes_of_phenotype":
            hpo_id = hpo["phenotype_id"][names["phenotype"]]
            expected = {fold_name(gene) for gene, terms in hpo["gene_phenotype"].items() if hpo_id in terms}
        elif row.task == "count":  # the links as MONDO corrects a series' artefacts (identity/series.py)
            assert row.reference == str(sum(d == the_disease(hpo, names["disease"]) for _, d in corrected))
            checked[row.task] += 1
            continue
        else:
            continue
        assert folded_items(row) == expected, row
        assert 1 <= len(expected) <= 40
        checked[row.task] += 1
    assert set(checked) == {*LIST_TASKS, "count"}


def test_intersections_and_compounds_are_the_layers_links(many, hpo, layer):
    for row in many:
        names, got = row.asked.names, folded_items(row)
        if row.task == "intersection" and "gene" in names:
            shared = hpo["gene_disease"][names["gene"]] & hpo["gene_disease"][names["gene2"]]
            assert got == named(shared, layer.diseases) and 1 <= len(shared) <= 5
        elif row.task == "intersection":
            first, second = (hpo["phenotype_id"][names[slot]] for slot in ("phenotype", "phenotype2"))
            shared = {d for d, terms in hpo["disease_phenotype"].items() if {first, second} <= terms}
            assert got == named(shared, layer.diseases) and 1 <= len(shared) <= 10
        elif row.task == "compound":
            disease = the_disease(hpo, names["disease"])
            genes = {fold_name(gene) for gene, diseases in hpo["gene_disease"].items() if disease in diseases}
            assert got == genes | named(hpo["disease_phenotype"][disease], hpo["phenotype_name"])


def test_count_answers_are_not_mostly_one(rows):
    for split in ("dev", "test"):
        assert Counter(row.reference == "1" for row in rows if row.task == "count" and row.split == split) == \
            {True: 20, False: 20}


def test_yes_no_is_balanced(rows):
    yes_no = [row for row in rows if row.task == "yes_no"]
    for split in ("dev", "test"):
        references = Counter(row.reference for row in yes_no if row.split == split)
        assert references == {YES: 20, NOT_RECORDED: 20}
    kinds = Counter((tuple(sorted(row.asked.names)), row.reference) for row in yes_no)
    assert len(kinds) == 6 and min(kinds.values()) >= 12  # three kinds of pair, each linked and not


def test_yes_no_pairs_are_linked_or_not_in_the_layer(many, hpo):
    for row in (row for row in many if row.task == "yes_no"):
        names, linked = row.asked.names, row.reference == YES
        if "disease" in names and "phenotype" in names:
            disease = the_disease(hpo, names["disease"])
            annotated, absent = hpo["disease_phenotype"][disease], hpo["absent"][disease]
        elif "disease" in names:
            assert (the_disease(hpo, names["disease"]) in hpo["gene_disease"][names["gene"]]) == linked, row
            continue
        else:
            annotated, absent = hpo["gene_phenotype"][names["gene"]], set()
        phenotype = hpo["phenotype_id"][names["phenotype"]]
        assert (phenotype in annotated) == linked, row
        if not linked:  # nor implied by a more precise annotation, nor recorded as absent (that is a "No")
            assert not any(phenotype in ancestors(hpo, term) for term in annotated), row
            assert phenotype not in absent, row


def test_lower_case_and_typos_come_at_about_their_rates(rows):
    lower = [row for row in rows if row.asked.lower]
    typos = [row for row in rows if row.asked.misspelled]
    assert 0.18 <= len(lower) / len(rows) <= 0.33
    assert 0.08 <= len(typos) / len(rows) <= 0.17
    assert all(row.question == row.question.lower() for row in lower)
    for row in typos:
        name = row.asked.misspelled
        assert sum(c.isalpha() for c in name) >= 7 and name.casefold() not in row.question.casefold()
        assert any(typo in row.question.casefold() for typo in one_letter_typos(name)), row
        assert name not in (row.asked.names.get("gene"), row.asked.names.get("gene2"))
    for row in rows:  # gene symbols are never misspelled
        for slot in ("gene", "gene2"):
            if slot in row.asked.names:
                assert row.asked.names[slot].casefold() in row.question.casefold(), row


def test_long_disease_names_are_asked_about(rows):
    diseases = [row.asked.names["disease"] for row in rows if "disease" in row.asked.names]
    long = [name for name in diseases if len(name.split()) >= 8 or "," in name]
    assert len(long) >= 0.1 * len(diseases)
    assert any(len(name.split()) >= 8 for name in long)


def test_dev_and_test_share_no_main_entity(rows):
    entities = {split: {row.main_entity for row in rows if row.split == split} for split in ("dev", "test")}
    assert not entities["dev"] & entities["test"]
    assert all(split_of(row.main_entity) == row.split for row in rows)


def test_the_same_seed_gives_the_same_file_and_dev_alone_is_dev_of_all(layer, rows, mondo, tmp_path):
    write_csv(rows, tmp_path / "a.csv")
    write_csv(generate(layer, split="all", mondo=mondo), tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert generate(layer, split="dev", mondo=mondo) == [row for row in rows if row.split == "dev"]
    assert generate(layer, split="all", seed=1, mondo=mondo) != rows


@pytest.mark.slow
def test_the_command_writes_the_same_file_in_another_process(test_settings, rows, tmp_path, capsys):
    """Another process, another string hash seed: nothing may depend on set order."""
    write_csv([row for row in rows if row.split == "dev"], tmp_path / "here.csv")
    environ = {**os.environ, "FPKG_DATA_DIR": str(test_settings.data_dir),
               "FPKG_CACHE_DIR": str(test_settings.cache_dir), "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-m", "bench", "question-devset", "--out", str(tmp_path / "there.csv"),
                    "--results-dir", str(tmp_path)], cwd=REPO, env=environ, check=True, capture_output=True)
    assert (tmp_path / "there.csv").read_bytes() == (tmp_path / "here.csv").read_bytes()
    assert main(["question-devset", "--per-task", "2", "--split", "test", "--out", str(tmp_path / "small.csv"),
                 "--results-dir", str(tmp_path), "--json"], settings=test_settings) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["questions"] == 2 * len(TASKS) and all(c == {"dev": 0, "test": 2} for c in out["per_task"].values())
    assert len(read_questions(tmp_path / "small.csv")) == 2 * len(TASKS)


# ---- scoring -----------------------------------------------------------------------------

def test_yes_no_scores_the_first_word():
    assert yes_no_right("Yes. Hypertelorism is recorded for Crouzon syndrome.", "Yes")
    assert yes_no_right("**yes** - HPO links them", "Yes")
    assert yes_no_right("Not recorded: HPO does not link FGFR2 to Ptosis.", NOT_RECORDED)
    assert not yes_no_right("Not recorded in HPO.", "Yes")
    assert not yes_no_right("Yes, it is.", NOT_RECORDED)
    # a "No" that denies the link is right for a reference that the layer does not record (issue 57: "No: classic
    # Crouzon syndrome is FGFR2 ..."), never for a Yes
    assert yes_no_right("No: Kabuki syndrome 1 (KS1) is KMT2D in the graph, not FGFR2.", NOT_RECORDED)
    assert not yes_no_right("No, there is no link.", "Yes")
    assert not yes_no_right("", "Yes")


def test_count_scores_a_whole_number_in_the_first_sentence():
    assert count_right("3 genes are associated with X: A, B and C.", "3")
    assert count_right("X is associated with 2 genes (FGFR2, TWIST1).", "2")
    assert count_right("The number of genes is 12.", "12")
    assert not count_right("There are 13 genes for X.", "3")
    assert not count_right("X is caused by FGFR2. It has 2 genes.", "2")  # the number must come first
    assert not count_right("About 1.5 genes on average.", "1")
    assert not count_right("Two genes cause X.", "2")  # digits only
    assert not count_right("Not recorded.", "1")


class FakePipeline:
    """Answers from a table, for `run` without a graph."""

    def __init__(self, answers: dict[str, str]):
        self.answers = answers

    def ask(self, question, **_):
        class Result:
            answer = self.answers[question]
            llm_failed = None
            llm_query = None  # the grounded writer: no LLM query
        return Result()


def test_run_scores_csv_questions_per_task(tmp_path):
    path = tmp_path / "questions.csv"
    path.write_text("task,question,reference,split\n"
                    "yes_no,Is A linked to B?,Yes,dev\n"
                    "yes_no,Is C linked to D?,Not recorded,dev\n"
                    "count,how many genes for E?,2,dev\n"
                    "phenotypes_of_disease,\"E - facial signs?\",\"High, narrow palate ; Ptosis\",dev\n",
                    encoding="utf-8")
    questions = read_questions(path)
    assert questions[3].items == ("High, narrow palate", "Ptosis")
    answers = {"Is A linked to B?": "Yes.", "Is C linked to D?": "Yes, they are.",
               "how many genes for E?": "E has 2 genes.", "E - facial signs?": "E: high, narrow palate."}
    result = run(FakePipeline(answers), questions, backend="grounded", semantic=False,
                 aliases=AliasIndex(SimpleNamespace(indexes={})))
    tasks = result["tasks"]
    assert tasks["yes_no"]["coverage"] == 0.5 and "scoring" in tasks["yes_no"]
    assert tasks["count"]["coverage"] == 1.0
    assert tasks["phenotypes_of_disease"]["coverage"] == 0.5 and "scoring" not in tasks["phenotypes_of_disease"]
    assert tasks["yes_no"]["below_target"][0]["missing"] == [NOT_RECORDED]


def test_a_csv_lacking_a_column_is_a_one_line_error(tmp_path):
    path = tmp_path / "questions.csv"
    path.write_text("task,question,answer\nyes_no,Is A linked to B?,Yes\n", encoding="utf-8")
    with pytest.raises(BenchError, match=r"^questions.csv lacks the column\(s\) reference$"):
        read_questions(path)
    other = tmp_path / "questions.txt"
    other.write_text("", encoding="utf-8")
    with pytest.raises(BenchError, match="csv or .xlsx"):
        read_questions(other)


def test_the_fuzzy_set_describes_a_feature_without_its_names(layer, hpo):
    """Each question holds the first sentence of one feature's HPO definition, none of its names,
    and the reference is that feature's genes, diseases or name."""
    fuzzy = generate(layer, split="all", tasks="fuzzy")
    assert {row.task for row in fuzzy} == {"described_genes", "described_diseases", "described_name"}
    assert {row.split for row in fuzzy} == {"dev", "test"}
    genes_of = defaultdict(set)
    for gene, hpo_ids in hpo["gene_phenotype"].items():
        for hpo_id in hpo_ids:
            genes_of[hpo_id].add(gene)
    diseases_of = defaultdict(set)
    for disease_id, hpo_ids in hpo["disease_phenotype"].items():
        for hpo_id in hpo_ids:
            diseases_of[hpo_id].add(disease_id)
    for row in fuzzy:
        term = hpo["phenotype"][row.main_entity]
        described = row.asked.names["description"]
        assert described.rstrip(".").casefold() in term["definition"].casefold()
        assert not any(normalise(name) in normalise(described) for name in [term["name"], *term["synonyms"]])
        if row.task == "described_genes":
            assert set(items(row)) == genes_of[row.main_entity]
        elif row.task == "described_diseases":
            assert folded_items(row) == named(diseases_of[row.main_entity], layer.diseases)
        else:
            assert items(row) == [term["name"]]


def test_the_orphanet_set_asks_by_the_name_only_orphanet_gives(layer, test_settings):
    """Each disease is asked about by its Orphanet twin's name (one MONDO disease, another name), and a
    gene's diseases are listed with some named so; without MONDO the set is refused in words."""
    mondo = Mondo.load(mondo_folder(test_settings))
    if not mondo:
        pytest.skip("no MONDO tables")
    orphanet = generate(layer, split="all", tasks="orphanet", mondo=mondo, per_task=20)
    assert {row.task for row in orphanet} == {"genes_of_orphanet_name", "diseases_of_gene_orphanet_named"}
    for row in orphanet:
        if row.task == "genes_of_orphanet_name":
            omim, name = row.main_entity, row.asked.names["disease"]
            twin = next(d for d, n in layer.diseases.items() if n == name and d.startswith("ORPHA:"))
            assert mondo.of(twin) == mondo.of(omim) and fold_name(name) != fold_name(layer.diseases[omim])
            assert items(row) and len(items(row)) <= 40
        else:
            named = {layer.diseases[d] for d in layer.diseases if d.startswith("ORPHA:")}
            assert set(items(row)) & named
    with pytest.raises(BenchError, match="needs the MONDO tables"):
        generate(layer, tasks="orphanet")


def test_the_kinds_set_asks_each_kind_in_both_splits_with_references_from_hpo_and_mondo(layer, hpo, test_settings):
    from bench.question_kinds import KIND_PHRASINGS, KIND_TASKS, MODE_WORDS
    from kg_dump.hpo_profiles import load_hpo_profiles

    mondo = Mondo.load(mondo_folder(test_settings))
    if not mondo:
        pytest.skip("no MONDO tables")
    profiles = load_hpo_profiles(test_settings.hpo_dir, test_settings.cache_dir)
    kinds = generate(layer, split="all", tasks="kinds", mondo=mondo, profiles=profiles, per_task=20,
                     task_sets={"kinds": KIND_TASKS})
    counts = Counter((row.task, row.split) for row in kinds)
    assert counts == {(task, split): 20 for task in KIND_TASKS for split in ("dev", "test")}
    standard = {phrasing for phrasings in PHRASINGS.values() for phrasing in phrasings}
    assert not standard & {p for phrasings in KIND_PHRASINGS.values() for p in phrasings}  # wordings of their own
    for row in kinds:
        names = row.asked.names
        if row.task == "inheritance":
            assert not MODE_WORDS.search(names["disease"]) and row.reference
        elif row.task == "yes_no_group":
            assert row.reference in (YES, NOT_RECORDED)
            assert not hpo["gene_disease"][names["gene"]] & hpo["disease_ids"][names["disease"]]  # never HPO's own link
        elif row.task == "in_common":
            shared = set.union(*(hpo["disease_phenotype"][d] for d in hpo["disease_ids"][names["disease"]])) & \
                set.union(*(hpo["disease_phenotype"][d] for d in hpo["disease_ids"][names["disease2"]]))
            assert {hpo["phenotype_name"][p] for p in shared} >= set(row.reference.split(" ; "))
    with pytest.raises(BenchError):
        generate(layer, tasks="kinds", task_sets={"kinds": KIND_TASKS})
