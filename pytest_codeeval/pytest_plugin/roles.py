"""The process's role, chosen once at configure (as pytest-cov picks Central, DistMaster or DistWorker):

- `Central`, a run without xdist: collects, executes and aggregates;
- `Controller`, the xdist controller: generates once for all workers, aggregates their records and reports;
- `Worker`, an xdist worker: collects and executes its items, whose records reach the controller on the reports.

Collecting and aggregating are the two halves (`Collecting`, `Aggregating`) that the roles combine. The end of
the run is a value (`evaluation.outcome.RunOutcome`) that decides the exit status and that the reports render."""

from __future__ import annotations

import contextlib
import gc
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.evaluation.gates import Baseline, read_baseline
from pytest_codeeval.evaluation.outcome import RunOutcome, finish
from pytest_codeeval.evaluation.results import Results
from pytest_codeeval.evaluation.verdicts import not_prepared
from pytest_codeeval.generation.progress import ProgressLines, write_to
from pytest_codeeval.pytest_plugin import usage
from pytest_codeeval.pytest_plugin.benchmark import Benchmark
from pytest_codeeval.pytest_plugin.collect import CodeevalRoot, SampleItem
from pytest_codeeval.pytest_plugin.compat import (
    forget_quiet_phase,
    receive_on_worker,
    run_by_pytest_command,
    uncaptured_stderr,
)
from pytest_codeeval.pytest_plugin.interrupts import Interrupts
from pytest_codeeval.pytest_plugin.lookahead import LOOKAHEAD_PER_JOB, Policy, SessionOrder, WorkerQueue
from pytest_codeeval.pytest_plugin.relay import Relay
from pytest_codeeval.reporting.files import write_reports
from pytest_codeeval.reporting.terminal import header_lines, summary_lines
from pytest_codeeval.samples import ROOT_NAME, SampleKey, SampleRecord
from pytest_codeeval.settings import Settings

SOLUTIONS_COMMAND = "codeeval_solutions"  # controller to worker, on xdist's channel: the generated solutions
MAX_LISTED_FAILURES = 20  # sample failures shown in FAILURES and the short summary without -v
MAX_NAMED_SKIPS = 8  # tasks named per reason in the summary's skipped lines without -v


def make_role(config: pytest.Config, settings: Settings) -> Role:
    if hasattr(config, "workerinput"):
        return Worker(config, settings)
    if _xdist_distributes(config):
        return Controller(config, settings)
    return Central(config, settings)


def _xdist_distributes(config: pytest.Config) -> bool:
    """Whether xdist will run the items on workers: its rule for registering its scheduler (a distribution mode,
    workers, and not --collect-only), which its own configure may apply after ours."""
    if config.option.collectonly or not config.pluginmanager.has_plugin("xdist"):
        return False
    return config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))


class Role:
    """What every process does: knows the benchmark, checks the tasks before collection, starts the sandbox
    early (the header asks for its layers), freezes the run's objects once they exist, and cleans up."""

    baseline: Baseline | None = None

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.benchmark = Benchmark(config, settings, self.processes())
        self._frozen = False  # gc.freeze() called once the run's objects exist, undone at unconfigure (see there)
        self.interrupts = Interrupts()  # a Ctrl-C whose KeyboardInterrupt was dropped is raised again (see there)
        self.interrupts.install()

    def processes(self) -> int:
        """pytest processes that execute samples: the xdist workers, or 1."""
        return int(getattr(self.config.option, "numprocesses", 0) or 1)

    def ends_with_run(self) -> bool:
        """Whether the interpreter exits when the run ends (then the frozen objects are never unfrozen)."""
        return run_by_pytest_command()

    @usage.hook
    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        executes = self.benchmark.may_execute()
        if not executes:  # match tasks only: no sandbox to start or describe, no pass@k
            return header_lines(self.settings, None, self.baseline)
        pool = self.benchmark.pool
        verbose = config.option.verbose > 0
        return header_lines(self.settings, (pool.jobs, pool.layers()), self.baseline, verbose)

    @pytest.hookimpl(tryfirst=True)
    @usage.hook
    def pytest_collection(self) -> None:
        """Unknown task names, and a generations file that does not fit its tasks, are usage errors (exit 4, one
        line), found before anything is collected (on the xdist controller too)."""
        self.benchmark.selection.check_tasks()

    def freeze(self) -> None:
        """Once the run's long-lived objects exist (items, problems, tasks; on the xdist controller, which collects
        nothing, pytest's and xdist's own): out of the collector's view, the garbage collections that thousands of
        reports trigger stay cheap (they cost a tenth of the run otherwise). What is garbage already (a generation
        model's cycles, say) is collected first, never frozen."""
        if not self._frozen:
            gc.collect()
            gc.freeze()
            self._frozen = True

    @pytest.hookimpl(trylast=True)  # after pytest's own collection pass at unconfigure, which the freeze keeps cheap
    @usage.hook
    def pytest_unconfigure(self) -> None:
        # In-process runs (pytester, pytest.main) go on in this interpreter: their objects are collectable again.
        # A process that ends with the run keeps them frozen: unfrozen, pytest's cleanup and the interpreter's
        # collections at exit would traverse every one (a quarter of a second for a few thousand samples).
        if self._frozen and not self.ends_with_run():
            gc.unfreeze()
        self.close()

    def close(self) -> None:
        self.interrupts.uninstall()
        self.stop_generation()
        self.benchmark.close()

    def stop_generation(self) -> None:
        """The run loop is over (every item ran, or -x or Ctrl-C stopped it): a model's generation thread stops
        after the completion in hand, and its report says what was kept."""
        self.benchmark.source.stop()


