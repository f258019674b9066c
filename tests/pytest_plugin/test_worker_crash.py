"""A worker that dies loses no sample: xdist gives the sample it was running to another worker, once; a sample
that crashes its worker again is an `error` and the run is incomplete."""

from __future__ import annotations

import pytest
from helpers import canonical, first_ids, report, write_jsonl

pytestmark = pytest.mark.timeout(300)

# Kills its own xdist worker when it is about to run TARGET: once (a marker file says it happened), or every time.
KILLER = """
import os, signal
from pathlib import Path

MARK = Path({mark!r})

def pytest_runtest_protocol(item, nextitem):
    if hasattr(item.config, "workerinput") and item.nodeid == {target!r} and ({always!r} or not MARK.exists()):
        MARK.write_text("killed")
        os.kill(os.getpid(), signal.SIGKILL)
"""
TARGET = "codeeval::humaneval::HumanEval/2::sample1"


def _run(pytester: pytest.Pytester, name: str, *extra: str) -> pytest.RunResult:
    rows = []
    for tid in first_ids(4):
        rows += [{"task_id": tid, "completion": canonical(tid)}, {"task_id": tid, "completion": "    return None\n"},
                 {"task_id": tid, "completion": canonical(tid) + "    # another\n"}]
    path = write_jsonl(pytester.path / "samples.jsonl", rows)
    return pytester.runpytest_subprocess(
        f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval", "--codeeval-k=1,3",
        f"--codeeval-report={name}.json", *extra,
    )


def _verdicts(data: dict) -> dict:
    return {pid: [(s["index"], s["status"]) for s in p["samples"]] for pid, p in data["tasks"]["humaneval"]["problems"].items()}


def test_a_killed_worker_loses_no_sample(pytester: pytest.Pytester) -> None:
    _run(pytester, "undisturbed", "-n", "2").assert_outcomes(passed=8, failed=4)
    pytester.makeconftest(KILLER.format(mark=str(pytester.path / "killed"), target=TARGET, always=False))
    result = _run(pytester, "killed", "-n", "2")
    assert (pytester.path / "killed").exists()  # the worker did die
    result.assert_outcomes(passed=8, failed=4)
    undisturbed, killed = report(pytester.path / "undisturbed.json"), report(pytester.path / "killed.json")
    assert _verdicts(killed) == _verdicts(undisturbed) and sum(map(len, _verdicts(killed).values())) == 12
    assert killed["tasks"]["humaneval"]["metrics"] == undisturbed["tasks"]["humaneval"]["metrics"]
    assert killed["run"]["complete"] is True and killed["run"]["lost"] == [] and result.ret == 0


def test_a_sample_that_crashes_its_worker_twice_is_an_error_and_the_run_incomplete(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(KILLER.format(mark=str(pytester.path / "killed"), target=TARGET, always=True))
    result = _run(pytester, "killed", "-n", "2")
    assert result.ret != 0
    result.stdout.fnmatch_lines([f"codeeval: the run is incomplete: 1 sample(s) crashed their xdist worker twice*{TARGET}*"])
    data = report(pytester.path / "killed.json")
    assert data["run"]["complete"] is False and data["run"]["lost"] == [TARGET]
    crashed = data["tasks"]["humaneval"]["problems"]["HumanEval/2"]["samples"][1]
    assert (crashed["index"], crashed["status"]) == (1, "error") and "crashed" in crashed["detail"]
    assert sum(map(len, _verdicts(data).values())) == 12


# Kills every zygote of its xdist worker's pool when TARGET's call begins: TARGET's sample (and any running ahead)
# then runs again on a fresh zygote.
ZYGOTE_KILLER = """
from pathlib import Path

MARK = Path({mark!r})

def pytest_runtest_call(item):
    if hasattr(item.config, "workerinput") and item.nodeid == {target!r} and not MARK.exists():
        MARK.write_text("killed")
        role = next(p for p in item.config.pluginmanager.get_plugins() if hasattr(p, "benchmark"))
        for executor in role.benchmark.pool._executors:
            if executor._proc is not None:
                executor._proc.kill()
"""


def test_a_zygote_that_dies_under_xdist_loses_no_sample(pytester: pytest.Pytester) -> None:
    _run(pytester, "undisturbed", "-n", "2").assert_outcomes(passed=8, failed=4)
    pytester.makeconftest(ZYGOTE_KILLER.format(mark=str(pytester.path / "killed"), target=TARGET))
    result = _run(pytester, "killed", "-n", "2")
    assert (pytester.path / "killed").exists()
    result.assert_outcomes(passed=8, failed=4)
    undisturbed, killed = report(pytester.path / "undisturbed.json"), report(pytester.path / "killed.json")
    assert _verdicts(killed) == _verdicts(undisturbed)
    assert killed["tasks"]["humaneval"]["metrics"] == undisturbed["tasks"]["humaneval"]["metrics"]
    assert killed["run"]["complete"] is True and result.ret == 0
