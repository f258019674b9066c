"""Mercury: correctness and CPU-time efficiency against reference solutions, by the cputime judge in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report, write_jsonl

pytestmark = pytest.mark.timeout(600)

DATA = Path(__file__).parents[2] / "data" / "mercury"
ROWS = [json.loads(line) for line in (DATA / "eval.jsonl").read_text().splitlines()]
SUMMARY, CONSECUTIVE, DEDUPE = (r["slug_name"] for r in ROWS)
DATASET = f"--codeeval-dataset=mercury={DATA / 'eval.jsonl'}"


def _run(pytester: pytest.Pytester, *args: str) -> dict:
    result = pytester.runpytest_subprocess(DATASET, "--codeeval-tasks=mercury", *args, "-q",
                                           "--codeeval-report=r.json", "-p", "no:cacheprovider")
    assert result.ret in (0, 1), result.stdout.str() + result.stderr.str()
    return report(pytester.path / "r.json")["tasks"]["mercury"]


def _statuses(task: dict) -> dict:
    return {pid: [s["status"] for s in p["samples"]] for pid, p in task["problems"].items()}


def _beyonds(task: dict) -> dict:
    return {pid: [s["scores"].get("beyond") for s in p["samples"]] for pid, p in task["problems"].items()}


def test_reference_solutions_pass_and_are_timed_against_the_others(pytester: pytest.Pytester) -> None:
    serial = _run(pytester, "--codeeval-model=reference")
    assert serial["metrics"]["pass@1"] == 1.0
    assert 0.0 <= serial["metrics"]["beyond@1"] <= 1.0
    for problem in serial["problems"].values():
        judgement = problem["samples"][0]["judgement"]
        assert judgement["cpu_seconds"] > 0 and len(judgement["cpu_runs"]) == 6  # the checking run and 5 rounds
        assert len(judgement["reference_cpu_seconds"]) == 3 and judgement["references_failed"] == 0
        # the sample is the first reference: the slowest reference (a quadratic one) is well behind it
        assert judgement["cpu_seconds"] < max(judgement["reference_cpu_seconds"])
    parallel = _run(pytester, "--codeeval-model=reference", "-n", "2")
    assert _statuses(parallel) == _statuses(serial)
    assert parallel["metrics"]["pass@1"] == 1.0 and 0.0 <= parallel["metrics"]["beyond@1"] <= 1.0


def _lookup(row: dict) -> str:
    """A correct program that looks the answers up: far faster than any reference, so its Beyond is exactly 1. The key
    is the input as a tuple, hashed in C: a key built in Python (json.dumps) costs as much as the references' loops."""
    answers = {tuple(c["input"][0]): c["expected"] for c in json.loads(row["test_cases"])}
    return (f"ANSWERS = {answers!r}\nclass Solution:\n    def {row['entry_point']}(self, nums):\n"
            "        return ANSWERS[tuple(nums)]\n")


def _slow(row: dict) -> str:
    """The first reference with a few milliseconds of busy work per call: slower than every reference (Beyond 0)."""
    source = row["solutions"][0]["solution"]
    cls, method, body = source.split(":\n", 2)
    return f"{cls}:\n{method}:\n        sum(range(400000))\n{body}"


def test_generations_real_and_built_serial_and_with_two_workers(pytester: pytest.Pytester) -> None:
    """Real model samples (Mercury's own gpt-4 and CodeLlama files) and built ones whose Beyond is certain: a lookup
    table (1), a slow copy of a reference (0), a wrong answer, a time-out and a program that does not load (0)."""
    real: dict[tuple[str, str], list[str]] = {}
    for r in map(json.loads, (DATA / "model_samples.jsonl").read_text().splitlines()):
        real.setdefault((r["task_id"], r["model"].split("-")[0]), []).append(r["completion"])
    rows = {r["slug_name"]: r for r in ROWS}
    hang = "class Solution:\n    def deleteDuplicates(self, head):\n        while True:\n            pass\n"
    wrong, runaway = real[CONSECUTIVE, "CodeLlama"][1], real[CONSECUTIVE, "CodeLlama"][0]
    samples = {
        SUMMARY: [_lookup(rows[SUMMARY]), real[SUMMARY, "CodeLlama"][0], _slow(rows[SUMMARY]), real[SUMMARY, "gpt"][0]],
        CONSECUTIVE: [wrong, runaway, _lookup(rows[CONSECUTIVE]), real[CONSECUTIVE, "gpt"][0]],
        DEDUPE: [real[DEDUPE, "gpt"][0], real[DEDUPE, "CodeLlama"][0], _slow(rows[DEDUPE]), hang],
    }
    write_jsonl(pytester.path / "gens.jsonl", [{"task": "mercury", "task_id": pid, "completion": c}
                                               for pid, completions in samples.items() for c in completions])
    args = ("--codeeval-load-generations=gens.jsonl", "--codeeval-timeout=2", "--codeeval-k=1,2,3,4")
    serial = _run(pytester, *args)
    assert _statuses(serial) == {
        SUMMARY: ["passed", "failed", "passed", "passed"],
        CONSECUTIVE: ["failed", "timeout", "passed", "passed"],
        DEDUPE: ["failed", "failed", "passed", "timeout"],
    }
    beyonds = _beyonds(serial)
    assert beyonds[SUMMARY][:3] == [1.0, 0.0, 0.0] and beyonds[CONSECUTIVE][:3] == [0.0, 0.0, 1.0]
    assert beyonds[DEDUPE] == [0.0, 0.0, 0.0, 0.0]
    real_summary, real_consecutive = beyonds[SUMMARY][3], beyonds[CONSECUTIVE][3]
    assert 0.0 <= real_summary <= 1.0 and 0.0 <= real_consecutive <= 1.0
    metrics = serial["metrics"]
    assert metrics["pass@1"] == pytest.approx(1 / 2) and metrics["pass@4"] == 1.0
    # Mercury's Beyond@k: per problem the mean of its first k samples' Beyond, averaged over problems
    assert metrics["beyond@1"] == pytest.approx(1 / 3) and metrics["beyond@2"] == pytest.approx(1 / 6)
    assert metrics["beyond@3"] == pytest.approx(2 / 9)
    assert metrics["beyond@4"] == pytest.approx(((1 + real_summary) / 4 + (1 + real_consecutive) / 4) / 3)
    details = [s["detail"] for s in serial["problems"][DEDUPE]["samples"]]
    assert details[0].startswith("IndentationError") and details[0].endswith("(loading)")  # Mercury: failed@load
    assert details[1] == "wrong answer (test 0)" and details[3] == "time limit"
    assert serial["problems"][DEDUPE]["samples"][1]["judgement"]["failure"]["expected"] == "[1, 2]"

    parallel = _run(pytester, *args, "-n", "2")
    assert _statuses(parallel) == _statuses(serial)
    assert {k: v for k, v in parallel["metrics"].items() if k != "beyond@4"} == {
        k: v for k, v in metrics.items() if k != "beyond@4"}
    assert parallel["metrics"]["beyond@4"] == pytest.approx(metrics["beyond@4"], abs=1 / 6)  # two timed samples


CONFTEST = '''
import json
from pytest_codeeval.tasks import Task

FAST = "class Solution:\\n    def total(self, nums):\\n        return sum(nums)\\n"
LOOP = "class Solution:\\n    def total(self, nums):\\n        s = 0\\n        for x in nums:\\n            s += x\\n        return s\\n"
WRONG = "class Solution:\\n    def total(self, nums):\\n        return 0\\n"
BROKEN = "class Solution:\\n    def total(self, nums):\\n        return undefined\\n"


class Totals(Task):
    name = "totals"
    runner = "cputime"
    metrics = ("pass@k", "beyond@k")

    def get_dataset(self):
        tests = [{"input": [list(range(n))], "expected": n * (n - 1) // 2} for n in (5, 3000)]
        return [{"task_id": "some-fail", "tests": tests, "refs": [LOOP, WRONG, "class Solution(:\\n", LOOP]},
                {"task_id": "none-pass", "tests": tests, "refs": [WRONG, BROKEN]}]

    def get_prompt(self, doc):
        return ""

    def get_solution(self, doc):
        return FAST

    def build_program(self, doc, solution, resources=None):
        return solution

    def judge_data(self, doc):
        return json.dumps({"entry_point": "total", "tests": doc["tests"], "references": doc["refs"], "rounds": 2})


def pytest_codeeval_register_tasks(registry):
    registry.add(Totals)
'''


