"""How each program runs: one table naming every runner a task can ask for (its `language`, or its judge in
`Task.runner`), as "module:Class", made when a sample first asks for it. Nothing registers at import, and nothing
here imports a runner's module: the table sits below the execution layer and the runners alike."""

from __future__ import annotations

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.runners.base import Outcome, Runner, load

# Languages, Python's included: MultiPL-E's short name -> "module:Class" of its module under
# pytest_codeeval/languages/, which holds its translator and its runner (docs/languages.md adds one)
MODULES = {
    "js": "javascript:JavaScript",
    "ts": "typescript:TypeScript",
    "java": "java:Java",
    "cpp": "cpp:Cpp",
    "go": "go:Go",
    "rs": "rust:Rust",
    "rb": "ruby:Ruby",
    "php": "php:Php",
    "sh": "bash:Bash",
    "pl": "perl:Perl",
    "py": "python:Python",
    "lua": "lua:Lua",
    "r": "r:R",
    "rkt": "racket:Racket",
    "jl": "julia:Julia",
    "elixir": "elixir:Elixir",
    "clj": "clojure:Clojure",
    "dart": "dart:Dart",
    "hs": "haskell:Haskell",
    "ml": "ocaml:OCaml",
    "swift": "swift:Swift",
    "cs": "csharp:CSharp",
    "scala": "scala:Scala",
    "d": "d:D",
}
# the names tasks use besides MultiPL-E's (HumanEvalPack's, file extensions): the one table of other names
ALIASES = {
    "javascript": "js",
    "typescript": "ts",
    "c++": "cpp",
    "golang": "go",
    "rust": "rs",
    "ruby": "rb",
    "bash": "sh",
    "perl": "pl",
    "python": "py",
    "racket": "rkt",
    "julia": "jl",
    "clojure": "clj",
    "haskell": "hs",
    "ocaml": "ml",
    "csharp": "cs",
    "c#": "cs",
    "dlang": "d",
    "go_test.go": "go",  # MultiPL-E rows' `language` for Go
    "humaneval_to_r.py": "r",  # MultiPL-E's 2022 files name some languages by their translator
    "humaneval_to_dlang.py": "d",
    "notypes.py": "py",
}
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
# every runner by name: the languages (Python's is `py`, a task's `python` by ALIASES), then the judges
RUNNERS: dict[str, str] = {**{name: f"pytest_codeeval.languages.{spec}" for name, spec in MODULES.items()}, **JUDGES}

__all__ = ["ALIASES", "JUDGES", "MODULES", "RUNNERS", "Outcome", "Runner", "canonical_name", "get_runner", "load"]


def canonical_name(name: str) -> str | None:
    """A language's MultiPL-E short name, from that name or an alias; None for a name that is no language."""
    name = ALIASES.get(name.lower(), name.lower())
    return name if name in MODULES else None


def get_runner(language: str) -> Runner:
    """The runner for `language`: a language (by MultiPL-E's short name or an alias such as python, rust or
    javascript) or a judge."""
    spec = RUNNERS.get(canonical_name(language) or language)
    if spec is None:
        raise CodeevalError(f"no runner for language {language!r}; available: {', '.join(sorted(RUNNERS))}")
    runner: Runner = load(spec)
    return runner
