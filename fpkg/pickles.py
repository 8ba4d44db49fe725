"""Objects kept in the program's own cache folder between starts, written atomically."""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

_UNREADABLE = (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError)


def read_pickle(path: Path) -> Any | None:
    """What `write_pickle` left at `path`; None when there is nothing, or it is damaged or was
    written by other versions of the classes it holds (the caller makes it again)."""
    try:
        with path.open("rb") as file:
            return pickle.load(file)  # only files this program wrote into its own cache
    except _UNREADABLE:
        return None


def write_pickle(path: Path, value: Any) -> None:
    """`value` at `path`, written to a sibling file then renamed: a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False) as file:
        pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(file.name, path)
