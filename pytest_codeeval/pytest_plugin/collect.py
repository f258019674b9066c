"""The collection tree: codeeval -> task -> problem -> sample item. Node ids are `codeeval::TASK::PROBLEM::sampleN`."""

from __future__ import annotations

import difflib
import functools
import os
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from pytest_codeeval.errors import CodeevalError, DataUnavailable
from pytest_codeeval.pytest_plugin import compat
from pytest_codeeval.pytest_plugin.benchmark import Benchmark
from pytest_codeeval.reporting.failures import describe_failure
from pytest_codeeval.samples import ROOT_NAME, SAMPLE_PREFIX, STATUSES, SampleKey, SampleRecord
from pytest_codeeval.tasks.base import Problem

NO_SOLUTIONS = "no reference solutions: --codeeval-model=reference cannot run it (see --codeeval-list-tasks)"


def bad_input(collector: pytest.Collector, exc: CodeevalError) -> Exception:
    """A CodeevalError found while collecting: a collection error whose report carries the one line
    (`codeeval_error`, see roles.py), which the aggregating process raises as a usage error (exit 4); on an xdist
    worker the report takes it to the controller."""
    collector.codeeval_error = str(exc)  # type: ignore[attr-defined]
    return collector.CollectError(str(exc))


class CodeevalRoot(pytest.Collector):
    def __init__(self, *, benchmark: Benchmark, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.benchmark = benchmark

    @classmethod
    def for_session(cls, session: pytest.Session, benchmark: Benchmark) -> CodeevalRoot:
        return cls.from_parent(session, name=ROOT_NAME, nodeid=ROOT_NAME, benchmark=benchmark)

    def collect(self) -> Iterator[pytest.Collector]:
        try:
            names = self.benchmark.selection.task_names()
        except CodeevalError as exc:
            raise bad_input(self, exc) from None
        for name in names:
            if self.benchmark.selection.task_may_be_selected(name):
                yield TaskCollector.from_parent(
                    self, path=self.path, name=name, nodeid=f"{self.nodeid}::{name}", benchmark=self.benchmark
                )


class TaskCollector(pytest.Module):
    """One task. It is a pytest Module for fixtures' sake: a module-scoped fixture that a task's samples request
    is set up once per task (per process) and torn down after its last sample, as for a test module."""

    def __init__(self, *, benchmark: Benchmark, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.benchmark = benchmark

    def _getobj(self) -> ModuleType:
        return ModuleType(f"codeeval.{self.name}")  # a task is no Python file: nothing to import

    def collect(self) -> Iterator[pytest.Collector]:
        try:
            task = self.benchmark.tasks.task(self.name)
            reason = task.unsupported() or task.unavailable()
            problems = [] if reason else self.benchmark.tasks.problems(self.name)
            # the reference's solutions are made here (a template naming a missing column fails now, one line)
            unsolved = self.benchmark.source.unsolved(task, problems) if problems and not reason else 0
        except DataUnavailable as exc:  # named: a usage error; matched by a glob or family: skipped, the rest run
            if self.benchmark.selection.named(self.name):
                raise bad_input(self, exc) from None
            reason, unsolved = exc.reason, 0
        except CodeevalError as exc:
            raise bad_input(self, exc) from None
        if unsolved and unsolved == len(problems):
            if self.benchmark.selection.named(self.name):
                raise bad_input(self, CodeevalError(f"{self.name}: {NO_SOLUTIONS}")) from None
            reason = NO_SOLUTIONS
        if reason:
            pytest.skip(f"{self.name}: {reason}")
        for problem in problems:
            if self.benchmark.selection.selected(f"{self.nodeid}::{problem.id}"):
                yield ProblemCollector.from_parent(self, name=problem.id, problem=problem, benchmark=self.benchmark)


class ProblemCollector(pytest.Collector):
    """One problem. What its sample items have in common is made once here and shared by them all (a million
    samples are a million items): their fixture info and their task's and problem's JUnit properties."""

    def __init__(self, *, problem: Problem, benchmark: Benchmark, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem
        self.benchmark = benchmark
        self.properties = (("codeeval_task", problem.task), ("codeeval_problem", problem.id))
        self.fixture_info: Any = None  # the first item's, once it is made (compat.fixture_info)

    def collect(self) -> Iterator[pytest.Item]:
        task = self.benchmark.tasks.task(self.problem.task)
        reason = task.unavailable(self.problem.doc)
        try:
            unsolved = not reason and self.benchmark.source.unsolved(task, [self.problem])
        except CodeevalError as exc:
            raise bad_input(self, exc) from None
        if unsolved:
            reason = "no reference solution for this problem (--codeeval-model=reference)"
        if reason:
            pytest.skip(f"{self.problem.task}: {reason}")
        for index in self.benchmark.source.sample_indices(task, self.problem):
            name = f"{SAMPLE_PREFIX}{index}"
            if self.benchmark.selection.selected(f"{self.nodeid}::{name}"):
                try:
                    yield SampleItem.from_parent(
                        self, name=name, problem=self.problem, index=index, benchmark=self.benchmark
                    )
                except CodeevalError as exc:
                    raise bad_input(self, exc) from None


class SampleFailed(Exception):
    """A sample did not pass: a result of the model, reported tersely."""

    def __init__(self, record: SampleRecord) -> None:
        super().__init__(f"{record.status}: {record.detail}")
        self.record = record


class SampleItem(pytest.Item):
    """One sample. It requests the pytest fixtures its task names (a database, a directory, a service), with the
    usual scopes, the way a test function does; their values reach the task's `score`."""

    def __init__(self, *, problem: Problem, index: int, benchmark: Benchmark, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem
        self.index = index
        self.benchmark = benchmark
        self.record: SampleRecord | None = None
        parent = self.parent
        assert isinstance(parent, ProblemCollector)
        self.user_properties.extend((*parent.properties, _sample_property(index)))
        task = benchmark.tasks.task(problem.task)
        fixtures = task.requested_fixtures()
        if task.sandbox_paths and not task.requires_execution:
            raise CodeevalError(
                f"task {problem.task!r} sets sandbox_paths, but it runs no program: only an execution task's programs "
                "see sandbox paths (a match task reads its fixtures' values in `score`: list them in `fixtures`)"
            )
        if fixtures:
            self.add_marker(pytest.mark.usefixtures(*fixtures))
        # The same for every sample of the problem (its task's marks, its location's autouse fixtures): made once,
        # as pytest shares one function's info among its parametrized items.
        if parent.fixture_info is None:
            parent.fixture_info = compat.fixture_info(self)
        self._fixtureinfo = parent.fixture_info
        missing = [f for f in fixtures if f not in self._fixtureinfo.name2fixturedefs]
        if missing:
            close = difflib.get_close_matches(missing[0], compat.fixture_names(self), n=1)
            raise CodeevalError(
                f"task {problem.task!r} requests fixture {', '.join(map(repr, missing))}, which is not defined"
                + (f" (did you mean {close[0]!r}?)" if close else "") + ": "
                "define it in the conftest.py at the rootdir or in a plugin (a conftest.py in a subdirectory serves "
                "only its tests)"
            )
        narrow = [f"{name!r} ({defs[-1].scope})" for name, defs in self._fixtureinfo.name2fixturedefs.items()
                  if name in fixtures and defs[-1].scope in ("function", "class")]
        if task.requires_execution and narrow:
            raise CodeevalError(
                f"execution task {problem.task!r} requests fixture {', '.join(narrow)}: its programs are built before "
                "their items run, so it may request session- or module-scoped fixtures only; declare it with "
                "@pytest.fixture(scope='session') or scope='module' (one value per task)"
            )
        self.fixturenames = self._fixtureinfo.names_closure
        self.funcargs: dict[str, Any] = {}
        self._request = compat.fixture_request(self)

    @property
    def key(self) -> SampleKey:
        return SampleKey(self.problem.task, self.problem.id, self.index)

    def setup(self) -> None:
        compat.fill_fixtures(self._request)

    def runtest(self) -> None:
        self.record = self.benchmark.evaluate(self.problem, self.index, self.funcargs)
        self.user_properties.append(STATUS_PROPERTIES[self.record.status])
        if not self.record.passed:
            raise SampleFailed(self.record)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        error = excinfo.value
        if isinstance(error, SampleFailed):
            return describe_failure(error.record, full=self.benchmark.selection.show_full_failures())
        if isinstance(error, CodeevalError):
            return str(error)  # bad input: the run ends with this line (roles.py)
        # The sample could not be prepared: the task's (or a fixture's) own frames, not the plugin's and pytest's.
        excinfo.traceback = excinfo.traceback.filter(_outside_plugin) or excinfo.traceback
        frames = excinfo.getrepr(style=style or "short", chain=False)
        return f"not prepared: {type(error).__name__}: {error}\n{frames}"

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.problem.task} {self.problem.id} sample {self.index}"


STATUS_PROPERTIES = {status: ("codeeval_status", status) for status in STATUSES}  # one tuple each, for every item


@functools.cache
def _sample_property(index: int) -> tuple[str, int]:
    """The `codeeval_sample` property of every sample `index` (of every problem): one tuple, not one per item."""
    return ("codeeval_sample", index)


def _outside_plugin(entry: Any) -> bool:
    path = str(entry.path)
    return not any(part in path for part in (f"{os.sep}pytest_codeeval{os.sep}", f"{os.sep}_pytest{os.sep}",
                                             f"{os.sep}pluggy{os.sep}"))
