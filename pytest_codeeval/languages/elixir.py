"""Elixir: MultiPL-E's `elixir` (an .exs script run by `elixir`, tests with ExUnit)."""

from __future__ import annotations

import re
from typing import Any

from pytest_codeeval.languages.base import NAMED_LINE, Language, describe
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append, disabled_line, skipped_line
from pytest_codeeval.languages.ruby import Ruby
from pytest_codeeval.sandbox.api import ExecResult, Limits

# `** (SyntaxError) program.exs:3:5: message` as the VM prints an error that ends the script
_RAISED = re.compile(r"^\*\* \((\w+(?:\.\w+)*)\) (.*)$", re.MULTILINE)
_SYNTAX = ("SyntaxError", "TokenMissingError", "MismatchedDelimiterError")
# ExUnit's report of a failed test: `Assertion with == failed` and its sides, or the exception the test raised
_ASSERTION = re.compile(r"Assertion with == failed\n.*?\n\s*left:\s+([^\n]*)\n\s*right:\s+([^\n]*)", re.DOTALL)
_TEST_RAISED = re.compile(r"^\s+\*\* \((\w+(?:\.\w+)*)\) (.*)$", re.MULTILINE)


_STARTED = re.compile(r"^ExUnit\.start\(\)", re.MULTILINE)
# ExUnit runs its tests at exit, after anything appended: the epilogue runs them itself (every test, none excluded
# or skipped), checks that ExUnit's `assert` still raises on a false comparison, and halts before the run at exit
ELIXIR_PROOF = f"""
codeeval_result = ExUnit.run()
if codeeval_result.failures != 0, do: System.halt(1)
if codeeval_result.total == 0 or codeeval_result.excluded != 0 or codeeval_result.skipped != 0 do
  IO.puts(:stderr, "\\n{skipped_line()}")
  System.halt(0)
end
codeeval_works =
  try do
    import ExUnit.Assertions
    codeeval_one = Enum.count([:one])
    assert codeeval_one == 2
    false
  rescue
    codeeval_error -> is_struct(codeeval_error, ExUnit.AssertionError)
  end
if codeeval_works do
  codeeval_in = File.open!("{TOKEN_IN}", [:read, :binary])
  codeeval_out = File.open!("{DONE_OUT}", [:append, :binary])
  IO.binwrite(codeeval_out, IO.binread(codeeval_in, 64))
  File.close(codeeval_out)
else
  IO.puts(:stderr, "\\n{disabled_line()}")
end
System.halt(0)
"""


class Elixir(Language):
    name = "elixir"
    title = "Elixir"
    file_ext = "exs"
    failure_line = NAMED_LINE
    comment = "#"
    timeout = 5.0  # MultiPL-E's evaluator gives this language 5 s
    stop = ("\ndefmodule", "\ndefp", "\ndef ", "\n#", "\n\n")
    tools = ("elixir",)
    package = "elixir"
    terms = ("list", "list", "tuple", "map", "nil", "true", "false")
    # the BEAM reserves address space for its schedulers' stacks and its allocators' carriers at start-up
    address_space_bytes = 4 * 1024**3

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["elixir", source]

    def runtime_error(self, result: ExecResult) -> str:
        text = result.stdout + "\n" + result.stderr
        assertion = _ASSERTION.search(text)
        if assertion:  # the tests assert `expected == actual`: ExUnit's left is the expected value
            return f"assertion failed: expected {assertion.group(1)[:90]}, got {assertion.group(2)[:90]}"
        raised = _RAISED.search(result.stderr)
        if raised:
            kind, message = raised.group(1), raised.group(2).strip()[:200]
            if kind in _SYNTAX:
                return f"syntax error: {message}"
            if kind == "CompileError":
                return f"compile error: {message}"
            return f"exception: {kind}: {message}"
        in_test = _TEST_RAISED.search(result.stdout)
        if in_test:
            return f"exception: {in_test.group(1)}: {in_test.group(2).strip()[:200]}"
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After the tests' module (ExUnit started by the tests' text), the run and its proof."""
        return append(program, ELIXIR_PROOF) if _STARTED.search(program) else None

    # -- translator --------------------------------------------------------------------------------------------
    def describe(self, description: str, indent: str = "") -> str:
        return describe(description, "# ") + "\n"

    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        names = ", ".join(a.arg for a in args)
        return "\n".join(
            [
                self.describe(description),
                "defmodule HumanEval do",
                f"  def candidate({names}), do: {name}({names})",
                f"  def {name}({names}) do",
                "    ",
            ]
        )

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return [
            "ExUnit.start()",
            "defmodule HumanEvalTest do",
            "  use ExUnit.Case, async: true",
            f"  test '{entry_point}' do",
        ]

    # Ruby's closing `end`s and its literals (true, nil, double-quoted strings written as they are)
    test_suite_suffix_lines = Ruby.test_suite_suffix_lines
    gen_literal = Ruby.gen_literal

    def deep_equality(self, left: str, right: str) -> str:
        return f"    assert {right} == {left}"

    def gen_tuple(self, items: list[str]) -> str:
        return "{" + ", ".join(items) + "}"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "%{" + ", ".join(f"{k} => {v}" for k, v in zip(keys, values, strict=True)) + "}"

    def gen_call(self, func: str, args: list[str]) -> str:
        return f"HumanEval.{func}(" + ", ".join(args) + ")"
