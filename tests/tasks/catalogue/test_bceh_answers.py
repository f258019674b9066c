"""The answer judge reads answers as bigcode-evaluation-harness's PAL evaluator does (issue 26): the last line of
stdout and stderr together, and an answer starting with `failed:` left out. The expected metrics are what the
harness's own `pal_code_exec.compute` (commit 8fc5bae) gave for the same programs, written down here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import report, write_jsonl

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parents[2] / "data" / "pal"
# GSM8K rows 0 and 1 (answers 18 and 3). Problem 0's first program returns text that starts like a failed run.
PAL = {"0": ['def solution():\n    return "failed: no answer"', "def solution():\n    return 18"],
       "1": ["def solution():\n    return 3"]}
# compute(predictions=[[P + "\nprint(solution())" for P in PAL[p]] for p in "01"], references=[18, 3])
BCEH_GREEDY = {"accuracy": 1.0, "num_failed_execution": 0.0}

ARITHMETIC = (
    "task: arithmetic\ndataset_path: json\ndataset_kwargs:\n  data_files: rows.jsonl\n"
    "doc_to_text: \"# {{ question }}\\n\"\ndoc_to_target: \"print({{ answer }})\\n\"\njudge: answer\n"
    "test: '{\"expected\": {{ answer }}}'\nmetric_list:\n  - metric: answer_accuracy\n"
)
# The same programs in the harness: compute(predictions=[[P] for P in STDERR_PROGRAMS], references=[18, 3])
STDERR_PROGRAMS = ["import sys\nprint(7)\nprint(18, file=sys.stderr)", "import sys\nprint(3, file=sys.stderr)\nprint(7)"]
BCEH_STDERR = {"accuracy": 0.5, "num_failed_execution": 0.0}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_an_answer_starting_with_failed_is_left_out(pytester: pytest.Pytester, workers: list[str]) -> None:
    shutil.copy(DATA / "gsm8k_test.jsonl", pytester.path / "gsm8k_test.jsonl")
    write_jsonl(pytester.path / "g.jsonl", [{"task": "pal-gsm8k-greedy", "task_id": pid, "completion": program}
                                            for pid, programs in PAL.items() for program in programs])
    result = pytester.runpytest_subprocess("--codeeval-tasks=pal-gsm8k-greedy", "--codeeval-load-generations=g.jsonl",
                                           "--codeeval-dataset=pal-gsm8k-greedy=gsm8k_test.jsonl", "--codeeval-report=r.json",
                                           *workers)
    result.assert_outcomes(passed=2, failed=1)
    task = report(pytester.path / "r.json")["tasks"]["pal-gsm8k-greedy"]
    assert task["metrics"] == BCEH_GREEDY
    first = task["problems"]["0"]["samples"][0]
    assert first["judgement"]["answer"] is None and first["detail"].startswith("printed 'failed: no answer'")


def test_stderr_is_read_with_stdout(pytester: pytest.Pytester) -> None:
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks/arithmetic.yaml").write_text(ARITHMETIC)
    write_jsonl(pytester.path / "tasks/rows.jsonl", [{"question": "q0", "answer": 18}, {"question": "q1", "answer": 3}])
    write_jsonl(pytester.path / "g.jsonl", [{"task": "arithmetic", "task_id": str(i), "completion": program}
                                            for i, program in enumerate(STDERR_PROGRAMS)])
    result = pytester.runpytest_subprocess("--codeeval-task-path=tasks", "--codeeval-tasks=arithmetic",
                                           "--codeeval-load-generations=g.jsonl", "--codeeval-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    task = report(pytester.path / "r.json")["tasks"]["arithmetic"]
    assert {name: task["metrics"][name] for name in BCEH_STDERR} == BCEH_STDERR
    answers = [task["problems"][pid]["samples"][0]["judgement"]["answer"] for pid in ("0", "1")]
    assert answers == ["18", "7"]


def test_the_last_line_ends_at_newlines_only(pytester: pytest.Pytester) -> None:
    """A `\\r`, form feed or U+2028 in the printed answer does not start a new line in BCEH's evaluator, whose
    `compute` scored these programs (tests/data/pal/bceh_line_breaks.json); before, `str.splitlines` read `18`."""
    bceh = json.loads((DATA / "bceh_line_breaks.json").read_text(encoding="utf-8"))
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks/arithmetic.yaml").write_text(ARITHMETIC)
    write_jsonl(pytester.path / "tasks/rows.jsonl", [{"question": f"q{i}", "answer": bceh["reference"]}
                                                     for i in range(len(bceh["programs"]))])
    write_jsonl(pytester.path / "g.jsonl", [{"task": "arithmetic", "task_id": str(i), "completion": program}
                                            for i, program in enumerate(bceh["programs"])])
    pytester.runpytest_subprocess("--codeeval-task-path=tasks", "--codeeval-tasks=arithmetic",
                                  "--codeeval-load-generations=g.jsonl", "--codeeval-report=r.json", "-n", "2")
    task = report(pytester.path / "r.json")["tasks"]["arithmetic"]
    assert {name: task["metrics"][name] for name in bceh["together"]} == bceh["together"]
    assert [task["problems"][str(i)]["samples"][0]["status"] == "passed" for i in range(len(bceh["programs"]))] == [
        each["accuracy"] == 1.0 for each in bceh["each"]]