class Collecting(Role):
    """A process that collects and runs items: adds the codeeval tree, starts samples ahead, attaches records."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        super().__init__(config, settings)
        self._lookahead = self.lookahead()
        self._after_fixtures: list[SampleItem] = []  # samples ahead that wait for their task's fixture values
        self._unready: deque[SampleItem] = deque()  # offered ahead before their completion arrived, in order
        self._session: pytest.Session | None = None

    def lookahead(self) -> Policy:
        """Which items' samples start ahead: in a single process, the session's order."""
        return SessionOrder()

    def _feed(self) -> bool:
        """Start one more upcoming sample (the pool asks while the current item waits and an executor is idle);
        False when there is none, or when the next one's completion has not arrived (the pool asks again when one
        does: completions arrive roughly in the items' order)."""
        assert self._session is not None
        while self._unready:
            if not self.benchmark.ready(self._unready[0].key):
                return False
            arrived = self._unready.popleft()
            if self.benchmark.start_ahead(arrived.problem, arrived.index):
                return True
        for item in self._lookahead.further(self._session):
            if isinstance(item, SampleItem) and self._start(item):
                return True
            if self._unready:
                return False
        return False

    def _start(self, item: SampleItem) -> bool:
        """Start the item's sample ahead, or keep it for when its completion arrives."""
        if self._unready or not self.benchmark.ready(item.key):
            self._unready.append(item)
            return False
        return self.benchmark.start_ahead(item.problem, item.index)

    def collected(self, session: pytest.Session) -> None:
        """The selection is known (after -k, --lf, -m)."""

    @pytest.hookimpl(wrapper=True)
    @usage.hook
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.append(CodeevalRoot.for_session(collector, self.benchmark))
        message = getattr(collector, "codeeval_error", None)
        if message and report.failed:
            report.codeeval_error = message  # plain text: it survives xdist's report serialisation
        return report

    @usage.hook
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.benchmark.selection.check_found({item.nodeid for item in items})

    @usage.hook
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._session = session
        self.collected(session)
        self.freeze()

    @pytest.hookimpl(tryfirst=True)
    @usage.hook
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        self.interrupts.raise_if_received()
        pool = self.benchmark.pool
        if pool.feeder is None:
            self._session = item.session
            pool.feeder = self._feed
            self.benchmark.source.listen(pool.wake)  # each solution that arrives may start its sample
        for upcoming in self._lookahead.upcoming(item, nextitem, LOOKAHEAD_PER_JOB * pool.jobs):
            if isinstance(upcoming, SampleItem):
                if self.benchmark.needs_fixtures_first(upcoming.problem):
                    self._after_fixtures.append(upcoming)
                elif upcoming is item and self.benchmark.ready(item.key):  # due now, whatever waits before it
                    self.benchmark.start_ahead(item.problem, item.index)
                else:
                    self._start(upcoming)

    @pytest.hookimpl(tryfirst=True)
    @usage.hook
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        """The item's fixtures are set up: the waiting samples of its task start with their values. An execution
        task requests session- and module-scoped fixtures only (collect.py), so every sample of the task in this
        process has the same values as this item."""
        if not isinstance(item, SampleItem) or not self._after_fixtures:
            return
        task_node, waiting = item.parent.parent if item.parent else None, []
        for upcoming in self._after_fixtures:
            if upcoming.parent is not None and upcoming.parent.parent is task_node:
                self.benchmark.start_ahead(upcoming.problem, upcoming.index, item.funcargs)
            else:
                waiting.append(upcoming)
        self._after_fixtures = waiting

    @pytest.hookimpl(wrapper=True)
    @usage.hook
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        if not isinstance(item, SampleItem):
            return report
        error = call.excinfo.value if call.excinfo is not None else None
        if isinstance(error, CodeevalError):
            report.codeeval_error = str(error)  # bad input found while preparing the sample: a usage error
        elif report.failed and item.record is None and call.when in ("setup", "call"):
            # The sample could not be prepared (a task's bug, a fixture that failed): an error of the run, counted
            # with its problem, never left out of the metric.
            item.record = not_prepared(item.problem, item.index, f"{type(error).__name__}: {error}")
        if call.when != "teardown" and item.record is not None:
            report.codeeval = item.record.to_wire()
            item.record = None  # on the report now: the item, kept until the session ends, holds no copy
        return report


