"""The contract of a solution source: which samples exist (at collection) and each one's solution (when it runs)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from pytest_codeeval.samples import SampleKey
from pytest_codeeval.tasks.base import Doc, Problem, Task

TaskLookup = Callable[[str], Task]
ProblemLookup = Callable[[SampleKey], Problem]


class SolutionSource(ABC):
    """Knows which samples exist (at collection) and gives each one's solution (when it runs)."""

    name: str

    @abstractmethod
    def sample_indices(self, task: Task, problem: Problem) -> Sequence[int]: ...

    @abstractmethod
    def solution(self, task: Task, problem: Problem, index: int) -> str: ...

    def doc(self, task: Task, problem: Problem, index: int) -> Doc:
        """The row a sample's program is built from: the problem's, unless the sample brings its own prompt and
        tests (a MultiPL-E file's)."""
        return problem.doc

    def prepare(self, keys: Sequence[SampleKey], task_of: TaskLookup, problem_of: ProblemLookup) -> None:  # noqa: B027
        """Optional (only a model has something to do here): produce what `solution` will need for these samples;
        runs once, where the model may load."""

    def check_task(self, task: Task, problems: Sequence[Problem]) -> None:  # noqa: B027
        """Optional (only a file can disagree with its task): raise CodeevalError when the source does not fit the
        task (e.g. ids a file has but the task lacks)."""

    def report(self) -> dict[str, Any] | None:
        return None

    def tokens(self) -> dict[str, int]:
        """Tokens of each generated completion, by node id (the reports' completion lengths); none from a file."""
        return {}

    def prior_verdicts(self) -> dict[str, bool]:
        """Verdicts another tool gave these samples (passed or not), by node id: a generations file may carry them."""
        return {}

    def prior_results(self) -> dict[str, str]:
        """The other tool's words for those verdicts ("timed out"), by node id, where it gives them."""
        return {}
