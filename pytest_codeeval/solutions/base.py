"""The contract of a solution source: every question the run asks about where solutions come from. Each source
answers for itself (the reference, a generations file, a model), so that nothing above it asks which kind it is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pytest_codeeval.samples import SampleKey
from pytest_codeeval.tasks.base import Doc, Problem, Task

if TYPE_CHECKING:
    from pytest_codeeval.generation.arrivals import Arrivals
    from pytest_codeeval.tasks.registry import TaskRegistry

TaskLookup = Callable[[str], Task]
ProblemLookup = Callable[[SampleKey], Problem]


class SolutionSource(Protocol):
    """Which samples exist (at collection), each one's solution (when it runs), and what the run says of them.
    A source subclasses it to take the answers of a source that has nothing to say (no tasks of its own, nothing
    to generate, no verdicts of another tool)."""

    name: str  # where completions came from, as the reports say it: "reference", "file" or the model's name
    where: str = "this run"  # what has the samples, in the line for a node id that matched none
    checked_first: bool = False  # whether every selected task is checked against the source before collection

    def sample_indices(self, task: Task, problem: Problem) -> Sequence[int]: ...

    def solution(self, task: Task, problem: Problem, index: int) -> str: ...

    def doc(self, task: Task, problem: Problem, index: int) -> Doc:
        """The row a sample's program is built from: the problem's, unless the sample brings its own prompt and
        tests (a MultiPL-E file's)."""
        return problem.doc

    def own_tasks(self, registry: TaskRegistry) -> Sequence[str]:
        """The tasks the source names itself (a file's), checked against the registry here so that an unknown one
        names the file, not an option: they run when --codeeval-tasks names none, and count as named."""
        return ()

    def check_selection(self, selected: Sequence[str]) -> None:
        """Raise CodeevalError where the selected tasks leave every one of the source's samples out."""
        return

    def check_task(self, task: Task, problems: Sequence[Problem]) -> None:
        """Raise CodeevalError when the source does not fit the task's problems (ids a file has but the task
        lacks)."""
        return

    def keep(self, task: Task, problems: Sequence[Problem]) -> None:
        """The problems of `task` the run keeps (after --codeeval-limit), for what the reports say of them."""
        return

    def unsolved(self, task: Task, problems: Sequence[Problem]) -> int:
        """How many of these problems the source has no solution for (the reference, where a row has none): their
        items are skipped, a task without any is not run."""
        return 0

    def prepare(self, keys: Sequence[SampleKey], task_of: TaskLookup, problem_of: ProblemLookup) -> None:
        """Produce what `solution` will need for these samples (a model generates them); runs once, in the process
        that may load a model."""
        return

    def relayed(self) -> Arrivals | None:
        """What the xdist controller relays to its workers as it arrives (a model's completions), or None where
        every process has its own (the reference's rows, a file)."""
        return None

    def receive(self, payload: dict[str, Any]) -> None:
        """On an xdist worker (in xdist's receiving thread): what the controller's relay sends, solutions as they
        arrive, then the end of their production (with its error, where it broke off)."""
        return

    def ready(self, key: SampleKey) -> bool:
        """Whether the sample's solution is there (a model's completion may still be on its way)."""
        return True

    def listen(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever solutions arrive (each may start its sample); a source that has them all calls
        nothing."""
        return

    def stop(self) -> None:
        """The run loop is over: production of solutions (a model's generation) stops after the one in hand."""
        return

    def report(self) -> dict[str, Any] | None:
        """The source's statistics as the reports state them (tokens, cache hits, model loads), if it has any."""
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
