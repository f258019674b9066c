"""The package's shape: the pytest-facing layer sits on top of a pipeline that never imports it, no module imports
itself back through others, and importing the plugin loads no heavy library."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest_codeeval

PACKAGE = Path(pytest_codeeval.__file__).parent
PYTEST_LAYER = "pytest_codeeval.pytest_plugin"
ENTRY_POINT = "pytest_codeeval.plugin"  # pyproject's pytest11 entry point: options, then the layer's roles
HEAVY = ("torch", "transformers", "datasets", "numpy", "jinja2", "sacrebleu", "vllm")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that `path` imports anywhere (at the top, in a function, or for type checking)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found.update(name for name in names if name in modules)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: imports_of(path, set(paths)) - {name} for name, path in paths.items()}


def test_nothing_below_the_pytest_layer_imports_it() -> None:
    graph = import_graph()
    assert PYTEST_LAYER in graph and len(graph) > 40  # the walk found the package
    outside = {name: sorted(i for i in imported if i == PYTEST_LAYER or i.startswith(PYTEST_LAYER + "."))
               for name, imported in graph.items()
               if name != ENTRY_POINT and not (name == PYTEST_LAYER or name.startswith(PYTEST_LAYER + "."))}
    assert {name: i for name, i in outside.items() if i} == {}


def test_the_end_of_a_run_and_its_reports_do_not_use_pytest() -> None:
    """A RunOutcome is a plain value: outcome, gates and every report format can be used without a pytest run."""
    pure = ("pytest_codeeval.evaluation", "pytest_codeeval.reporting")
    for path in PACKAGE.rglob("*.py"):
        if module_name(path).startswith(pure):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
            assert not {name for name in imported if name.split(".")[0] in ("pytest", "_pytest")}, path


def test_no_import_cycles() -> None:
    """A module's own package `__init__` is left out: importing a submodule runs it, that is no cycle."""
    graph = import_graph()
    edges = {name: {i for i in imported if not name.startswith(i + ".")} for name, imported in graph.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(edges[name]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], name, target] if target in path else [name, target])
            elif target not in state:
                visit(target, [*path, name])
        state[name] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name, [])
    assert cycles == []


def test_importing_the_plugin_loads_no_heavy_library() -> None:
    """In a fresh interpreter (this one has them: the root conftest.py imports some for pytester's sake)."""
    code = (
        "import json, sys\n"
        "import pytest_codeeval.plugin, pytest_codeeval.pytest_plugin.roles\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []
