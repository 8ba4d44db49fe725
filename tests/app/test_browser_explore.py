"""The Explore tab in headless Chromium: a gene's Sankey drawn, a node hovered and clicked, the PNG
exported by Plotly's toolbar, the HTML export offered, and bad input told plainly."""

from __future__ import annotations

import pytest

from tests.support.app_process import ARTIFACTS
from tests.support.browser_support import error_badges, field, field_message

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def explore(page, name: str) -> None:
    page.locator("#tab-explore-button, button[role='tab']:has-text('Explore')").first.click()
    field(page, "explore-name").fill(name)
    page.locator("#explore-submit").click()


def test_a_genes_sankey_is_drawn_clicked_and_exported(page, tmp_path):
    explore(page, "KDM6A")
    page.locator("#explore-plot .sankey-node").first.wait_for()
    message = page.locator("#explore-message").inner_text()
    assert message.startswith("KDM6A (gene)")
    nodes = page.locator("#explore-plot .sankey-node")
    assert nodes.count() == int(message.split(": ")[1].split(" nodes")[0])
    assert page.locator("#explore-plot .sankey-link").count() > nodes.count() - 1
    assert "KDM6A" in page.locator("#explore-table").inner_text()

    variant = page.locator("#explore-plot .sankey-node", has_text="c.3715T>G").first
    variant.hover()
    page.wait_for_function("(document.querySelector('#explore-plot .hoverlayer') || {}).textContent")
    hover = page.locator("#explore-plot .hoverlayer").text_content()
    assert "c.3715T>G" in hover and "(variant)" in hover
    variant.click()  # a node click must not break the figure (Plotly selects; nothing is sent back)
    assert page.locator("#explore-plot .sankey-node").count() == nodes.count()

    page.locator("#explore-plot").hover()
    with page.expect_download() as download_info:
        page.locator("#explore-plot .modebar-btn[data-title='Download plot as a PNG']").click()
    saved = tmp_path / "sankey.png"
    download_info.value.save_as(saved)
    assert saved.read_bytes()[:8] == PNG_MAGIC and saved.stat().st_size > 10_000
    assert page.locator("#explore-html a[href$='.html'], #explore-html a:has-text('.html')").count() >= 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app-explore.png"), full_page=True)


def test_an_unknown_name_is_told_plainly_at_the_name(page):
    explore(page, "KDM6A")
    page.locator("#explore-plot .sankey-node").first.wait_for()
    explore(page, "Qwertyuiop syndrome")
    assert "No gene or disease named 'Qwertyuiop syndrome'" in field_message(page, "explore-name", "No gene or disease")
    assert error_badges(page) == []
    assert page.locator("#explore-plot .sankey-node").count() > 0  # the last figure is kept, not marked as failed
    assert page.locator("#explore-message").inner_text().startswith("KDM6A (gene)")
