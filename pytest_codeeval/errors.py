"""The one error type users see: a message that names the input and the fix."""

from __future__ import annotations

import pytest


class CodeevalError(pytest.UsageError):
    """Bad input from the user (an option, a file, a task). pytest prints it as one line, no traceback."""
