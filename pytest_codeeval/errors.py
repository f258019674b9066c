"""The one error type users see: a message that names the input and the fix."""

from __future__ import annotations


class CodeevalError(Exception):
    """Bad input from the user (an option, a file, a task). A plain exception, so that nothing below the pytest
    layer needs pytest: the layer's hooks hand it to pytest as a usage error (`pytest_plugin/usage.py`), which
    pytest prints as one line, no traceback, and exits 4 with."""
