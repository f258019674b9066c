"""Elixir: the modules a run needs are loaded in two batches before Elixir's command line runs the program
(languages/elixir.py, `preloader`), with the verdicts and reports of a plain `elixir` run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import language_or_skip

from pytest_codeeval.languages import elixir
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits

# modules that only testing a program loads: loaded before its first line runs where preloaded
RUNNING = "[ExUnit.Case, ExUnit.Assertions, ExUnit.Runner, ExUnit.Server, ExUnit.Formatter]"
PROBE = f'IO.puts(:stderr, "loaded: #{{inspect(Enum.map({RUNNING}, &:erlang.module_loaded/1))}}")\nSystem.halt(3)\n'
TESTS = ("ExUnit.start()\ndefmodule HumanEvalTest do\n  use ExUnit.Case, async: true\n  test 'f' do\n"
         "    assert 2 == HumanEval.candidate(1)\n    assert 3 == HumanEval.candidate(2)\n  end\nend\n")
COMPLETIONS = {
    "passes": "x + 1",
    "fails an assertion": "x * 2",
    "raises": "Enum.fetch!([], x)",
    "does not parse": "x +* 1",
}


def program(body: str) -> str:
    return f"defmodule HumanEval do\n  def candidate(x), do: f(x)\n  def f(x) do\n    {body}\n  end\nend\n\n{TESTS}"


def loaded_at_start(text: str = PROBE) -> str:
    outcome = language_or_skip("elixir").run(text, Limits(cpu_seconds=10), get_executor("strict"))
    assert outcome.status == "failed", outcome.output
    return next(line for line in outcome.output.splitlines() if line.startswith("loaded: "))


def test_a_program_starts_with_what_compiling_and_testing_it_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    language_or_skip("elixir")
    assert elixir.preloader() is not None
    assert loaded_at_start() == "loaded: [true, true, true, true, true]"
    monkeypatch.setattr(elixir, "preloader", lambda: None)
    assert loaded_at_start() == "loaded: [false, false, false, false, false]"


@pytest.mark.parametrize("case", sorted(COMPLETIONS))
def test_verdicts_and_reports_are_those_of_a_plain_run(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    language = language_or_skip("elixir")
    text = program(COMPLETIONS[case])
    seen = []
    for preloaded in (True, False):
        if not preloaded:
            monkeypatch.setattr(elixir, "preloader", lambda: None)
        outcome = language.run(text, Limits(cpu_seconds=10), get_executor("strict"), tests_at=text.index("ExUnit"))
        seen.append((outcome.status, outcome.detail))
    assert seen[0] == seen[1], seen
    assert (seen[0][0] == "passed") == (case == "passes"), seen


def test_a_module_the_batch_cannot_load_is_left_out_of_it(tmp_path: Path) -> None:
    """A name that is no module (another Elixir version's) and one whose file is gone: the rest still loads."""
    language_or_skip("elixir")
    source = elixir.PRELOADER_SOURCE.replace("PARSING", elixir.atoms(["no_such_module", "lists"]))
    running = ["Case", "Assertions", "Runner", "Server", "NoSuchModule", "Formatter"]
    source = source.replace("RUNNING", elixir.atoms([f"Elixir.ExUnit.{name}" for name in running]))
    (tmp_path / f"{elixir.PRELOADER}.erl").write_text(source)
    subprocess.run(["erlc", f"{elixir.PRELOADER}.erl"], cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "probe.exs").write_text(PROBE)
    env = {**os.environ, "ELIXIR_ERL_OPTIONS": f"-pa {tmp_path} -s {elixir.PRELOADER}"}
    run = subprocess.run(["elixir", "probe.exs"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 3 and "loaded: [true, true, true, true, true]" in run.stderr, run.stderr


def test_without_a_preloader_a_run_is_elixir_s_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where it cannot be built, or its directory cannot be named in ELIXIR_ERL_OPTIONS (split at spaces)."""
    monkeypatch.setattr(elixir, "tool_version", lambda command: "Elixir 1.14.0")
    for built in (None, "/home/a user/.cache/pytest-codeeval/toolchains/elixir-preload-0"):
        monkeypatch.setattr(elixir, "built_once", lambda name, marker, build, built=built: built)
        elixir.preloader.cache_clear()
        try:
            assert elixir.preloader() is None
            script = elixir.Elixir().script("program.exs", Limits(cpu_seconds=5))
        finally:
            elixir.preloader.cache_clear()
        assert "ELIXIR_ERL_OPTIONS" not in script and script.endswith("exec elixir program.exs\n")
