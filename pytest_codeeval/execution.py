"""Judge one sample: run an execution task's program in the sandbox, or score a match-based task's answer."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pytest_codeeval.records import SampleRecord
from pytest_codeeval.runners import get_runner
from pytest_codeeval.sandbox.api import Limits
from pytest_codeeval.tasks.base import Problem, Task


def limits_for(task: Task, timeout: float | None) -> Limits:
    return Limits(cpu_seconds=timeout if timeout is not None else task.default_timeout)


def evaluate_sample(  # noqa: PLR0913
    task: Task, problem: Problem, index: int, solution: str, executor_for, timeout: float | None,  # noqa: ANN001
    resources: Mapping[str, Any],
) -> SampleRecord:
    """The record of one sample. `executor_for(task)` gives the sandbox executor (started once per process);
    `resources` are the values of the pytest fixtures the task requests."""
    record = SampleRecord(
        task=task.name, problem=problem.id, index=index, status="passed", position=problem.position,
        solution=solution, completion=task.split_solution(problem.doc, solution),
    )
    if task.requires_execution:
        program = task.build_program(problem.doc, solution)
        outcome = get_runner(task.language).run(
            program, limits_for(task, timeout), executor_for(task), network=getattr(task, "needs_network", False)
        )
        record.program, record.status, record.detail = program, outcome.status, outcome.detail
        record.output, record.duration = outcome.output, outcome.duration
        return record
    started = time.perf_counter()
    record.reference = task.get_reference(problem.doc)
    record.scores = task.score(solution, record.reference, problem.doc, resources)
    record.duration = time.perf_counter() - started
    record.output = f"answer:   {_clip(solution)}\nexpected: {_clip(record.reference)}"
    # A match sample fails when it scores 0 on the task's first metric: a wrong answer, for -x, --lf and --codeeval-strict.
    primary = next((m for m in task.metrics if m in record.scores), None)
    if primary is not None and record.scores[primary] <= 0:
        record.status, record.detail = "failed", f"wrong answer: {primary} = 0"
    else:
        record.detail = "scored"
    return record


def _clip(text: str, limit: int = 300) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")
