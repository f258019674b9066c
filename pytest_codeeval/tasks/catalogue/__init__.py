"""The built-in benchmarks, one module (or package) each. A benchmark's module defines its tasks and a
`register(registry)` that adds them; adding a benchmark is adding its module and its line in MODULES. Nothing
registers at import: `register` imports each module when the registry is built (and loads no data)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

# In registration order, which is --codeeval-list-tasks' order.
MODULES = (
    "humaneval", "mbpp", "humanevalpack", "multiple", "instruct_humaneval", "recode", "parity", "conala", "codexglue",
    "santacoder_fim", "humaneval_infilling", "spider", "pal", "apps", "ds1000", "mercury", "quixbugs", "python_bugs",
    "studenteval",
)


def register(registry: TaskRegistry) -> None:
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}").register(registry)