def test_references_that_fail_leave_the_distribution(pytester: pytest.Pytester) -> None:
    """A reference that fails or does not compile is left out; when none passes, the sample has no Beyond and its
    problem is left out of beyond@k. The judge's data may set its own number of rounds."""
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=totals", "-q",
                                           "--codeeval-report=r.json", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    task = report(pytester.path / "r.json")["tasks"]["totals"]
    some, none = (task["problems"][p]["samples"][0] for p in ("some-fail", "none-pass"))
    assert some["judgement"]["references_failed"] == 2
    assert [t is None for t in some["judgement"]["reference_cpu_seconds"]] == [False, True, True, False]
    assert len(some["judgement"]["cpu_runs"]) == 3 and some["scores"] == {"beyond": 1.0}  # sum() beats the loops
    assert none["status"] == "passed" and none["scores"] == {} and none["judgement"]["beyond"] is None
    assert "wrong on test 0" in none["judgement"]["reference_error"] or "NameError" in none["judgement"]["reference_error"]
    assert none["detail"].endswith("no reference solution passed: no Beyond")
    assert task["metrics"] == {"pass@1": 1.0, "beyond@1": 1.0}


def test_beyond_is_mercurys() -> None:
    from pytest_codeeval.judges.cputime import beyond

    assert beyond(2.0, [1.0, 3.0, 5.0]) == pytest.approx(0.75)  # (max - t) / (max - min)
    assert beyond(0.5, [1.0, 5.0]) == 1.0 and beyond(9.0, [1.0, 5.0]) == 0.0  # clamped into the range
    assert beyond(None, [1.0, 5.0]) == 0.0  # a failing sample
    assert beyond(1.0, []) is None
    assert beyond(1.0, [1.0]) == 1.0 and beyond(1.1, [1.0, 1.0]) == 0.0  # an empty range


def test_prompt_and_postprocessing_are_bigcodes() -> None:
    from pytest_codeeval.tasks.catalogue.mercury import Mercury

    task = Mercury()
    row = ROWS[0]
    prompt = task.get_prompt(row)
    assert prompt.startswith("### Question\nYou are given a 0-indexed array of positive integers nums. Find the number")
    assert "\n\n### Code Prompt\nclass Solution(object):\n    def unequalTriplets(self, nums: List[int]) -> int:\n" in prompt
    assert "                    ans += len({a[i], a[j], a[k]}) == 3\n        return ans\n\n### Question\n" in prompt
    assert prompt.endswith(f"### Question\n{row['pretty_content'][0]}\n\n### Code Prompt\n{row['prompt']}\n\n### Completion\n")
    without = task.get_prompt({**row, "prompt": ""})
    assert "### Code Prompt" not in without and without.endswith("\n\n### Completion\n")
    task.__dict__["docs"] = [row]
    body = "class Solution:\n    def summaryRanges(self, nums):\n        return []\n"
    assert task.postprocess_generation(prompt + body + "\n# test it\nprint(1)", 0) == body
    assert json.loads(task.judge_data(row))["references"] == [s["solution"] for s in row["solutions"]]


def test_listed(pytester: pytest.Pytester) -> None:
    listed = pytester.runpytest("--codeeval-list-tasks", "-v").stdout.str()
    assert "mercury" in listed and "beyond@k" in listed


def test_a_row_missing_a_column_is_one_line(pytester: pytest.Pytester) -> None:
    broken = [{k: v for k, v in ROWS[0].items() if k != "test_cases"}]
    write_jsonl(pytester.path / "broken.jsonl", broken)
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=mercury",
                                           "--codeeval-dataset=mercury=broken.jsonl", "-p", "no:cacheprovider")
    assert result.ret == 4
    assert "test_cases" in (result.stdout.str() + result.stderr.str())


def test_missing_converters_library_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without lctk (Mercury's converters build linked lists and trees with it) the task is skipped, naming the extra."""
    from pytest_codeeval.tasks.catalogue import mercury

    monkeypatch.setattr(mercury, "find_spec", lambda name: None if name == "lctk" else object())
    assert mercury.Mercury().unavailable() == "lctk is not installed: pip install 'pytest-codeeval[mercury]'"
    monkeypatch.setattr(mercury, "find_spec", lambda name: object())
    assert mercury.Mercury().unavailable() is None
