"""ReCode's perturbed HumanEval: forty registered names, the seed filter, prompt conformance with
bigcode-evaluation-harness's recode.py, and robust pass@k / its alternative computed as bigcode and ReCode define
them (expected values worked out by hand from their formulas) from a generations file, under xdist too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.metrics.robust import parse_variant_id, robust_pass_at_k
from pytest_codeeval.samples import SampleRecord
from pytest_codeeval.tasks.catalogue.recode import perturbed_task

pytestmark = pytest.mark.timeout(300)

ROWS = Path(__file__).parents[2] / "data" / "perturbed_humaneval" / "nlaugmenter.jsonl"
TASK = "perturbed-humaneval-nlaugmenter-num_seeds_2"
PERTURBATION = "ButterFingersPerturbation"


def docs() -> list[dict]:
    return [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]


def test_forty_names_are_listed(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    names = [line.split()[0] for line in result.stdout.lines if line.startswith("perturbed-humaneval-")]
    assert sorted(names) == sorted(f"perturbed-humaneval-{c}-num_seeds_{n}" for c in ("format", "func_name", "natgen", "nlaugmenter")
                                   for n in range(1, 11))
    assert "RaymondLi/perturbed_humaneval:natgen" in next(line for line in result.stdout.lines
                                                          if line.startswith("perturbed-humaneval-natgen-num_seeds_3 "))


@pytest.mark.parametrize(("seeds", "problems"), [(1, 2), (2, 4)])
def test_reference_keeps_the_first_seeds(pytester: pytest.Pytester, seeds: int, problems: int) -> None:
    name = f"perturbed-humaneval-nlaugmenter-num_seeds_{seeds}"
    result = pytester.runpytest("--codeeval-model=reference", f"--codeeval-tasks={name}", f"--codeeval-dataset={name}={ROWS}",
                                "--codeeval-report=r.json")
    result.assert_outcomes(passed=problems)
    data = report(pytester.path / "r.json")["tasks"][name]
    assert list(data["problems"])[:2] == [f"HumanEval/2/{PERTURBATION}/seed0", f"HumanEval/13/{PERTURBATION}/seed0"]
    assert data["metrics"][f"robust-pass@1[{PERTURBATION}]"] == 1.0


def test_prompt_and_postprocessing_as_bigcode() -> None:
    task = perturbed_task("nlaugmenter", 2)()
    task.dataset_override = ROWS
    prompt = task.get_prompt(task.docs[0])
    assert prompt == (
        'def truncate_number(number: float) -> float:\n    """ Givfn a positive floating point number, it can be decimposev into\n'
        "    and integer part (largest integer smeller than given number) and decimals\n"
        "    (leftover part always wnaller thai 1).\n\n    Retuxn the decimal pert of the number.\n"
        '    >>> truncate_number(3.5)\n    0.5\n    """')
    raw = prompt + "\n    return number % 1.0\n\n\nif __name__ == '__main__':\n    pass"
    assert task.postprocess_generation(raw, 0) == prompt + "\n    return number % 1.0\n\n"
    assert task.get_prompt(task.docs[3]).startswith('def greatest_common_divisor(a: int, b: int) -> int:\n    """ Return a greatesu commmn')
    raw = task.get_prompt(task.docs[3]) + "\n    return 1\n# done\n"
    assert task.postprocess_generation(raw, 3) == task.get_prompt(task.docs[3]) + "\n    return 1"
    assert task.build_program(task.docs[3], "S").startswith("S\n\n\n\nMETADATA") and task.build_program(task.docs[3], "S").endswith(
        "\ncheck(greatest_common_divisor)")


# Two samples per prompt. truncate_number: seed 0 passes both, seed 1 only the first; greatest_common_divisor:
# both seeds pass only the second. Robust pass@1 (bigcode: the mean over problems of the fraction of generation
# indices where every seed passes) = (1/2 + 1/2) / 2; the alternative (product of the seeds' pass rates) =
# (1 * 1/2 + 1/2 * 1/2) / 2; robust pass@2 = 1; the plain pass@1 over the four prompts = (1 + 1/2 + 1/2 + 1/2) / 4.
BODY = {"HumanEval/2": "    return number % 1.0\n", "HumanEval/13": "    while b:\n        a, b = b, a % b\n    return a\n"}
PASSES = {("HumanEval/2", 0): (True, True), ("HumanEval/2", 1): (True, False),
          ("HumanEval/13", 0): (False, True), ("HumanEval/13", 1): (False, True)}
EXPECTED = {"pass@1": 0.625, f"robust-pass@1[{PERTURBATION}]": 0.5, f"alt-robust-pass@1[{PERTURBATION}]": 0.375,
            f"robust-pass@2[{PERTURBATION}]": 1.0, "pass@2": 1.0}


def completions(doc: dict) -> list[str]:
    return [BODY[doc["task_id"]] if ok else "    return None\n" for ok in PASSES[doc["task_id"], doc["seed"]]]


@pytest.mark.parametrize("fmt", ["jsonl", "bigcode"])
def test_robust_metrics_from_a_generations_file(pytester: pytest.Pytester, fmt: str) -> None:
    if fmt == "jsonl":
        lines = [{"task": TASK, "task_id": f"{d['task_id']}/{PERTURBATION}/seed{d['seed']}", "completion": c}
                 for d in docs() for c in completions(d)]
        write_jsonl(pytester.path / "gens.jsonl", lines)
        source, extra = "gens.jsonl", []
    else:  # bigcode's saved generations: per dataset row, the post-processed programs (stripped prompt + completion)
        rows = [[d["prompt"].strip() + "\n" + c for c in completions(d)] for d in docs()]
        (pytester.path / "gens.json").write_text(json.dumps(rows), encoding="utf-8")
        source, extra = "gens.json", ["-n", "2"]
    result = pytester.runpytest_subprocess(f"--codeeval-load-generations={source}", f"--codeeval-tasks={TASK}", "--codeeval-k=1,2",
                                           f"--codeeval-dataset={TASK}={ROWS}", "--codeeval-report=r.json", *extra)
    result.assert_outcomes(passed=5, failed=3)
    assert report(pytester.path / "r.json")["tasks"][TASK]["metrics"] == pytest.approx(EXPECTED)


def record(problem: str, passed: bool, index: int = 0) -> SampleRecord:
    return SampleRecord("t", problem, index, "passed" if passed else "failed")


def test_robust_pass_at_k_per_perturbation_and_bad_ids() -> None:
    problems = {
        "P/A/seed0": [record("P/A/seed0", True)], "P/A/seed1": [record("P/A/seed1", False)],
        "P/B/seed0": [record("P/B/seed0", True)], "Q/B/seed0": [record("Q/B/seed0", False)],
    }
    assert robust_pass_at_k(problems, (1,)) == {"robust-pass@1[A]": 0.0, "alt-robust-pass@1[A]": 0.0,
                                                "robust-pass@1[B]": 0.5, "alt-robust-pass@1[B]": 0.5}
    assert parse_variant_id("HumanEval/3/X/seed12") == ("HumanEval/3", "X")
    with pytest.raises(CodeevalError, match="is not PROBLEM/PERTURBATION/seedN"):
        parse_variant_id("HumanEval/3")
