"""Entry point of the Gradio-SDK Space (`app_file` in its README): `python space_app.py`.

By the ZeroGPU conventions: `spaces` is imported before anything initialises CUDA; with
`LLM_BACKEND=local` the model is loaded here, at import (ZeroGPU moves it to a GPU for each
`@spaces.GPU` call, whose arguments are only the model's id, messages and settings); and the file
ends in `demo.launch()`. Elsewhere `spaces` is absent and this serves like `python -m app`. The
Docker Space runs `python -m app` directly.
"""

import importlib.util
import os

if importlib.util.find_spec("spaces") is not None:
    import spaces  # noqa: F401 - imported for its side effect: ZeroGPU's CUDA hook

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from app.__main__ import default_host  # noqa: E402 - after spaces, as ZeroGPU requires
from app.access import Access  # noqa: E402
from app.page_style import PAGE_STYLE  # noqa: E402
from app.ui import build_demo  # noqa: E402
from fpkg.config import Settings, access_settings  # noqa: E402
from llm.factory import make_generator  # noqa: E402
from service.pipeline import Pipeline  # noqa: E402

settings = Settings.from_env()
pipeline = Pipeline.start(settings)
if settings.llm_backend == "local":
    make_generator(settings)  # the weights load now, not inside a request
access = Access(access_settings(settings))  # on a Space with `hf_oauth: true`: Sign in with Hugging Face
demo = build_demo(pipeline, access)

if __name__ == "__main__":
    demo.launch(server_name=default_host(), server_port=int(os.environ.get("PORT", "7860")), ssr_mode=False,
                auth_dependency=None if access.anonymous else access.gradio_user,
                max_file_size=access.settings.max_upload_bytes, **PAGE_STYLE)
