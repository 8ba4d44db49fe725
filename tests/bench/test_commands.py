"""Every benchmark is a `python -m bench` command: listed in the docstring, no script entries of its own."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import bench.__main__ as bench_main

BENCH = Path(bench_main.__file__).resolve().parent


def command_names() -> list[str]:
    subparsers = next(a for a in bench_main.build_parser()._actions if a.dest == "command")
    return list(subparsers.choices)


def test_every_command_is_listed_in_the_docstring():
    names = command_names()
    assert {"vector-speed", "glee-check", "local-llm", "ner-speed"} <= set(names)
    listed = {line.split()[0] for line in bench_main.__doc__.splitlines() if line.startswith("    ")}
    missing = [name for name in names if name not in listed]
    assert not missing, f"commands missing from bench/__main__.py's docstring: {missing}"


def test_every_command_has_a_handler_and_the_common_options():
    for name in bench_main.COMMAND_MODULES:
        assert callable(importlib.import_module(name).register), name
    subparsers = next(a for a in bench_main.build_parser()._actions if a.dest == "command")
    for command, parser in subparsers.choices.items():
        assert callable(parser.get_default("handler")), command
        options = {option for action in parser._actions for option in action.option_strings}
        assert {"--json", "--results-dir", "--torch-threads"} <= options, command


def test_no_bench_module_is_a_script_of_its_own():
    """No sys.path edits, no `if __name__ == "__main__"` outside bench/__main__.py, no SystemExit."""
    found = []
    for path in sorted(BENCH.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", "") == "sys":
                found.append(f"{path.name}:{node.lineno} sys.path")
            if isinstance(node, ast.Name) and node.id == "SystemExit":
                found.append(f"{path.name}:{node.lineno} SystemExit")
            if (isinstance(node, ast.Compare) and getattr(node.left, "id", "") == "__name__"
                    and path.name != "__main__.py"):
                found.append(f"{path.name}:{node.lineno} __name__ check")
    assert not found, found
