"""How each program runs: one table naming every runner a task can ask for (its `language`, or its judge in
`Task.runner`), as "module:Class", made when a sample first asks for it. Nothing registers at import."""

from __future__ import annotations

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.languages import MODULES, canonical_name
from pytest_codeeval.runners.base import Outcome, Runner, load

# Judges: Python programs run their own way and read by their own rules (pytest_codeeval/judges/)
_JUDGES = "pytest_codeeval.judges"
# HumanEvalPack's variants of the language modules' runners, beside their tasks (programs.RUNNER_LANGUAGES)
_PACK = "pytest_codeeval.tasks.catalogue.humanevalpack.runners"
# what a task may name as its judge (YAML's `judge:`): a fixed list
JUDGES = {
    "answer": f"{_JUDGES}.answer:AnswerJudge", "stdio": f"{_JUDGES}.stdio:StdioJudge",
    "cputime": f"{_JUDGES}.cputime:CpuTimeJudge",
    "humanevalpack-js": f"{_PACK}:PackJavaScript", "humanevalpack-java": f"{_PACK}:PackJava",
    "humanevalpack-cpp": f"{_PACK}:PackCpp", "humanevalpack-go": f"{_PACK}:PackGo",
    "humanevalpack-rust": f"{_PACK}:PackRust",
}
# every runner by name: the languages (Python's is `py`, a task's `python` by languages.ALIASES), then the judges
RUNNERS: dict[str, str] = {**{name: f"pytest_codeeval.languages.{spec}" for name, spec in MODULES.items()}, **JUDGES}

__all__ = ["JUDGES", "RUNNERS", "Outcome", "Runner", "get_runner"]


def get_runner(language: str) -> Runner:
    """The runner for `language`: a language (by MultiPL-E's short name or an alias such as python, rust or
    javascript) or a judge."""
    spec = RUNNERS.get(canonical_name(language) or language)
    if spec is None:
        raise CodeevalError(f"no runner for language {language!r}; available: {', '.join(sorted(RUNNERS))}")
    runner: Runner = load(spec)
    return runner
