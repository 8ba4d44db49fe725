"""The About tab names every source with the release in use (never its server folder), its state, its licence
and the variable that points at its folder."""

from __future__ import annotations

from app.about import about_markdown, source_state
from kg_dump.sources import SOURCES, release_text


def test_the_about_tab_names_each_source_with_its_release_and_licence(pipeline):
    text = about_markdown(pipeline)
    sources = text.split("## Data sources and licences", 1)[1]
    for key, source in SOURCES.items():
        row = next((line for line in sources.splitlines() if f"[{source.name}]" in line), "")
        release = release_text(pipeline.settings, key, with_folder=False)
        assert f"| {release} | {source_state(pipeline.settings, key)} |" in row, (key, row)
        assert f"| {source.licence} |" in row, (key, row)
        assert f"`{source.variable}`" in row, key
    assert "hfchloe/FP_NER" in sources and "Human Phenotype Ontology" in sources
