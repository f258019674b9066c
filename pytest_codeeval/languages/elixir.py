"""Elixir: MultiPL-E's `elixir` (an .exs script run by `elixir`, tests with ExUnit)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from functools import lru_cache
from typing import Any

from pytest_codeeval.languages.base import NAMED_LINE, Language, describe
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append, disabled_line, skipped_line
from pytest_codeeval.languages.ruby import Ruby
from pytest_codeeval.sandbox.api import ExecResult, Limits
from pytest_codeeval.sandbox.toolchains import built_once, tool_version

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

    def exports(self) -> list[str]:
        """The preloader first in the VM (`preloader`), where it could be built."""
        directory = preloader()
        if directory is None:
            return super().exports()
        return [*super().exports(), f"export ELIXIR_ERL_OPTIONS='-pa {directory} -s {PRELOADER}'"]

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


# A run's time is mostly the BEAM loading modules, each compiled by its JIT and added to the code tables one at a
# time: some 230 for a HumanEval program (the Elixir compiler, Erlang's compiler, ExUnit). Loaded as one batch
# (`code:atomic_load`) they cost a quarter less. The preloader, an Erlang module run before Elixir's command line
# (`ELIXIR_ERL_OPTIONS`, which the `elixir` script places before it), loads what parsing needs, then parses the
# program and, if it parses, what compiling and testing it needs; a program that does not parse loads nothing
# more than without it. The lists are what a probe program loaded on this machine (`preloader`); a module they
# lack loads when first called, as without the preloader, and one that cannot be loaded is left out of its batch.
PRELOADER = "codeeval_preload"
PRELOADER_SOURCE = """-module(codeeval_preload).
-export([start/0]).

start() ->
    try
        load(PARSING),
        [Source | _] = init:get_plain_arguments(),
        {ok, Text} = file:read_file(Source),
        {ok, _} = application:ensure_all_started(elixir),
        {ok, _} = 'Elixir.Code':string_to_quoted(Text),
        load(RUNNING)
    catch
        _:_ -> ok
    end.

load(Modules) ->
    Missing = [Module || Module <- Modules, not erlang:module_loaded(Module)],
    case code:atomic_load(Missing) of
        ok -> ok;
        {error, Failed} -> code:atomic_load(Missing -- [Module || {Module, _} <- Failed])
    end.
"""
# what the preloader loads first: the modules loaded once Elixir (with its Logger, as its command line starts it)
# has parsed a program
_PROBE_PARSING = """-module(codeeval_probe).
-export([start/0]).

start() ->
    [Source | _] = init:get_plain_arguments(),
    {ok, _} = application:ensure_all_started(elixir),
    _ = application:start(logger),
    {ok, Text} = file:read_file(Source),
    {ok, _} = 'Elixir.Code':string_to_quoted(Text),
    Loaded = [[atom_to_list(Module), "\\n"] || {Module, File} <- code:all_loaded(), is_list(File),
                                                 filename:extension(File) =:= ".beam"],
    ok = file:write_file("parsing.txt", Loaded),
    halt().
"""
# what it loads next: the modules loaded by a HumanEval program whose second test fails, and the proof's calls
_PROBE_PROGRAM = """defmodule HumanEval do
  def candidate(numbers), do: even_sum(numbers)
  def even_sum(numbers) do
    Enum.sum(for n <- numbers, rem(n, 2) == 0, do: n) + String.length(Enum.join(Enum.map(numbers, &to_string/1)))
  end
end

ExUnit.start()
defmodule HumanEvalTest do
  use ExUnit.Case, async: true
  test 'even_sum' do
    assert 4 == HumanEval.candidate([1, 2])
    assert [1.5, "x", {:a, nil}, %{1 => true}] == HumanEval.candidate([3])
  end
end

result = ExUnit.run()
try do
  import ExUnit.Assertions
  assert result.total == 2
rescue
  error -> is_struct(error, ExUnit.AssertionError)
end
out = File.open!("probe.out", [:append, :binary])
IO.binwrite(out, IO.binread(File.open!("probe.exs", [:read, :binary]), 64))
File.close(out)
loaded = for {module, file} <- :code.all_loaded(), is_list(file) and :filename.extension(file) == '.beam', do: module
File.write!("running.txt", Enum.map_join(loaded, &"#{&1}\\n"))
System.halt(0)
"""


def atoms(names: list[str]) -> str:
    """`names` as an Erlang list of quoted atoms."""
    return "[" + ", ".join("'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'" for name in names) + "]"


@lru_cache(maxsize=1)
def preloader() -> str | None:
    """The directory of the preloader's module, built once per machine and Elixir version from what a probe
    loaded; None where it cannot be built or named in `ELIXIR_ERL_OPTIONS` (split at spaces): programs then run
    without it."""
    if (version := tool_version(["elixir", "--version"])) is None:
        return None

    def build(directory: str) -> bool:
        def run(command: list[str], env: dict[str, str] | None = None) -> bool:
            return subprocess.run(command, cwd=directory, env=env, capture_output=True, timeout=300).returncode == 0

        def listed(name: str) -> set[str]:
            with open(os.path.join(directory, name)) as names:
                return set(names.read().split())

        os.makedirs(directory, exist_ok=True)
        for name, text in (("codeeval_probe.erl", _PROBE_PARSING), ("probe.exs", _PROBE_PROGRAM)):
            with open(os.path.join(directory, name), "w") as handle:
                handle.write(text)
        parsed = {**os.environ, "ELIXIR_ERL_OPTIONS": f"-pa {directory} -s codeeval_probe"}  # halts once parsed
        if not (run(["erlc", "codeeval_probe.erl"]) and run(["elixir", "probe.exs"], parsed)):
            return False
        if not run(["elixir", "probe.exs"]):
            return False
        first = listed("parsing.txt") - {"codeeval_probe"}
        then = listed("running.txt") - first - {"Elixir.HumanEval", "Elixir.HumanEvalTest"}
        source = PRELOADER_SOURCE.replace("PARSING", atoms(sorted(first))).replace("RUNNING", atoms(sorted(then)))
        with open(os.path.join(directory, f"{PRELOADER}.erl"), "w") as handle:
            handle.write(source)
        for leftover in ("codeeval_probe.beam", "probe.out"):
            os.remove(os.path.join(directory, leftover))
        # the module is the marker that the directory is done: compiled apart, then moved in
        part = os.path.join(directory, "part")
        os.makedirs(part, exist_ok=True)
        if not run(["erlc", "-o", part, f"{PRELOADER}.erl"]):
            return False
        os.replace(os.path.join(part, f"{PRELOADER}.beam"), os.path.join(directory, f"{PRELOADER}.beam"))
        os.rmdir(part)
        return True

    digest = hashlib.sha256((version + PRELOADER_SOURCE + _PROBE_PARSING + _PROBE_PROGRAM).encode()).hexdigest()[:12]
    directory = built_once(f"elixir-preload-{digest}", f"{PRELOADER}.beam", build)
    return directory if directory is not None and re.fullmatch(r"[\w./+-]+", directory) else None
