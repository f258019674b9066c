"""The one error type users see: a message that names the input and the fix."""

from __future__ import annotations


class CodeevalError(Exception):
    """Bad input from the user (an option, a file, a task). A plain exception, so that nothing below the pytest
    layer needs pytest: the layer's hooks hand it to pytest as a usage error (`pytest_plugin/usage.py`), which
    pytest prints as one line, no traceback, and exits 4 with."""


class DataUnavailable(CodeevalError):
    """A task's rows cannot be had here (the hub unreachable, a download that failed). A task named on the command
    line stops the run with this line; one matched by a glob, a family or the default selection is skipped with
    `reason`, which does not name the task (the summary groups tasks by it), and the others run."""

    def __init__(self, task: str, why: str, fix: str, why_in_general: str | None = None) -> None:
        super().__init__(f"{task}: no data here: {why}; {fix.format(task=task)}")
        self.reason = f"no data here: {why_in_general or why}; {fix.format(task='TASK')}"
