"""Rewrites for the Cypher constructs FalkorDB lacks, or rejections where no sound
rewrite exists (item (d) of the query checker). Each rule finds one occurrence in the
token list and returns the rewritten tokens with a note, a Rejection, or None.

Rewritten:
- ``x =~ 'r'`` -> ``size(string.matchRegEx(x, '^(?:r)$')) > 0``; a plain ``(?i).*word.*``
  -> ``toLower(x) CONTAINS 'word'`` (``.*word.*`` -> ``x CONTAINS 'word'``); ``=~ $p`` anchors
  the parameter the same way;
- ``EXISTS { [MATCH] path }`` and ``exists(path)``: in WHERE a pattern predicate, with the
  subquery's own variables made anonymous; elsewhere ``size([path | 1]) > 0``;
- ``COUNT { [MATCH] path [WHERE c] }`` outside WHERE -> ``size([path [WHERE c] | 1])``;
- ``elementId(x)`` -> ``toString(id(x))``;
- ``round(x, n)`` with a literal n -> ``round((x) * 10^n) / 10^n.0``;
- ``MATCH (n:A|B)`` -> ``MATCH (n) WHERE (n:A OR n:B)``; ``(n:A&B)`` -> ``(n:A:B)``.

Rejected ("unsupported"): ``EXISTS { ... WHERE ... }`` in WHERE and EXISTS over several
patterns, ``COUNT { }`` in WHERE, ``COLLECT { }``, ``datetime()``, ``shortestPath`` /
``allShortestPaths`` in MATCH, ``round`` with three arguments or a computed precision,
label expressions with ``!``, ``=~`` with a computed regex.
"""

from __future__ import annotations

import re
from dataclasses import replace

from retrieval.cypher.guard import Rejection
from retrieval.cypher.lexer import (
    IDENT,
    NAME,
    OP,
    PARAM,
    STRING,
    Token,
    matching,
    name_text,
    relex,
    render,
    split_clauses,
    split_top,
)
from retrieval.cypher.patterns import PathPattern, match_paths, parse_path

_NOT_FUNCTIONS = frozenset({"WHERE", "AND", "OR", "XOR", "NOT", "WHEN", "THEN", "ELSE", "IN", "CASE",
                            "RETURN", "WITH", "IS", "CONTAINS", "DISTINCT", "BY", "AS", "UNWIND"})
_PLAIN_WORD = re.compile(r"(\(\?i\))?\.\*([A-Za-z0-9 _,:;/-]+)\.\*")


def _splice(tokens: list[Token], start: int, end: int, snippet: str) -> list[Token]:
    return tokens[:start] + relex(snippet, tokens[start].pre) + tokens[end:]


def _text(tokens: list[Token], start: int, end: int) -> str:
    return render(tokens[start:end])


def _clause_at(tokens: list[Token], i: int) -> str:
    return next((c.keyword for c in split_clauses(tokens) if c.start <= i < c.end), "")


def _opener(tokens: list[Token], close: int) -> int:
    return next(j for j in range(close, -1, -1) if tokens[j].kind == OP
                and tokens[j].text in "([{" and matching(tokens, j) == close)


def _operand_before(tokens: list[Token], i: int) -> int:
    """Start index of the operand ending just before `i`: `n.name`, `toLower(n.name)`,
    `n.names[0]`, `$p`, a literal or a parenthesised expression."""
    j = i - 1
    while j >= 0:
        tok = tokens[j]
        if tok.is_op(")", "]"):
            j = _opener(tokens, j)
            if j > 0 and tokens[j - 1].kind in (IDENT, NAME) and tokens[j - 1].upper not in _NOT_FUNCTIONS:
                j -= 1  # a function name or an indexed name
            else:
                return j
        if j > 1 and tokens[j - 1].is_op("."):
            j -= 2  # n.name, string.foo(...)
            continue
        return j
    return 0