SLIM_FIELDS = ("task", "problem", "index", "status")  # what a report keeps of its record once aggregated


class Aggregating(Role):
    """A process that gathers every sample's record (its own, or the xdist workers'), turns them into the run's
    outcome, shows the summary, sets the exit status and writes the reports."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        super().__init__(config, settings)
        self.results = Results()
        self.sample_failures = 0
        self.started = time.time()
        # Read before anything runs, so the header can say at once that it is unusable; the run still goes on.
        self.baseline = read_baseline(settings.baseline) if settings.baseline is not None else None
        # The selection's items and sample items, known once collection is done, and the items that ran since.
        self.expected_items: int | None = None
        self.expected_samples: int | None = None
        self.items_finished = 0
        self.outcome: RunOutcome | None = None
        self.lost: list[str] = []  # samples an xdist worker crashed on twice (Controller)
        self.skipped_tasks: dict[str, str] = {}  # task -> why it was skipped as a whole
        self.progress: ProgressLines | None = None  # without a terminal: a line now and then while samples are judged
        self.reporting: ProgressLines | None = None  # and while the results are made and written
        self._stderr = uncaptured_stderr(config)  # the lines of generation's thread reach it while items run
        write_to(self._stderr)

    def selection_known(self, n_items: int, keys: list[SampleKey]) -> None:
        """Collection is finished (here, or on every xdist worker alike): generation starts (a model's goes on in
        its own thread while the samples run)."""
        self.expected_items, self.expected_samples = n_items, len(keys)
        self.benchmark.prepare(keys)
        if keys and self.progress is None and ProgressLines.wanted():  # xdist: once, not per worker
            self.progress = ProgressLines.judging(len(keys))
            self.progress.start()

    @property
    def all_samples_reported(self) -> bool:
        """Every sample item of the selection reported its record (here, or from the xdist workers)."""
        return self.expected_samples is not None and len(self.results) >= self.expected_samples

    @property
    def all_items_ran(self) -> bool:
        """The loop ran every selected item (not a run that collection errors interrupted before any)."""
        return self.expected_items is not None and 0 < self.expected_items <= self.items_finished

    @usage.hook
    def pytest_runtest_logfinish(self) -> None:
        self.items_finished += 1

    @pytest.hookimpl(tryfirst=True)
    @usage.hook
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Bad input found while collecting (here, or on an xdist worker): the run ends with its one line, exit 4.
        A task skipped as a whole (no data here, a missing toolchain) is remembered for the summary."""
        _raise_bad_input(report)
        task = report.nodeid.removeprefix(f"{ROOT_NAME}::")
        if report.skipped and task != report.nodeid and "::" not in task and isinstance(report.longrepr, tuple):
            reason = str(report.longrepr[2]).removeprefix("Skipped: ").removeprefix(f"{task}: ")
            self.skipped_tasks[task] = reason

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    @usage.hook
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Any:
        """The sample's record joins the results before any other plugin sees the report; after them all, the
        report keeps only the sample's identity and status (`SLIM_FIELDS`): the terminal keeps every report
        until the session ends, and the record, with its program and output, is in the results. A sample's quiet
        setup and teardown reports are not kept at all (`compat.forget_quiet_phase`)."""
        _raise_bad_input(report)  # found while a sample was prepared: the same
        data = getattr(report, "codeeval", None)
        record = SampleRecord.from_wire(data) if data else None
        if record is not None:
            self.results.add(record)
            self.sample_failures += report.failed
            if self.progress is not None:
                self.progress.update()
        result = yield
        if record is not None:  # the record's own (interned) texts, not the report's copies
            report.codeeval = {name: getattr(record, name) for name in SLIM_FIELDS}  # type: ignore[attr-defined]
        elif report.nodeid.startswith(f"{ROOT_NAME}::"):
            forget_quiet_phase(self.config, report)
        self.interrupts.raise_if_received()  # every plugin has seen the report: the xdist controller's safe point
        return result

    def _finish(self, loop_ended: bool) -> RunOutcome:
        tasks = self.benchmark.tasks
        self.outcome = finish(
            self.results, self.benchmark.facts(), lambda task: tasks.registry.entry(task), self.baseline,
            seconds=time.time() - self.started, loop_ended=loop_ended, collect_only=self.config.option.collectonly,
            sample_failures=self.sample_failures, lost=self.lost,
        )
        return self.outcome

    @pytest.hookimpl(wrapper=True)
    @usage.hook
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        ended = False
        try:
            result = yield
            ended = True
            return result
        finally:
            self.stop_generation()
            if self.progress is not None:
                self.progress.close()
            self._reporting_started()
            # -x stops the loop with an exception even after the last item: the run is complete if every
            # selected sample's result is in, and then it is judged as one that was not stopped.
            if (ended or self.all_samples_reported) and self._finish(loop_ended=True).gates_failed:
                session.testsfailed += 1  # a failed gate is a failure, as pytest-cov counts one

    def _reporting_started(self) -> None:
        """The reporting phase begins (the loop ended, or pytest stopped the run before it): a line now and then
        without a terminal until the reports are written."""
        if self.reporting is None and ProgressLines.wanted():
            self.reporting = ProgressLines.reporting()
            self.reporting.start()

    @pytest.hookimpl(tryfirst=True)
    @usage.hook
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self._reporting_started()
        outcome = self.outcome or self._finish(loop_ended=False)  # pytest stopped the loop: report what is in
        status = outcome.exit_status(session.exitstatus, session.testsfailed, self.all_items_ran)
        # after the status is decided: the report records it
        write_reports(outcome, status, self.benchmark.tasks.problem_doc)
        if self.reporting is not None:
            self.reporting.finish()
        session.exitstatus = _exit_code(outcome.after_reports(status))  # a report not written fails the run

    @pytest.hookimpl(trylast=True)
    @usage.hook
    def pytest_unconfigure(self) -> None:
        """pytest wrote its JUnit XML at session finish: now it is made to agree with the exit status."""
        xmlpath = getattr(self.config.option, "xmlpath", None)
        if xmlpath and self.outcome is not None and Path(xmlpath).exists():
            from pytest_codeeval.reporting.junit import reconcile

            reconcile(Path(xmlpath), self.outcome)
        for lines in (self.progress, self.reporting):  # a run that never reached its loop or its reports
            if lines is not None:
                lines.close()
        super().pytest_unconfigure()
        write_to(None)
        if self._stderr is not None:
            self._stderr.close()

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    @usage.hook
    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> Any:
        with _fewer_failures_listed(terminalreporter):
            result = yield
        usage_error = exitstatus == pytest.ExitCode.USAGE_ERROR  # its one line says it all: no empty summary before it
        if self.outcome is not None and not self.config.option.collectonly and not usage_error:
            terminalreporter.write_sep("=", "codeeval summary")
            for text, colour in summary_lines(self.outcome):
                terminalreporter.write_line(text, **({colour: True} if colour else {}))
            for text in skipped_lines(self.skipped_tasks, self.config.option.verbose > 0):
                terminalreporter.write_line(text, yellow=True)
        stopped = (self.benchmark.source.report() or {}).get("stopped")
        if exitstatus == pytest.ExitCode.INTERRUPTED and stopped:  # Ctrl-C while generating: what was kept
            terminalreporter.write_line(f"codeeval: generation {stopped}", yellow=True)
        return result


