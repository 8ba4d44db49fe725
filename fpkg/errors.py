"""Every error the project raises, under one root.

A command-line entry point catches `FpkgError` once (`fpkg.cli.run`) and prints its message on
one line, exiting with the error's `exit_code`: 2 for what the user must fix (settings, input,
data files), 1 for what failed while running. The app turns the same errors into notices.
Raise them `from` their cause so a debugger still sees it.
"""

from __future__ import annotations

EXIT_FAILURE = 1
EXIT_USER_ERROR = 2


class FpkgError(Exception):
    """Root of every error raised by this project."""

    exit_code = EXIT_FAILURE


# ---- what the user must fix ----------------------------------------------------------------
class SettingsError(FpkgError, ValueError):
    """A configuration value (an environment variable) is missing or invalid."""

    exit_code = EXIT_USER_ERROR


class InputError(FpkgError, ValueError):
    """Input the user has to correct; the message says what and how, and `field` names the input at fault
    where one is ("age", "description", ...: the page shows the message there)."""

    exit_code = EXIT_USER_ERROR

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


class AccessDenied(FpkgError):
    """The signed-in user (or an anonymous one) may not do this; the message says what is needed."""

    exit_code = EXIT_USER_ERROR


class OverlayError(FpkgError):
    """The curated overlay file is damaged (edited by hand, not a record): it is not applied."""

    exit_code = EXIT_USER_ERROR


class DataFileError(FpkgError):
    """A data file is missing and cannot be fetched, or fails its checksum."""

    exit_code = EXIT_USER_ERROR


# ---- the graph's sources -------------------------------------------------------------------
class DumpError(FpkgError):
    """The dump cannot be read: wrong container, truncated or corrupt data, unsupported store."""

    exit_code = EXIT_USER_ERROR


class CorruptStoreError(DumpError, ValueError):
    """A store record holds something the record format does not allow."""


class PhenopacketError(FpkgError, ValueError):
    """A file is not a GA4GH Phenopacket v2 the project can use (not JSON, not the schema, no diagnosis)."""

    exit_code = EXIT_USER_ERROR


class HpoError(FpkgError):
    """The HPO release folder is missing files or cannot be read."""

    exit_code = EXIT_USER_ERROR


# ---- the graph store -----------------------------------------------------------------------
class StoreError(FpkgError):
    """Root of every error raised by a graph store."""


class StoreUnavailable(StoreError):
    """The server is down or cannot be reached (after one restart or reconnect attempt)."""


class QueryTimeout(StoreError):
    """A query ran past its time limit and was stopped."""


class QueryRejected(StoreError):
    """The server refused a query: a write through the read-only path, a syntax or semantic
    error, or a resource limit. The message is the server's own, useful to correct the query."""


class GraphNotLoaded(StoreError):
    """The configured graph does not exist yet (build it with ``python -m kg_dump build``)."""


class LoadError(StoreError):
    """A load failed; the previously loaded graph is left as it was."""


# ---- retrieval -----------------------------------------------------------------------------
class CypherSyntaxError(FpkgError, ValueError):
    """The text cannot be tokenized (unterminated string, comment or name, stray character,
    unbalanced brackets)."""


class NotReady(FpkgError):
    """A retrieval mode is still loading its index (a first start builds it): try again shortly."""


class EmbeddingStopped(FpkgError):
    """An embedding that was running when the process began to exit (retrieval/vector/embedder.py)."""


# ---- generators ----------------------------------------------------------------------------
class LLMError(FpkgError):
    """Root of every error raised by a generator."""


class LLMConfigError(LLMError, ValueError):
    """A backend name, model or endpoint setting is missing or invalid."""

    exit_code = EXIT_USER_ERROR


class LLMUnavailable(LLMError):
    """The model or server cannot be reached or loaded (offline, missing folder, missing package)."""


class LLMTimeout(LLMError):
    """The model or server did not answer in time."""


class LLMHTTPError(LLMError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class LLMBadResponse(LLMError):
    """The server answered, but not with a chat completion we can read."""


# ---- the entity recogniser -----------------------------------------------------------------
class NerError(FpkgError):
    """Root of the errors raised by the ``ner`` package."""


class ModelNotFound(NerError):
    """A Hub model that cannot be had (not cached, and the Hub cannot give it), said in plain words."""


class CorpusError(NerError, ValueError):
    """A corpus file that cannot be read; the message names the file and line."""

    exit_code = EXIT_USER_ERROR


class LabelError(NerError, ValueError):
    """A tag or a model's label list that this project cannot interpret."""

    exit_code = EXIT_USER_ERROR


class TrainError(NerError, RuntimeError):
    """Training cannot start or finish (missing base model, labels outside the label set)."""


# ---- packaging and benchmarks --------------------------------------------------------------
class CardError(FpkgError, ValueError):
    """The model folder lacks what the card needs (weights, config, measured scores)."""

    exit_code = EXIT_USER_ERROR


class UploadError(FpkgError):
    """The Hub refused or did not answer an upload."""


class BenchError(FpkgError):
    """A benchmark cannot run as asked (a missing column, file or backend): the message says why."""

    exit_code = EXIT_USER_ERROR


class LoadRequestFailed(FpkgError):
    """A load-test request got no answer: an error event, a refused call, a stream cut short."""


# ---- serving -------------------------------------------------------------------------------
class Busy(FpkgError):
    """Every place in a request lane is taken (app/lanes.py): the message says to try again shortly."""
