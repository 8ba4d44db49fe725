"""python -m bench signin-flood: N password sign-ins at once against the app, and its memory meanwhile.

    python -m bench signin-flood                  # 40 at once, against an app of its own on loopback
    python -m bench signin-flood --signins 50 --json

The app it starts keeps a users file of its own (one user; anonymous use stays on). Once the app serves,
its vector index has loaded, and a description has been diagnosed and a question asked (what the first
requests load is no part of the flood), N sign-ins with wrong passwords, each for a name of its own, are
sent at once from one address. Reported: how each was answered (401: checked, and wrong; 429: refused at
once, with its Retry-After), how long the flood took, and the resident memory of the app with its graph
server before, at its peak (read every 50 ms) and after. The target: the peak within 300 MB of before
(the password checks at once are bounded: app/signin_limits.py).
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

from bench.load import WORKLOAD
from bench.load_app import REPO_ROOT, START_TIMEOUT_S, memory_mb, start_app, stop_app, wait_for_vector_index
from bench.load_client import call, make_client
from fpkg.errors import BenchError

SIGNINS = 40
TARGET_GROWTH_MB = 300
SAMPLE_S = 0.05
DESCRIPTION = ("A 4-year-old boy with a de novo PTPN11 variant, hypertelorism, ptosis, low-set ears and pulmonary "
               "valve stenosis; no intellectual disability")


def warm_up(url: str, timeout_s: float) -> None:
    """The vector index loaded, a description read (the negation reader loads) and a question answered."""
    wait_for_vector_index(url, timeout_s)
    client = make_client("http", url, None)
    try:
        diagnose = WORKLOAD[0][1]
        call(client, "/diagnose", (*diagnose[:-2], DESCRIPTION, ""), timeout_s)
        call(client, *WORKLOAD[1], timeout_s)
    finally:
        client.close()


def flood(url: str, signins: int, process: psutil.Process | None) -> dict:
    import httpx

    before = memory_mb(process)
    peak, done = dict(before or {}), threading.Event()

    def sample() -> None:
        while not done.is_set():
            now = memory_mb(process)
            if now:
                for key, value in now.items():
                    peak[key] = max(peak.get(key, 0.0), value)
            time.sleep(SAMPLE_S)

    def guess(n: int) -> httpx.Response:
        return httpx.post(f"{url}/signin", data={"username": f"flood-{n}", "password": secrets.token_urlsafe(9)},
                          timeout=120)

    sampler = threading.Thread(target=sample, name="memory-sampler")
    sampler.start()
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(signins) as pool:
            responses = list(pool.map(guess, range(signins)))
    finally:
        seconds = round(time.monotonic() - started, 2)
        done.set()
        sampler.join()
    after = memory_mb(process)
    statuses = Counter(response.status_code for response in responses)
    waits = sorted({int(r.headers["retry-after"]) for r in responses if r.status_code == 429})
    growth = round(peak["app_and_children"] - before["app_and_children"], 1) if before else None
    return {"signins": signins, "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "retry_after_s": waits, "seconds": seconds,
            "memory_mb": {"before": before, "peak": peak or None, "after": after},
            "growth_mb": growth, "target_growth_mb": TARGET_GROWTH_MB}


def summary(result: dict) -> str:
    memory = result["memory_mb"]
    lines = [f"bench signin-flood: {result['signins']} sign-ins at once, answered {result['statuses']} "
             f"in {result['seconds']} s (Retry-After {result['retry_after_s']} s)"]
    if memory["before"]:
        lines.append(f"  the app with its graph server: {memory['before']['app_and_children']} MB before, "
                     f"{memory['peak']['app_and_children']} MB at the peak, {memory['after']['app_and_children']} "
                     f"MB after: {result['growth_mb']:+.1f} MB (target <= +{TARGET_GROWTH_MB} MB)")
    return "\n".join(lines)


def handle(args: argparse.Namespace, context) -> tuple[str, dict, str]:
    from accounts.users_file import UsersFile

    if args.signins < 1:
        raise BenchError("--signins must be at least 1")
    with tempfile.TemporaryDirectory(prefix="bench-signin-state-") as state:
        UsersFile(Path(state) / "users.json").add("flood-owner", "viewer", secrets.token_urlsafe(12))
        log_path = REPO_ROOT / "artifacts" / "bench-signin-flood-app.log"
        print(f"starting python -m app on loopback (log: {log_path})", file=sys.stderr)
        url, process = start_app(log_path, args.start_timeout_s, {"FPKG_STATE_DIR": state})
        try:
            warm_up(url, args.start_timeout_s)
            result = flood(url, args.signins, psutil.Process(process.pid))
        finally:
            stop_app(process)
    return f"{args.signins}", result, summary(result)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("signin-flood", parents=[common], help="N sign-ins at once: answers and memory",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--signins", type=int, default=SIGNINS, help=f"sign-ins sent at once (default {SIGNINS})")
    parser.add_argument("--start-timeout-s", type=float, default=START_TIMEOUT_S,
                        help="longest wait for the app to answer, and for its vector index")
    parser.set_defaults(handler=handle)
