"""`python -m app`: load the graph and indexes (showing progress), then serve the Gradio app.

    python -m app                      # http://127.0.0.1:7860
    python -m app --host 0.0.0.0 --port 8080
    python -m app --warm-up            # build graph and indexes, run one query per mode, exit
    python -m app users add|remove|list  # the users file (accounts/cli.py)

The server binds 127.0.0.1 unless told otherwise; in a container (FPKG_IN_CONTAINER=1, as the
Dockerfile sets) or on a Hugging Face Space (SPACE_ID set) it binds 0.0.0.0. `GET /healthz` answers
200 while the graph store answers and the users file and curated overlay can be read, 503 with the
reason otherwise (the Docker HEALTHCHECK uses it); it also says whether the vector index has finished
loading. The server itself (headers, limits, sign-in) is app/server.py.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import os
import signal
import socket
import sys
import time
from collections.abc import Sequence

from fpkg.cli import reports_errors
from fpkg.errors import SettingsError

DEFAULT_PORT = 7860
M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)
MALLOC_ARENAS = 2
TRUE = ("1", "true", "yes", "on")


def default_host(environ=os.environ) -> str:
    """Gradio's GRADIO_SERVER_NAME when set; else 0.0.0.0 in a container or on a Hugging Face Space
    (which sets SPACE_ID), else loopback only."""
    if environ.get("GRADIO_SERVER_NAME", "").strip():
        return environ["GRADIO_SERVER_NAME"].strip()
    in_container = environ.get("FPKG_IN_CONTAINER", "").strip().lower() in TRUE
    return "0.0.0.0" if in_container or environ.get("SPACE_ID") else "127.0.0.1"


def default_port(environ=os.environ) -> int:
    """Gradio's GRADIO_SERVER_PORT, then PORT (as platforms set it), then 7860."""
    for name in ("GRADIO_SERVER_PORT", "PORT"):
        value = environ.get(name, "").strip()
        if value:
            if not value.isdigit() or not 0 < int(value) < 65536:
                raise SettingsError(f"{name}={value!r} is not a port number (1-65535)")
            return int(value)
    return DEFAULT_PORT


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m app", description="Serve the FPKG-RAG Gradio app.")
    parser.add_argument("--host", default=None,
                        help="address to bind (default $GRADIO_SERVER_NAME, else 127.0.0.1; 0.0.0.0 when "
                             "FPKG_IN_CONTAINER=1 or on a Space)")
    parser.add_argument("--port", type=int, default=None,
                        help=f"port (default $GRADIO_SERVER_PORT, else $PORT, else {DEFAULT_PORT})")
    parser.add_argument("--warm-up", action="store_true",
                        help="build the graph and every index, answer one case per mode, then exit "
                             "(for image builds)")
    return parser.parse_args(argv)


def limit_malloc_arenas(environ=os.environ) -> bool:
    """glibc gives each thread that allocates its own heap arena: under load the app's RSS grew
    15 % over 1,000 requests with the default and 7 % with two arenas (`python -m bench load`).
    Same as MALLOC_ARENA_MAX=2, which wins when set; a no-op off glibc."""
    if environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(M_ARENA_MAX, MALLOC_ARENAS))


