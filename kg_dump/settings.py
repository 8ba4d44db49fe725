"""One typed settings object, read from the environment once at start and passed down."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_cache_dir

GRAPH_BACKENDS = ("falkordb", "neo4j")
LLM_BACKENDS = ("grounded", "local", "endpoint")
DEFAULT_LLM_MODEL = "Qwen/Qwen2.5-7B-Instruct"
DEFAULT_LLM_TIMEOUT_S = 120.0


class SettingsError(ValueError):
    """A configuration value is missing or invalid."""


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    cache_dir: Path
    data_dir_explicit: bool = False
    graph_backend: str = "falkordb"
    graph_name: str = "fpkg"
    with_hpo: bool = True  # FPKG alone (the paper's graph) when off
    falkordb_url: str | None = None
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = field(default=None, repr=False)
    ner_model: str | None = None
    llm_backend: str = "grounded"
    llm_model: str = DEFAULT_LLM_MODEL
    llm_endpoint: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_timeout_s: float = DEFAULT_LLM_TIMEOUT_S  # how long an endpoint may take to answer

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        cache_dir = Path(env.get("FPKG_CACHE_DIR") or user_cache_dir("fpkg-rag"))
        data_dir_value = env.get("FPKG_DATA_DIR")
        data_dir = Path(data_dir_value) if data_dir_value else cache_dir / "data"
        settings = cls(
            data_dir=data_dir.expanduser(),
            cache_dir=cache_dir.expanduser(),
            data_dir_explicit=bool(data_dir_value),
            graph_backend=env.get("GRAPH_BACKEND", "falkordb").strip().lower(),
            graph_name=env.get("FPKG_GRAPH_NAME", "fpkg"),
            with_hpo=env.get("FPKG_WITH_HPO", "1").strip().lower() not in ("0", "false", "no", "off"),
            falkordb_url=env.get("FALKORDB_URL") or None,
            neo4j_uri=env.get("NEO4J_URI") or None,
            neo4j_user=env.get("NEO4J_USER", "neo4j"),
            neo4j_password=env.get("NEO4J_PASSWORD") or None,
            ner_model=env.get("NER_MODEL") or None,
            llm_backend=env.get("LLM_BACKEND", "grounded").strip().lower(),
            llm_model=env.get("LLM_MODEL") or DEFAULT_LLM_MODEL,
            llm_endpoint=env.get("LLM_ENDPOINT") or None,
            llm_api_key=env.get("LLM_API_KEY") or None,
            llm_timeout_s=_seconds(env.get("LLM_TIMEOUT_S"), "LLM_TIMEOUT_S", DEFAULT_LLM_TIMEOUT_S),
        )
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.graph_backend not in GRAPH_BACKENDS:
            raise SettingsError(
                f"GRAPH_BACKEND={self.graph_backend!r} is not known; use one of {', '.join(GRAPH_BACKENDS)}"
            )
        if self.graph_backend == "neo4j" and not self.neo4j_uri:
            raise SettingsError("GRAPH_BACKEND=neo4j needs NEO4J_URI (e.g. bolt://localhost:7687)")
        if self.llm_backend not in LLM_BACKENDS:
            raise SettingsError(
                f"LLM_BACKEND={self.llm_backend!r} is not known; use one of {', '.join(LLM_BACKENDS)}"
            )
        if self.llm_backend == "endpoint" and not self.llm_endpoint:
            raise SettingsError("LLM_BACKEND=endpoint needs LLM_ENDPOINT (an OpenAI-compatible base URL)")


def _seconds(value: str | None, name: str, default: float) -> float:
    if value is None or not value.strip():
        return default
    try:
        seconds = float(value)
    except ValueError:
        raise SettingsError(f"{name}={value!r} is not a number of seconds") from None
    if not 0 < seconds <= 3600:
        raise SettingsError(f"{name}={value!r} must be more than 0 and at most 3600 seconds")
    return seconds
