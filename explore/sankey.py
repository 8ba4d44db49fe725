"""Flows as an interactive Plotly Sankey, a table of the same links, and a standalone HTML file.

Plotly's own toolbar exports the picture as PNG in the browser; the HTML file carries plotly.js
inside it, so it opens offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from explore.flows import Flows
from fpkg.display import plain

if TYPE_CHECKING:  # plotly loads with the first picture, not at the app's start
    import plotly.graph_objects as go

NODE_COLOURS = {"gene": "#4e79a7", "variant": "#76b7b2", "phenotype": "#f2cf5b", "disease": "#e15759"}
LINK_COLOURS = {"FPKG": "rgba(78, 121, 167, 0.45)", "phenopacket-store": "rgba(89, 161, 79, 0.45)",
                "HPO": "rgba(150, 150, 150, 0.35)"}
UNITS = {"FPKG": "patients", "phenopacket-store": "patients", "HPO": "annotation"}
TABLE_HEADERS = ["from", "from type", "to", "to type", "count", "source"]


def sankey_figure(flows: Flows) -> go.Figure:
    import plotly.graph_objects as go

    nodes = flows.nodes()
    index = {node: i for i, node in enumerate(nodes)}
    links = flows.links()
    figure = go.Figure(go.Sankey(
        arrangement="snap",
        node={"label": [node_label(node.name) for node in nodes], "color": [NODE_COLOURS[node.kind] for node in nodes],
              "customdata": [node.kind for node in nodes], "pad": 12, "thickness": 16,
              "hovertemplate": "%{label} (%{customdata})<br>%{value} in and out<extra></extra>"},
        link={"source": [index[source] for source, _, _, _ in links],
              "target": [index[target] for _, target, _, _ in links],
              "value": [n for _, _, _, n in links],
              "color": [LINK_COLOURS[origin] for _, _, origin, _ in links],
              "customdata": [f"{n} {UNITS[origin]} ({origin})" for _, _, origin, n in links],
              "hovertemplate": "%{source.label} → %{target.label}<br>%{customdata}<extra></extra>"},
    ))
    figure.update_layout(title={"text": f"{flows.root.name}: {' → '.join(flows.columns)}"},
                         height=max(420, 22 * _tallest_column(flows)), margin={"l": 10, "r": 10, "t": 40, "b": 10},
                         font={"size": 11})
    return figure


def table_rows(flows: Flows) -> list[list]:
    return [[source.name, source.kind, target.name, target.kind, n, origin]
            for source, target, origin, n in flows.links()]


def write_html(figure: go.Figure, path: Path) -> Path:
    """A page of the figure, plotly.js loaded from its CDN (pinned to this plotly's version): inside, the
    page would weigh 4.6 MB for a few kB of flows."""
    figure.write_html(path, include_plotlyjs="cdn", full_html=True)
    return path


def node_label(name: str) -> str:
    """A node's name as a label: full-width forms in ASCII, the quotes some sources wrap names in left out."""
    return plain(name).strip().strip("\"'“”‘’").strip()


def _tallest_column(flows: Flows) -> int:
    nodes = flows.nodes()
    return max((sum(node.kind == kind for node in nodes) for kind in flows.columns), default=1)
