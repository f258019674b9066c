"""Ruby: MultiPL-E's `rb`, tests with Test::Unit."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from functools import lru_cache
from typing import Any

from pytest_codeeval.languages.base import NAMED_LINE, Language, describe
from pytest_codeeval.languages.proof import Proven, append, disabled_line, skipped_line
from pytest_codeeval.sandbox.api import ExecResult, Limits
from pytest_codeeval.sandbox.toolchains import built_once

_FAILURE = re.compile(r"^(Failure|Error): test_\w+\(TestHumanEval\)", re.MULTILINE)
_EXPECTED = re.compile(r"^<(.*)> expected but was\n<(.*)>", re.MULTILINE)
# the exception a test raised, after `Error: test_f(TestHumanEval):`, on the same line or (a message of several lines,
# error_highlight's) on the next
_TEST_RAISED = re.compile(r":\s*([A-Z]\w*(?:::\w+)*): (.*)")
# Ruby 3.1 names a missing method's receiver by its whole `inspect` (a test case's holds its start time): its class
_RECEIVER = re.compile(r"(undefined (?:local variable or )?method `[^']*' for )#<([A-Z]\w*(?:::[A-Z]\w*)*)[^\n]*")
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
        """Without RubyGems, the installed gems' directories on the load path instead (`gem_loader`), where it could
        be made."""
        loader = gem_loader()
        return ["ruby", source] if loader is None else ["ruby", "--disable-gems", f"-r{loader}", source]

    def runtime_error(self, result: ExecResult) -> str:
        text = result.stdout + "\n" + result.stderr
        failure = _FAILURE.search(text)
        if failure and failure.group(1) == "Failure":
            expected = _EXPECTED.search(text)
            return "assertion failed" + (
                f": expected {expected.group(1)[:90]}, got {expected.group(2)[:90]}" if expected else ""
            )
        if failure:
            raised = _TEST_RAISED.match(text, failure.end())
            return f"exception: {raised.group(1)}: {_message(raised.group(2))}" if raised else "exception"
        if "syntax error" in result.stderr or "SyntaxError" in result.stderr:
            return "syntax error: " + result.stderr.strip().split("\n")[0][:200]
        match = _EXCEPTION.search(result.stderr)
        if match:
            return f"exception: {match.group(2)}: {_message(match.group(1))}"
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


def _message(text: str) -> str:
    return _RECEIVER.sub(r"\1an instance of \2", text.strip())[:200]


# RubyGems' start is nearly half of a run (44 ms of 93 for HumanEval/0's program): it loads every installed gem's
# specification to find test-unit, and starts did_you_mean and error_highlight, which only add to error messages.
# Runs start without it (`--disable-gems`), after a loader that puts on the load path the directories RubyGems would
# find each installed gem's files in (its newest version's; default gems' files are Ruby's own library) and loads
# RubyGems itself when a program names `Gem`. The directories are listed by RubyGems once per session.
GEM_LOADER = "codeeval_gems.rb"
_GEM_PROBE = (
    "specs = Gem::Specification.latest_specs(true).reject(&:default_gem?); "
    "p specs.flat_map(&:full_require_paths).uniq.select { |path| File.directory?(path) }"
)


@lru_cache(maxsize=1)
def gem_loader() -> str | None:
    """The loader's path in the toolchain cache (named by its text); None where RubyGems could not list the gems:
    programs then run with RubyGems, as `ruby` starts them."""
    try:
        probe = subprocess.run(["ruby", "-e", _GEM_PROBE], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if probe.returncode or not probe.stdout.startswith("["):
        return None
    text = f'Object.autoload(:Gem, "rubygems")\n$LOAD_PATH.concat({probe.stdout.strip()})\n'

    def build(directory: str) -> bool:
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, GEM_LOADER + ".part"), "w") as handle:
            handle.write(text)
        os.replace(os.path.join(directory, GEM_LOADER + ".part"), os.path.join(directory, GEM_LOADER))
        return True

    directory = built_once(f"ruby-gems-{hashlib.sha256(text.encode()).hexdigest()[:12]}", GEM_LOADER, build)
    return None if directory is None else os.path.join(directory, GEM_LOADER)
