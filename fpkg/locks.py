"""A lock shared by the processes that share a state folder (several app processes behind one
balancer): an exclusive `flock` on a file, released when the block ends or the process dies.

It orders what must happen one process at a time: preparing a shared graph at start-up, and each
curated merge or undo (the next batch number, the graph and the overlay written together).
`flock` locks an open file, so two threads of one process exclude each other too.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock
