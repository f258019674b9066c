"""Ruby: runs start without RubyGems, the installed gems' directories on the load path instead (languages/ruby.py,
`gem_loader`), with the verdicts and reports of a plain `ruby` run."""

from __future__ import annotations

import subprocess

import pytest
from helpers import language_or_skip

from pytest_codeeval.languages import ruby
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits

TESTS = ("require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_f\n"
         "    candidate = method(:f)\n    assert_equal(2, candidate.call(1))\n    assert_equal(3, candidate.call(2))\n"
         "  end\nend\n")
COMPLETIONS = {
    "passes": "x + 1",
    "fails an assertion": "x * 2",
    "raises": "[].fetch(x)",
    "calls what is not defined": "undefined_helper(x)",
    "does not parse": "x +* 1",
}
# what RubyGems' start loads, the files that bundled gems' requires find, and RubyGems' own classes on first use
PROBE = """seen = [$LOADED_FEATURES.grep(%r{/rubygems\\.rb\\z}).size]
require "prime"
require "matrix"
require "test/unit"
Test::Unit::AutoRunner.need_auto_run = false
seen << $LOADED_FEATURES.grep(%r{/(prime|matrix|test/unit)\\.rb\\z}).sort.join(",")
seen << (Gem::Version.new("1.10") > Gem::Version.new("1.9")) << Prime.first(3).sum
$stderr.puts("seen: #{seen.inspect}")
exit 3
"""


def run(text: str, tests_at: int = 0) -> tuple[str, str, str]:
    outcome = language_or_skip("rb").run(text, Limits(cpu_seconds=10), get_executor("strict"), tests_at=tests_at)
    return outcome.status, outcome.detail, outcome.output


@pytest.mark.parametrize("case", sorted(COMPLETIONS))
def test_verdicts_and_reports_are_those_of_a_plain_run(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    language_or_skip("rb")
    assert ruby.gem_loader() is not None
    text = f"def f(x)\n  {COMPLETIONS[case]}\nend\n\n{TESTS}"
    loaded = run(text, text.index("require"))[:2]
    monkeypatch.setattr(ruby, "gem_loader", lambda: None)
    assert loaded == run(text, text.index("require"))[:2]
    assert (loaded[0] == "passed") == (case == "passes"), loaded
    if case == "calls what is not defined":  # error_highlight's message is several lines; the receiver, its class
        assert loaded[1] == "exception: NoMethodError: undefined method `undefined_helper' for an instance of TestHumanEval"


def test_gems_are_found_where_rubygems_finds_them_and_rubygems_loads_when_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    language_or_skip("rb")

    def seen() -> str:
        status, _, output = run(PROBE)
        assert status == "failed", output
        return next(line for line in output.splitlines() if line.startswith("seen: "))

    loaded = seen()
    monkeypatch.setattr(ruby, "gem_loader", lambda: None)
    plain = seen()
    assert loaded.startswith("seen: [0, ") and plain.startswith("seen: [1, "), (loaded, plain)
    assert loaded.split(", ", 1)[1] == plain.split(", ", 1)[1] and plain.endswith(", true, 10]"), (loaded, plain)
    assert "/prime.rb" in plain and "/matrix.rb" in plain and "/test/unit.rb" in plain


def test_where_rubygems_cannot_list_the_gems_a_run_is_ruby_s_own(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], 1, "", "cannot load such file -- rubygems")

    def missing(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        raise FileNotFoundError("ruby")

    for broken in (fails, missing):
        monkeypatch.setattr(ruby.subprocess, "run", broken)
        assert ruby.gem_loader.__wrapped__() is None
    monkeypatch.setattr(ruby, "gem_loader", lambda: None)
    assert ruby.Ruby().run_command("program.rb", Limits()) == ["ruby", "program.rb"]
