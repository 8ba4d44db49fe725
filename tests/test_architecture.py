"""Architecture: the import graph of the project's own modules has no cycle and respects the layers,
and every exception the project defines hangs under the one root, `fpkg.errors.FpkgError`.

Files are parsed with `ast`, never imported. Every import counts: at the top of a module, inside a
function (a lazy import is still a dependency), and under `if TYPE_CHECKING:`.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The layers, lowest first: a package imports only packages of the layers below its own, never one
# beside it or above it. No allowance.
LAYERS = (
    ("fpkg",),  # config, errors, names: imports nothing of the project
    ("graphstore", "accounts", "hf_card", "llm", "identity"),  # the store; users; cards; generators; MONDO
    ("kg_dump",),  # reads the dump and HPO, builds into a store
    ("ner", "retrieval"),  # the recogniser; linking and the retrieval modes
    ("diagnosis", "explore", "curation"),  # the ranker; flows; curated facts
    ("service",),  # the pipeline the app and the benchmarks share
    ("app", "bench"),  # Gradio; experiments (never the app)
    ("space_app",),  # the Space's entry script
)
LAYER_OF = {package: rank for rank, layer in enumerate(LAYERS) for package in layer}
PACKAGES = tuple(package for layer in LAYERS for package in layer if package != "space_app")
SCRIPTS = ("space_app.py",)
ALL_TOP = (*PACKAGES, *(Path(script).stem for script in SCRIPTS))
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


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    """Imports of a package in the importer's own layer (not its own package) or above it."""
    wrong = []
    for module, edges in sorted(graph.items()):
        package = module.split(".")[0]
        for target, line in sorted(edges.items()):
            other = target.split(".")[0]
            if other != package and LAYER_OF[other] >= LAYER_OF[package]:
                wrong.append(f"{module} imports {target} (line {line})")
    return wrong


def test_every_package_has_a_layer():
    assert set(ALL_TOP) == set(LAYER_OF)
    assert {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"} == set(PACKAGES)


def test_the_layer_rule_finds_an_upward_and_a_sideways_import():
    graph = {"retrieval.linking": {"diagnosis.ranker": 3, "graphstore.store": 4},
             "ner.predict": {"retrieval.result": 7}, "bench.load": {"service.pipeline": 1}}
    assert upward_imports(graph) == ["ner.predict imports retrieval.result (line 7)",
                                     "retrieval.linking imports diagnosis.ranker (line 3)"]


def test_layers_import_only_downwards():
    wrong = upward_imports(import_graph())
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_bench_imports_no_app_module():
    graph = import_graph()
    assert not [(m, t) for m, edges in graph.items() if m.startswith("bench") for t in edges if t.startswith("app")]


BUILTIN_ERRORS = {name for name, value in vars(builtins).items()
                  if isinstance(value, type) and issubclass(value, BaseException)}


def error_classes(trees: dict[str, ast.AST]) -> dict[str, list[str]]:
    """Every class of the project that is an exception (one of its bases is a built-in exception
    or another such class), with its bases' names; classes are named file:Class."""
    classes = {f"{where}:{node.name}": node for where, tree in trees.items()
               for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    by_name: dict[str, list[str]] = {}
    for key in classes:
        by_name.setdefault(key.split(":")[1], []).append(key)

    def base_names(node: ast.ClassDef) -> list[str]:
        return [b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                if isinstance(b, ast.Name | ast.Attribute)]

    errors: dict[str, list[str]] = {}
    changed = True
    while changed:  # a class is an error once one of its bases is
        changed = False
        for key, node in classes.items():
            bases = base_names(node)
            if key not in errors and any(b in BUILTIN_ERRORS or any(k in errors for k in by_name.get(b, ()))
                                         for b in bases):
                errors[key] = bases
                changed = True
    return errors


def roots(errors: dict[str, list[str]]) -> list[str]:
    """Error classes none of whose bases is a project error: each is a root of its own."""
    project = {key.split(":")[1] for key in errors}
    return sorted(key for key, bases in errors.items() if not any(b in project for b in bases))


def test_the_root_finder_sees_any_built_in_base():
    trees = {"a.py": ast.parse("class Root(Exception): pass\nclass A(Root, ValueError): pass\n"
                               "class Other(RuntimeError): pass\nclass B(Other): pass\nclass C: pass\n")}
    errors = error_classes(trees)
    assert set(errors) == {"a.py:Root", "a.py:A", "a.py:Other", "a.py:B"}
    assert roots(errors) == ["a.py:Other", "a.py:Root"]


def test_one_root_exception_outside_tests():
    """Every exception class outside tests/ hangs under `fpkg.errors.FpkgError`, whatever built-in it
    also derives from (a class deriving from RuntimeError alone would be a second root)."""
    trees = {}
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] == "tests" or any(part.startswith(".") for part in relative.parts):
            continue  # tests/, and .venv/ and other hidden folders
        trees[relative.as_posix()] = ast.parse(path.read_text(encoding="utf-8"))
    assert roots(error_classes(trees)) == [":".join(ROOT_ERROR)]


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