def _regex_match(tokens: list[Token]) -> tuple[list[Token], str] | Rejection | None:
    """`x =~ 'r'` becomes `size(string.matchRegEx(x, '^(?:r)$')) > 0` (=~ must match the
    whole string; matchRegEx searches, hence the anchors), or `toLower(x) CONTAINS 'w'`
    when r is just `(?i).*w.*` (`.*w.*` gives `x CONTAINS 'w'`). They differ from =~ only on
    values with line breaks, which `.` does not cross; names have none."""
    i = next((k for k, t in enumerate(tokens) if t.is_op("=~")), None)
    if i is None:
        return None
    start, rhs = _operand_before(tokens, i), i + 1
    # `a + b =~ r` or `x =~ r + s`: the operands are expressions this rewrite does not delimit
    tighter = ("+", "-", "*", "/", "%", "^", ".", "[")
    if (start >= i or rhs >= len(tokens) or tokens[rhs].kind not in (STRING, PARAM)
            or (start > 0 and tokens[start - 1].is_op(*tighter))
            or (rhs + 1 < len(tokens) and tokens[rhs + 1].is_op(*tighter))):
        return Rejection("unsupported", "FalkorDB has no =~; write the test as "
                         "size(string.matchRegEx(x, '^(?:regex)$')) > 0")
    lhs, r = _text(tokens, start, i).strip(), tokens[rhs]
    if r.kind == PARAM:
        new = f"(size(string.matchRegEx({lhs}, '^(?:' + {r.text} + ')$')) > 0)"
    elif plain := _PLAIN_WORD.fullmatch(r.text[1:-1]):
        word = plain.group(2)
        new = (f"(toLower({lhs}) CONTAINS '{word.lower()}')" if plain.group(1)
               else f"({lhs} CONTAINS '{word}')")
    else:
        q = r.text[0]
        new = f"(size(string.matchRegEx({lhs}, {q}^(?:{r.text[1:-1]})${q})) > 0)"
    out = _splice(tokens, start, rhs + 1, new)
    return out, f"{lhs} =~ {r.text} rewritten to {new[1:-1]}"


def _subquery_body(tokens: list[Token], i: int) -> tuple[int, int, int] | None:
    """For `EXISTS {`/`COUNT {` at `i`: (body start, body end, closing brace), skipping a
    leading MATCH."""
    if i + 1 >= len(tokens) or not tokens[i + 1].is_op("{") or tokens[i].kind != IDENT:
        return None
    close = matching(tokens, i + 1)
    body = i + 2 + tokens[i + 2].is_kw("MATCH")
    return body, close, close


def _single_path(tokens: list[Token], s: int, e: int) -> tuple[PathPattern, int] | None:
    """A single path (with at least one relationship) in [s, e), then optionally a WHERE:
    (path, index where the path ends)."""
    path = parse_path(tokens, s, e)
    if path is None or not path.rels or (path.end < e and not tokens[path.end].is_kw("WHERE")):
        return None
    return path, path.end


def _defined_outside(tokens: list[Token], s: int, e: int) -> set[str]:
    """Variables the query binds outside [s, e): in MATCH patterns and as `AS x`/UNWIND aliases."""
    outside = tokens[:s] + tokens[e:]
    names: set[str] = set()
    for clause in split_clauses(outside):
        if clause.keyword in ("MATCH", "OPTIONAL MATCH"):
            for path, _func in match_paths(outside, clause):
                names.update(n.var for n in path.nodes if n.var)
                names.update(r.var for r in path.rels if r.var)
    names.update(name_text(outside[k + 1]) for k in range(len(outside) - 1) if outside[k].is_kw("AS"))
    return names


def _exists_subquery(tokens: list[Token]) -> tuple[list[Token], str] | Rejection | None:
    """`EXISTS { MATCH path }` and `exists(path)`: in WHERE a pattern predicate (FalkorDB
    accepts one only when it binds no new named variable, so variables local to the
    subquery lose their names); elsewhere `size([path | 1]) > 0`."""
    for i, tok in enumerate(tokens):
        if not tok.is_kw("EXISTS") or i + 1 >= len(tokens):
            continue
        span = _subquery_body(tokens, i)
        if span is None and tokens[i + 1].is_op("(") and i + 2 < len(tokens) and tokens[i + 2].is_op("("):
            close = matching(tokens, i + 1)
            span = (i + 2, close, close)
        if span is None:
            continue  # exists(n.prop) is fine
        s, e, close = span
        found = _single_path(tokens, s, e)
        if found is None:
            return Rejection("unsupported", "EXISTS { } is only rewritten for one path pattern, "
                             "e.g. EXISTS { MATCH (d)-[:Exhibit]->(:FacePhenotype) }")
        path, path_end = found
        if _clause_at(tokens, i) != "WHERE":
            new = f"(size([{_text(tokens, s, e)} | 1]) > 0)"
        elif path_end < e:
            return Rejection("unsupported", "FalkorDB cannot filter inside EXISTS { ... WHERE ... } "
                             "in WHERE; put the condition in the outer MATCH ... WHERE")
        else:
            new = _anonymised(tokens, path, _defined_outside(tokens, i, close + 1))
            if new is None:
                return Rejection("unsupported", "the EXISTS { } pattern must use a variable bound "
                                 "by the outer MATCH")
        return _splice(tokens, i, close + 1, new), f"{_text(tokens, i, close + 1)} rewritten to {new}"
    return None


