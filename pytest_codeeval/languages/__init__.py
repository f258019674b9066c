"""Languages, Python's included: each one a module here holding its translator and its runner (see base.py).

Adding a language is adding its module and a line to MODULES (which `runners.RUNNERS` lists too);
docs/languages.md walks through one."""

from __future__ import annotations

import os
import pwd
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_codeeval.languages.base import Language

# MultiPL-E's short name -> "module:Class" of the module under pytest_codeeval/languages/ that defines it
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


def canonical_name(name: str) -> str | None:
    name = ALIASES.get(name.lower(), name.lower())
    return name if name in MODULES else None


def get_language(name: str) -> Language:
    """The language called `name` (MultiPL-E's short name or an alias); KeyError if there is none."""
    canonical = canonical_name(name)
    if canonical is None:
        raise KeyError(name)
    from pytest_codeeval.runners.base import load

    language: Language = load(f"{__name__}.{MODULES[canonical]}")
    return language


# Toolchains that install under the home directory (rustup's), which the sandbox hides: only the toolchains
# themselves are kept readable there (not ~/.cargo, which may hold a registry token), as is this project's cache of
# built toolchain artefacts (C++'s precompiled header, Go's seeded build cache). (directory, its variable, part kept)
HOME_TOOLCHAINS = ((".rustup", "RUSTUP_HOME", "toolchains"), (".cache/pytest-codeeval", "", "toolchains"))


def real_home() -> str:
    return os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)  # the real one: pytester moves HOME


def cache_dir() -> str:
    """Where built toolchain artefacts are kept between runs (readable inside the sandbox)."""
    path = os.path.join(real_home(), ".cache", "pytest-codeeval", "toolchains")
    os.makedirs(path, exist_ok=True)
    return path


def toolchain_paths() -> tuple[str, ...]:
    """The toolchain directories of HOME_TOOLCHAINS that exist and lie under the home directory."""
    home = real_home()
    cache_dir()
    paths = (
        os.path.realpath(os.path.join(os.environ.get(variable) or os.path.join(home, name), part))
        for name, variable, part in HOME_TOOLCHAINS
    )
    return tuple(p for p in paths if p.startswith(home + "/") and os.path.isdir(p))
