"""The Space README (front matter + text) for a Docker Space or a Gradio-SDK Space.

Docker Space: the image builds the graph and indexes (see the Dockerfile), so it starts in seconds.
Gradio-SDK Space: Hugging Face installs requirements.txt and runs `app_file`; the graph is built on
the first start (about a minute), and on ZeroGPU hardware the local LLM runs under `spaces.GPU`.
"""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import SpaceCard, SpaceCardData

from fpkg.config import SPACE_LLMS
from fpkg.errors import CardError

SDKS = ("docker", "gradio")
TITLE = "FPKG-RAG"
EMOJI = "🧬"
SHORT_DESCRIPTION = "Rare-disease diagnosis from facial phenotypes via graph RAG"  # the Hub allows 60 chars
APP_PORT = 7860
STARTUP_TIMEOUT = "1h"
APP_FILE = "space_app.py"  # the Gradio-SDK entry point at the repository root
PYTHON_VERSION = "3.11"
MODELS = ["hfchloe/FP_NER", "sentence-transformers/all-MiniLM-L6-v2"]
# The small LLM (fpkg/config.py names it once): its GGUF repo (CPU hardware) and its weights' repo (a GPU)
LLM_REPOS = {hardware: model.split(":")[0] for hardware, (model, _) in SPACE_LLMS.items()}
# what a Gradio-SDK ZeroGPU Space preloads of the weights' repo, at the pinned commit (bf16 there)
LLM_WEIGHT_FILES = ("config.json", "generation_config.json", "model.safetensors", "tokenizer.json",
                    "tokenizer_config.json", "vocab.json", "merges.txt")
TAGS = ["rare-disease", "knowledge-graph", "graph-rag", "facial-phenotype", "hpo", "falkordb", "medical",
        "research"]
MAX_SHORT_DESCRIPTION = 60
STORAGE_TIERS = ("small", "medium", "large")  # the Hub's persistent storage sizes

BODY = """
# FPKG-RAG

Differential diagnosis of rare genetic diseases from facial phenotypes, a gene and a variant, answered
from the Facial Phenotype Knowledge Graph (FPKG, merged with the Human Phenotype Ontology) with the
evidence beside every answer: the ranked differential with each score's parts, the retrieved triples
with their PubMed ids, the Cypher that ran and a picture of the evidence subgraph.

- **Diagnosis**: age, sex, ethnicity, gene, variant and facial phenotypes; open or four-option questions;
  Cypher or vector retrieval, or none (the LLM alone, the paper's baseline).
- **Ask**: free questions about diseases, genes and facial phenotypes.
- **API**: the named endpoints `/diagnose` and `/ask` (`gradio_client`).
- **Sign in with Hugging Face** (optional: anyone may read and diagnose). History stays in your browser;
  roles (curator, admin) come from the users file the Space's owner keeps (`FPKG_USERS_FILE`).

Data: FPKG from [zhelishisongjie/Facial-Phenotype-RAG](https://github.com/zhelishisongjie/Facial-Phenotype-RAG)
(MIT), the [Human Phenotype Ontology](https://hpo.jax.org) ([licence](https://hpo.jax.org/license)) and the
[Mondo Disease Ontology](https://mondo.monarchinitiative.org) (Vasilevsky et al., CC BY 4.0; release of
2026-08-21, commit fad2512b48) for disease identity, and
[GA4GH phenopacket-store](https://github.com/monarch-initiative/phenopacket-store) (Monarch Initiative,
Danis et al., BSD-3-Clause) for its published patients, in the graph beside FPKG's as evidence; the
[HPO Internationalization Effort's translations](https://github.com/obophenotype/hpo-translations) (HPO
licence) read questions and descriptions in French, Spanish, Portuguese, German, Italian, Japanese and
Chinese.

{llm}

**For research and education only. This is not a medical device and must not be used to diagnose or
treat anyone.**
"""


STORAGE_NOTE = """
**Persistent storage** ({tier}): the app keeps its cache (graph snapshot, HPO layer, indexes) under
`/data/fpkg-rag`, so a restart skips the build, and its users file, history and audit log under
`/data/fpkg-rag-state`. Set the Space variable `HF_HOME=/data/.huggingface` to
keep downloaded models there too.
"""


