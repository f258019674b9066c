"""The sandbox: runs untrusted generated code. One executor (and one zygote process) per pytest process and level.

`get_executor(level).run(ExecRequest) -> ExecResult` is all that runners use; see docs/sandbox.md and
docs/security.md for the layers and what they defend."""

from __future__ import annotations

import atexit

from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits
from pytest_codeeval.sandbox.executor import SANDBOX_LEVELS, ZygoteExecutor

__all__ = ["ExecRequest", "ExecResult", "Limits", "SANDBOX_LEVELS", "ZygoteExecutor", "get_executor"]

_EXECUTORS: dict[str, ZygoteExecutor] = {}


def get_executor(level: str) -> ZygoteExecutor:
    """The executor of this process for `level`, started on first use and closed when the process exits."""
    if level not in _EXECUTORS:
        _EXECUTORS[level] = ZygoteExecutor(level)
    return _EXECUTORS[level]


@atexit.register
def _close_all() -> None:
    for executor in _EXECUTORS.values():
        executor.close()
