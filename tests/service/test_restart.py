"""A restart reads what was built: in a process of its own, on the session's built cache, with the Hub
unreachable. It says one line per source and stage in words, never "building the graph", the missing NER
model in plain words, shows no progress bar, and imports none of the libraries that take seconds (torch
and transformers for a model that is not there, spaCy, lemminflect for the reader's gene words)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.app_process import REPO_ROOT, app_environment, free_port

HEAVY = ("torch", "transformers", "sentence_transformers", "spacy", "negspacy", "lemminflect")
RESTART = f"""
import json, sys
from fpkg.config import Settings
from service.pipeline import Pipeline
lines = []
pipeline = Pipeline.start(Settings.from_env(), progress=lines.append, warm=False)
heavy = [name for name in {HEAVY!r} if name in sys.modules]
pipeline.close()
print(json.dumps({{"lines": lines, "heavy": heavy}}))
"""


def test_a_restart_offline_says_each_stage_in_words_and_loads_nothing_heavy(pipeline, tmp_path):
    env = app_environment(pipeline.settings) | {
        "NER_MODEL": "hfchloe/FP_NER", "HF_HUB_CACHE": str(tmp_path / "empty-hub"),
        "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}  # a Hub that refuses: nothing listens there
    env.pop("HF_HUB_OFFLINE")
    done = subprocess.run([sys.executable, "-c", RESTART], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    lines = said["lines"]
    assert said["heavy"] == [], said["heavy"]
    assert len([line for line in lines if line.startswith("source: ")]) == 5, lines
    assert "the graph was built before: used as it is" in lines
    assert not any("building the graph" in line for line in lines), lines
    assert ("NER in use: the HPO dictionary and rules only. The model hfchloe/FP_NER could not be loaded: it is not "
            "in this machine's Hugging Face cache, and the Hugging Face Hub cannot be reached (127.0.0.1 refused the "
            "connection).") in lines
    assert lines[-1].startswith("ready in ")
    shown = done.stdout + done.stderr
    assert not any(word in shown for word in ("Errno", "ConnectError", "Traceback", "Loading weights", "%|")), shown