LLM_NOTE = """**The LLM** writes the answer from the graph's evidence: {name} ({repos}; Apache-2.0), downloaded
when the Space is built, at a pinned commit: a 4-bit GGUF through llama.cpp on CPU hardware and 4-bit NF4
(bitsandbytes) on a dedicated GPU (the Docker image's `SPACE_LLM` build argument: `cpu` or `gpu`), bf16 on
ZeroGPU (Space variables `LLM_BACKEND=local`, `SPACE_LLM=gpu`). Every disease, gene, variant and finding it
names is checked against that evidence and the graph, and marked when the evidence does not hold it or the
graph contradicts it; the graph's ranked differential stays beside it. When the model is slower than
`LLM_TIMEOUT_S` or cannot load, the graph's grounded answer is the answer, and it says so."""


def llm_note() -> str:
    name = LLM_REPOS["gpu"].split("/")[-1]
    return LLM_NOTE.format(name=name, repos=", ".join(f"`{repo}`" for repo in LLM_REPOS.values()))


def llm_preload() -> str:
    """The ZeroGPU Space's preload of the LLM's weights: repo, files, commit (the Hub's format)."""
    model, revision = SPACE_LLMS["gpu"]
    return f"{model} {','.join(LLM_WEIGHT_FILES)} {revision}"


def space_card_data(sdk: str, *, sdk_version: str | None = None, zero_gpu: bool = False,
                    storage: str | None = None) -> SpaceCardData:
    if sdk not in SDKS:
        raise CardError(f"unknown Space SDK {sdk!r}; use one of {', '.join(SDKS)}")
    if storage is not None and storage not in STORAGE_TIERS:
        raise CardError(f"unknown storage tier {storage!r}; use one of {', '.join(STORAGE_TIERS)}")
    if len(SHORT_DESCRIPTION) > MAX_SHORT_DESCRIPTION:
        raise CardError(f"short_description is {len(SHORT_DESCRIPTION)} characters; the Hub allows "
                        f"{MAX_SHORT_DESCRIPTION}")
    fields: dict = {"title": TITLE, "emoji": EMOJI, "colorFrom": "indigo", "colorTo": "pink", "sdk": sdk,
                    "short_description": SHORT_DESCRIPTION, "license": "mit", "models": [*MODELS, *LLM_REPOS.values()],
                    "tags": TAGS,
                    "pinned": False, "hf_oauth": True}  # "Sign in with Hugging Face" (app/access.py)
    # the NER and embedding weights come with the Space's image, not at the first request (a Docker image
    # fetches its LLM itself; a ZeroGPU Space preloads the LLM's weights); a first start builds the graph and
    # its indexes (minutes), more than the Hub's 30-minute default allows on slow hardware
    preload = [*MODELS, *([llm_preload()] if zero_gpu and sdk == "gradio" else [])]
    fields.update(preload_from_hub=preload, startup_duration_timeout=STARTUP_TIMEOUT)
    if sdk == "docker":
        fields["app_port"] = APP_PORT
    else:
        fields.update(sdk_version=sdk_version or _gradio_version(), python_version=PYTHON_VERSION,
                      app_file=APP_FILE)
        if zero_gpu:
            fields["suggested_hardware"] = "zero-a10g"
    if storage:
        fields["suggested_storage"] = storage
    return SpaceCardData(**fields)


def space_card(sdk: str, *, sdk_version: str | None = None, zero_gpu: bool = False,
               storage: str | None = None) -> SpaceCard:
    data = space_card_data(sdk, sdk_version=sdk_version, zero_gpu=zero_gpu, storage=storage)
    body = BODY.replace("{llm}", llm_note()) + (STORAGE_NOTE.format(tier=storage) if storage else "")
    return SpaceCard(f"---\n{data.to_yaml()}\n---\n{body}")


def files_named(card: SpaceCard) -> list[str]:
    """Repository files the front matter relies on: the Dockerfile, or the Gradio app file."""
    data = card.data
    return ["Dockerfile"] if data.sdk == "docker" else [data.app_file, "requirements.txt"]


def check_files(card: SpaceCard, root: Path) -> None:
    missing = [name for name in files_named(card) if not (root / name).is_file()]
    if missing:
        raise CardError(f"the Space card names files missing from {root}: {', '.join(missing)}")


def _gradio_version() -> str:
    """The gradio pin from requirements.txt (what the Space will install), else the installed one."""
    requirements = Path(__file__).resolve().parents[1] / "requirements.txt"
    if requirements.is_file():
        for line in requirements.read_text().splitlines():
            name, _, version = line.partition("==")
            if name.strip().lower() == "gradio" and version.strip():
                return version.strip()
    import gradio

    return gradio.__version__
