"""The evidence subgraph as a PNG: genes and variants, diseases, facial phenotypes, published cases.

Columns left to right (gene/variant, disease, phenotype, case/article) keep the picture readable
where a force layout would tangle ~50 nodes. The patient's own phenotypes (the ones the linker
matched) and the answer's disease are drawn highlighted. Matplotlib's object API (no pyplot) is
used because Gradio calls handlers from several threads and pyplot's global state is not
thread-safe.
"""

from __future__ import annotations

import io
import math
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fpkg.display import plain
from retrieval.result import Link, Triple

if TYPE_CHECKING:  # networkx and matplotlib load with the first picture, not at the app's start
    import networkx as nx
    from matplotlib.lines import Line2D

COLUMNS = {"Genotype": 0, "Variation": 0, "Disease": 1, "FacePhenotype": 2, "Sample": 3, "Article": 3}
COLOURS = {"Genotype": "#4e79a7", "Variation": "#76b7b2", "Disease": "#e15759", "FacePhenotype": "#f2cf5b",
           "Sample": "#b07aa1", "Article": "#9c9c9c"}
MATCHED_COLOUR = "#59a14f"
LEGEND = [("gene", "Genotype"), ("variant", "Variation"), ("disease", "Disease"),
          ("phenotype", "FacePhenotype"), ("case", "Sample")]
MAX_DISEASES = 6
MAX_PER_COLUMN = 18
LABEL_WIDTH = 24


@dataclass
class EvidenceGraph:
    """What the picture shows; kept separate from drawing so it can be tested on its own."""

    graph: nx.DiGraph
    matched: set[int] = field(default_factory=set)
    answer: int | None = None
    left_out: int = 0  # nodes over the per-column limit, said in the title
    unmatched: set[int] = field(default_factory=set)  # the patient's findings no drawn disease shows


def evidence_graph(triples: list[Triple], links: list[Link] = (), diseases: list[int] = (),
                   answer: int | None = None) -> EvidenceGraph:
    """The subgraph to draw: triples touching the top diseases (all triples when none are ranked),
    at most MAX_PER_COLUMN nodes per column, the matched phenotypes and the answer kept first."""
    matched = {lk.node_id for lk in links if lk.node_id is not None and lk.label == "FacePhenotype"}
    focus = list(dict.fromkeys(([answer] if answer is not None else []) + list(diseases)))[:MAX_DISEASES]
    kept = [t for t in triples if not focus or not _has_disease(t) or t.head_id in focus or t.tail_id in focus]
    nodes: dict[int, tuple[str, str]] = {}
    for t in kept:
        nodes.setdefault(t.head_id, (t.head_label, t.head))
        nodes.setdefault(t.tail_id, (t.tail_label, t.tail))
    allowed, left_out = _limit_columns(nodes, priority=set(focus) | matched)
    import networkx as nx

    graph = nx.DiGraph()
    for node_id in allowed:
        label, name = nodes[node_id]
        graph.add_node(node_id, label=label, name=name, column=COLUMNS.get(label, 3))
    for t in kept:
        if t.head_id in allowed and t.tail_id in allowed:
            graph.add_edge(t.head_id, t.tail_id, relation=t.relation)
    unmatched = _given_findings(graph, links)
    return EvidenceGraph(graph, (matched & set(graph)) - unmatched, answer if answer in graph else None, left_out,
                         unmatched)


GIVEN = ("FACIAL_PHENOTYPE", "FINDING")  # findings the patient has (absent ones are not drawn)


def _given_findings(graph: nx.DiGraph, links: list[Link]) -> set[int]:
    """Every finding given that the drawn evidence lacks, added on its own in the phenotype column: the
    picture shows all the patient's findings, those no drawn disease shows marked as such."""
    added = set()
    for place, link in enumerate(links):
        if link.type not in GIVEN or not link.name or not (link.node_id is not None or link.ids):
            continue
        node = link.node_id if link.node_id is not None else -1 - place  # a finding only HPO names
        if node not in graph:
            graph.add_node(node, label="FacePhenotype", name=link.name, column=COLUMNS["FacePhenotype"])
            added.add(node)
    return added


def _has_disease(triple: Triple) -> bool:
    return "Disease" in (triple.head_label, triple.tail_label)


def _limit_columns(nodes: dict[int, tuple[str, str]], priority: set[int]) -> tuple[set[int], int]:
    columns: dict[int, list[int]] = {}
    for node_id, (label, _) in nodes.items():
        columns.setdefault(COLUMNS.get(label, 3), []).append(node_id)
    allowed: set[int] = set()
    for members in columns.values():
        members.sort(key=lambda n: n not in priority)  # stable: priority first, then retrieval order
        allowed.update(members[:MAX_PER_COLUMN])
    return allowed, len(nodes) - len(allowed)


def render_png(evidence: EvidenceGraph, title: str = "") -> bytes | None:
    """The picture as PNG bytes, or None when there is nothing to draw."""
    import networkx as nx
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    graph = evidence.graph
    if graph.number_of_nodes() == 0:
        return None
    tallest = max(sum(1 for _, c in graph.nodes(data="column") if c == col) for col in set(COLUMNS.values()))
    height = max(4.0, 0.42 * tallest + 1.5)
    figure = Figure(figsize=(11, height), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_axis_off()
    positions = _positions(graph)
    nx.draw_networkx_edges(graph, positions, ax=axes, edge_color="#bbbbbb", width=0.8, arrows=True,
                           arrowsize=8, node_size=260)
    nodes = list(graph)
    colours = ["white" if n in evidence.unmatched else MATCHED_COLOUR if n in evidence.matched
               else COLOURS.get(graph.nodes[n]["label"], "#cccccc") for n in nodes]
    edges = [MATCHED_COLOUR if n in evidence.unmatched else "black" if n in evidence.matched or n == evidence.answer
             else "white" for n in nodes]
    sizes = [520 if n == evidence.answer else 260 for n in nodes]
    nx.draw_networkx_nodes(graph, positions, ax=axes, nodelist=nodes, node_color=colours, edgecolors=edges,
                           linewidths=[0.8 if e == "white" else 2.2 for e in edges], node_size=sizes)
    columns = sorted({x for x, _ in positions.values()})
    for node_id, size in zip(nodes, sizes, strict=True):
        x, y = positions[node_id]
        _label(axes, graph.nodes[node_id]["name"], x, y, columns,
               bold=node_id == evidence.answer or node_id in evidence.matched, node_size=size)
    axes.legend(handles=_legend(bool(evidence.unmatched)), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=7,
                fontsize=8, frameon=False)
    more = f" (+{evidence.left_out} more not drawn)" if evidence.left_out else ""
    axes.set_title(f"{title}{more}", fontsize=10)
    axes.set_xlim(-0.3, 1.3)
    axes.set_ylim(-0.04, 1.0)  # positions lie in (0, 1); fixed so a lone row's labels stay in view
    # Fixed margins in inches (the legend below, the title above): tight_layout warns on small graphs.
    figure.subplots_adjust(left=0.01, right=0.99, top=1 - 0.45 / height, bottom=0.6 / height)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _positions(graph: nx.DiGraph) -> dict[int, tuple[float, float]]:
    """Used columns spread over x in [0, 1]; within a column, nodes by name over the full height."""
    used = sorted({c for _, c in graph.nodes(data="column")})
    positions = {}
    for place, column in enumerate(used):
        x = place / (len(used) - 1) if len(used) > 1 else 0.5
        members = sorted((n for n, c in graph.nodes(data="column") if c == column),
                         key=lambda n: graph.nodes[n]["name"].lower())
        for row, node_id in enumerate(members):
            positions[node_id] = (x, 1.0 - (row + 0.5) / len(members))
    return positions


def _label(axes, name: str, x: float, y: float, columns: list[float], bold: bool, node_size: float) -> None:
    """Outer columns get their labels outside (left, right), inner ones below the node; offsets in
    points so they clear the node whatever the figure's height."""
    text = textwrap.shorten(plain(name), LABEL_WIDTH, placeholder="…")
    gap = math.sqrt(node_size) / 2 + 3  # the marker's radius in points, plus a little
    style = {"fontsize": 7.5, "fontweight": "bold" if bold else "normal", "textcoords": "offset points"}
    if len(columns) > 1 and x == columns[0]:
        axes.annotate(text, (x, y), xytext=(-gap, 0), ha="right", va="center", **style)
    elif len(columns) > 1 and x == columns[-1]:
        axes.annotate(text, (x, y), xytext=(gap, 0), ha="left", va="center", **style)
    else:
        axes.annotate(text, (x, y), xytext=(0, -gap), ha="center", va="top", **style,
                      bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.7})


def _legend(with_unmatched: bool = False) -> list[Line2D]:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", markersize=8, markerfacecolor=COLOURS[label],
                      markeredgecolor="white", label=name) for name, label in LEGEND]
    handles.append(Line2D([], [], marker="o", linestyle="", markersize=8, markerfacecolor=MATCHED_COLOUR,
                          markeredgecolor="black", label="patient's phenotype"))
    if with_unmatched:
        handles.append(Line2D([], [], marker="o", linestyle="", markersize=8, markerfacecolor="white",
                              markeredgecolor=MATCHED_COLOUR, label="patient's, not shown by these diseases"))
    return handles
