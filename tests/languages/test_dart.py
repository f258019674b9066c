"""Dart, which Debian does not package: its translation (held to MultiPL-E's builder output by
tests/languages/test_builder_rows.py; here what its rows look like), its runner's script, and its reading of Dart's reports
on made-up results. Where `dart` is on PATH, tests/languages/test_runners.py and tests/tasks/catalogue/test_multiple.py run it for real."""

from __future__ import annotations

import ast
import json
import shutil
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import write_jsonl

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.base import BUILD_FAILED, MARK
from pytest_codeeval.languages.dart import dart_type
from pytest_codeeval.languages.translate import Untranslatable, rows
from pytest_codeeval.sandbox.api import ExecResult, Limits

DART = get_language("dart")
HARNESS_START = "}\n\nvoid expect(dynamic a, dynamic b) {\n  if (a == b) return;\n"
ROWS = {row["name"]: row for row in rows(DART, "humaneval")}


def test_prompt_and_tests_follow_multipl_e_s_builder() -> None:
    row = ROWS["HumanEval_0_has_close_elements"]
    assert row["prompt"] == (
        "//Check if in given list of numbers, are any two numbers closer to each other than\n"
        "// given threshold.\n"
        "// >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n"
        "// false\n"
        "// >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n"
        "// true\n"
        "bool has_close_elements(List<double> numbers, double threshold) {\n"
    )
    assert row["tests"].startswith(
        "}\nvoid main() {\n  final candidate = has_close_elements;\n\n"
        "  expect(candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3), true);\n"
    )
    assert "  expect(candidate([1.1, 2.2, 3.1, 4.1, 5.1], 0.5), false);\n" + HARNESS_START in row["tests"]
    assert row["tests"].endswith("    expect(a[key], b[key]);\n  }\n}")
    assert row["stop_tokens"] == ["\n}"]


def test_records_nullable_types_and_values_as_python_writes_them() -> None:
    """Tuples are records, Optional is `?`; values keep Python's spelling (an int stays an int literal where a
    double is expected: Dart's inference types it), strings only have their newlines escaped."""
    even_odd = ROWS["HumanEval_107_even_odd_palindrome"]
    assert even_odd["prompt"].endswith("(int, int) even_odd_palindrome(int n) {\n")
    assert "  expect(candidate(123), (8, 13));" in even_odd["tests"]
    longest = ROWS["HumanEval_12_longest"]
    assert longest["prompt"].endswith("String? longest(List<String> strings) {\n")
    assert "  expect(candidate([]), null);" in longest["tests"]
    assert DART.gen_literal("a\nb") == '"a\\nb"'


@pytest.mark.parametrize(
    ("annotation", "dart"),
    [("List[Any]", "List"), ("Dict[str, int]", "Map<String, int>"), ("Optional[float]", "double?")],
)
def test_type_names(annotation: str, dart: str) -> None:
    assert dart_type(ast.parse(annotation, mode="eval").body) == dart


@pytest.mark.parametrize("annotation", ["Dict[str, float]", "Union[int, str]", "Tuple[int, ...]", "None", "List"])
def test_types_multipl_e_s_translation_rejects(annotation: str) -> None:
    """MultiPL-E leaves these problems out of humaneval-dart (a map's types only when int or str)."""
    with pytest.raises(Untranslatable):
        dart_type(ast.parse(annotation, mode="eval").body)


def test_script_analyzes_then_runs_under_the_program_s_own_cpu_limit() -> None:
    request = DART.request("void main() {}\n", Limits(cpu_seconds=3))
    files = dict(request.files)
    script = files[".run.sh"].decode()
    assert "dart analyze --no-fatal-warnings program.dart >.build.log 2>&1 ||" in script
    assert script.index("dart analyze") < script.index("ulimit -S -t 3") < script.index("exec dart program.dart")
    assert "export DART_SUPPRESS_ANALYTICS=true" in script
    assert files["program.dart"] == b"void main() {}\n"
    assert request.limits.address_space_bytes == 8 * 1024**3 and request.limits.memory_bytes == 2 * 1024**3
    assert request.limits.cpu_seconds == 15 and request.run_wall_seconds == Limits(cpu_seconds=3).wall_bound()


def _result(exit_code: int | None, stderr: str = "", stdout: str = "", **kwargs) -> ExecResult:
    return ExecResult(exit_code=exit_code, signal=None, completed=True, stdout=stdout, stderr=stderr, **kwargs)


@pytest.mark.parametrize(
    ("result", "verdict"),
    [
        (_result(0), ("passed", "ok")),
        (
            _result(
                BUILD_FAILED,
                "Analyzing program.dart...\n\n  error - program.dart:3:22 - Expected to find ';'. - expected_token\n"
                f"\n1 issue found.\n{MARK}build-failed 3\n",
            ),
            ("failed", "compile error: program.dart:3:22 - Expected to find ';'. - expected_token"),
        ),
        (
            _result(
                255,
                "Unhandled exception:\n1 != 0\n#0      expect (file:///tmp/sample/program.dart:14:5)\n"
                "#1      main (file:///tmp/sample/program.dart:7:3)\n",
            ),
            ("failed", "assertion failed: 1 != 0"),
        ),
        (
            _result(
                255,
                "Unhandled exception:\nlist lengths are not equal\n#0      expectList (file:///tmp/program.dart:20:3)\n",
            ),
            ("failed", "assertion failed: list lengths are not equal"),
        ),
        (
            _result(
                255,
                "Unhandled exception:\nRangeError (index): Invalid value: Valid value range is empty: 0\n"
                "#0      List.[] (dart:core-patch/growable_array.dart:264:36)\n#1      strlen (file:///p.dart:2:3)\n",
            ),
            ("failed", "exception: RangeError (index): Invalid value: Valid value range is empty: 0"),
        ),
        (
            _result(254, "program.dart:2:10: Error: A value of type 'String' can't be returned.\n"),
            ("failed", "compile error: A value of type 'String' can't be returned."),
        ),
        (_result(None, timed_out=True), ("timeout", "timed out (wall-clock bound)")),
        (replace(_result(None), signal=signal.SIGXCPU), ("timeout", "timed out (3 s CPU)")),
    ],
    ids=["pass", "analyze", "expect", "expectList", "exception", "front-end", "wall", "cpu"],
)
def test_verdicts_read_from_dart_s_reports(result: ExecResult, verdict: tuple[str, str]) -> None:
    assert DART.verdict(result, Limits(cpu_seconds=3)) == verdict


@pytest.mark.skipif(shutil.which("dart") is not None, reason="dart is installed here")
def test_multiple_dart_without_dart_names_where_to_get_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    completions = json.loads((Path(__file__).parents[1] / "data" / "multiple" / "completions.json").read_text())
    write_jsonl(
        pytester.path / "gen.jsonl",
        [{"task": "multiple-dart", "task_id": "HumanEval_0_has_close_elements", "completion": completions["dart"]["ok"]}],
    )
    result = pytester.runpytest("--codeeval-load-generations=gen.jsonl", "--codeeval-tasks=multiple-dart")
    result.stderr.fnmatch_lines(
        ["ERROR: multiple-dart: Dart is not packaged by Debian: install the Dart SDK from https://dart.dev/get-dart*"]
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
