"""Identical programs run once per process: every sample keeps its item, record and report entry, marked with the
sample whose run it shares, and the verdicts are those of a run that executes every sample."""

from __future__ import annotations

import pytest
from helpers import canonical, first_ids, report, write_jsonl

pytestmark = pytest.mark.timeout(300)


def _samples(pytester: pytest.Pytester) -> str:
    """Per problem: the canonical solution three times, a wrong one twice, and one that times out twice."""
    rows = []
    for tid in first_ids(2):
        rows += [{"task_id": tid, "completion": canonical(tid)}] * 3
        rows += [{"task_id": tid, "completion": "    return None\n"}] * 2
        rows += [{"task_id": tid, "completion": "    while True:\n        pass\n"}] * 2
    return str(write_jsonl(pytester.path / "dupes.jsonl", rows))


def _samples_of(data: dict) -> dict:
    return {pid: p["samples"] for pid, p in data["tasks"]["humaneval"]["problems"].items()}


def test_identical_programs_run_once_with_the_same_verdicts(pytester: pytest.Pytester) -> None:
    args = [f"--codeeval-load-generations={_samples(pytester)}", "--codeeval-tasks=humaneval", "--codeeval-k=1,7",
            "--codeeval-timeout=1"]
    runs = {"dedupe": [], "no-dedupe": ["--codeeval-no-dedupe"], "xdist": ["-n", "2"],
            "xdist-no-dedupe": ["-n", "2", "--codeeval-no-dedupe"]}
    for name, extra in runs.items():
        result = pytester.runpytest_subprocess(*args, *extra, f"--codeeval-report={name}.json")
        result.assert_outcomes(passed=6, failed=8)
        if name == "dedupe":
            result.stdout.fnmatch_lines(["14 samples (6 passed, 4 failed, 4 timeout, 0 error), 6 distinct programs run*"])
        if name == "no-dedupe":
            result.stdout.fnmatch_lines(["14 samples (*), 14 distinct programs run*"])
    data = {name: report(pytester.path / f"{name}.json") for name in runs}
    verdicts = {name: {pid: [(s["index"], s["status"], s["detail"]) for s in samples]
                       for pid, samples in _samples_of(d).items()} for name, d in data.items()}
    assert verdicts["dedupe"] == verdicts["no-dedupe"] == verdicts["xdist"] == verdicts["xdist-no-dedupe"]
    metrics = {name: d["tasks"]["humaneval"]["metrics"] for name, d in data.items()}
    assert metrics["dedupe"] == metrics["no-dedupe"] == metrics["xdist"] == metrics["xdist-no-dedupe"]

    one = _samples_of(data["dedupe"])
    for pid, samples in one.items():  # the first of each kind ran; the others name it
        ran = {0: None, 1: 0, 2: 0, 3: None, 4: 3, 5: None, 6: 5}
        assert [s["shared_with"] for s in samples] == [
            None if first is None else f"codeeval::humaneval::{pid}::sample{first}" for first in ran.values()
        ]
        assert samples[1]["output"] == samples[0]["output"] and samples[1]["program"] == samples[0]["program"]
    assert data["dedupe"]["run"]["programs_run"] == 6 and data["no-dedupe"]["run"]["programs_run"] == 14
    assert 6 <= data["xdist"]["run"]["programs_run"] <= 14  # each worker runs its own distinct programs once
    assert all(s["shared_with"] is None for samples in _samples_of(data["no-dedupe"]).values() for s in samples)
    assert data["dedupe"]["config"]["dedupe"] is True and data["no-dedupe"]["config"]["dedupe"] is False
