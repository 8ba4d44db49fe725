"""The Hugging Face model card of a trained NER folder.

Everything on the card is read from the folder: ``config.json`` (labels),
``training_args.json`` (written by ``python -m ner train``) and ``eval_results.json``
(written by training and by ``python -m ner evaluate``), so the card states what was
measured, not what was hoped for.
"""

from __future__ import annotations

import json
from pathlib import Path

from huggingface_hub import EvalResult, ModelCard, ModelCardData

from fpkg.errors import CardError

EVAL_FILE = "eval_results.json"
TRAINING_ARGS_FILE = "training_args.json"
DATASET_ID = "fpkg-ner"  # names the evaluation data in model-index (not a Hub dataset id)
WIDGET_EXAMPLE = ("5-year-old girl of Turkish descent, heterozygous KMT2D c.15061C>T (p.Arg5021*), arched eyebrows, "
                  "long palpebral fissures and a cleft palate. Kabuki syndrome?")
DATASET_NAME = "FPKG NER corpus (Facial-Phenotype-RAG)"
CORPUS_URL = "https://github.com/zhelishisongjie/Facial-Phenotype-RAG"
_HYPERPARAMETERS = ("base_model_id", "layers", "epochs", "epochs_run", "best_epoch", "learning_rate", "batch_size",
                    "max_length", "warmup_ratio", "weight_decay", "seed", "patience", "train_sentences",
                    "augment", "prose", "train_seconds", "train_cpu_seconds", "torch_threads")

TEMPLATE = """---
{{ card_data }}
---

# {{ model_name }}

A token-classification (NER) model that finds the entities of rare-disease patient
descriptions: age, gender, ethnicity (RACE), gene, mutation (HGVS and other variant
descriptions), facial phenotype and disease. It is part of FPKG-RAG, a graph
retrieval-augmented question-answering system over the facial phenotype knowledge graph (FPKG)
of the paper "Graph retrieval augmented large language models for facial phenotype
associated rare genetic disease".

- **Base model:** [{{ base_model }}](https://huggingface.co/{{ base_model }}){{ depth }}, fine-tuned
  with a token-classification head (BIO tags, one prediction per word from its first sub-token).
- **Training data:** the FPKG NER corpus ({{ corpus_url }}, MIT licence): {{ train_sentences }}
  training, {{ dev_sentences }} validation and {{ test_sentences }} test sentences, CoNLL format;
  plus {{ augment }} synthetic note-style sentences that recombine the training split's own
  entities ("5yo F, c.1234del in kmt2d, arched eyebrows, ..."), so that the model does not
  learn the corpus' few templates by position; and {{ prose }} synthetic descriptions written by
  rules in twelve styles of clinical prose (letters, lab reports, ward notes, referral forms,
  parents' questions, ...) from the HPO release's facial phenotype, disease and gene names, whose
  surrounding words (surnames, "Heterozygous", "Exome", "Ward 7") stay outside any entity.
  Validation and test data are never used for them.
- **Language:** English.
- **Used beside:** in FPKG-RAG its disease spans are linked with disease identity from the
  [Mondo Disease Ontology](https://mondo.monarchinitiative.org) (Vasilevsky et al., CC BY 4.0; release of
  2026-08-21, commit fad2512b48), and the differential weighs published patients from
  [GA4GH phenopacket-store](https://github.com/monarch-initiative/phenopacket-store) (Monarch Initiative,
  Danis et al., BSD-3-Clause); a text in another language the HPO speaks is read into English first with the
  [HPO Internationalization Effort's translations](https://github.com/obophenotype/hpo-translations) (HPO
  licence); none of these is part of its training data.

## Labels

`id2label` is saved in `config.json`. The 13 labels are the sorted list the paper's published
model (`hfchloe/FP_NER`) used, so both models decode the same way:

{{ labels_table }}

## Evaluation

Strict entity-level scores (seqeval, IOB2, strict mode) on the corpus splits:

{{ eval_tables }}

## Training

{{ hyperparameters_table }}

## How to use

```python
from transformers import pipeline

ner = pipeline("token-classification", model="{{ repo_id }}", aggregation_strategy="first")
ner("There is a 5.0 years old female Chinese patient with a mutation in KMT2D, namely, "
    "c.5464C>T and with facial phenotypes of Arched eyebrow, Long palpebral fissure.")
```

FPKG-RAG itself calls `ner.predict.EntityRecognizer.load("{{ repo_id }}", gene_vocabulary=...)`,
which splits words like the corpus, slides windows over long inputs and merges rule-based
spans (HGVS variants, ages, sexes, gene symbols) with the model's.

## Intended use and limitations

- **For research and education only. This model is not a medical device** and must not be used
  to diagnose, treat or triage patients, nor as the only input to any clinical decision.
- The corpus is built from a handful of question templates ("There is a 5.0 years old male
  ... patient with a mutation in ..."). On free clinical text (abbreviations such as "5yo F",
  lower-case gene symbols, typos, phenotype lists without a lead-in) the model alone is
  markedly weaker than on the test split; combine it with rules or review its output.
- The corpus has some label noise (a few disease names tagged GENE, 'male' tagged GENE or RACE,
  'in exon N' inside MUTATION spans in the training split but outside them in the validation
  split); scores near 1.0 partly reflect how closely the test split follows the templates.
- Free-text figures, where shown, come from a small set of hand-written descriptions whose
  authors also wrote the synthetic training layouts: read them as optimistic.
- The base model is uncased and English only; non-Latin text yields few or no entities.
- Entities are mentions only: linking them to ontology or graph identifiers is a separate step.
"""