def _anonymised(tokens: list[Token], path: PathPattern, bound: set[str]) -> str | None:
    """The path's text without the names of variables not in `bound` (None when it uses
    no bound variable, or a local one twice)."""
    local = [(p.var, p.var_index) for p in [*path.nodes, *path.rels] if p.var and p.var not in bound]
    if not any(n.var in bound for n in path.nodes) or len({v for v, _ in local}) < len(local):
        return None
    drop = {k for _, k in local}
    kept = [t for k, t in enumerate(tokens[path.start:path.end], path.start) if k not in drop]
    return render(kept).strip()


def _count_subquery(tokens: list[Token]) -> tuple[list[Token], str] | Rejection | None:
    """`COUNT { MATCH path [WHERE c] }` outside WHERE becomes `size([path [WHERE c] | 1])`
    (FalkorDB evaluates pattern comprehensions in WITH and RETURN, not in WHERE)."""
    for i, tok in enumerate(tokens):
        if tok.is_kw("COLLECT") and i + 1 < len(tokens) and tokens[i + 1].is_op("{"):
            return Rejection("unsupported", "FalkorDB has no COLLECT { } subquery; use collect() "
                             "after a MATCH")
        span = _subquery_body(tokens, i) if tok.is_kw("COUNT") else None
        if span is None:
            continue
        s, e, close = span
        if _single_path(tokens, s, e) is None or _clause_at(tokens, i) == "WHERE":
            return Rejection("unsupported", "FalkorDB has no COUNT { }; MATCH the pattern and "
                             "count(...) it in a WITH, then filter on the count")
        new = f"size([{_text(tokens, s, e).strip()} | 1])"
        return _splice(tokens, i, close + 1, new), f"{_text(tokens, i, close + 1).strip()} rewritten to {new}"
    return None


def _calls(tokens: list[Token], name: str) -> int | None:
    """Index of the first call of function `name` (not a property of that name)."""
    return next((k for k in range(len(tokens) - 1) if tokens[k].is_kw(name.upper())
                 and tokens[k + 1].is_op("(") and not (k and tokens[k - 1].is_op("."))), None)


def _element_id(tokens: list[Token]) -> tuple[list[Token], str] | None:
    """`elementId(x)` becomes `toString(id(x))` (both identify an entity; ids are ints here)."""
    i = _calls(tokens, "elementId")
    if i is None:
        return None
    close = matching(tokens, i + 1)
    new = f"toString(id({_text(tokens, i + 2, close).strip()}))"
    return _splice(tokens, i, close + 1, new), f"{_text(tokens, i, close + 1).strip()} rewritten to {new}"


def _datetime(tokens: list[Token]) -> Rejection | None:
    if _calls(tokens, "datetime") is None:
        return None
    return Rejection("unsupported", "FalkorDB has no datetime(); the graph holds no dates "
                     "(localdatetime() and timestamp() exist)")


