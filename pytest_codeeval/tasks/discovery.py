"""Tasks from the paths a user pointed at (`--codeeval-task-path`, ini `codeeval_task_path`): YAML files and
task directories. Registering parses and validates them, but loads no data and runs no user code."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.registry import TaskRegistry

YAML_SUFFIXES = (".yaml", ".yml")


def _is_task_yaml(path: Path) -> bool:
    """A YAML file that declares a task (files that only serve as `include` bases have no `task:` line)."""
    return any(line.startswith("task:") for line in path.read_text(encoding="utf-8").splitlines())


def _found(path: Path) -> Iterable[tuple[str, Path]]:
    if path.is_file():
        if path.suffix not in YAML_SUFFIXES:
            raise CodeevalError(f"--codeeval-task-path={path}: not a YAML file or a directory")
        yield "yaml", path
        return
    if (path / "metadata.json").exists():
        yield "directory", path
        return
    for child in sorted(path.iterdir()):
        if child.is_dir() and not child.name.startswith("."):
            yield from _found(child)
        elif child.suffix in YAML_SUFFIXES and _is_task_yaml(child):
            yield "yaml", child


def add_task_paths(registry: TaskRegistry, paths: Iterable[Path]) -> None:
    from pytest_codeeval.tasks.directory_tasks import directory_task_class
    from pytest_codeeval.tasks.yaml_tasks import yaml_task_class

    for path in paths:
        if not path.exists():
            raise CodeevalError(f"--codeeval-task-path={path}: no such file or directory")
        for kind, found in _found(path):
            task_cls = yaml_task_class(found) if kind == "yaml" else directory_task_class(found)
            registry.add(task_cls, source=str(found))
