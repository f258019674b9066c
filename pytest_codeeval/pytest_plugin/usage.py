"""The pytest boundary for bad input: below it a `CodeevalError` is a plain exception; a hook that lets one out
hands pytest its usage error instead, which pytest prints as one line and exits 4 with."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from pytest_codeeval.errors import CodeevalError

F = TypeVar("F", bound=Callable[..., Any])


def usage_error(exc: CodeevalError) -> pytest.UsageError:
    return pytest.UsageError(str(exc))


def hook(function: F) -> F:
    """A hook (or a hook wrapper, a generator) whose CodeevalError reaches pytest as its usage error."""
    if inspect.isgeneratorfunction(function):
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return (yield from function(*args, **kwargs))
            except CodeevalError as exc:
                raise usage_error(exc) from exc
    else:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except CodeevalError as exc:
                raise usage_error(exc) from exc
    return wrapper  # type: ignore[return-value]
