"""The read-only guard of the query checker, and the forced LIMIT.

It works on the comment-free token stream (`cypher_lexer.tokenize`), so a comment cannot
hide a clause and a keyword inside a string literal is only text. Two layers:

- a scan of every token, at any bracket depth, for the words that start writing or
  side-effecting clauses (CREATE, MERGE, DELETE, DETACH, SET, REMOVE, DROP, INSERT,
  FOREACH, CALL, LOAD CSV, USING PERIODIC COMMIT) and for calls into procedure
  namespaces (``db.``, ``dbms.``, ``apoc.``, ...). A word counts unless it is used as a
  name (after '.' or ':', or before '.' or ':'); a variable called ``set`` is refused too,
  which errs on the safe side;
- a clause splitter: the top-level clauses of each UNION part must be MATCH, OPTIONAL
  MATCH, WHERE, WITH, UNWIND, RETURN, ORDER BY, SKIP, LIMIT, start with a reading clause
  and end with RETURN.

The store runs queries through ``GRAPH.RO_QUERY`` with a time limit as well; this guard is
the first line, not the only one.
"""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.cypher.lexer import IDENT, NUMBER, OP, Clause, Token, relex, split_clauses

# Reason codes: a rejection reports the first that applies (the specific before the general).
REASONS = ("empty", "syntax", "load_csv", "foreach", "procedure", "write",
           "multiple_statements", "not_a_query", "unsupported")