def claim_port(host: str, port: int) -> socket.socket:
    """The server's socket, bound before anything loads: a port another program listens on is named
    at once (one line, exit 2) instead of after a minute of loading. Bound, not yet listening, so a
    browser pointed at it is refused until the app serves (uvicorn listens on this very socket)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: TIME_WAIT is no owner
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise SettingsError(f"port {port} on {host} is in use: another program listens there. Stop it, or "
                                "choose another port with --port") from None
        if e.errno == errno.EACCES:
            raise SettingsError(f"port {port} needs privileges here: choose one above 1023 with --port") from None
        raise SettingsError(f"cannot listen on {host}:{port} ({e.strerror or e}): check --host") from None
    return sock


def exit_on_sigterm(signum: int, _frame) -> None:
    """`docker stop` sends SIGTERM. Python's default dies on the spot, and uvicorn re-raises the
    signal after its graceful shutdown: exiting instead runs the cleanup (the embedded graph server
    this process started is stopped, not left running)."""
    raise SystemExit(128 + signum)


@reports_errors()
def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["users"]:
        from accounts.cli import main as users_main
        from fpkg.config import Settings, access_settings

        return users_main(argv[1:], access_settings(Settings.from_env()))
    args = parse_args(argv)
    host, port = args.host or default_host(), args.port or default_port()  # flags win
    sock = None if args.warm_up else claim_port(host, port)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    try:
        return load_and_serve(args, host, port, sock)
    except KeyboardInterrupt:  # Ctrl-C, while loading or serving: a stop, not a failure
        print("stopped", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        if sock is not None:
            sock.close()


def load_and_serve(args: argparse.Namespace, host: str, port: int, sock: socket.socket | None) -> int:
    limit_malloc_arenas()  # before the server's threads exist
    # Gradio reads this when it is imported: set it first (an explicit setting wins).
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from fpkg.config import Settings
    from service.pipeline import Pipeline

    started = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f} s] {message}", flush=True)

    pipeline = Pipeline.start(Settings.from_env(), progress=progress, warm=args.warm_up)
    try:
        if args.warm_up:
            return warm_up(pipeline, progress)
        serve(pipeline, sock, f"http://{host}:{port}", progress)
    finally:
        pipeline.close()
    return 0


def warm_up(pipeline, progress) -> int:
    """Build what a first request would otherwise build: the vector index, the embedder, caches; and
    load the configured LLM, which writes a first reply."""
    from diagnosis.ranker import DiagnosisCase

    progress("building or loading the vector index (about a minute the first time, then cached)")
    pipeline.retriever("vector")
    case = DiagnosisCase(phenotypes=("Wide nasal bridge", "Chorioretinal coloboma"), gene="CHD7")
    for mode in ("cypher", "vector"):
        result = pipeline.diagnose(case, mode=mode, backend="grounded")
        progress(f"warm-up {mode}: {result.predicted.name if result.predicted else 'no answer'}")
    if pipeline.settings.llm_backend != "grounded":  # the LLM loads and writes: an image's build fails if not
        from llm.base import GenerationRequest

        generator = pipeline.generator(None)
        reply = generator.generate(GenerationRequest([{"role": "user", "content": "Name one rare disease."}],
                                                     max_new_tokens=8))
        progress(f"warm-up LLM {generator.name} {pipeline.settings.llm_model}: {reply.strip()[:60]!r}")
    from kg_dump.data_files import PUBLICATION_SET, data_file

    # the form's examples
    data_file(pipeline.settings.data_dir, PUBLICATION_SET, mirror=pipeline.settings.sources_mirror)
    progress("warm-up done")
    return 0


def serve(pipeline, sock: socket.socket, url: str, progress) -> None:
    import uvicorn

    from app.access import Access
    from app.server import build_app
    from app.ui import build_demo
    from fpkg.config import access_settings

    access = Access(access_settings(pipeline.settings))
    if not access.anonymous and not (access.password_sign_in or access.hf_oauth):
        raise SettingsError(f"FPKG_ANONYMOUS=off, but nobody can sign in: {access.users.path} holds no user with a "
                            "password. Add one with `python -m app users add NAME --role admin`.")
    progress("building the interface")
    app = build_app(pipeline, access, build_demo(pipeline, access))
    # The vector index loads in the background (seconds from the cache): the page answers at once
    # and a first vector-mode request waits for it.
    pipeline.warm_in_background("vector", progress)
    pipeline.warm_reader()  # the negation reader, beside the first requests (not beside the interface's build)
    progress(f"serving on {url} (the vector index is loading in the background)")
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
