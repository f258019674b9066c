"""Tasks: what to ask a model. This package is the framework (the Task API, the registry, discovery, loading, YAML
tasks, task directories); `catalogue/` holds the built-in benchmarks. `build_registry` gathers built-in, installed
and --codeeval-task-path tasks without loading data (the pytest plugin adds those of conftest.py files, through a
hook)."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import entry_points
from pathlib import Path

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Task, stop_at_stop_words
from pytest_codeeval.tasks.registry import TaskEntry, TaskRegistry

ENTRY_POINT_GROUP = "pytest_codeeval.tasks"

__all__ = ["Task", "TaskEntry", "TaskRegistry", "build_registry", "builtin_registry", "stop_at_stop_words"]


def builtin_registry() -> TaskRegistry:
    from pytest_codeeval.tasks import catalogue

    registry = TaskRegistry()
    catalogue.register(registry)
    return registry


def _add_installed(registry: TaskRegistry) -> None:
    """Tasks that other distributions declare under the `pytest_codeeval.tasks` entry point group."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            task_cls = ep.load()
        except Exception as exc:  # a broken third-party package must name itself
            raise CodeevalError(f"task entry point {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        registry.add(task_cls, source=f"entry point {ep.value}", name=ep.name)


def build_registry(task_paths: Iterable[Path] = ()) -> TaskRegistry:
    registry = builtin_registry()
    _add_installed(registry)
    if task_paths:
        from pytest_codeeval.tasks.discovery import add_task_paths

        add_task_paths(registry, task_paths)
    return registry
