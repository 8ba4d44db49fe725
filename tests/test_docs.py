"""The documentation holds together: a short README that links every page of docs/, relative links
that lead to files that exist, and the two set-up commands exactly as a newcomer copies them."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "RESULTS.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_MAX_LINES = 260
SET_UP_COMMANDS = (
    "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/python -m app",
    "python3 -m venv .venv && .venv/bin/pip install -r requirements-dev.txt && .venv/bin/python -m pytest",
)
# `python -m bench report` writes this block from results/, which is not committed: its plot links
# lead to files only a machine that ran the benchmarks has
GENERATED = re.compile(r"<!-- results:start -->.*?<!-- results:end -->", re.S)
FENCED = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+[\"'(][^)]*)?\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


def links(text: str) -> list[str]:
    """The targets of a page's markdown links (inline, images, reference definitions), leaving out
    code blocks, code spans and the generated results block."""
    text = CODE_SPAN.sub("", FENCED.sub("", GENERATED.sub("", text)))
    return [m.group(1).strip("<>") for pattern in (INLINE_LINK, REFERENCE) for m in pattern.finditer(text)]


def local_target(page: Path, target: str) -> Path | None:
    """The file a relative link points to (its anchor dropped); None for a URL or an anchor alone."""
    if EXTERNAL.match(target) or target.startswith("#"):
        return None
    path = unquote(target.split("#", 1)[0].split("?", 1)[0])
    return (ROOT / path.lstrip("/")) if path.startswith("/") else (page.parent / path)


def test_the_readme_is_short():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; at most {README_MAX_LINES}: move detail to docs/"


def test_the_readme_links_every_page_of_docs():
    assert DOCS, "docs/ holds no page"
    linked = {local_target(README, t).resolve() for t in links(README.read_text(encoding="utf-8"))
              if local_target(README, t) is not None}
    unlinked = [page.relative_to(ROOT).as_posix() for page in DOCS if page.resolve() not in linked]
    assert not unlinked, f"README.md does not link {unlinked}"


@pytest.mark.parametrize("page", [README, RESULTS, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_lead_to_files_that_exist(page):
    broken = [t for t in links(page.read_text(encoding="utf-8"))
              if (target := local_target(page, t)) is not None and not target.exists()]
    assert not broken, f"{page.relative_to(ROOT)} links to missing files: {broken}"


def test_the_readme_has_the_set_up_commands_verbatim():
    text = README.read_text(encoding="utf-8")
    for command in SET_UP_COMMANDS:
        assert f"```bash\n{command}\n```" in text, command


def set_up_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## Set up", 1)[1].split("\n## ", 1)[0]


def test_the_set_up_section_opens_with_the_two_commands():
    """The two commands come first; what the first start fetches, offline and the first curator after."""
    blocks = re.findall(r"```bash\n(.*?)\n```", set_up_section(), re.S)
    assert blocks[:2] == list(SET_UP_COMMANDS)


def test_the_set_up_section_names_every_source_its_folder_variable_and_the_ner_model():
    from kg_dump.sources import SOURCES
    from ner.model_choice import PUBLISHED_MODEL

    section = set_up_section()
    for source in SOURCES.values():
        assert f"`{source.variable}`" in section, source.variable
        repo = "/".join(source.downloads[0].url.split("/")[3:5])  # where it comes from: owner/name on GitHub
        assert f"`{repo}`" in section, (source.name, repo)
    assert f"`{PUBLISHED_MODEL}`" in section and "Hugging Face Hub" in section
    assert "FPKG_SOURCES_MIRROR" in section
    assert "python -m app users add" in section and "--role curator" in section  # the first curator
    assert "python -m app users add" in (ROOT / "docs" / "users.md").read_text(encoding="utf-8")


def test_the_link_reader_finds_what_it_should():
    """The checks above are only as good as the link reader."""
    text = ("[a](docs/a.md) ![p](img.png \"t\") [b](<docs/b c.md#x>) [u](https://x.org) [h](#top)\n"
            "`[c](code.md)`\n```\n[d](fenced.md)\n```\n[r]: docs/r.md\n"
            "<!-- results:start -->\n![plot](results/plots/x.png)\n<!-- results:end -->\n")
    assert links(text) == ["docs/a.md", "img.png", "docs/b c.md#x", "https://x.org", "#top", "docs/r.md"]
    assert local_target(ROOT / "docs" / "x.md", "../RESULTS.md#speed") == ROOT / "docs" / ".." / "RESULTS.md"
    assert local_target(README, "https://x.org") is None and local_target(README, "#top") is None