class Central(Collecting, Aggregating):
    def collected(self, session: pytest.Session) -> None:
        keys = [item.key for item in session.items if isinstance(item, SampleItem)]
        self.selection_known(len(session.items), keys)


class Controller(Aggregating):
    """Collects nothing itself: the workers' collections tell it the selection, and it generates for them all."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        super().__init__(config, settings)
        self._retried: set[str] = set()  # samples given to a worker again after theirs crashed on them
        self._relay: Relay | None = None  # made when a worker's collection ends and the source has what to relay

    @usage.hook
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Called with the ids a worker collected (after -k and --lf): exactly the selection, the same on every
        worker. The scheduler sends no item before this returns, and the solutions there are so far go to the worker
        first on its channel; the relay sends the others as they arrive, on this machine or another
        (`--tx ssh=...`)."""
        self.selection_known(len(ids), [key for key in map(SampleKey.from_nodeid, ids) if key is not None])
        self.freeze()
        arrivals = self.benchmark.source.relayed()
        if arrivals is not None:
            if self._relay is None:
                self._relay = Relay(arrivals, SOLUTIONS_COMMAND)
            self._relay.add(node)

    def close(self) -> None:
        if self._relay is not None:
            self._relay.close()
        super().close()

    @pytest.hookimpl(optionalhook=True)
    @usage.hook
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """A worker died (killed, out of memory) while running `crashitem`: xdist gives its other items to the
        remaining workers (and starts a replacement); this sample is judged again, once. Crashed on twice, it is
        an `error` and the run is incomplete."""
        key = SampleKey.from_nodeid(crashitem)
        if key is None:
            return
        if crashitem not in self._retried:
            self._retried.add(crashitem)
            with contextlib.suppress(NotImplementedError):  # --dist loadscope, each: no way to run it again
                sched.mark_test_pending(crashitem)
                report.outcome = "rerun"  # type: ignore[assignment]  # not a failure: pytest-rerunfailures' word
                return
        self.lost.append(crashitem)
        detail = "its xdist worker crashed while running it" + (", twice" if crashitem in self._retried else "")
        self.results.add(SampleRecord(key.task, key.problem, key.index, "error", detail, position=self._position(key)))

    def _position(self, key: SampleKey) -> int:
        try:
            return self.benchmark.tasks.problem(key).position
        except CodeevalError:
            return 0

    @usage.hook
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        if report.outcome == "rerun":
            return "rerun", "R", "RERUN"
        return None


