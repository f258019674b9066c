"""Judge one sample: run an execution task's program in the sandbox, or score a match-based task's answer."""

from __future__ import annotations

import time

from pytest_codeeval.records import SampleRecord
from pytest_codeeval.runners import get_runner
from pytest_codeeval.sandbox.api import Limits
from pytest_codeeval.tasks.base import Problem, Task


def limits_for(task: Task, timeout: float | None) -> Limits:
    return Limits(cpu_seconds=timeout if timeout is not None else task.default_timeout)


def evaluate_sample(task: Task, problem: Problem, index: int, solution: str, executor_for, timeout: float | None) -> SampleRecord:  # noqa: ANN001
    """The record of one sample. `executor_for(task)` gives the sandbox executor (started once per process)."""
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
    from pytest_codeeval.metrics import score_sample

    record.scores = score_sample(task, solution, record.reference, problem.doc)
    record.detail = "scored"
    record.duration = time.perf_counter() - started
    return record
