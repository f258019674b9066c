"""Hooks that conftest.py files and plugins implement to add tasks."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry


@pytest.hookspec
def pytest_codeeval_register_tasks(registry: TaskRegistry, config: pytest.Config) -> None:
    """Add tasks to the registry (`registry.add(TaskClass)`); called once per process before collection."""
