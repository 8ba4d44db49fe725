"""python -m bench multilingual: questions and patient descriptions in the languages the HPO is translated
into, against the same ones in English.

    python -m bench multilingual [--split dev|test] [--per-task 20] [--patients 80] [--mode cypher|vector]
                                 [--languages fr,es,pt,de,it,ja,zh]

Ask: for each language, questions written as people write them (a template of several per task, the
finding's official translation inside a sentence, lower case or plural now and then), about facial
findings of the graph (genes of a finding, diseases with it) and eponymous syndromes (their genes, their
facial features). Each is scored against the same question asked in English: the share of the English
answer's facts (its triples) that the translated question's answer holds too (coverage).

Diagnosis: development patients (`phenopackets_dev.jsonl`) described in each language from their present
findings that have a translation there (age, sex, gene, findings), each patient's own paper held out; the
top-1 against the truth beside the top-1 of the same description in English (the same findings), and how
often the two top answers agree.

Items fall in dev or test by a fixed hash (`bench/devsets.py`): tune on dev. Reported too: how many of
each language's findings have no translation, and how many translations name terms this HPO release lacks.
The questions and descriptions are built here from the translations and the development set, never from an
evaluation file.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import defaultdict
from typing import Any

from bench.devsets import SPLITS, split_of
from bench.phenopackets import read_patients
from bench.results import variant_name
from bench.runtime import phenopackets_dir, progress
from kg_dump.translations import LANGUAGES

TEMPLATES = {
    "fr": {"genes_of_phenotype": ("Quels gènes sont associés à {finding} ?", "gènes responsables de {finding} ?",
                                  "quels gènes causent une {finding}"),
           "diseases_with_phenotype": ("Quelles maladies présentent {finding} ?", "quelles maladies ont une {finding}"),
           "genes_of_disease": ("Quels gènes causent le syndrome de {eponym} ?",
                                "quels gènes sont associés au syndrome de {eponym}"),
           "phenotypes_of_disease": ("Quels signes faciaux présente le syndrome de {eponym} ?",
                                     "Quelles sont les caractéristiques faciales du syndrome de {eponym} ?")},
    "es": {"genes_of_phenotype": ("¿Qué genes están asociados a {finding}?", "genes que causan {finding}"),
           "diseases_with_phenotype": ("¿Qué enfermedades presentan {finding}?", "enfermedades con {finding}"),
           "genes_of_disease": ("¿Qué genes causan el síndrome de {eponym}?",
                                "genes asociados al síndrome de {eponym}"),
           "phenotypes_of_disease": ("¿Cuáles son los rasgos faciales del síndrome de {eponym}?",
                                     "características faciales del síndrome de {eponym}")},
    "pt": {"genes_of_phenotype": ("Quais genes estão associados a {finding}?", "genes que causam {finding}"),
           "diseases_with_phenotype": ("Quais doenças apresentam {finding}?", "doenças com {finding}"),
           "genes_of_disease": ("Quais genes causam a síndrome de {eponym}?",
                                "genes associados à síndrome de {eponym}"),
           "phenotypes_of_disease": ("Quais são as características faciais da síndrome de {eponym}?",
                                     "sinais faciais da síndrome de {eponym}")},
    "de": {"genes_of_phenotype": ("Welche Gene sind mit {finding} assoziiert?", "Gene für {finding}?"),
           "diseases_with_phenotype": ("Welche Krankheiten zeigen {finding}?", "Erkrankungen mit {finding}"),
           "genes_of_disease": ("Welche Gene verursachen das {eponym}-Syndrom?", "Gene beim {eponym}-Syndrom"),
           "phenotypes_of_disease": ("Welche Gesichtsmerkmale hat das {eponym}-Syndrom?",
                                     "faziale Merkmale beim {eponym}-Syndrom")},
    "it": {"genes_of_phenotype": ("Quali geni sono associati a {finding}?", "geni che causano {finding}"),
           "diseases_with_phenotype": ("Quali malattie presentano {finding}?", "malattie con {finding}"),
           "genes_of_disease": ("Quali geni causano la sindrome di {eponym}?",
                                "geni associati alla sindrome di {eponym}"),
           "phenotypes_of_disease": ("Quali sono le caratteristiche facciali della sindrome di {eponym}?",
                                     "segni facciali della sindrome di {eponym}")},
    "ja": {"genes_of_phenotype": ("{finding}の原因遺伝子は？", "{finding}に関連する遺伝子はどれですか"),
           "diseases_with_phenotype": ("{finding}を示す疾患は？", "{finding}がみられる病気はどれですか"),
           "genes_of_disease": ("{eponym}症候群の原因遺伝子は？", "{eponym}症候群に関連する遺伝子"),
           "phenotypes_of_disease": ("{eponym}症候群の顔貌の特徴は？", "{eponym}症候群の顔の特徴を教えてください")},
    "zh": {"genes_of_phenotype": ("哪些基因与{finding}相关？", "{finding}由什么基因引起"),
           "diseases_with_phenotype": ("哪些疾病表现为{finding}？", "有{finding}的疾病"),
           "genes_of_disease": ("哪些基因导致{eponym}综合征？", "{eponym}综合征的相关基因"),
           "phenotypes_of_disease": ("{eponym}综合征有哪些面部特征？", "{eponym}综合征的面部特征")},
}
ENGLISH = {"genes_of_phenotype": "Which genes are associated with {finding}?",
           "diseases_with_phenotype": "Which diseases show {finding}?",
           "genes_of_disease": "Which genes cause {eponym} syndrome?",
           "phenotypes_of_disease": "What facial features does {eponym} syndrome have?"}
DESCRIPTIONS = {
    "en": ("A {age}-year-old boy with a {gene} variant, presenting with {findings}.",
           "A {age}-year-old girl with a {gene} variant, presenting with {findings}.", ", "),
    "fr": ("Un garçon de {age} ans, variant du gène {gene}, présentant : {findings}.",
           "Une fille de {age} ans, variant du gène {gene}, présentant : {findings}.", ", "),
    "es": ("Un niño de {age} años, variante en el gen {gene}, con: {findings}.",
           "Una niña de {age} años, variante en el gen {gene}, con: {findings}.", ", "),
    "pt": ("Um menino de {age} anos, variante no gene {gene}, com: {findings}.",
           "Uma menina de {age} anos, variante no gene {gene}, com: {findings}.", ", "),
    "de": ("Ein Junge, {age} Jahre, Variante im Gen {gene}, mit: {findings}.",
           "Ein Mädchen, {age} Jahre, Variante im Gen {gene}, mit: {findings}.", ", "),
    "it": ("Un bambino di {age} anni, variante nel gene {gene}, con: {findings}.",
           "Una bambina di {age} anni, variante nel gene {gene}, con: {findings}.", ", "),
    "ja": ("{age}歳の男児、{gene}遺伝子変異、所見：{findings}。",
           "{age}歳の女児、{gene}遺伝子変異、所見：{findings}。", "、"),
    "zh": ("一名{age}岁男孩，{gene}基因突变，表现为：{findings}。",
           "一名{age}岁女孩，{gene}基因突变，表现为：{findings}。", "、"),
}
EPONYM = re.compile(r"^([A-Z][a-z]+(?:-[A-Z][a-z]+)*) syndrome$")
FACIAL_PHENOTYPES = "MATCH (p:FacePhenotype) WHERE p.hpo_id IS NOT NULL RETURN p.hpo_id AS hpo, p.phenotypeName AS name"
DISEASE_NAMES = "MATCH (d:Disease) RETURN d.dname AS name"
MAX_FINDINGS = 12
PLURALS = ("fr", "es", "pt", "it")  # a final s makes a plural


def translated_labels(pipeline, language: str) -> dict[str, str]:
    """HP id -> its first translated label in `language`."""
    found: dict[str, str] = {}
    for hp_id, label in pipeline.translator.labels.get(language, ()):
        found.setdefault(hp_id, label)
    return found


def ask_items(pipeline, language: str, split: str, per_task: int, seed: int) -> list[dict[str, str]]:
    """(task, question, English question) in `language`, `per_task` of each, from the graph's findings and
    eponymous syndromes that fall in `split`."""
    rng = random.Random(f"{seed}/{language}")
    labels = translated_labels(pipeline, language)
    findings = sorted({(row["hpo"], row["name"]) for row in pipeline.store.query(FACIAL_PHENOTYPES)
                       if row["hpo"] in labels and split_of(row["hpo"]) == split})
    eponyms = sorted({m.group(1) for row in pipeline.store.query(DISEASE_NAMES)
                      if (m := EPONYM.match(row["name"] or "")) and split_of(m.group(1)) == split})
    items = []
    for task, wordings in TEMPLATES[language].items():
        pool = eponyms if "disease" in task and "with" not in task else findings
        for thing in rng.sample(pool, min(per_task, len(pool))):
            if isinstance(thing, tuple):
                hp_id, english = thing
                written = labels[hp_id] if rng.random() < 0.5 or language in ("ja", "zh") else labels[hp_id].lower()
                names, english_names = {"finding": written}, {"finding": english}
            else:
                names = english_names = {"eponym": thing}
            items.append({"task": task, "question": rng.choice(wordings).format(**names),
                          "english": ENGLISH[task].format(**english_names)})
    return items


def facts(result) -> set[tuple]:
    return {(t.head_id, t.relation, t.tail_id) for t in result.triples}


def run_ask(pipeline, items: list[dict[str, str]], mode: str) -> list[dict[str, Any]]:
    scored = []
    for item in items:
        english = facts(pipeline.ask(item["english"], mode=mode, backend="grounded"))
        if not english:
            continue  # nothing to compare with
        asked = pipeline.ask(item["question"], mode=mode, backend="grounded")
        scored.append({**item, "coverage": round(len(english & facts(asked)) / len(english), 4),
                       "read": next((n for n in asked.notices if n.startswith("Read as")), "")})
    return scored


def describe(patient: dict, language: str, labels: dict[str, str]) -> str:
    boy, girl, joiner = DESCRIPTIONS[language]
    findings = [labels[f["id"]] for f in patient["present"] if f["id"] in labels][:MAX_FINDINGS]
    if language in PLURALS:  # as written in running text: lower case, every other finding in the plural
        findings = [f.lower() + ("s" if i % 2 and not f.endswith(("s", "x")) else "") for i, f in enumerate(findings)]
    template = girl if patient.get("sex") == "female" else boy
    age = int(patient["age"]) if patient.get("age") is not None else 30
    return template.format(age=age, gene=patient.get("gene") or "", findings=joiner.join(findings))


def is_right(pipeline, result, omim: str) -> bool:
    top = next(iter(result.predictions()), None)
    if top is None:
        return False
    members = [top, *getattr(top, "ranked_members", ())[:1]]
    truth = pipeline.linker.mondo.of(omim)
    return any(omim in (m.disease_id, *m.other_ids) or (truth and truth == pipeline.linker.mondo_of_disease.get(
        m.node_id)) for m in members)


def run_diagnosis(pipeline, patients: list[dict], language: str) -> dict[str, Any]:
    labels = translated_labels(pipeline, language)
    english_labels = {hp: pipeline.findings.hpo.names[t] for hp, t in pipeline.findings.of_id.items()}
    right = english_right = agree = counted = 0
    for patient in patients:
        translated = {f["id"]: labels[f["id"]] for f in patient["present"] if f["id"] in labels}
        if not translated:
            continue
        held_out = frozenset({int(patient["pmid"])}) if str(patient.get("pmid", "")).isdigit() else frozenset()
        same = {**patient, "present": [f for f in patient["present"] if f["id"] in translated]}
        asked = pipeline.diagnose_question(describe(same, language, labels), exclude_pmids=held_out)
        english = pipeline.diagnose_question(describe(same, "en", english_labels), exclude_pmids=held_out)
        counted += 1
        right += is_right(pipeline, asked, patient["omim_id"])
        english_right += is_right(pipeline, english, patient["omim_id"])
        agree += bool(asked.ranked and english.ranked and asked.predictions()[0].name == english.predictions()[0].name)
    share = (lambda n: round(100 * n / counted, 1)) if counted else (lambda n: None)
    return {"cases": counted, "top1": share(right), "english_top1": share(english_right), "agree": share(agree)}


def untranslated(pipeline, patients: list[dict], language: str) -> float | None:
    labels = translated_labels(pipeline, language)
    findings = [f["id"] for p in patients for f in p["present"]]
    return round(100 * sum(f not in labels for f in findings) / len(findings), 1) if findings else None


def run(pipeline, settings, *, split: str, per_task: int, patients: int, mode: str, languages: list[str],
        seed: int = 0) -> dict[str, Any]:
    chosen = [p for p in read_patients(phenopackets_dir(settings)) if split_of(p["omim_id"]) == split]
    chosen = random.Random(seed).sample(chosen, min(patients, len(chosen)))
    result: dict[str, Any] = {"split": split, "mode": mode, "languages": {}}
    for language in progress(languages, "languages"):
        scored = run_ask(pipeline, ask_items(pipeline, language, split, per_task, seed), mode)
        by_task = defaultdict(list)
        for item in scored:
            by_task[item["task"]].append(item["coverage"])
        result["languages"][language] = {
            "ask_coverage": round(100 * sum(i["coverage"] for i in scored) / len(scored), 1) if scored else None,
            "ask_questions": len(scored),
            "ask_tasks": {task: round(100 * sum(v) / len(v), 1) for task, v in by_task.items()},
            "missed": [i for i in scored if i["coverage"] < 1][:8],
            "diagnosis": run_diagnosis(pipeline, chosen, language),
            "findings_untranslated_pct": untranslated(pipeline, chosen, language),
            "translations_newer_than_release": pipeline.translator.newer.get(language, 0)}
    return result


def summary(result: dict[str, Any]) -> str:
    lines = [f"multilingual ({result['split']}, {result['mode']}): Ask coverage against English; diagnosis top-1 "
             "against the same descriptions in English (own paper held out)"]
    for language, part in result["languages"].items():
        d = part["diagnosis"]
        lines.append(f"  {language} {LANGUAGES[language]:<10} ask {part['ask_coverage']}% (n={part['ask_questions']})"
                     f"  diagnosis top-1 {d['top1']}% vs English {d['english_top1']}% (n={d['cases']}, "
                     f"same top {d['agree']}%)  findings untranslated {part['findings_untranslated_pct']}%, "
                     f"translations of newer terms {part['translations_newer_than_release']}")
        lines += [f"      {m['coverage']:.0%} {m['question']}" for m in part["missed"][:3]]
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("multilingual", parents=[common], help="questions and descriptions in the HPO's "
                                   "other languages against English", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=SPLITS, default="dev")
    parser.add_argument("--per-task", type=int, default=20, help="questions per task and language (default 20)")
    parser.add_argument("--patients", type=int, default=80, help="patients described per language (default 80)")
    parser.add_argument("--mode", choices=("cypher", "vector"), default="cypher")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated codes (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    languages = [code.strip() for code in args.languages.split(",") if code.strip() in LANGUAGES]
    result = run(context.pipeline, context.settings, split=args.split, per_task=args.per_task,
                 patients=args.patients, mode=args.mode, languages=languages, seed=args.seed)
    return variant_name(args.split, args.mode), result, summary(result)
