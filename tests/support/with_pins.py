"""`python tests/support/with_pins.py PINS.json MODULE [ARGS...]`: `python -m MODULE ARGS` with the
sha256 pins of some sources' files replaced by PINS.json ({upstream URL: sha256}), and the HPO release
named by its "hpo_release" entry when it has one (a release whose files the mirror holds).

For a mirror serving files made here in the upstream layout: MONDO's upstream files are not on this
machine (tests/support/source_mirror.py makes them from the derived tables), so their pins cannot
hold. Everything else runs as it would: the real fetch, check and derivation, in a real process.
Run it with the checkout on PYTHONPATH.
"""

import json
import runpy
import sys
from pathlib import Path

from kg_dump import sources
from tests.support.source_mirror import with_pins

pins = json.loads(Path(sys.argv[1]).read_text())
if "hpo_release" in pins:
    sources.SOURCES[sources.HPO] = sources.hpo_source(pins.pop("hpo_release"))
sources.SOURCES.update(with_pins(pins))
sys.argv = [sys.argv[2], *sys.argv[3:]]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
