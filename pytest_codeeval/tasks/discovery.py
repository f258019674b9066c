"""Tasks from the paths a user pointed at (`--codeeval-task-path`, ini `codeeval_task_path`): YAML files and
task directories. Registering parses and validates them, but loads no data and runs no user code."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.directory_tasks import METADATA
from pytest_codeeval.tasks.registry import TaskRegistry

YAML_SUFFIXES = (".yaml", ".yml")
_TASK_LINE = re.compile(rb"^task\s*:", re.M)


def _is_task_yaml(path: Path) -> bool:
    """A YAML file that declares a task; files that only serve as `include` bases have no top-level `task:`."""
    return bool(_TASK_LINE.search(path.read_bytes()))


def find_tasks(path: Path) -> Iterator[tuple[str, Path]]:
    """("yaml" | "directory", path) for every task under `path`, in a stable order."""
    if path.is_file():
        if path.suffix not in YAML_SUFFIXES:
            raise CodeevalError(f"--codeeval-task-path={path}: not a YAML file or a directory")
        yield "yaml", path
        return
    if (path / METADATA).is_file():
        yield "directory", path
        return
    for child in sorted(path.iterdir()):
        if child.name.startswith((".", "__")):
            continue
        if child.is_dir():
            yield from find_tasks(child)
        elif child.suffix in YAML_SUFFIXES and _is_task_yaml(child):
            yield "yaml", child


def add_task_paths(registry: TaskRegistry, paths: Iterable[Path]) -> None:
    from pytest_codeeval.tasks.directory_tasks import directory_task_class
    from pytest_codeeval.tasks.yaml_tasks import yaml_task_class

    for path in paths:
        if not path.exists():
            raise CodeevalError(f"--codeeval-task-path={path}: no such file or directory")
        for kind, found in find_tasks(path):
            task_cls = yaml_task_class(found) if kind == "yaml" else directory_task_class(found)
            registry.add(task_cls, source=str(found))