def _round_precision(tokens: list[Token]) -> tuple[list[Token], str] | Rejection | None:
    """`round(x, n)` with a literal n becomes `round(x * 10^n) / 10^n` (FalkorDB's round
    takes one argument)."""
    for i in range(len(tokens) - 1):
        if not (tokens[i].is_kw("ROUND") and tokens[i + 1].is_op("(")):
            continue
        close = matching(tokens, i + 1)
        args = split_top(tokens, i + 2, close)
        if len(args) == 1:
            continue
        digits = _text(tokens, *args[1]).strip()
        if len(args) != 2 or not digits.isdigit() or int(digits) > 15:
            return Rejection("unsupported", "FalkorDB's round() takes one argument; use "
                             "round(x * 100) / 100.0 for two decimals")
        scale = 10 ** int(digits)
        new = f"(round(({_text(tokens, *args[0]).strip()}) * {scale}) / {scale}.0)"
        note = f"{_text(tokens, i, close + 1).strip()} rewritten to {new[1:-1]}"
        return _splice(tokens, i, close + 1, new), note
    return None


def _match_shortest_path(tokens: list[Token]) -> Rejection | None:
    for clause in split_clauses(tokens):
        if clause.keyword in ("MATCH", "OPTIONAL MATCH"):
            for tok in tokens[clause.body:clause.end]:
                if tok.is_kw("SHORTESTPATH", "ALLSHORTESTPATHS"):
                    return Rejection("unsupported", f"FalkorDB has no {tok.text} in MATCH; MATCH both "
                                     "ends, then WITH/RETURN shortestPath((a)-[*]->(b)) (directed)")
    return None


def _label_alternatives(tokens: list[Token]) -> tuple[list[Token], str] | Rejection | None:
    """`MATCH (n:A|B)` becomes `MATCH (n) WHERE (n:A OR n:B)`; `(n:A&B)` becomes `(n:A:B)`."""
    clauses = split_clauses(tokens)
    for k, clause in enumerate(clauses):
        nodes = [n for c in ([clause] if clause.keyword in ("MATCH", "OPTIONAL MATCH") else [])
                 for path, _f in match_paths(tokens, c) for n in path.nodes if n.label_ops]
        if not nodes:
            continue
        node = nodes[0]
        if "!" in node.label_ops or {"|", "&"} <= node.label_ops:
            return Rejection("unsupported", "label expressions with ! or mixed | and & are not "
                             "supported; MATCH (n) WHERE n:A OR n:B instead")
        first, last = node.labels[0][1], node.labels[-1][1]
        colon = first - 1
        if "&" in node.label_ops:
            new = ":" + ":".join(name for name, _i in node.labels)
            note = f"label expression :{_text(tokens, first, last + 1).strip()} rewritten to {new}"
            return _splice(tokens, colon, last + 1, new), note
        var = node.var or _fresh_var(tokens)
        pred = "(" + " OR ".join(f"{var}:{name}" for name, _i in node.labels) + ")"
        nxt = clauses[k + 1] if k + 1 < len(clauses) else None
        if nxt is not None and nxt.keyword == "WHERE":
            cond = [replace(tokens[nxt.body], pre=""), *tokens[nxt.body + 1:nxt.end]]
            out = tokens[:nxt.body] + relex(f"{pred} AND (") + cond + relex(")", "") + tokens[nxt.end:]
        else:
            out = tokens[:clause.end] + relex(f"WHERE {pred}") + tokens[clause.end:]
        out = out[:colon] + (relex(var, "") if node.var is None else []) + out[last + 1:]
        return out, f"label alternation ({_text(tokens, node.open + 1, node.close).strip()}) " \
            f"rewritten to WHERE {pred}"
    return None


def _fresh_var(tokens: list[Token]) -> str:
    used = {t.text for t in tokens if t.kind == IDENT}
    return next(f"n{k}" for k in range(1, len(tokens) + 2) if f"n{k}" not in used)


# Rules that wrap their output in parentheses run before those that look for `name(`.
_RULES = (_regex_match, _round_precision, _exists_subquery, _count_subquery, _element_id, _datetime,
          _match_shortest_path, _label_alternatives)


def rewrite_unsupported(tokens: list[Token]) -> tuple[list[Token], list[str], list[Rejection]]:
    """Apply the rewrites above until none applies; (tokens, corrections, rejections)."""
    corrections: list[str] = []
    for rule in _RULES:
        for _ in range(len(tokens) + 1):  # each rewrite removes one occurrence
            out = rule(tokens)
            if out is None:
                break
            if isinstance(out, Rejection):
                return tokens, corrections, [out]
            tokens, note = out
            corrections.append(note)
    return tokens, corrections, []