_WRITE_WORDS = frozenset({"CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "INSERT"})
_PROCEDURE_NAMESPACES = frozenset({"DB", "DBMS", "APOC", "GDS", "ALGO", "TX"})
_READ_STARTS = frozenset({"MATCH", "OPTIONAL MATCH", "WITH", "UNWIND", "RETURN"})
_READ_CLAUSES = _READ_STARTS | {"WHERE", "ORDER BY", "SKIP", "LIMIT", "UNION"}
_PROJECTION_TAIL = frozenset({"ORDER BY", "SKIP", "LIMIT"})


@dataclass(frozen=True)
class Rejection:
    reason: str   # one of REASONS
    message: str  # for the user and for the LLM's repair prompt


def first_rejection(found: list[Rejection]) -> Rejection | None:
    return min(found, key=lambda r: REASONS.index(r.reason), default=None)


def _word_at(tokens: list[Token], i: int) -> str:
    """The keyword at `i`, or "" when the token is not one (or is used as a name)."""
    tok = tokens[i]
    if tok.kind != IDENT:
        return ""
    before = tokens[i - 1] if i > 0 else None
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    if (before and before.is_op(".", ":")) or (after and after.is_op(".", ":")):
        return ""
    return tok.upper


def _procedure_call_at(tokens: list[Token], i: int) -> bool:
    """`db.labels(`, `dbms.components(`, `db.idx.fulltext.queryNodes(`: a namespaced call
    into a procedure namespace (a variable called `db` with a property is fine)."""
    if tokens[i].upper not in _PROCEDURE_NAMESPACES or (i > 0 and tokens[i - 1].is_op(".")):
        return False
    j = i + 1
    while j + 1 < len(tokens) and tokens[j].is_op(".") and tokens[j + 1].kind == IDENT:
        j += 2
    return j > i + 1 and j < len(tokens) and tokens[j].is_op("(")


def scan_words(tokens: list[Token]) -> list[Rejection]:
    """Every write, procedure, LOAD CSV and FOREACH word anywhere in the query."""
    found: list[Rejection] = []
    for i in range(len(tokens)):
        word, nxt = _word_at(tokens, i), tokens[i + 1].upper if i + 1 < len(tokens) else ""
        if word in _WRITE_WORDS:
            found.append(Rejection("write", f"{word} writes to the graph; only read queries "
                                   "(MATCH ... RETURN) are allowed"))
        elif word == "LOAD" and nxt == "CSV":
            found.append(Rejection("load_csv", "LOAD CSV reads files or URLs; it is not allowed"))
        elif word == "USING" and nxt == "PERIODIC":
            found.append(Rejection("write", "USING PERIODIC COMMIT is for bulk writes; not allowed"))
        elif word == "FOREACH":
            found.append(Rejection("foreach", "FOREACH is an updating clause; not allowed"))
        elif word == "CALL":
            found.append(Rejection("procedure", "CALL (procedures and subqueries) is not allowed; "
                                   "use MATCH, WITH and RETURN only"))
        elif _procedure_call_at(tokens, i):
            found.append(Rejection("procedure", f"calls into {tokens[i].text}.* procedures are not allowed"))
    return found


def split_statements(tokens: list[Token]) -> tuple[list[Token], list[Rejection], bool]:
    """Drop trailing ';'s (returning True if any); a ';' followed by anything else is a
    second statement."""
    end = len(tokens)
    while end and tokens[end - 1].is_op(";"):
        end -= 1
    found = []
    if any(tok.is_op(";") for tok in tokens[:end]):
        found.append(Rejection("multiple_statements", "only one statement is allowed; "
                               "remove ';' and everything after it"))
    return tokens[:end], found, end < len(tokens)


def union_parts(clauses: list[Clause]) -> list[list[Clause]]:
    parts: list[list[Clause]] = [[]]
    for clause in clauses:
        if clause.keyword == "UNION":
            parts.append([])
        else:
            parts[-1].append(clause)
    return parts


def check_clauses(tokens: list[Token]) -> list[Rejection]:
    """The top-level clause sequence of a read query."""
    clauses = split_clauses(tokens)
    found = []
    last = tokens[-1]
    if last.kind == OP and last.text not in (")", "]", "}", "*"):
        found.append(Rejection("syntax", f"the query ends with an incomplete expression ('{last.text}')"))
    for clause in clauses:
        if clause.keyword not in _READ_CLAUSES:
            what = f"clause {clause.keyword}" if clause.keyword else f"'{tokens[clause.start].text}'"
            found.append(Rejection("not_a_query" if clause is clauses[0] else "unsupported",
                                   f"{what} is not allowed; a query is MATCH/OPTIONAL MATCH/WITH/"
                                   "UNWIND clauses ending in RETURN"))
    for part in union_parts(clauses):
        if not part or part[0].keyword not in _READ_STARTS:
            found.append(Rejection("not_a_query", "a query must start with MATCH, OPTIONAL MATCH, "
                                   "WITH, UNWIND or RETURN"))
            continue
        tail = [c.keyword for c in part if c.keyword not in _PROJECTION_TAIL]
        if tail[-1] != "RETURN":
            found.append(Rejection("syntax", f"the query ends with {tail[-1]}; it must end with RETURN"))
    return found


def guard(tokens: list[Token]) -> tuple[list[Token], list[Rejection], list[str]]:
    """The read-only checks: (tokens without trailing ';', rejections, corrections)."""
    if not tokens:
        return tokens, [Rejection("empty", "the query is empty")], []
    found = scan_words(tokens)
    tokens, more, stripped = split_statements(tokens)
    found += more
    if not found and tokens:
        found += check_clauses(tokens)
    elif not tokens:
        found.append(Rejection("empty", "the query is empty"))
    return tokens, found, ["trailing ';' removed"] if stripped else []


def enforce_limit(tokens: list[Token], max_limit: int) -> tuple[list[Token], list[str]]:
    """Give the final RETURN of each UNION part a LIMIT of at most `max_limit` (with UNION,
    each part is limited: Cypher cannot limit a union without a subquery)."""
    corrections: list[str] = []
    for part in reversed(union_parts(split_clauses(tokens))):  # back to front: indexes stay valid
        limit = next((c for c in part if c.keyword == "LIMIT"), None)
        end = part[-1].end
        if limit is None:
            tokens = tokens[:end] + relex(f"LIMIT {max_limit}") + tokens[end:]
            corrections.append(f"LIMIT {max_limit} added")
            continue
        value = tokens[limit.body:limit.end]
        text = "".join(t.pre + t.text for t in value).strip()
        if len(value) == 1 and value[0].kind == NUMBER and text.isdigit() and int(text) <= max_limit:
            continue
        tokens = tokens[:limit.body] + relex(str(max_limit)) + tokens[limit.end:]
        lowered = "lowered" if text.isdigit() else "replaced"
        corrections.append(f"LIMIT {text} {lowered} to {max_limit}")
    return tokens, corrections

