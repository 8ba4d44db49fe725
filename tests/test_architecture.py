"""Architecture: the import graph of the project's own modules has no cycle and respects the layers,
and every exception the project defines hangs under the one root, `fpkg.errors.FpkgError`.

Files are parsed with `ast`, never imported. Every import counts: at the top of a module, inside a
function (a lazy import is still a dependency), and under `if TYPE_CHECKING:`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fpkg", "accounts", "graphstore", "kg_dump", "retrieval", "explore", "curation", "llm", "ner", "app",
            "bench", "hf_card")
SCRIPTS = ("space_app.py",)
ALL_TOP = (*PACKAGES, *(Path(script).stem for script in SCRIPTS))

# package -> the project packages it must not import
FORBIDDEN = {
    "fpkg": set(ALL_TOP) - {"fpkg"},
    "kg_dump": {"retrieval", "llm", "ner", "app", "bench", "hf_card"},
    "graphstore": {"retrieval", "llm", "ner", "app", "bench", "hf_card"},
    "retrieval": {"app", "bench"},
    "explore": {"llm", "ner", "app", "bench", "hf_card"},  # the graph's flows: read by the app, not a client of it
    "llm": {"app", "bench"},
    # users, sessions, history, audit: nothing of the graph, retrieval or models
    # curated growth: graph writes, the overlay, extraction; not the app, not LLMs
    "curation": {"llm", "app", "bench", "hf_card", "accounts"},
    "accounts": {"graphstore", "kg_dump", "retrieval", "explore", "curation", "llm", "ner", "app", "bench", "hf_card"},
}
ROOT_ERROR = ("fpkg/errors.py", "FpkgError")


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the project (a package is its __init__)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    for script in SCRIPTS:
        found[Path(script).stem] = ROOT / script
    return found


def imported_names(module: str, path: Path, tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Every dotted name an import statement anywhere in the file may load, with its line:
    `import a.b` gives a.b; `from a import b` gives a.b (a module) and a (a name in it)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package, one level up per extra dot
                package = module.split(".") if is_package else module.split(".")[:-1]
                base_parts = package[: len(package) - (node.level - 1)]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            yield base, node.lineno
            for alias in node.names:
                if alias.name != "*":
                    yield f"{base}.{alias.name}", node.lineno


def resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module a dotted name lands in (the longest known prefix), or None if external."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


@cache
def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported project module: the first line importing it}."""
    modules = module_files()
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: dict[str, int] = {}
        for name, line in imported_names(module, path, tree):
            target = resolve(name, modules)
            if target is not None and target != module:
                edges.setdefault(target, line)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (a -> b -> ... -> a) for each strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(node: str) -> None:  # Tarjan; the graph is small enough for recursion
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)

    found = []
    for component in components:
        start = min(component)
        paths = {start: [start]}  # breadth-first inside the component: a shortest way back to start
        queue = [start]
        while queue:
            node = queue.pop(0)
            targets = sorted(t for t in graph[node] if t in component)
            if start in targets:
                found.append([*paths[node], start])
                break
            for target in targets:
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    queue.append(target)
    return found


def describe(cycle: list[str], graph: dict[str, dict[str, int]]) -> str:
    return " -> ".join(cycle) + "  (" + ", ".join(
        f"{a} line {graph[a][b]}" for a, b in zip(cycle, cycle[1:], strict=False)) + ")"


# ---- the parser itself --------------------------------------------------------------------------
def test_the_import_graph_sees_every_package_and_every_kind_of_import():
    graph = import_graph()
    assert {module.split(".")[0] for module in graph} == set(ALL_TOP)
    assert len(graph) > 50 and sum(map(len, graph.values())) > 100
    # a top-level import, an import under `if TYPE_CHECKING:`, and one inside a function
    assert "fpkg.errors" in graph["graphstore.store"]
    assert "retrieval.cypher.checker" in graph["retrieval.cypher.mode"]
    typed = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from llm.base import Generator\n"
                      "def f():\n    from .checker import check_cypher\n    import retrieval.result\n")
    names = {name for name, _ in imported_names("retrieval.cypher.mode", Path("mode.py"), typed)}
    assert {"llm.base", "retrieval.cypher.checker", "retrieval.result"} <= names
    package_relative = ast.parse("from . import mode\nfrom ..result import Triple\n")
    names = {name for name, _ in imported_names("retrieval.cypher", Path("__init__.py"), package_relative)}
    assert {"retrieval.cypher.mode", "retrieval.result.Triple"} <= names


def test_cycle_finder_reports_a_cycle():
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3, "d": 4}, "d": {}, "e": {"e": 5}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert describe(["a", "b", "c", "a"], graph) == "a -> b -> c -> a  (a line 1, b line 2, c line 3)"


# ---- the project's rules --------------------------------------------------------------------------
def test_no_import_cycle_between_modules():
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(cycle, graph) for cycle in found)


def test_layers_import_only_downwards():
    graph = import_graph()
    wrong = [f"{module} imports {target} (line {line})"
             for module, edges in sorted(graph.items())
             for target, line in sorted(edges.items())
             if target.split(".")[0] in FORBIDDEN.get(module.split(".")[0], set())]
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_one_root_exception_outside_tests():
    """The equivalent of `grep -rn "class .*(Exception)"` outside tests/ and .venv: one line."""
    direct = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] == "tests" or any(part.startswith(".") for part in relative.parts):
            continue  # tests/, and .venv/ and other hidden folders
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    (isinstance(base, ast.Name) and base.id == "Exception")
                    or (isinstance(base, ast.Attribute) and base.attr == "Exception") for base in node.bases):
                direct.append((relative.as_posix(), node.name))
    assert direct == [ROOT_ERROR], f"classes deriving directly from Exception: {direct}"


def _memoised(tree: ast.AST) -> Iterator[tuple[ast.FunctionDef, ast.expr, bool]]:
    """(function, its cache decorator, defined inside another function) for every memoised function."""
    nested = {id(inner) for outer in ast.walk(tree) if isinstance(outer, ast.FunctionDef)
              for inner in ast.walk(outer) if inner is not outer and isinstance(inner, ast.FunctionDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in ("cache", "lru_cache"):
                    yield node, decorator, id(node) in nested


def test_every_cache_a_long_running_app_fills_is_bounded():
    """Memory under load stays flat only if no cache grows with the requests: an lru_cache names
    its maxsize; an unbounded `cache` memoises a function of no arguments (one value) or a closure
    over one fixed structure (an ontology's terms), never a module-level function of user input."""
    unbounded = []
    for module, path in module_files().items():
        for function, decorator, nested in _memoised(ast.parse(path.read_text())):
            arguments = [a.arg for a in function.args.args if a.arg not in ("self", "cls")]
            if isinstance(decorator, ast.Call):  # lru_cache(...)
                maxsize = next((k.value for k in decorator.keywords if k.arg == "maxsize"),
                               decorator.args[0] if decorator.args else None)
                bounded = isinstance(maxsize, ast.Constant) and isinstance(maxsize.value, int)
            else:  # @cache, or @lru_cache without arguments (maxsize 128: bounded)
                bounded = getattr(decorator, "id", getattr(decorator, "attr", "")) == "lru_cache" \
                    or not arguments or nested
            if not bounded:
                unbounded.append(f"{module}.{function.name} (line {function.lineno})")
    assert not unbounded, unbounded
