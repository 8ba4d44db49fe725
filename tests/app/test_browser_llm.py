"""The app with a real 4-bit LLM in headless Chromium: `LLM_BACKEND=local` with the SmolLM2 GGUF
file (llama.cpp on the CPU). The answer streams in piece by piece while the triples it rests on
are already shown beside it."""

from __future__ import annotations

import pytest

from tests.llm.smollm2 import require_smollm2
from tests.support.app_process import ARTIFACTS, launch_app, private_cache
from tests.support.browser_support import evidence_picture_width, field

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Every change of the answer box, with the number of triple rows shown at that moment.
RECORD_ANSWERS = """() => {
    window.answers = [];
    const answer = document.querySelector('#ask-answer');
    new MutationObserver(() => {
        const text = answer.innerText.trim();
        const rows = document.querySelectorAll("#ask-triples [role=gridcell][data-col='0']").length;
        if (!window.answers.length || window.answers.at(-1).text !== text) window.answers.push({text, rows});
    }).observe(answer, {subtree: true, childList: true, characterData: true});
}"""


@pytest.fixture(scope="module")
def llm_app(pipeline, tmp_path_factory):
    model = require_smollm2()
    settings = private_cache(pipeline, tmp_path_factory.mktemp("llm-app") / "cache")
    ARTIFACTS.mkdir(exist_ok=True)
    app = launch_app(settings, ARTIFACTS / "app-llm-server.log", env={"LLM_BACKEND": "local", "LLM_MODEL": str(model)})
    yield app
    app.process.terminate()
    app.process.wait(timeout=30)


def test_a_real_llm_answer_streams_beside_its_triples(browser, llm_app):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(llm_app.url)
        page.get_by_role("tab", name="Ask").click()
        page.locator("text=Advanced >> visible=true").first.click()  # the Ask tab's settings
        assert field(page, "ask-backend").input_value() == "local"  # the LLM is the default backend
        page.evaluate(RECORD_ANSWERS)
        field(page, "ask-question").fill("What facial phenotypes are associated with Crouzon syndrome?")
        page.locator("#ask-submit").click()
        assert evidence_picture_width(page, "ask") > 300  # drawn once the answer is complete
        answers = [a for a in page.evaluate("window.answers") if a["text"] and "appears here" not in a["text"]]
        page.screenshot(path=str(ARTIFACTS / "app-ask-llm.png"), full_page=True)
    finally:
        context.close()
    assert len(answers) >= 3, answers  # the reply arrived in pieces, not at once
    assert all(a["rows"] > 0 for a in answers), answers  # the triples were there while it streamed
    assert len(answers[-1]["text"]) > len(answers[0]["text"])
