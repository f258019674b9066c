"""The sandbox: runs untrusted generated code. A `ZygoteExecutor` drives one zygote process, which forks each
sample; `run(ExecRequest) -> ExecResult`, the `Executor` protocol (api.py), is all that runners use.

The execution pool (execution/pool.py) keeps `--codeeval-jobs` executors per pytest process; `get_executor(level)`
is one shared executor per level for callers without a pool (benchmarks, tests). See docs/sandbox.md and
docs/security.md for the layers and what they defend. The names below load on first use: the zygote imports
this package too, and every module it holds makes each of its forks dearer."""

from __future__ import annotations

import atexit
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_codeeval.sandbox.executor import ZygoteExecutor

__all__ = ["ExecRequest", "ExecResult", "Executor", "Limits", "SANDBOX_LEVELS", "ZygoteExecutor", "get_executor"]

_EXECUTORS: dict[str, ZygoteExecutor] = {}


def __getattr__(name: str) -> Any:
    if name in ("ExecRequest", "ExecResult", "Executor", "Limits", "SANDBOX_LEVELS"):
        from pytest_codeeval.sandbox import api

        return getattr(api, name)
    if name == "ZygoteExecutor":
        from pytest_codeeval.sandbox import executor

        return getattr(executor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_executor(level: str) -> ZygoteExecutor:
    """The executor of this process for `level`, started on first use and closed when the process exits."""
    from pytest_codeeval.sandbox.executor import ZygoteExecutor

    if level not in _EXECUTORS:
        _EXECUTORS[level] = ZygoteExecutor(level)
    return _EXECUTORS[level]


@atexit.register
def _close_all() -> None:
    for executor in _EXECUTORS.values():
        executor.close()
