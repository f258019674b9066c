"""--codeeval-export-dataset: a task's rows written as JSON lines in its hub schema, nothing run; the file read back
with --codeeval-dataset gives the same run. Bad input is one line, exit 4."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.tasks import builtin_registry

pytestmark = pytest.mark.timeout(300)

COMPLETIONS = json.loads((Path(__file__).parents[1] / "data" / "multiple" / "completions.json").read_text(encoding="utf-8"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _verdicts(path: Path, task: str) -> tuple[dict, dict]:
    data = report(path)["tasks"][task]
    samples = {pid: [(s["status"], s["solution"], s["program"]) for s in p["samples"]] for pid, p in data["problems"].items()}
    return data["metrics"], samples


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_export_writes_the_rows_and_runs_nothing(pytester: pytest.Pytester, workers: list[str]) -> None:
    result = pytester.runpytest_subprocess("--codeeval-export-dataset=humaneval=out/he.jsonl", "--codeeval-limit=3",
                                           "--codeeval-export-dataset=multiple-lua=lua.jsonl", "--codeeval-model=reference",
                                           "--codeeval-report=r.json", *workers)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["codeeval: wrote 3 rows of humaneval to out/he.jsonl",
                                 "codeeval: wrote 3 rows of multiple-lua to lua.jsonl"])
    assert not (pytester.path / "r.json").exists() and "passed" not in result.stdout.str()  # nothing ran
    assert result.stdout.str().count("codeeval: wrote") == 2  # once, by the controller: no worker started
    registry = builtin_registry()
    for task, path in (("humaneval", "out/he.jsonl"), ("multiple-lua", "lua.jsonl")):
        rows = _lines(pytester.path / path)
        assert rows == [dict(doc) for doc in registry.get(task).docs[:3]], task  # dataset order, the dataset's fields
    assert list(_lines(pytester.path / "lua.jsonl")[0]) == ["name", "language", "prompt", "doctests", "original",
                                                             "prompt_terminology", "tests", "stop_tokens"]


def test_humaneval_from_the_exported_file_is_the_same_run(pytester: pytest.Pytester) -> None:
    export = pytester.runpytest_subprocess("--codeeval-export-dataset=humaneval=he.jsonl", "--codeeval-limit=4")
    assert export.ret == 0
    common = ("--codeeval-model=reference", "--codeeval-limit=4", "-p", "no:cacheprovider")
    pytester.runpytest_subprocess(*common, "--codeeval-report=a.json").assert_outcomes(passed=4)
    pytester.runpytest_subprocess(*common, "--codeeval-dataset=humaneval=he.jsonl", "-n", "2",
                                  "--codeeval-report=b.json").assert_outcomes(passed=4)
    assert _verdicts(pytester.path / "a.json", "humaneval") == _verdicts(pytester.path / "b.json", "humaneval")


def test_multiple_lua_from_the_exported_file_is_the_same_run(pytester: pytest.Pytester) -> None:
    if not shutil.which("lua5.4") and not shutil.which("lua"):
        pytest.skip("no Lua interpreter")
    export = pytester.runpytest_subprocess("--codeeval-export-dataset=multiple-lua=lua.jsonl", "--codeeval-limit=2")
    assert export.ret == 0
    rows = _lines(pytester.path / "lua.jsonl")
    lua = COMPLETIONS["lua"]
    write_jsonl(pytester.path / "g.jsonl", [{"task": "multiple-lua", "task_id": rows[0]["name"], "completion": lua[kind]}
                                            for kind in ("ok", "fail", "nocomp")]
                + [{"task": "multiple-lua", "task_id": rows[1]["name"], "completion": lua["fail"]}])
    common = ("--codeeval-load-generations=g.jsonl", "--codeeval-tasks=multiple-lua", "--codeeval-limit=2")
    first = pytester.runpytest_subprocess(*common, "--codeeval-report=a.json")
    first.assert_outcomes(passed=1, failed=3)
    again = pytester.runpytest_subprocess(*common, "--codeeval-dataset=multiple-lua=lua.jsonl", "--codeeval-report=b.json")
    again.assert_outcomes(passed=1, failed=3)
    assert _verdicts(pytester.path / "a.json", "multiple-lua") == _verdicts(pytester.path / "b.json", "multiple-lua")


@pytest.mark.parametrize(("spec", "message"), [
    ("nosuch=x.jsonl", "--codeeval-export-dataset=nosuch=x.jsonl: unknown task 'nosuch'*"),
    ("humaneval", "--codeeval-export-dataset='humaneval': expected TASK=PATH*"),
    ("humaneval=sub", "--codeeval-export-dataset=humaneval=sub: is a directory; pass a file path"),
    ("humaneval=ro/x/he.jsonl", "--codeeval-export-dataset=humaneval=ro/x/he.jsonl: *ro is not a directory this run can write to*"),
    ("parity=p.jsonl", "--codeeval-export-dataset=parity=p.jsonl: task 'parity' cannot run from an exported file:*"),
])
def test_bad_exports_are_one_line(pytester: pytest.Pytester, spec: str, message: str) -> None:
    (pytester.path / "sub").mkdir()
    (pytester.path / "ro").write_text("a file, not a directory")
    result = pytester.runpytest(f"--codeeval-export-dataset={spec}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str() and not (pytester.path / "p.jsonl").exists()


@pytest.mark.parametrize(("task", "builder"), [("multiple-jl", "humaneval-jl"), ("multiple-mbpp-dart", "mbpp-dart")])
def test_rows_of_a_language_without_its_toolchain_are_exported_as_the_builder_makes_them(
    pytester: pytest.Pytester, task: str, builder: str
) -> None:
    """Julia and Dart are not installed here: their items would be skipped, but their rows are still written (to
    inspect, or to carry to a machine that has the toolchain), and they are MultiPL-E's builder's rows."""
    import gzip

    result = pytester.runpytest_subprocess(f"--codeeval-export-dataset={task}=rows.jsonl")
    assert result.ret == 0, result.stderr.str()
    with gzip.open(Path(__file__).parents[1] / "data" / "multiple" / "builder" / f"{builder}.jsonl.gz", "rt") as fh:
        expected = [json.loads(line) for line in fh]
    fields = ("name", "prompt", "tests", "stop_tokens")
    assert [{f: r[f] for f in fields} for r in _lines(pytester.path / "rows.jsonl")] == [
        {f: r[f] for f in fields} for r in expected
    ]
