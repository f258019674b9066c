"""HumanEval infilling (single-line, multi-line, random-span, random-span-light): listed, the reference self-check
and a generations file of middles (passing and failing, -n 2 too) on real rows, judged by running the whole
function, built as human-eval-infilling builds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.tasks import builtin_registry

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parents[2] / "data" / "humaneval_infilling"
FILES = {"single-line": "SingleLine", "multi-line": "MultiLine", "random-span": "RandomSpan", "random-span-light": "RandomSpanLight"}
DATASETS = [f"--codeeval-dataset=humaneval-infilling-{name}={DATA / (stem + '.jsonl')}" for name, stem in FILES.items()]


def rows(stem: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"{stem}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_listed_and_reference_self_check(pytester: pytest.Pytester) -> None:
    listed = pytester.runpytest("--codeeval-list-tasks", "-v").stdout.str()
    for name in FILES:
        assert f"humaneval-infilling-{name}" in listed
    assert "loubnabnl/humaneval_infilling:HumanEval-MultiLineInfilling" in listed
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humaneval-infilling-*", *DATASETS, "--codeeval-strict")
    result.assert_outcomes(passed=8)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_generations_file_of_middles(pytester: pytest.Pytester, workers: list[str]) -> None:
    single = rows("SingleLine")
    lines = [{"task": "humaneval-infilling-single-line", "task_id": single[0]["task_id"], "completion": single[0]["canonical_solution"]},
             {"task": "humaneval-infilling-single-line", "task_id": single[1]["task_id"], "completion": "    return 0.0\n"}]
    (pytester.path / "g.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = pytester.runpytest_subprocess("--codeeval-load-generations=g.jsonl", *DATASETS, "--codeeval-report=r.json", *workers)
    result.assert_outcomes(passed=1, failed=1)
    task = report(pytester.path / "r.json")["tasks"]["humaneval-infilling-single-line"]
    assert task["metrics"]["pass@1"] == pytest.approx(0.5)
    failed = task["problems"][single[1]["task_id"]]["samples"][0]
    assert failed["completion"] == "    return 0.0\n"  # the middle, as the generations file gave it


def test_the_program_is_prefix_middle_suffix_then_the_tests() -> None:
    registry = builtin_registry()
    registry.use_datasets([("humaneval-infilling-random-span", DATA / "RandomSpan.jsonl")])
    task = registry.get("humaneval-infilling-random-span")
    doc = task.docs[0]
    assert task.get_prompt(doc) == doc["prompt"] and task.get_suffix(doc) == doc["suffix"]
    program = task.build_program(doc, task.join_completion(doc, "MIDDLE"))
    # human-eval-infilling's execution.py: prompt + completion + suffix + "\n" + test + "\n" + f"check({entry_point})"
    assert program == doc["prompt"] + "MIDDLE" + doc["suffix"] + "\n" + doc["test"] + "\n" + "check(has_close_elements)"
    assert task.default_timeout == 3.0
