"""Ruby: MultiPL-E's `rb`, tests with Test::Unit."""

from __future__ import annotations

import re
from typing import Any

from pytest_codeeval.languages.base import NAMED_LINE, Language, describe
from pytest_codeeval.languages.proof import Proven, append, disabled_line, skipped_line
from pytest_codeeval.sandbox.api import ExecResult, Limits

_FAILURE = re.compile(r"^(Failure|Error): test_\w+\(TestHumanEval\)", re.MULTILINE)
_EXPECTED = re.compile(r"^<(.*)> expected but was\n<(.*)>", re.MULTILINE)
_EXCEPTION = re.compile(r"^.*?: (.*) \((\w+(?:::\w+)*)\)$", re.MULTILINE)


_TEST_CASE = re.compile(r"^class\s+(\w+)\s*<\s*Test::Unit::TestCase\b", re.MULTILINE)
# Test::Unit runs its tests at exit, after anything appended: the epilogue runs the tests' class itself (every test
# of it, at least one, none omitted or pending), then a false assert_equal in a subclass of it (where the program may
# have redefined the assertions) through the same runner, silenced, which must count it failed
RUBY_PROOF = f"""
Test::Unit::AutoRunner.need_auto_run = false
require "test/unit/ui/console/testrunner"
codeeval_suite = TESTS.suite
codeeval_result = Test::Unit::UI::Console::TestRunner.run(codeeval_suite)
exit(1) unless codeeval_result.passed?
if codeeval_result.run_count != codeeval_suite.size || codeeval_result.run_count == 0 ||
   codeeval_result.omission_count + codeeval_result.pending_count > 0
  $stderr.puts("", "{skipped_line()}")
  exit(0)
end
class CodeevalFalse < TESTS
  def test_codeeval_false
    assert_equal(1, 2)
  end
end
codeeval_check = Test::Unit::TestSuite.new("codeeval")
codeeval_check << CodeevalFalse.new("test_codeeval_false")
codeeval_silent = Test::Unit::UI::Console::OutputLevel::SILENT
if Test::Unit::UI::Console::TestRunner.run(codeeval_check, output_level: codeeval_silent).failure_count != 1
  $stderr.puts("", "{disabled_line()}")
else
  IO.for_fd(3, autoclose: false).write(IO.for_fd(4, autoclose: false).read(64))
end
"""


class Ruby(Language):
    name = "rb"
    title = "Ruby"
    file_ext = "rb"
    failure_line = NAMED_LINE
    comment = "#"
    dict_arrow = " => "
    timeout = 5.0  # MultiPL-E's evaluator gives this language 5 s
    stop = ("\nclass", "\ndef", "\n#", "\n\n")
    tools = ("ruby",)
    package = "ruby"
    terms = ("array", "array", "array", "hash", "nil", "true", "false")

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["ruby", source]

    def runtime_error(self, result: ExecResult) -> str:
        text = result.stdout + "\n" + result.stderr
        failure = _FAILURE.search(text)
        if failure and failure.group(1) == "Failure":
            expected = _EXPECTED.search(text)
            return "assertion failed" + (
                f": expected {expected.group(1)[:90]}, got {expected.group(2)[:90]}" if expected else ""
            )
        if failure:
            lines = text[failure.end() :].strip().split("\n")
            return (
                "exception: "
                + next((line for line in lines if ":" in line and "program.rb" not in line), lines[0])[:200]
            )
        if "syntax error" in result.stderr or "SyntaxError" in result.stderr:
            return "syntax error: " + result.stderr.strip().split("\n")[0][:200]
        match = _EXCEPTION.search(result.stderr)
        if match:
            return f"exception: {match.group(2)}: {match.group(1)[:200]}"
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After the tests' Test::Unit class, whose tests the epilogue runs (Test::Unit's run at exit is turned off)."""
        tests = _TEST_CASE.findall(program)
        return append(program, RUBY_PROOF.replace("TESTS", tests[-1])) if tests else None

    # -- translator --------------------------------------------------------------------------------------------
    def describe(self, description: str, indent: str = "") -> str:
        return describe(description, "# ") + "\n"

    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        return f"{self.describe(description)}def {name}({', '.join(a.arg for a in args).lower()})\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return [
            "require 'test/unit'",
            "class TestHumanEval < Test::Unit::TestCase",
            f"  def test_{entry_point}",
            f"    candidate = method(:{entry_point})",
        ]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["  end", "end", ""]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    assert_equal({right}, {left})"  # Test::Unit's order: expected, actual

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, str):
            return f'"{value}"'
        if value is None:
            return "nil"
        return repr(value)

    def gen_call(self, func: str, args: list[str]) -> str:
        return func + ".call(" + ", ".join(args) + ")"
