"""`--codeeval-model=reference`: each problem's canonical solution."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.solutions.base import SolutionSource
from pytest_codeeval.tasks.base import Problem, Task


class ReferenceSource(SolutionSource):
    """`--codeeval-model=reference`: each problem's canonical solution, to check an environment end to end."""

    name = "reference"

    def sample_indices(self, task: Task, problem: Problem) -> Sequence[int]:
        return (0,)

    def solution(self, task: Task, problem: Problem, index: int) -> str:
        solution = task.get_solution(problem.doc)
        if solution is None:
            raise CodeevalError(
                f"task {task.name!r} has no reference solutions; --codeeval-model=reference cannot run it"
            )
        return solution

    def unsolved(self, task: Task, problems: Sequence[Problem]) -> int:
        return sum(task.get_solution(problem.doc) is None for problem in problems)

    def report(self) -> dict[str, Any]:
        return {"backend": "reference", "model": "reference", "model_loads": 0, "generated": 0, "cached": 0,
                "tokens": 0, "seconds": 0.0}
