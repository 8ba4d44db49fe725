"""A small Cypher tokenizer and the token helpers the query checker builds on.

Not a grammar: it splits text into tokens (strings with either quote and backslash
escapes, backquoted names, numbers, identifiers, ``$parameters``, operators), drops
comments, and can split a token list into top-level clauses. The checker edits token
lists and `render`s them back, so a repaired query never carries the original comments.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fpkg.errors import CypherSyntaxError

# kinds
IDENT = "ident"      # identifiers and keywords (compare keywords with .upper())
NAME = "name"        # `backquoted name`: never a keyword
STRING = "string"    # 'single' or "double" quoted, text kept raw with its quotes
NUMBER = "number"
PARAM = "param"      # $name or $0
OP = "op"            # punctuation and operators

# Longest first so that '->' wins over '-'.
_OPERATORS = ("<>", "<=", ">=", "=~", "->", "<-", "..", "+=", "!=", "::",
              "(", ")", "[", "]", "{", "}", ",", ".", ":", ";", "|", "=", "<", ">",
              "+", "-", "*", "/", "%", "^", "!", "&")
_OPEN_TO_CLOSE = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPEN_TO_CLOSE.values())

# Top-level clause keywords (some take a second word); WITH after STARTS/ENDS is an operator.
_CLAUSE_WORDS = frozenset({
    "MATCH", "OPTIONAL", "WHERE", "WITH", "UNWIND", "RETURN", "ORDER", "SKIP", "LIMIT", "UNION",
    "CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "FOREACH", "CALL", "LOAD",
    "USING", "YIELD", "FINISH", "INSERT",
})
_TWO_WORD_CLAUSES = {"OPTIONAL": "MATCH", "ORDER": "BY", "DETACH": "DELETE", "LOAD": "CSV"}


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    pre: str = " "  # whitespace before it in the rendered query

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == IDENT else ""

    def is_op(self, *texts: str) -> bool:
        return self.kind == OP and self.text in texts

    def is_kw(self, *words: str) -> bool:
        return self.kind == IDENT and self.text.upper() in words


def tokenize(text: str) -> list[Token]:
    """Tokens of `text`, comments removed (a comment counts as whitespace)."""
    tokens: list[Token] = []
    i, n, pre, comment = 0, len(text), "", False
    while i < n:
        ch = text[i]
        if ch.isspace():
            j = i
            while j < n and text[j].isspace():
                j += 1
            pre += text[i:j]
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            pre, comment = pre + " ", True
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise CypherSyntaxError(f"unterminated /* comment at offset {i}")
            i = j + 2
            pre, comment = pre + " ", True
        else:
            kind, j = _scan_token(text, i)
            if comment:  # where a comment was, a single separator
                pre = "\n" if "\n" in pre else " "
            tokens.append(Token(kind, text[i:j], pre))
            i, pre, comment = j, "", False
    return tokens


def _scan_token(text: str, i: int) -> tuple[str, int]:
    ch = text[i]
    if ch in "'\"":
        return STRING, _scan_string(text, i)
    if ch == "`":
        return NAME, _scan_backquoted(text, i)
    if ch.isdigit() or (ch == "." and i + 1 < len(text) and text[i + 1].isdigit()):
        return NUMBER, _scan_number(text, i)
    if ch.isalpha() or ch == "_":
        return IDENT, _scan_word(text, i)
    if ch == "$":
        if i + 1 < len(text) and text[i + 1] == "`":
            return PARAM, _scan_backquoted(text, i + 1)
        j = _scan_word(text, i + 1)
        if j == i + 1:
            raise CypherSyntaxError(f"'$' without a parameter name at offset {i}")
        return PARAM, j
    for op in _OPERATORS:
        if text.startswith(op, i):
            return OP, i + len(op)
    raise CypherSyntaxError(f"unexpected character {ch!r} at offset {i}")


def _scan_string(text: str, i: int) -> int:
    quote, j = text[i], i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2  # an escape: the next character never ends the string
        elif text[j] == quote:
            return j + 1
        else:
            j += 1
    raise CypherSyntaxError(f"unterminated string starting at offset {i}")


def _scan_backquoted(text: str, i: int) -> int:
    """A `name` ends at the next backquote: FalkorDB has no ``-escape, so neither do we
    (a doubled backquote is two names, as the server reads it)."""
    j = text.find("`", i + 1)
    if j < 0:
        raise CypherSyntaxError(f"unterminated `name` starting at offset {i}")
    return j + 1


def _scan_word(text: str, i: int) -> int:
    j = i
    while j < len(text) and (text[j].isalnum() or text[j] == "_"):
        j += 1
    return j


def _scan_number(text: str, i: int) -> int:
    j = i
    if text.startswith(("0x", "0X"), i):
        return _scan_word(text, i + 2)
    while j < len(text) and text[j].isdigit():
        j += 1
    if j + 1 < len(text) and text[j] == "." and text[j + 1].isdigit():  # not the '..' of a range
        j += 1
        while j < len(text) and text[j].isdigit():
            j += 1
    if j < len(text) and text[j] in "eE":
        k = j + 1 + (j + 1 < len(text) and text[j + 1] in "+-")
        if k < len(text) and text[k].isdigit():
            j = _scan_word(text, k)
    if j < len(text) and (text[j].isalpha() or text[j] == "_"):
        raise CypherSyntaxError(f"malformed number at offset {i}")
    return j


def check_balanced(tokens: list[Token]) -> None:
    """Raise CypherSyntaxError unless (), [] and {} nest properly."""
    stack: list[str] = []
    for tok in tokens:
        if tok.kind != OP:
            continue
        if tok.text in _OPEN_TO_CLOSE:
            stack.append(_OPEN_TO_CLOSE[tok.text])
        elif tok.text in _CLOSERS and (not stack or stack.pop() != tok.text):
            raise CypherSyntaxError(f"unbalanced {tok.text!r}")
    if stack:
        raise CypherSyntaxError(f"missing {stack[-1]!r}")


def matching(tokens: list[Token], i: int) -> int:
    """Index of the bracket closing the one at `i` (tokens must be balanced)."""
    depth = 0
    for j in range(i, len(tokens)):
        tok = tokens[j]
        if tok.kind == OP and tok.text in _OPEN_TO_CLOSE:
            depth += 1
        elif tok.kind == OP and tok.text in _CLOSERS:
            depth -= 1
            if depth == 0:
                return j
    raise CypherSyntaxError("unbalanced brackets")


def top_level(tokens: list[Token], start: int = 0, end: int | None = None) -> list[int]:
    """Indexes in [start, end) that are not inside any bracket opened in that range."""
    end = len(tokens) if end is None else end
    out, i = [], start
    while i < end:
        out.append(i)
        i = matching(tokens, i) + 1 if tokens[i].kind == OP and tokens[i].text in _OPEN_TO_CLOSE else i + 1
    return out


def split_top(tokens: list[Token], start: int, end: int, sep: str = ",") -> list[tuple[int, int]]:
    """[start, end) cut at top-level `sep` operators, as (start, end) ranges."""
    parts, begin = [], start
    for i in top_level(tokens, start, end):
        if tokens[i].is_op(sep):
            parts.append((begin, i))
            begin = i + 1
    parts.append((begin, end))
    return parts


@dataclass(frozen=True)
class Clause:
    keyword: str  # "MATCH", "OPTIONAL MATCH", "ORDER BY", "DETACH DELETE", "WHERE", ...
    start: int    # index of the keyword's first token
    body: int     # index of the first token after the keyword
    end: int      # index after the clause's last token


def split_clauses(tokens: list[Token], start: int = 0, end: int | None = None) -> list[Clause]:
    """Top-level clauses of [start, end). Tokens before the first clause keyword form a
    clause with keyword "" (which a read-only query never has)."""
    end = len(tokens) if end is None else end
    heads: list[tuple[int, str, int]] = []  # (start, keyword, body)
    for i in top_level(tokens, start, end):
        word = tokens[i].upper
        if word not in _CLAUSE_WORDS or _is_property_or_label(tokens, i):
            continue
        if word == "WITH" and i > 0 and tokens[i - 1].is_kw("STARTS", "ENDS"):
            continue
        second = _TWO_WORD_CLAUSES.get(word)
        if second and i + 1 < end and tokens[i + 1].upper == second:
            heads.append((i, f"{word} {second}", i + 2))
        else:
            heads.append((i, word, i + 1))
    if not heads or heads[0][0] != start:
        heads.insert(0, (start, "", start))
    clauses = []
    for k, (s, word, body) in enumerate(heads):
        e = heads[k + 1][0] if k + 1 < len(heads) else end
        clauses.append(Clause(word, s, body, e))
    return [c for c in clauses if c.keyword or c.end > c.start]


def _is_property_or_label(tokens: list[Token], i: int) -> bool:
    """`n.set`, `(n:Create)`, `{delete: 1}`, `set.x`: a keyword-looking word used as a name
    (no clause keyword is ever followed by '.' or ':' or preceded by them)."""
    before = tokens[i - 1] if i > 0 else None
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    return bool((before and before.is_op(".", ":")) or (after and after.is_op(".", ":")))


def render(tokens: list[Token]) -> str:
    """The query text of `tokens` (comments already gone)."""
    if not tokens:
        return ""
    return tokens[0].text + "".join(tok.pre + tok.text for tok in tokens[1:])


def relex(text: str, pre: str = " ") -> list[Token]:
    """Tokens of a snippet the checker writes, the first one preceded by `pre`."""
    toks = tokenize(text)
    return [replace(toks[0], pre=pre), *toks[1:]] if toks else []



def name_text(tok: Token) -> str:
    """An identifier or a backquoted name, unquoted."""
    return tok.text[1:-1] if tok.kind == NAME else tok.text


def string_value(tok: Token) -> str:
    """The value of a string literal token, decoding the escapes FalkorDB decodes."""
    body, out, k = tok.text[1:-1], [], 0
    while k < len(body):
        if body[k] == "\\" and k + 1 < len(body) and body[k + 1] in "\\'\"":
            out.append(body[k + 1])
            k += 2
        else:
            out.append(body[k])
            k += 1
    return "".join(out)