def build_model_card(model_dir: Path, repo_id: str | None = None, license: str = "apache-2.0") -> ModelCard:
    """Render the card for ``model_dir``; ``repo_id`` names the model on the Hub."""
    model_dir = Path(model_dir)
    config = _read_json(model_dir / "config.json", "the model folder has no config.json")
    args = _read_json(model_dir / TRAINING_ARGS_FILE, None) or {}
    results = _read_json(
        model_dir / EVAL_FILE,
        f"no {EVAL_FILE}: run `python -m ner evaluate --model {model_dir}` to measure the test split",
    )
    test = results.get("test")
    if not test or "micro" not in test:
        raise CardError(f"{model_dir / EVAL_FILE} has no test-split scores; run `python -m ner evaluate`")
    repo_id = repo_id or model_dir.name
    model_name = repo_id.split("/")[-1]
    base_model = args.get("base_model_id") or config.get("_name_or_path") or "unknown"
    labels = [config["id2label"][k] for k in sorted(config.get("id2label", {}), key=int)]
    card_data = ModelCardData(
        language="en",
        license=license,
        library_name="transformers",
        pipeline_tag="token-classification",
        base_model=base_model,
        # no `datasets`: the corpus is on GitHub, not a Hub dataset (the card's text links it)
        tags=["token-classification", "ner", "biomedical", "rare-disease", "facial-phenotype", "hgvs"],
        metrics=["seqeval"],
        widget=[{"text": WIDGET_EXAMPLE}],
        model_name=model_name,
        eval_results=[
            EvalResult(
                task_type="token-classification", task_name="Named entity recognition",
                dataset_type=DATASET_ID, dataset_name=DATASET_NAME, dataset_split="test",
                metric_type=metric, metric_name=f"strict micro {metric} (seqeval)",
                metric_value=round(float(test["micro"][metric]), 4),
            )
            for metric in ("precision", "recall", "f1")
        ],
    )
    return ModelCard.from_template(
        card_data,
        template_str=TEMPLATE,
        model_name=model_name,
        repo_id=repo_id,
        base_model=base_model,
        corpus_url=CORPUS_URL,
        train_sentences=args.get("train_sentences", "?"),
        augment=args.get("augment", 0),
        prose=args.get("prose", 0),
        depth=f", its first {config['num_hidden_layers']} transformer layers" if args.get("layers") else "",
        dev_sentences=results.get("dev", {}).get("sentences", "?"),
        test_sentences=test.get("sentences", "?"),
        labels_table=_labels_table(labels),
        eval_tables=_eval_tables(results),
        hyperparameters_table=_hyperparameters_table(args),
    )


def write_model_card(model_dir: Path, repo_id: str | None = None, license: str = "apache-2.0") -> Path:
    """Write the card as ``README.md`` in the model folder and return its path."""
    path = Path(model_dir) / "README.md"
    build_model_card(model_dir, repo_id, license).save(path)
    return path


def _read_json(path: Path, missing: str | None) -> dict | None:
    if not path.is_file():
        if missing is None:
            return None
        raise CardError(missing)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise CardError(f"{path}: not valid JSON ({e})") from e


def _labels_table(labels: list[str]) -> str:
    rows = ["| id | label |", "| --- | --- |"]
    rows += [f"| {i} | `{label}` |" for i, label in enumerate(labels)]
    return "\n".join(rows)


def _eval_tables(results: dict) -> str:
    """One table per evaluated file: test first, then validation, then any others."""
    order = sorted(results, key=lambda k: {"test": 0, "dev": 1}.get(k, 2))
    blocks = []
    for key in order:
        scores = results[key]
        if "micro" not in scores:
            continue
        title = {"test": "Test split", "dev": "Validation split"}.get(key, key)
        source = f" (`{scores['data']}`)" if scores.get("data") else ""
        rows = [f"**{title}**{source}", "", "| entity type | precision | recall | F1 | support |",
                "| --- | ---: | ---: | ---: | ---: |"]
        for name, row in list(scores.get("per_type", {}).items()) + [("**micro**", scores["micro"])]:
            rows.append(f"| {name} | {row['precision']:.4f} | {row['recall']:.4f} | {row['f1']:.4f} "
                        f"| {row['support']} |")
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks)


def _hyperparameters_table(args: dict) -> str:
    if not args:
        return "No `training_args.json` was found in the model folder."
    rows = ["| hyperparameter | value |", "| --- | --- |"]
    rows += [f"| {key} | {args[key]} |" for key in _HYPERPARAMETERS if key in args]
    rows.append("| optimiser | AdamW, linear warm-up and decay, gradient clipping at 1.0 |")
    rows.append("| selection | the epoch with the best validation strict micro F1 (early stopping) |")
    return "\n".join(rows)
