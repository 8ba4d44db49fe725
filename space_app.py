"""Entry point of the Gradio-SDK Space (`app_file` in its README): `python space_app.py`.

On ZeroGPU hardware `spaces` must be imported before anything initialises CUDA, so it comes
first; elsewhere the package is absent and this is `python -m app`. The Docker Space runs
`python -m app` directly.
"""

import importlib.util
import sys

if importlib.util.find_spec("spaces") is not None:
    import spaces  # noqa: F401 - imported for its side effect: ZeroGPU's CUDA hook

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