class Worker(Collecting):
    def processes(self) -> int:
        return int(self.config.workerinput["workercount"])  # type: ignore[attr-defined]  # xdist's, on workers

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        super().__init__(config, settings)
        receive_on_worker(config, SOLUTIONS_COMMAND, self.benchmark.source.receive)

    def lookahead(self) -> Policy:
        return WorkerQueue(self.config)

    def ends_with_run(self) -> bool:
        return True


def skipped_lines(skipped: dict[str, str], verbose: bool) -> list[str]:
    """Tasks skipped as a whole, one line per reason (the tasks that share it named; -v names them all)."""
    by_reason: dict[str, list[str]] = {}
    for task, reason in sorted(skipped.items()):
        by_reason.setdefault(reason, []).append(task)
    lines = []
    for reason, tasks in by_reason.items():
        shown = tasks if verbose or len(tasks) <= MAX_NAMED_SKIPS else tasks[:MAX_NAMED_SKIPS]
        more = f" and {len(tasks) - len(shown)} more (-v names them)" if len(shown) < len(tasks) else ""
        count = f"{len(tasks)} tasks" if len(tasks) > 1 else "task"
        lines.append(f"codeeval: skipped {count} {', '.join(shown)}{more}: {reason}")
    return lines


def _raise_bad_input(report: pytest.CollectReport | pytest.TestReport) -> None:
    message = getattr(report, "codeeval_error", None)
    if message:
        raise pytest.UsageError(message)


def _exit_code(status: int) -> int:
    """pytest's ExitCode where the status is one (as pytest itself leaves it), the number otherwise."""
    with contextlib.suppress(ValueError):
        return pytest.ExitCode(status)
    return status


@contextlib.contextmanager
def _fewer_failures_listed(reporter: Any) -> Iterator[None]:
    """Keep ten thousand failing samples readable: list the first few, count the rest."""
    failed = reporter.stats.get("failed", [])
    ours = [r for r in failed if getattr(r, "codeeval", None)]
    hidden = ours[MAX_LISTED_FAILURES:] if reporter.config.option.verbose < 1 else []
    if hidden:
        hidden_ids = {id(r) for r in hidden}
        reporter.stats["failed"] = [r for r in failed if id(r) not in hidden_ids]
    try:
        yield
    finally:
        if hidden:
            reporter.stats["failed"] = failed
            reporter.write_line(
                f"codeeval: {len(hidden)} more failing samples not listed (-v lists all; the report has each one)"
            )
