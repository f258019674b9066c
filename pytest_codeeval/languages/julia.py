"""Julia: MultiPL-E's `jl`, tests with the Test standard library's @testset. Typed signatures (`x::Vector{Int64}`).

Debian ships no Julia: the language is registered, and skipped with where to get it where `julia` is not on PATH."""

from __future__ import annotations

import ast
import re
from typing import Any, ClassVar

from pytest_codeeval.languages.base import Language
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append, disabled_line
from pytest_codeeval.sandbox.api import ExecResult, Limits

# @testset's reports on stdout, each line after the test set's name ("test set: Test Failed at program.jl:8")
_FAILED = re.compile(r"Test Failed at .*\n\s*Expression: (.*)\n\s*Evaluated: (.*)$", re.MULTILINE)
_ERRORED = re.compile(r"Error During Test at .*\n\s*Test threw exception\n\s*Expression: .*\n\s*(.*)$", re.MULTILINE)
# JuliaSyntax's (1.10) parse error: the source excerpt, then a line "└──┘ ── message"
_PARSE_MESSAGE = re.compile(r"^.*── (.*)$", re.MULTILINE)
_LOAD_ERROR = re.compile(r"^ERROR: (?:LoadError: )?(.*)$", re.MULTILINE)
_SCALARS = {"int": "Int64", "float": "Float64", "bool": "Bool", "str": "String", "Any": "Any"}


_TESTSET = re.compile(r"^using Test\b[\s\S]*^@testset\b", re.MULTILINE)
# After the tests' @testset (a failed @test makes it throw at its end): the `@test` in scope (a program's own macro
# of that name shadows Test's) must throw outside a test set on a false comparison, its report kept off stdout
JULIA_PROOF = f"""
let codeeval_failed = redirect_stdout(devnull) do
        try
            @test parse(Int, "1") == 2
            false
        catch
            true
        end
    end
    if codeeval_failed
        open("{DONE_OUT}", "a") do codeeval_out
            write(codeeval_out, open(codeeval_in -> read(codeeval_in, 64), "{TOKEN_IN}"))
        end
    else
        println(stderr, "\\n{disabled_line()}")
    end
end
"""


class UnknownType(Exception):
    """An annotation MultiPL-E's Julia translation does not handle (the problem is left out)."""


class Julia(Language):
    name = "jl"
    title = "Julia"
    file_ext = "jl"
    comment = "#"
    timeout = 5.0  # MultiPL-E's evaluator gives this language 5 s
    stop = ("\nfunction", "\nmacro", "\n\n")
    tools = ("julia",)
    package = "julia"
    terms = ("vector", "vector", "tuple", "dictionary", "nothing", "true", "false")
    address_space_bytes = 8 * 1024**3  # the runtime maps its GC pools and code space up front
    # packages and compiled code go to the depot; the home is hidden, so the sample's private /tmp holds it, and
    # the trailing ':' keeps the installation's own depot (its precompiled standard library, Test included)
    env: ClassVar[dict[str, str]] = {"JULIA_DEPOT_PATH": "/tmp/julia-depot:", "JULIA_NUM_THREADS": "1"}

    signature: tuple[list[Any], Any] = ([], None)  # the entry point's parameter and return annotations
    candidate_result = False  # the expression being translated calls the candidate (its expected value is coerced)

    def unavailable(self) -> str | None:
        if not self.missing_tools():
            return None
        return (
            "Julia is not packaged by Debian: install it from https://julialang.org/downloads "
            "(or with juliaup) and put julia on PATH"
        )

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["julia", "--startup-file=no", "--history-file=no", source]

    def runtime_error(self, result: ExecResult) -> str:
        failed = _FAILED.search(result.stdout)
        if failed:
            return f"assertion failed: {failed.group(1)[:100]} (evaluated: {failed.group(2)[:90]})"
        errored = _ERRORED.search(result.stdout)
        if errored:
            return "exception: " + errored.group(1).strip()[:200]
        loaded = _LOAD_ERROR.search(result.stderr)
        if loaded and not result.signal:
            message = loaded.group(1).strip()
            if message.startswith("syntax:"):  # before 1.10
                return "syntax error: " + message[:200]
            if message.startswith("ParseError"):
                parsed = _PARSE_MESSAGE.search(result.stderr)
                return "syntax error: " + (parsed.group(1).strip() if parsed else message)[:200]
            return "exception: " + message[:200]
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After the tests' `@testset` block, the program's end."""
        return append(program, JULIA_PROOF) if _TESTSET.search(program) else None

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str | None:
        self.signature = ([a.annotation for a in args], returns)
        try:
            typed = ", ".join(f"{a.arg}::{julia_type(a.annotation)}" for a in args)
            result = julia_type(returns)
        except UnknownType:
            return None
        return f'"""{description}"""\nfunction {name}({typed})::{result} \n'

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["using Test", "", "@testset begin", "", f"candidate = {entry_point};"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["end\n"]

    def deep_equality(self, left: str, right: str) -> str:
        if self.candidate_result:
            right = _typed_empty(right, self.signature[1])
            self.candidate_result = False
        return f"\t@test({left} == {right})"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, str):
            return '"' + value.replace('"', '\\"').replace("$", "\\$") + '"'  # only these escaped, as MultiPL-E
        if value is None:
            return "nothing"
        return repr(value)

    def gen_tuple(self, items: list[str]) -> str:
        return "(" + ", ".join(items) + ")"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "Dict(" + ", ".join(f"{k} => {v}" for k, v in zip(keys, values, strict=True)) + ")"

    def gen_call(self, func: str, args: list[str]) -> str:
        if func == "candidate":
            self.candidate_result = True
            parameters = self.signature[0]
            args = [_typed_empty(a, parameters[i]) for i, a in enumerate(args)]  # more arguments: left out
        return func + "(" + ", ".join(args) + ")"


def julia_type(annotation: Any) -> str:
    """A Python annotation as MultiPL-E's Julia translation writes it (its `Dict{K, V}>` included, as published)."""
    match annotation:
        case ast.Name(id=name) if name in _SCALARS:
            return _SCALARS[name]
        case ast.Subscript(value=ast.Name(id="List"), slice=inner):
            return "Vector{" + julia_type(inner) + "}"
        case ast.Subscript(value=ast.Name(id="Optional"), slice=inner):
            return "Union{" + julia_type(inner) + ", Nothing}"
        case ast.Subscript(value=ast.Name(id="Union" | "Tuple" as kind), slice=ast.Tuple(elts=items)):
            return kind + "{" + ", ".join(julia_type(item) for item in items) + "}"
        case ast.Subscript(value=ast.Name(id="Dict"), slice=ast.Tuple(elts=[ast.Name(id=k), ast.Name(id=v)])):
            if k not in ("int", "str") or v not in ("int", "str"):
                raise UnknownType(f"Dict[{k}, {v}]")
            return f"Dict{{{_SCALARS[k]}, {_SCALARS[v]}}}>"
    raise UnknownType(ast.unparse(annotation) if annotation is not None else "no annotation")


def _typed_empty(expr: str, annotation: Any) -> str:
    """`[]` where a `List[T]` is expected is `Vector{T}([])` (an untyped empty vector is a Vector{Any})."""
    match annotation:
        case ast.Subscript(value=ast.Name(id="List"), slice=inner) if expr == "[]":
            return f"Vector{{{julia_type(inner)}}}([])"
    return expr
