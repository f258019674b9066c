"""HumanEvalPack's programs: what BCEH puts around a solution before the tests, per language, the time limits,
and the runner each language's programs run with."""

from __future__ import annotations

from collections.abc import Callable

from pytest_codeeval.tasks.base import Doc
from pytest_codeeval.tasks.catalogue.humanevalpack.prompts import LANGUAGES

# BCEH's limits in seconds (wall clock there, CPU time here); Rust's covers a first cargo build.
TIMEOUTS = {"python": 10.0, "cpp": 60.0, "js": 10.0, "java": 10.0, "go": 20.0, "rust": 300.0}
# Put before every Python program, as BCEH does (numpy among them: a program fails without it).
PYTHON_IMPORTS = (
    "import math", "import re", "import sys", "import copy", "import datetime", "import itertools",
    "import collections", "import heapq", "import statistics", "import functools", "import hashlib",
    "import numpy", "import numpy as np", "import string", "from typing import *", "from collections import *",
)
CPP_HEADERS = (
    "using namespace std;", "#include<stdlib.h>", "#include<algorithm>", "#include<cmath>", "#include<math.h>",
    "#include<numeric>", "#include<stdio.h>", "#include<vector>", "#include<set>", "#include<map>", "#include<queue>",
    "#include<stack>", "#include<list>", "#include<deque>", "#include<boost/any.hpp>", "#include<string>",
    "#include<climits>", "#include<cstring>", "#include<iostream>", "#include<sstream>", "#include<fstream>",
)
GO_PACKAGES = ("math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort", "math/rand", "crypto/md5")
RUST_MAIN = "fn main(){}\n"


# -- programs: what BCEH puts around a solution before the tests, per language -----------------------------------
def _python(doc: Doc, solution: str) -> str:
    return ("\n".join(PYTHON_IMPORTS) + "\n" + solution).strip()


def _cpp(doc: Doc, solution: str) -> str:
    return ("\n".join(CPP_HEADERS) + "\n" + solution.split("int main")[0]).strip()


def _java(doc: Doc, solution: str) -> str:
    return solution.replace("public class Main {\n    }", "").strip()


def _js(doc: Doc, solution: str) -> str:
    return solution


def _go(doc: Doc, solution: str) -> str:
    """The test file's package and imports first (less those the solution imports itself), then imports of the
    helper packages the code uses outside comments (Go refuses unused imports)."""
    setup = doc["test_setup"] + "\n"
    for line in setup.split("\n"):
        line = line.replace("import", "").replace("(", "").replace(")", "").strip()
        if line.startswith('"') and line in solution:
            setup = setup.replace(line, "")
    whole = setup + solution + "\n\n" + doc["test"]
    used: list[str] = []
    for package in GO_PACKAGES:
        name = package.split("/")[-1]
        if f'"{package}"' not in whole and any(
            name + "." in line and not line.strip().startswith("//") for line in whole.split("\n")
        ):
            used.append(f'"{name}"')
    imports = "import (\n" + "\n".join("    " + p for p in used) + "\n)\n" if used else ""
    if "package main" in solution and "package main" in setup:
        solution = solution.replace("package main", "")
    return setup + imports + solution


def _rust(doc: Doc, solution: str) -> str:
    """A main when the solution has none, the declaration's lines the solution lacks, and one main at most."""
    head = "" if "fn main()" in solution else RUST_MAIN
    for line in doc["declaration"].split("\n"):
        line = line.strip()
        if line not in solution and not (line.startswith("fn") and line.split("(")[0] in solution):
            head += line + "\n"
    return head + "fn main()".join(solution.split("fn main()")[:2])


BUILDERS: dict[str, Callable[[Doc, str], str]] = {
    "python": _python, "cpp": _cpp, "java": _java, "js": _js, "go": _go, "rust": _rust,
}
# The runner of each language's programs: Python's own; the others are the language modules' runners with BCEH's
# build and verdict rules (runners.py), named under these names in `runners.JUDGES`.
RUNNER_LANGUAGES = {"python": "python", **{lang: f"humanevalpack-{lang}" for lang in LANGUAGES[1:]}}
