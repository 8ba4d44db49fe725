"""The one place a command-line entry point turns an error into a message and an exit code."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from fpkg.errors import EXIT_USER_ERROR, FpkgError


def reports_errors(prefix: str = "error") -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Wrap a `main()`: a project error or a file the system cannot open becomes one line on stderr
    (`<prefix>: message`) and its exit code (2: the user must fix something, 1: a run failed)."""

    def wrap(main: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(main)
        def run(*args, **kwargs) -> int:
            try:
                return main(*args, **kwargs)
            except FpkgError as e:
                print(f"{prefix}: {e}", file=sys.stderr)
                return e.exit_code
            except OSError as e:  # a missing file or folder, an unreachable Hub id or server
                print(f"{prefix}: {e}", file=sys.stderr)
                return EXIT_USER_ERROR

        return run

    return wrap
