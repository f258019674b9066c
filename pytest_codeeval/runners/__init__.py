"""Runners: how to execute a language. One per language, looked up by the task's `language`."""

from __future__ import annotations

import importlib
from functools import cache

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.runners.answer import AnswerRunner
from pytest_codeeval.runners.base import Outcome, Runner
from pytest_codeeval.runners.cputime import CpuTimeRunner
from pytest_codeeval.runners.python import PythonRunner
from pytest_codeeval.runners.stdio import StdioRunner

# languages, and judges (`Task.runner`) that run a Python program and read its result their own way
RUNNERS: dict[str, Runner] = {
    "python": PythonRunner(), "answer": AnswerRunner(), "stdio": StdioRunner(), "cputime": CpuTimeRunner(),
}

# Runners defined beside their tasks, as "module:Class", imported when a sample first asks for one: nothing
# registers at import (HumanEvalPack's variants of the language modules' runners, programs.RUNNER_LANGUAGES)
_PACK = "pytest_codeeval.tasks.catalogue.humanevalpack.runners"
LAZY_RUNNERS = {
    "humanevalpack-js": f"{_PACK}:PackJavaScript", "humanevalpack-java": f"{_PACK}:PackJava",
    "humanevalpack-cpp": f"{_PACK}:PackCpp", "humanevalpack-go": f"{_PACK}:PackGo",
    "humanevalpack-rust": f"{_PACK}:PackRust",
}

__all__ = ["LAZY_RUNNERS", "RUNNERS", "Outcome", "Runner", "get_runner", "runner_names"]


def runner_names() -> set[str]:
    """The names `get_runner` knows besides the languages' modules: Python, the judges and the lazy runners."""
    return {*RUNNERS, *LAZY_RUNNERS}


@cache
def _lazy_runner(spec: str) -> Runner:
    module, name = spec.split(":")
    runner: Runner = getattr(importlib.import_module(module), name)()
    return runner


def get_runner(language: str) -> Runner:
    """The runner for `language`: Python's, or one of `pytest_codeeval.languages` (by MultiPL-E's short name or
    an alias such as rust or javascript)."""
    if language in RUNNERS:
        return RUNNERS[language]
    if language in LAZY_RUNNERS:
        return _lazy_runner(LAZY_RUNNERS[language])
    from pytest_codeeval.languages import MODULES, get_language

    try:
        return get_language(language)
    except KeyError:
        raise CodeevalError(
            f"no runner for language {language!r}; available: {', '.join(sorted({*runner_names(), *MODULES}))}"
        ) from None
