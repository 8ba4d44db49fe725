"""The query checker for LLM-written Cypher: `check_cypher` repairs what it soundly can
and rejects what must not run.

Order: (e) the read-only guard on the comment-free tokens (`cypher_guard`); (d) rewrites
of constructs FalkorDB lacks (`cypher_rewrites`); (b) labels of literals; (c) relationship
directions against the schema; (a) whole nodes returned become their name property; the
LIMIT. The repaired query is guarded once more before it is returned. A token-level
approach with a clause splitter, not a Cypher grammar: what it cannot analyse it leaves
as written (the store still runs it read-only with a time limit).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from fpkg.errors import CypherSyntaxError
from graphstore.schema import NAME_PROPERTIES
from graphstore.store import Schema
from retrieval.cypher.guard import Rejection, enforce_limit, first_rejection, guard, union_parts
from retrieval.cypher.lexer import (
    IDENT,
    NAME,
    STRING,
    Clause,
    Token,
    check_balanced,
    name_text,
    relex,
    render,
    split_clauses,
    split_top,
    string_value,
    tokenize,
)
from retrieval.cypher.patterns import NodePattern, PathPattern, match_paths, parse_path
from retrieval.cypher.rewrites import rewrite_unsupported

DEFAULT_NAME_PROPERTIES: dict[str, str] = NAME_PROPERTIES


@dataclass(frozen=True)
class CheckResult:
    query: str | None                   # the query to run (repaired), None when rejected
    corrections: list[str] = field(default_factory=list)  # one line per change made
    problems: list[str] = field(default_factory=list)     # why rejected / what is left to fix
    rejected: bool = False
    reason: str | None = None           # a cypher_guard.REASONS code when rejected


def check_cypher(query: str, schema: Schema, *,
                 name_properties: dict[str, str] = DEFAULT_NAME_PROPERTIES,
                 label_of_literal: Callable[[str], str | None] | None = None,
                 max_limit: int = 200) -> CheckResult:
    """Check and repair one LLM-written query against the graph's `schema`.

    `label_of_literal(name)` says which label a node called `name` has (None when unknown
    or ambiguous); without it labels are not corrected."""
    if max_limit < 1:
        raise ValueError("max_limit must be >= 1")
    try:
        tokens = tokenize(query)
        check_balanced(tokens)
    except CypherSyntaxError as e:
        return _rejected([Rejection("syntax", f"syntax error: {e}")])
    tokens, found, corrections = guard(tokens)
    if not found:
        tokens, notes, found = rewrite_unsupported(tokens)
        corrections += notes
    if found:
        return _rejected(found, corrections)
    ctx = _Context(schema, name_properties, label_of_literal)
    problems: list[str] = []
    tokens = _fix_labels(tokens, ctx, corrections)
    tokens = _fix_directions(tokens, ctx, corrections, problems)
    tokens = _fix_returns(tokens, ctx, corrections)
    problems += _schema_problems(tokens, ctx)
    tokens, notes = enforce_limit(tokens, max_limit)
    corrections += notes
    text = render(tokens)
    found = _recheck(text, tokens)
    if found:
        return _rejected(found, corrections)
    return CheckResult(text, corrections, list(dict.fromkeys(problems)))


def _recheck(text: str, tokens: list[Token]) -> list[Rejection]:
    """Defence in depth: the text we hand back lexes to the tokens we checked, and no
    repair produced anything the guard refuses."""
    try:
        again = tokenize(text)
    except CypherSyntaxError as e:
        return [Rejection("syntax", f"the repaired query does not lex: {e}")]
    if [(t.kind, t.text) for t in again] != [(t.kind, t.text) for t in tokens]:
        return [Rejection("syntax", "the repaired query does not read back as checked")]
    return guard(again)[1]


def _rejected(found: list[Rejection], corrections: list[str] | None = None) -> CheckResult:
    first = first_rejection(found) or Rejection("syntax", "rejected")
    messages = [first.message] + [r.message for r in found if r.message != first.message]
    return CheckResult(None, corrections or [], list(dict.fromkeys(messages)), True, first.reason)


@dataclass
class _Context:
    schema: Schema
    name_properties: dict[str, str]
    label_of_literal: Callable[[str], str | None] | None

    @property
    def checks_schema(self) -> bool:
        return bool(self.schema.labels)


# ---- what each UNION part binds ------------------------------------------------------------

@dataclass
class _Part:
    start: int
    end: int
    clauses: list[Clause]
    paths: list[PathPattern]
    labels: dict[str, str]  # node variable -> label

    def label(self, node: NodePattern) -> str | None:
        if node.labels:
            return node.labels[0][0]
        return self.labels.get(node.var) if node.var else None

    def nodes_of(self, var: str) -> list[NodePattern]:
        return [n for p in self.paths for n in p.nodes if n.var == var]


def _parts(tokens: list[Token]) -> list[_Part]:
    return [_analyse(tokens, part) for part in union_parts(split_clauses(tokens)) if part]


def _analyse(tokens: list[Token], clauses: list[Clause]) -> _Part:
    paths: list[PathPattern] = []
    labels: dict[str, str] = {}
    for clause in clauses:
        found: list[PathPattern] = []
        if clause.keyword in ("MATCH", "OPTIONAL MATCH"):
            found = [path for path, _func in match_paths(tokens, clause)]
        elif clause.keyword == "WHERE":
            found = _predicate_paths(tokens, clause)
        paths += found
        for path in found:
            for node in path.nodes:
                if node.var and node.labels:
                    labels.setdefault(node.var, node.labels[0][0])
        if clause.keyword in ("WITH", "UNWIND"):
            _rebind(tokens, clause, labels)
    return _Part(clauses[0].start, clauses[-1].end, clauses, paths, labels)


def _predicate_paths(tokens: list[Token], clause: Clause) -> list[PathPattern]:
    """Pattern predicates in a WHERE clause: `(d)-[:Exhibit]->(:FacePhenotype)`."""
    out, i = [], clause.body
    while i < clause.end:
        path = parse_path(tokens, i, clause.end) if tokens[i].is_op("(") else None
        if path is not None and path.rels:
            out.append(path)
            i = path.end
        else:
            i += 1
    return out


def _rebind(tokens: list[Token], clause: Clause, labels: dict[str, str]) -> None:
    """`WITH d AS x` gives x the label of d; `WITH d.dname AS d` makes d a value."""
    for s, e in split_top(tokens, clause.body, clause.end):
        if e - s >= 3 and tokens[e - 2].is_kw("AS"):
            alias = name_text(tokens[e - 1])
            source = name_text(tokens[s]) if e - s == 3 else None
            if source in labels:
                labels[alias] = labels[source]
            else:
                labels.pop(alias, None)


def _apply(tokens: list[Token], edits: dict[int, list[Token]]) -> list[Token]:
    """Replace token i by edits[i] (same-position edits keep every other index valid)."""
    out: list[Token] = []
    for i, tok in enumerate(tokens):
        out += edits.get(i, [tok])
    return out


def _same_place(tok: Token, text: str) -> list[Token]:
    return [replace(t, pre=tok.pre if k == 0 else t.pre) for k, t in enumerate(relex(text))]


# ---- (b) labels of literals ------------------------------------------------------------------

def _fix_labels(tokens: list[Token], ctx: _Context, corrections: list[str]) -> list[Token]:
    """A literal that names a node of another label gives its node that label (and that
    label's name property). One relabelling at a time, re-analysing after each."""
    label_of = ctx.label_of_literal
    if label_of is None:
        return tokens
    known: dict[str, str | None] = {}  # the caller's lookup may be a store query: once per literal

    def lookup(literal: str) -> str | None:
        if literal not in known:
            known[literal] = label_of(literal)
        return known[literal]

    done: set[str] = set()
    for _ in range(len(tokens)):
        edit = next((e for part in _parts(tokens) for e in _label_candidates(tokens, part, ctx, lookup)
                     if e[0] not in done), None)
        if edit is None:
            break
        literal, part, node_or_var, current, new = edit
        done.add(literal)
        tokens, note = _relabel(tokens, part, node_or_var, current, new, ctx)
        corrections.append(f"label of {literal!r} changed from {current or 'no label'} to {new}{note}")
    return tokens


def _label_candidates(tokens: list[Token], part: _Part, ctx: _Context,
                      lookup: Callable[[str], str | None]) -> Iterator[_Candidate]:
    name_keys = set(ctx.name_properties.values())
    for path in part.paths:
        for node in path.nodes:
            for entry in node.props:
                s, e = entry.value
                if entry.key in name_keys and e - s == 1 and tokens[s].kind == STRING:
                    literal, target = string_value(tokens[s]), node.var or node
                    yield from _candidate(literal, part, target, part.label(node), ctx, lookup)
    for clause in part.clauses:
        if clause.keyword != "WHERE":
            continue
        for k in range(clause.body, clause.end - 4):
            window = tokens[k:k + 5]
            if window[1].is_op(".") and window[3].is_op("=") and window[4].kind == STRING:
                var, prop, lit = name_text(window[0]), name_text(window[2]), window[4]
            elif window[1].is_op("=") and window[3].is_op(".") and window[0].kind == STRING:
                var, prop, lit = name_text(window[2]), name_text(window[4]), window[0]
            else:
                continue
            if prop in name_keys and part.nodes_of(var):
                yield from _candidate(string_value(lit), part, var, part.labels.get(var), ctx, lookup)


# (literal, part, variable or anonymous node, current label, new label)
_Candidate = tuple[str, _Part, "str | NodePattern", "str | None", str]


def _candidate(literal: str, part: _Part, target: str | NodePattern, current: str | None, ctx: _Context,
               lookup: Callable[[str], str | None]) -> Iterator[_Candidate]:
    new = lookup(literal)
    if new and new != current and new in ctx.name_properties:
        yield literal, part, target, current, new


def _relabel(tokens: list[Token], part: _Part, target: str | NodePattern, current: str | None,
             new: str, ctx: _Context) -> tuple[list[Token], str]:
    new_key = ctx.name_properties[new]
    old_key = ctx.name_properties.get(current or "", None)
    nodes = part.nodes_of(target) if isinstance(target, str) else [target]
    edits: dict[int, list[Token]] = {}
    old_keys = {old_key} if old_key else set()
    for node in nodes:
        old_keys |= {e.key for e in node.props if e.key in ctx.name_properties.values()}
    for node in nodes:
        if node.labels:
            first, last = node.labels[0][1], node.labels[-1][1]
            edits[first] = _same_place(tokens[first], new)
            edits.update({k: [] for k in range(first + 1, last + 1)})
        elif node.var_index is not None:
            edits[node.var_index] = [tokens[node.var_index], *relex(f":{new}", "")]
        else:
            edits[node.open] = [tokens[node.open], *relex(f":{new}", "")]
        for entry in node.props:
            if entry.key in old_keys:
                edits[entry.key_index] = _same_place(tokens[entry.key_index], new_key)
    if isinstance(target, str):  # every `x.oldName` of the part
        for k in range(part.start, part.end - 2):
            if (name_text(tokens[k]) == target and tokens[k + 1].is_op(".")
                    and name_text(tokens[k + 2]) in old_keys):
                edits[k + 2] = _same_place(tokens[k + 2], new_key)
    changed = sorted(old_keys - {new_key})
    note = f" ({', '.join(changed)} → {new_key})" if changed else ""
    return _apply(tokens, edits), note


# ---- (c) directions ----------------------------------------------------------------------------

def _fix_directions(tokens: list[Token], ctx: _Context, corrections: list[str],
                    problems: list[str]) -> list[Token]:
    if not ctx.checks_schema:
        return tokens
    stored = {(s, t, e) for s, t, e, _n in ctx.schema.patterns}
    known_types = {t for _s, t, _e in stored}
    edits: dict[int, list[Token]] = {}
    for part in _parts(tokens):
        for path in part.paths:
            for k, rel in enumerate(path.rels):
                left, right = part.label(path.nodes[k]), part.label(path.nodes[k + 1])
                missing = [t for t, _i in rel.types if t not in known_types]
                if missing:
                    problems += [f"relationship type :{t} does not exist; types: "
                                 f"{', '.join(sorted(known_types))}" for t in missing]
                    continue
                if len(rel.types) != 1:
                    continue  # untyped or alternatives: nothing to orient
                rel_type = rel.types[0][0]
                start, end = (right, left) if rel.direction == "in" else (left, right)
                if _stored(stored, start, rel_type, end) or (
                        rel.direction == "none" and _stored(stored, end, rel_type, start)):
                    continue
                if _stored(stored, end, rel_type, start):
                    flip = {"-": "<-", "<-": "-"}, {"->": "-", "-": "->"}
                    edits[rel.left] = [replace(tokens[rel.left], text=flip[0][tokens[rel.left].text])]
                    edits[rel.right] = [replace(tokens[rel.right], text=flip[1][tokens[rel.right].text])]
                    a, b = (path.nodes[k + 1], path.nodes[k]) if rel.direction == "in" else \
                        (path.nodes[k], path.nodes[k + 1])
                    corrections.append(f"direction of [:{rel_type}] reversed to "
                                       f"({_show(part, b)})-[:{rel_type}]->({_show(part, a)})")
                else:
                    ways = ", ".join(f"({s})-[:{t}]->({e})" for s, t, e in sorted(stored) if t == rel_type)
                    problems.append(f"no ({start or ''})-[:{rel_type}]->({end or ''}) in the graph; "
                                    f"[:{rel_type}] connects {ways}")
    return _apply(tokens, edits)


def _show(part: _Part, node: NodePattern) -> str:
    return part.label(node) or node.var or ""


def _stored(stored: set[tuple[str, str, str]], start: str | None, rel_type: str, end: str | None) -> bool:
    """Whether the schema has start-[:rel_type]->end, an unknown label matching any."""
    return any(t == rel_type and start in (None, s) and end in (None, e) for s, t, e in stored)


# ---- (a) whole nodes returned ------------------------------------------------------------------

def _fix_returns(tokens: list[Token], ctx: _Context, corrections: list[str]) -> list[Token]:
    edits: dict[int, list[Token]] = {}
    for part in _parts(tokens):
        ret = next((c for c in reversed(part.clauses) if c.keyword == "RETURN"), None)
        if ret is None:
            continue
        body = ret.body + tokens[ret.body].is_kw("DISTINCT") if ret.body < ret.end else ret.body
        for s, e in split_top(tokens, body, ret.end):
            bare = e - s == 1 or (e - s == 3 and tokens[s + 1].is_kw("AS"))
            if not bare or tokens[s].kind not in (IDENT, NAME):
                continue
            var = name_text(tokens[s])
            prop = ctx.name_properties.get(part.labels.get(var, ""))
            if prop is None:
                continue
            alias = tokens[e - 1].text
            edits[s] = _same_place(tokens[s], f"{tokens[s].text}.{prop} AS {alias}")
            edits.update({k: [] for k in range(s + 1, e)})
            corrections.append(f"return clause: {var} → {var}.{prop}")
    return _apply(tokens, edits)


# ---- what the schema does not have ----------------------------------------------------------

def _schema_problems(tokens: list[Token], ctx: _Context) -> list[str]:
    if not ctx.checks_schema:
        return []
    labels = ctx.schema.labels
    problems = []
    for part in _parts(tokens):
        for path in part.paths:
            for node in path.nodes:
                problems += [f"label :{name} does not exist; labels: {', '.join(sorted(labels))}"
                             for name, _i in node.labels if name not in labels]
                label = part.label(node)
                problems += [_no_property(label, e.key, labels) for e in node.props
                             if label in labels and e.key not in labels[label]]
        for k in range(part.start, part.end - 2):
            label = part.labels.get(name_text(tokens[k])) if tokens[k].kind in (IDENT, NAME) else None
            if label in labels and tokens[k + 1].is_op(".") and tokens[k + 2].kind in (IDENT, NAME):
                prop = name_text(tokens[k + 2])
                if prop not in labels[label] and not (k and tokens[k - 1].is_op(".")):
                    problems.append(_no_property(label, prop, labels))
    return problems


def _no_property(label: str, prop: str, labels: dict[str, list[str]]) -> str:
    return f"{label} has no property {prop!r}; its properties: {', '.join(labels[label])}"


__all__ = ["DEFAULT_NAME_PROPERTIES", "CheckResult", "CypherSyntaxError", "check_cypher"]
