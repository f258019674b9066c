"""The package's shape: the pytest-facing layer sits on top of a pipeline that never loads pytest, no module imports
itself back through others, and importing the plugin loads no heavy library."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest_codeeval

PACKAGE = Path(pytest_codeeval.__file__).parent
PYTEST_LAYER = "pytest_codeeval.pytest_plugin"
ENTRY_POINT = "pytest_codeeval.plugin"  # pyproject's pytest11 entry point: options, then the layer's roles
HOOKSPECS = "pytest_codeeval.hookspecs"  # the hook conftest.py files implement, added by the entry point
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


def pytest_facing(name: str) -> bool:
    return name in (ENTRY_POINT, HOOKSPECS, PYTEST_LAYER) or name.startswith(PYTEST_LAYER + ".")


def test_nothing_below_the_pytest_layer_loads_pytest() -> None:
    """Transitively: each module outside the pytest layer, imported in a fresh interpreter, loads no `pytest` or
    `_pytest` module (bad input is a plain `CodeevalError` there; the layer makes it pytest's usage error). They are
    imported one after the other; the first that loads pytest is named."""
    below = sorted(name for name in import_graph() if not pytest_facing(name))
    assert len(below) > 40 and "pytest_codeeval.evaluation.outcome" in below and "pytest_codeeval.tasks" in below
    code = (
        "import importlib, json, sys\n"
        f"for name in {below!r}:\n"
        "    importlib.import_module(name)\n"
        "    if 'pytest' in sys.modules or '_pytest' in sys.modules:\n"
        "        print(json.dumps(name))\n"
        "        break\n"
        "else:\n"
        "    print(json.dumps(None))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) is None


def test_the_end_of_a_run_and_its_reports_do_not_use_pytest() -> None:
    """A RunOutcome is a plain value: outcome, gates and every report format can be used without a pytest run."""
    pure = ("pytest_codeeval.evaluation", "pytest_codeeval.reporting")
    for path in PACKAGE.rglob("*.py"):
        if module_name(path).startswith(pure):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
            assert not {name for name in imported if name.split(".")[0] in ("pytest", "_pytest")}, path


def test_only_the_solution_sources_know_their_kind() -> None:
    """Outside solutions/, a source is the `SolutionSource` protocol that `make_source` returns: no module imports
    a kind of source (the reference, a file, a model) to ask which one it has; each answers for itself."""
    sources = "pytest_codeeval.solutions"
    kinds = {f"{sources}.{kind}" for kind in ("file", "model", "reference")}
    allowed = {"SolutionSource", "make_source"}
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if module_name(path).startswith(sources):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = {alias.name for alias in node.names if alias.name in kinds}
            elif isinstance(node, ast.ImportFrom) and node.module in kinds:
                names = {f"{node.module}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module == sources:
                names = {alias.name for alias in node.names} - allowed
            else:
                continue
            found.setdefault(module_name(path), set()).update(names)
    assert {name: sorted(names) for name, names in found.items() if names} == {}


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


# The imports that run up a floor, each named in docs/architecture.md: settings.py reads the CI gates' rules
# (evaluation/gates.py) and the end of a run reads the settings; a task names generation's types for type checking
UPWARD = {("pytest_codeeval.evaluation", "pytest_codeeval.settings"), ("pytest_codeeval.tasks", "pytest_codeeval.generation")}


def floors() -> list[str]:
    """The package's floors from the top down, as docs/architecture.md's tree lists them (its entries of one
    level: `plugin.py`, `pytest_plugin/`, ...)."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = text.split("```", 2)[1]
    return [f"pytest_codeeval.{entry.rstrip('/').removesuffix('.py')}"
            for entry in re.findall(r"^  ([a-z_]+(?:\.py|/))\s", tree, re.MULTILINE)]


def test_imports_go_down_the_floors() -> None:
    """Every module stands on one floor of docs/architecture.md's list, and imports (at the top, in a function or
    for type checking) only from its own floor or those below it, save the exceptions the page names (UPWARD)."""
    order = floors()
    assert order[:3] == [ENTRY_POINT, HOOKSPECS, PYTEST_LAYER] and len(order) == len(set(order)) > 15

    def floor(name: str) -> int:
        return next(i for i, top in enumerate(order) if name == top or name.startswith(top + "."))

    graph = import_graph()
    unplaced = [name for name in graph if name != "pytest_codeeval" and not any(
        name == top or name.startswith(top + ".") for top in order)]
    assert unplaced == []
    upward = {(order[floor(name)], order[floor(target)]) for name, imported in graph.items() if name != "pytest_codeeval"
              for target in imported if target != "pytest_codeeval" and floor(target) < floor(name)}
    assert upward <= UPWARD, sorted(upward - UPWARD)


def test_importing_the_plugin_loads_no_heavy_library() -> None:
    """In a fresh interpreter (this one has them: tests/conftest.py imports some for pytester's sake)."""
    code = (
        "import json, sys\n"
        "import pytest_codeeval.plugin, pytest_codeeval.pytest_plugin.roles\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_the_makefile_s_toolchain_rows_are_the_language_classes() -> None:
    """`make setup LANGS=...` installs each language's `package` (the Debian packages it names; a remark in
    parentheses aside) when one of its `tools` is missing; every language but Python's is in a list there."""
    from pytest_codeeval.languages import get_language
    from pytest_codeeval.runners import MODULES

    rows = dict(re.findall(r"^(\w+)\s*:=\s*(.*)$", (PACKAGE.parent / "Makefile").read_text(), re.MULTILINE))
    packaged, unpackaged = rows["ALL_LANGS"].split(), rows["UNPACKAGED"].split()
    assert sorted([*packaged, *unpackaged, "py"]) == sorted(MODULES)
    for name in packaged:
        language = get_language(name)
        assert rows[f"PKG_{name}"].split() == language.package.split(" (")[0].split(), name
        assert rows[f"CMD_{name}"] in language.tools, name
    for name in unpackaged:
        assert rows[f"CMD_{name}"] in get_language(name).tools, name


def test_every_benchmark_module_is_listed_once() -> None:
    """A catalogue module with a `register` is in `catalogue.MODULES` (else its tasks would silently be missing),
    and every listed module registers."""
    from pytest_codeeval.tasks import catalogue

    folder = Path(catalogue.__file__).parent
    registering = {
        path.parent.name if path.name == "__init__.py" else path.stem
        for path in [*folder.glob("*.py"), *folder.glob("*/__init__.py")]
        if path.parent != folder or path.name != "__init__.py"
        if any(isinstance(node, (ast.FunctionDef, ast.ImportFrom)) and (
            getattr(node, "name", None) == "register" or any(a.name == "register" for a in getattr(node, "names", ())))
               for node in ast.parse(path.read_text(encoding="utf-8")).body)
    }
    assert len(catalogue.MODULES) == len(set(catalogue.MODULES))
    assert set(catalogue.MODULES) == registering


def test_the_tests_mirror_the_package_tree() -> None:
    """Every package has its tests at the same path under tests/ (a folder; a small subpackage may instead be one
    file, test_<name>.py, in its parent's folder), and every folder of tests/ names a package (or the benchmarks)."""
    tests = PACKAGE.parent / "tests"
    packages = {path.parent.relative_to(PACKAGE) for path in PACKAGE.rglob("__init__.py")} - {Path(".")}
    for package in packages:
        mirrored = (tests / package).is_dir() or (tests / package.parent / f"test_{package.name}.py").is_file()
        assert mirrored, f"pytest_codeeval/{package} has no tests/{package}/"
    folders = {path.parent.relative_to(tests) for path in tests.rglob("test_*.py")
               if path.parent.relative_to(tests).parts[:1] != ("data",)}
    assert folders - packages <= {Path("."), Path("benchmarks")}, folders - packages
