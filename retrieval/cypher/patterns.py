"""Path patterns of Cypher, parsed from tokens: ``(a:A {k: v})-[r:T*1..3]->(b)``.

Enough for the query checker: node variables, labels (with the label expressions
``|``, ``&``, ``!`` noted), literal property maps, relationship types, direction and
the token index of each part, so that a repair can edit exactly those tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.cypher.lexer import (
    IDENT,
    NAME,
    NUMBER,
    Clause,
    Token,
    matching,
    name_text,
    split_top,
)


@dataclass
class MapEntry:
    key: str
    key_index: int
    value: tuple[int, int]  # token range of the value


@dataclass
class NodePattern:
    open: int                      # index of '('
    close: int                     # index of ')'
    var: str | None = None
    var_index: int | None = None
    labels: list[tuple[str, int]] = field(default_factory=list)  # (label, token index)
    label_ops: set[str] = field(default_factory=set)              # '|', '&', '!' between labels
    props: list[MapEntry] = field(default_factory=list)


@dataclass
class RelPattern:
    left: int                      # first arrow token ('-' or '<-')
    right: int                     # last arrow token ('-' or '->')
    direction: str                 # "out" (-->), "in" (<--), "none" (-- or <-->)
    var: str | None = None
    var_index: int | None = None
    types: list[tuple[str, int]] = field(default_factory=list)
    variable_length: bool = False


@dataclass
class PathPattern:
    start: int
    end: int                       # index after the last token
    nodes: list[NodePattern]
    rels: list[RelPattern]         # rels[k] joins nodes[k] and nodes[k + 1]


def _is_name(tokens: list[Token], i: int, end: int) -> bool:
    return i < end and tokens[i].kind in (IDENT, NAME)


def parse_path(tokens: list[Token], i: int, end: int) -> PathPattern | None:
    """The path pattern starting at the '(' at `i`, or None when the tokens there are not
    one (a parenthesised expression, say). It stops at the first token that cannot
    continue the path."""
    node = _parse_node(tokens, i, end)
    if node is None:
        return None
    nodes, rels = [node], []
    j = node.close + 1
    while j < end:
        rel = _parse_rel(tokens, j, end)
        if rel is None:
            break
        nxt = _parse_node(tokens, rel.right + 1, end)
        if nxt is None:
            return None
        rels.append(rel)
        nodes.append(nxt)
        j = nxt.close + 1
    return PathPattern(i, j, nodes, rels)


def _parse_node(tokens: list[Token], i: int, end: int) -> NodePattern | None:
    if i >= end or not tokens[i].is_op("("):
        return None
    close = matching(tokens, i)
    if close >= end:
        return None
    node, j = NodePattern(i, close), i + 1
    if _is_name(tokens, j, close):
        node.var, node.var_index = name_text(tokens[j]), j
        j += 1
    j = _parse_labels(tokens, j, close, node.labels, node.label_ops)
    if j < close and tokens[j].is_op("{"):
        j = _parse_map(tokens, j, node.props)
    return node if j == close else None


def _parse_labels(tokens: list[Token], j: int, close: int, out: list[tuple[str, int]],
                  ops: set[str]) -> int:
    """`:A:B`, `:A|B`, `:A|:B`, `:A&B`, `:!A` (the label expressions Neo4j 5 allows)."""
    if not (j < close and tokens[j].is_op(":")):
        return j
    j += 1
    while j < close:
        if tokens[j].is_op("!"):
            ops.add("!")
            j += 1
        if not _is_name(tokens, j, close):
            break
        out.append((name_text(tokens[j]), j))
        j += 1
        if j < close and tokens[j].is_op("|", "&", ":"):
            if not tokens[j].is_op(":"):
                ops.add(tokens[j].text)
            j += 1
            if j < close and tokens[j].is_op(":"):
                j += 1
            continue
        break
    return j


def _parse_map(tokens: list[Token], j: int, out: list[MapEntry]) -> int:
    close = matching(tokens, j)
    for s, e in split_top(tokens, j + 1, close):
        if s == e:
            continue
        if e - s < 3 or not _is_name(tokens, s, e) or not tokens[s + 1].is_op(":"):
            return -1  # not a literal map (the node parse then fails)
        out.append(MapEntry(name_text(tokens[s]), s, (s + 2, e)))
    return close + 1


def _parse_rel(tokens: list[Token], i: int, end: int) -> RelPattern | None:
    if i >= end or not tokens[i].is_op("-", "<-"):
        return None
    rel = RelPattern(i, i, "none")
    j = i + 1
    if j < end and tokens[j].is_op("["):
        close = matching(tokens, j)
        if close >= end or not _parse_rel_body(tokens, j + 1, close, rel):
            return None
        j = close + 1
    if j >= end or not tokens[j].is_op("-", "->"):
        return None
    rel.right = j
    left_in, right_out = tokens[i].text == "<-", tokens[j].text == "->"
    rel.direction = "out" if right_out and not left_in else "in" if left_in and not right_out else "none"
    return rel


def _parse_rel_body(tokens: list[Token], j: int, close: int, rel: RelPattern) -> bool:
    if _is_name(tokens, j, close):
        rel.var, rel.var_index = name_text(tokens[j]), j
        j += 1
    ops: set[str] = set()
    j = _parse_labels(tokens, j, close, rel.types, ops)
    if j < close and tokens[j].is_op("*"):
        rel.variable_length = True
        j += 1
        while j < close and (tokens[j].kind == NUMBER or tokens[j].is_op("..")):
            j += 1
    if j < close and tokens[j].is_op("{"):
        j = _parse_map(tokens, j, [])
    return j == close and "&" not in ops and "!" not in ops


def match_paths(tokens: list[Token], clause: Clause) -> list[tuple[PathPattern, str | None]]:
    """The paths of a MATCH clause's pattern list with the function wrapping each, if any
    (``p = shortestPath((a)-[*]->(b))`` gives "shortestPath"). Parts that do not parse
    are left out."""
    out = []
    for s, e in split_top(tokens, clause.body, clause.end):
        if s + 1 < e and tokens[s].kind in (IDENT, NAME) and tokens[s + 1].is_op("="):
            s += 2  # a path variable
        func = None
        if s + 1 < e and tokens[s].kind == IDENT and tokens[s + 1].is_op("("):
            func, s = tokens[s].text, s + 2
            e = matching(tokens, s - 1)
        path = parse_path(tokens, s, e)
        if path is not None:
            out.append((path, func))
    return out
