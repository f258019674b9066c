"""APPS and the stdio judge: each test's input on stdin (or a call), compared as APPS's checker compares."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import report, write_jsonl

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parents[2] / "data" / "apps"
ROWS = [json.loads(line) for line in (DATA / "apps_test.jsonl").read_text(encoding="utf-8").splitlines()]


def _run(pytester: pytest.Pytester, *args: str) -> dict:
    shutil.copy(DATA / "apps_test.jsonl", pytester.path / "apps.jsonl")
    result = pytester.runpytest_subprocess(*args, "-q", "--codeeval-report=r.json", "-p", "no:cacheprovider")
    assert result.ret in (0, 1), result.stdout.str() + result.stderr.str()
    return report(pytester.path / "r.json")


def _records(data: dict, task: str) -> dict:
    return {pid: [(s["status"], s["detail"], s["judgement"], s["scores"]) for s in p["samples"]]
            for pid, p in data["tasks"][task]["problems"].items()}


def test_reference_solutions_pass_and_levels_filter_a_local_file(pytester: pytest.Pytester) -> None:
    data = _run(pytester, "--codeeval-model=reference", "--codeeval-tasks=apps-all,apps-introductory",
                "--codeeval-dataset=apps-all=apps.jsonl", "--codeeval-dataset=apps-introductory=apps.jsonl", "--codeeval-strict")
    assert list(data["tasks"]["apps-all"]["problems"]) == ["1079", "3040", "4655", "4245"]
    assert list(data["tasks"]["apps-introductory"]["problems"]) == ["4655", "4245"]
    assert data["tasks"]["apps-all"]["metrics"] == {"avg_accuracy": 1.0, "strict_accuracy": 1.0, "pass@1": 1.0}
    assert data["tasks"]["apps-all"]["problems"]["1079"]["samples"][0]["judgement"]["tests_passed"] == 25


GENERATIONS = {
    # always 1: right on the two tests whose answer is 1, wrong first on test 1
    "1079": "input()\nprint(1)\n",
    "3040": "def broken(:\n    pass\n",
    "4655": "while True:\n    pass\n",
    # right, with trailing spaces, blank lines and SystemExit: APPS's comparison accepts it
    "4245": "import sys\nA, B = map(int, sys.stdin.readline().split())\nprint(str((B + A - 3) // (A - 1)) + '   ')\nprint()\nsys.exit(0)\n",
}


def test_a_generations_file_keeps_per_test_results_serial_and_with_two_workers(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "gens.jsonl", [{"task_id": pid, "completion": code} for pid, code in GENERATIONS.items()])
    args = ("--codeeval-tasks=apps-all", "--codeeval-dataset=apps-all=apps.jsonl", "--codeeval-load-generations=gens.jsonl",
            "--codeeval-timeout=1")
    serial = _run(pytester, *args)
    records = _records(serial, "apps-all")
    status, detail, judgement, scores = records["1079"][0]
    assert (status, detail) == ("failed", "2/25 tests passed; first failure: test 1 (wrong answer)")
    assert judgement["first_failure"] == {"test": 1, "input": "111\n", "expected": "2\n", "got": "1\n"}
    assert judgement["results"][:3] == [True, False, False] and judgement["tests_total"] == 25
    assert scores == {"test_accuracy": 2 / 25}
    assert records["3040"][0][0] == "failed" and records["3040"][0][1].startswith("does not compile: SyntaxError")
    assert records["3040"][0][2]["results"] == [-2]
    assert records["4655"][0][2]["results"] == [-1, -1]
    assert records["4655"][0][2]["first_failure"]["error"] == "time limit"
    assert records["4245"][0][:2] == ("passed", "14/14 tests passed")
    assert serial["tasks"]["apps-all"]["metrics"] == pytest.approx(
        {"avg_accuracy": (2 / 25 + 1) / 4, "strict_accuracy": 0.25, "pass@1": 0.25})
    parallel = _run(pytester, *args, "-n", "2")
    assert parallel["tasks"]["apps-all"]["metrics"] == serial["tasks"]["apps-all"]["metrics"]
    assert _records(parallel, "apps-all") == records


def test_several_samples_give_pass_at_k_only(pytester: pytest.Pytester) -> None:
    rows = [{"task_id": "4245", "completion": GENERATIONS["4245"]}, {"task_id": "4245", "completion": "print(0)\n"}]
    write_jsonl(pytester.path / "gens.jsonl", rows)
    data = _run(pytester, "--codeeval-tasks=apps-introductory", "--codeeval-dataset=apps-introductory=apps.jsonl",
                "--codeeval-load-generations=gens.jsonl", "--codeeval-k=1,2")
    assert data["tasks"]["apps-introductory"]["metrics"] == {"pass@1": 0.5, "pass@2": 1.0}


def test_prompts_are_bigcodes() -> None:
    """bigcode's finetuning prompt (apps.py) and its documented one-shot prompt, written down as strings."""
    from pytest_codeeval.tasks.catalogue.apps import _level

    task = _level("all", one_shot=False)()
    row = ROWS[3]  # 4245: standard input, no starter code
    assert task.get_prompt(row) == "\nQUESTION:\n" + row["question"] + "\nUse Standard Input format\nANSWER:\n"
    call = {"question": "Add them.", "starter_code": "def add(a, b):\n    ", "input_output": '{"fn_name": "add", "inputs": [], "outputs": []}'}
    assert task.get_prompt(call) == "\nQUESTION:\nAdd them.def add(a, b):\n    \nUse Call-Based format\nANSWER:\n"
    assert task.postprocess_generation("\nQUESTION:\nq\nANSWER:\nprint(1)\n", 0) == "\nprint(1)\n"
    assert task.postprocess_generation("print(2)", 0) == "print(2)"
    shot = _level("interview", one_shot=True)().get_prompt(row)
    assert shot.startswith("Implement answers to the following questions:\nQUESTION:\nFor an integer x find the largest positive")
    assert "\nUse Standard Input format\nANSWER:\nx = int(input())\n" in shot
    assert "\nUse Call-Based format\nANSWER:\nclass Solution:\n     def numTrees(self, n):\n" in shot
    assert shot.endswith("return res[-1]\n\nQUESTION:\n" + row["question"] + "\nUse Standard Input format\nANSWER:\n")
