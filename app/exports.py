"""Files the app writes for a user to download (an HTML Sankey, a history, an overlay): each kind in a
folder of its own under the temporary folder, where files older than its age limit are swept
whenever a new one is written."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path


def export_folder(name: str, max_age_s: float) -> Path:
    """The folder for `name`'s exports, swept of files older than `max_age_s`."""
    folder = Path(tempfile.gettempdir()) / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if time.time() - old.stat().st_mtime > max_age_s:
            old.unlink(missing_ok=True)
    return folder
