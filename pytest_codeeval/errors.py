"""The one error type users see: a message that names the input and the fix."""

from __future__ import annotations

import pytest


# UsageError is final in pytest's types; subclassing it is what makes pytest print one line and exit 4.
class CodeevalError(pytest.UsageError):  # type: ignore[misc]
    """Bad input from the user (an option, a file, a task). pytest prints it as one line, no traceback."""


class DataUnavailable(CodeevalError):  # type: ignore[misc]
    """A task's rows cannot be had here (the hub unreachable, a download that failed). A task named on the command
    line stops the run with this line; one matched by a glob, a family or the default selection is skipped with
    `reason`, which does not name the task (the summary groups tasks by it), and the others run."""

    def __init__(self, task: str, why: str, fix: str, why_in_general: str | None = None) -> None:
        super().__init__(f"{task}: no data here: {why}; {fix.format(task=task)}")
        self.reason = f"no data here: {why_in_general or why}; {fix.format(task='TASK')}"
