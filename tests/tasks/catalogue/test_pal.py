"""PAL: programs whose solution() value is the answer, judged in the sandbox by the answer judge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import report, write_jsonl

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parents[2] / "data" / "pal"


def _copy(pytester: pytest.Pytester, *names: str) -> None:
    for name in names:
        shutil.copy(DATA / name, pytester.path / name)


def _run(pytester: pytest.Pytester, *args: str) -> dict:
    result = pytester.runpytest_subprocess(*args, "-q", "--codeeval-report=r.json", "-p", "no:cacheprovider")
    assert result.ret in (0, 1), result.stdout.str() + result.stderr.str()
    return report(pytester.path / "r.json")


def _verdicts(data: dict, task: str) -> dict:
    return {pid: [(s["status"], s["judgement"]) for s in p["samples"]] for pid, p in data["tasks"][task]["problems"].items()}


def test_bigcode_evaluator_data_gives_its_reference_score(pytester: pytest.Pytester) -> None:
    """bigcode-evaluation-harness's own test: its generations for the first two GSM8K test rows score accuracy 1.0
    with no failed execution; the same with two workers."""
    _copy(pytester, "gsm8k_test.jsonl", "pal-gsm8k-greedy_eval_gens.json")
    common = ("--codeeval-tasks=pal-gsm8k-greedy", "--codeeval-dataset=pal-gsm8k-greedy=gsm8k_test.jsonl",
              "--codeeval-load-generations=pal-gsm8k-greedy_eval_gens.json")
    serial = _run(pytester, *common)
    assert serial["tasks"]["pal-gsm8k-greedy"]["metrics"] == {"accuracy": 1.0, "num_failed_execution": 0.0}
    assert [p["samples"][0]["judgement"]["answer"] for p in serial["tasks"]["pal-gsm8k-greedy"]["problems"].values()] == ["18", "3.0"]
    parallel = _run(pytester, *common, "-n", "2")
    assert parallel["tasks"]["pal-gsm8k-greedy"]["metrics"] == serial["tasks"]["pal-gsm8k-greedy"]["metrics"]
    assert _verdicts(parallel, "pal-gsm8k-greedy") == _verdicts(serial, "pal-gsm8k-greedy")


def test_summary_and_report_agree_that_the_sandbox_ran_programs(pytester: pytest.Pytester) -> None:
    """PAL executes without pass@k: one predicate (`Task.requires_execution`) says so, so the summary names the
    sandbox beside the programs it ran and the JSON report states its executors and layers; with two workers too
    (without -q, the controller's header starts its sandbox as for any execution task)."""
    _copy(pytester, "gsm8k_test.jsonl", "pal-gsm8k-greedy_eval_gens.json")
    common = ("--codeeval-tasks=pal-gsm8k-greedy", "--codeeval-dataset=pal-gsm8k-greedy=gsm8k_test.jsonl",
              "--codeeval-load-generations=pal-gsm8k-greedy_eval_gens.json", "--codeeval-report=r.json",
              "-p", "no:cacheprovider")
    for workers in ((), ("-n", "2")):
        result = pytester.runpytest_subprocess(*common, *workers)
        assert result.ret == 0, result.stdout.str() + result.stderr.str()
        result.stdout.fnmatch_lines(["*2 distinct programs run in *; sandbox: strict"])
        sandbox = report(pytester.path / "r.json")["sandbox"]
        assert sandbox["level"] == "strict" and sandbox["jobs"] > 0 and sandbox["layers"], sandbox


def _program(body: str) -> str:
    return f"def solution():\n    {body}\n"


def test_greedy_and_majority_voting_with_failed_executions(pytester: pytest.Pytester) -> None:
    """Problem 0: a crash, then 17, 18, 18: greedy takes the first answer (17, wrong), the majority 18 (right).
    Problem 1: every execution fails (a crash, a time-out, no output): bigcode counts a failed execution."""
    _copy(pytester, "gsm8k_test.jsonl")
    samples = {
        0: ["raise ValueError('no')", "return 17", "return 18", "return 18"],
        1: ["return undefined_name", "while True: pass", "import io, sys; sys.stdout = io.StringIO(); return 3", "return 1 / 0"],
    }
    rows = [{"task": task, "task_id": str(pid), "completion": _program(body)}
            for task in ("pal-gsm8k-greedy", "pal-gsm8k-majority_voting") for pid, bodies in samples.items() for body in bodies]
    write_jsonl(pytester.path / "gens.jsonl", rows)
    args = ("--codeeval-tasks=pal-gsm8k-*", "--codeeval-load-generations=gens.jsonl", "--codeeval-timeout=1",
            "--codeeval-dataset=pal-gsm8k-greedy=gsm8k_test.jsonl", "--codeeval-dataset=pal-gsm8k-majority_voting=gsm8k_test.jsonl")
    serial = _run(pytester, *args)
    tasks = serial["tasks"]
    assert tasks["pal-gsm8k-greedy"]["metrics"] == {"accuracy": 0.0, "num_failed_execution": 1.0}
    assert tasks["pal-gsm8k-majority_voting"]["metrics"] == {"accuracy": 0.5, "num_failed_execution": 1.0}
    statuses = [s["status"] for s in tasks["pal-gsm8k-greedy"]["problems"]["0"]["samples"]]
    assert statuses == ["failed", "failed", "passed", "passed"]
    details = [s["detail"] for s in tasks["pal-gsm8k-greedy"]["problems"]["1"]["samples"]]
    assert details[0].startswith("exception: NameError") and details[1].startswith("timed out (1 s CPU") and details[2] == "printed no answer"
    parallel = _run(pytester, *args, "-n", "2")
    for task in ("pal-gsm8k-greedy", "pal-gsm8k-majority_voting"):
        assert parallel["tasks"][task]["metrics"] == tasks[task]["metrics"]
        assert _verdicts(parallel, task) == _verdicts(serial, task)


def test_gsm_hard_reads_its_own_fields(pytester: pytest.Pytester) -> None:
    _copy(pytester, "gsm_hard_train.jsonl")
    body = "eggs = 16 - 3 - 4933828\n    return eggs * 2"
    write_jsonl(pytester.path / "gens.jsonl", [{"task": "pal-gsmhard-greedy", "task_id": "0", "completion": _program(body)}])
    data = _run(pytester, "--codeeval-tasks=pal-gsmhard-greedy", "--codeeval-load-generations=gens.jsonl",
                "--codeeval-dataset=pal-gsmhard-greedy=gsm_hard_train.jsonl")
    assert data["tasks"]["pal-gsmhard-greedy"]["metrics"] == {"accuracy": 1.0, "num_failed_execution": 0.0}


def test_prompt_and_program_are_bigcodes() -> None:
    """The prompt is bigcode's own test file's; the program is what its postprocess_generation makes of a raw
    generation (written down from reading gsm.py: the text after the ninth mark, cut at 'Q:', then the print)."""
    from pytest_codeeval.tasks.catalogue.pal import Gsm8kPal, GsmHardPal

    task = Gsm8kPal()
    expected = json.loads((DATA / "pal-gsm8k-greedy_prompt.json").read_text(encoding="utf-8"))["prompt"]
    assert task.get_prompt({"question": "test", "answer": "#### 1"}) == expected
    assert GsmHardPal().get_prompt({"input": "test", "target": 1.0}) == expected
    task.__dict__["docs"] = [{"question": "test", "answer": "#### 1"}]
    raw = expected + "def solution():\n    return 2\n\n\n\n\n\nQ: next question"
    assert task.postprocess_generation(raw, 0) == "def solution():\n    return 2\n\n\n\n\n\n\nprint(solution())"
    assert task.get_reference({"question": "q", "answer": "so\n#### 1,234"}) == 1234
