"""What one pytest process knows of the benchmark, in three parts that collectors and roles ask by name:
`RunTasks` (the tasks and their problems, each made once), `Selection` (what the command line selects) and the
`Benchmark` that holds them with the solution source, the sandbox pool and the verdicts. The process's role
(roles.py) owns it. Every question about where solutions come from goes to the source (`solutions.SolutionSource`),
which answers for its kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_codeeval.errors import CodeevalError, DataUnavailable
from pytest_codeeval.evaluation.outcome import RunFacts
from pytest_codeeval.evaluation.verdicts import executed, scored
from pytest_codeeval.execution.job import ExecutionJob, execution_job
from pytest_codeeval.execution.pool import ExecutionPool, default_jobs
from pytest_codeeval.pytest_plugin.selection import (
    keyword_may_match,
    keyword_names,
    keyword_tasks,
    lift_nodeid_args,
    nodeid_selected,
)
from pytest_codeeval.samples import ROOT_NAME, SampleKey, SampleRecord
from pytest_codeeval.settings import Settings
from pytest_codeeval.solutions import SolutionSource, make_source
from pytest_codeeval.tasks import TaskRegistry
from pytest_codeeval.tasks.base import Doc, Problem, Task


class RunTasks:
    """The run's tasks and their problems, made lazily (nothing loads until collection reaches it), once each, and
    checked against the solution source. It is every task's `Upstream`: a task whose prompts are made from other
    tasks' samples (HumanEvalPack's Explain) reads them here."""

    def __init__(self, config: pytest.Config, settings: Settings, source: SolutionSource) -> None:
        self._config = config
        self._settings = settings
        self.source = source
        self._registry: TaskRegistry | None = None
        self._problems: dict[str, list[Problem]] = {}

    @property
    def registry(self) -> TaskRegistry:
        if self._registry is None:
            from pytest_codeeval.pytest_plugin.registry import build_registry

            settings = self._settings
            self._registry = build_registry(self._config, settings.task_paths, settings.datasets, settings.task_options)
            self._registry.use_upstream(self)
        return self._registry

    def task(self, name: str) -> Task:
        return self.registry.get(name)

    def problems(self, name: str) -> list[Problem]:
        if name not in self._problems:
            task = self.task(name)
            problems = [Problem(name, task.problem_id(doc, i), i, doc) for i, doc in enumerate(task.docs)]
            self.source.check_task(task, problems)  # against the whole task: a file may hold more than the limit keeps
            self._problems[name] = problems[: self._settings.limit] if self._settings.limit else problems
            self.source.keep(task, self._problems[name])
        return self._problems[name]

    def problem(self, key: SampleKey) -> Problem:
        for problem in self.problems(key.task):
            if problem.id == key.problem:
                return problem
        raise CodeevalError(f"no problem {key.problem!r} in task {key.task!r}")

    def sample_indices(self, problem: Problem) -> Sequence[int]:
        return self.source.sample_indices(self.task(problem.task), problem)

    def problem_doc(self, task: str, problem_id: str) -> Doc:
        """A problem's row (loading its task's dataset here if this process did not: the xdist controller), as its
        first sample ran it: a MultiPL-E file's own prompt and tests, which saving it again keeps."""
        return self.source.doc(self.task(task), self.problem(SampleKey(task, problem_id, 0)), 0)

    # -- Upstream: other tasks' samples, for tasks whose prompts are made from them ---------------------------
    def sample_count(self, task: str, problem_id: str) -> int:
        problem = next((p for p in self.problems(task) if p.id == problem_id), None)
        return 0 if problem is None else len(self.sample_indices(problem))

    def solution(self, task: str, problem_id: str, index: int) -> str:
        return self.source.solution(self.task(task), self.problem(SampleKey(task, problem_id, index)), index)


class Selection:
    """What the command line selects: the tasks (--codeeval-tasks, the source's own, -k) and the `codeeval::...`
    node ids, lifted out of `config.args` (they name no file: pytest would reject them) and kept explicitly."""

    def __init__(self, config: pytest.Config, settings: Settings, tasks: RunTasks) -> None:
        self._config = config
        self._settings = settings
        self._tasks = tasks
        self._own: Sequence[str] | None = None
        self.explicit_ids = lift_nodeid_args(config)

    def _own_tasks(self) -> Sequence[str]:
        if self._own is None:
            self._own = self._tasks.source.own_tasks(self._tasks.registry)
        return self._own

    def task_names(self) -> list[str]:
        registry = self._tasks.registry
        own = self._own_tasks()  # checked even when --codeeval-tasks names others: the file's line, not the option
        patterns = list(self._settings.tasks) or list(own)
        if patterns:
            selected = registry.select(patterns)
            self._tasks.source.check_selection(selected)
            return selected
        named = set(registry.select(())) | set(keyword_tasks(self._config.option.keyword, registry.names()))
        return [name for name in registry.names() if name in named]

    def named(self, name: str) -> bool:
        """Whether the user named this task itself (`--codeeval-tasks=mbpp`, `-k mbpp`, a generations file's tasks),
        not through a glob, a family or the default selection: what keeps a named task from running is a usage
        error, while a matched one is skipped."""
        if self._settings.tasks:
            return name in self._settings.tasks
        return name in self._own_tasks() or name.lower() in keyword_names(self._config.option.keyword)

    def check_tasks(self) -> None:
        """Unknown task names, a named task that cannot run in this version or on this machine (its toolchain
        missing), and a source that does not fit its tasks (`SolutionSource.checked_first`: a file's task_ids) are
        usage errors, found before anything is collected (on the xdist controller too)."""
        names = self.task_names()
        for name in filter(self.named, names):  # not matched by a glob
            task = self._tasks.task(name)
            reason = task.unsupported() or task.unavailable()
            if reason:
                raise CodeevalError(f"{name}: {reason}")
        if not self._tasks.source.checked_first:
            return
        for name in names:
            try:
                self._tasks.problems(name)
            except pytest.skip.Exception:  # a missing toolchain: collection reports the skip
                pass
            except DataUnavailable:
                if self.named(name):
                    raise
                # matched by a glob: collection skips it

    def task_may_be_selected(self, name: str) -> bool:
        return self.selected(f"{ROOT_NAME}::{name}") and keyword_may_match(
            self._config.option.keyword, {ROOT_NAME, name}, set(self._tasks.registry.names())
        )

    def selected(self, nodeid: str) -> bool:
        return nodeid_selected(nodeid, self.explicit_ids)

    def check_found(self, nodeids: set[str]) -> None:
        """Every node id named on the command line matched an item: otherwise one line says what the run has. The
        root itself is always there: a run whose every task was skipped (each skip says why) found it."""
        for wanted in self.explicit_ids:
            if wanted != ROOT_NAME and not any(i == wanted or i.startswith(wanted + "::") for i in nodeids):
                raise CodeevalError(f"not found: {wanted} ({self._why_missing(wanted)})")

    def _why_missing(self, nodeid: str) -> str:
        parts = nodeid.split("::")
        task = parts[1] if len(parts) > 1 else ""
        if task not in self.task_names():
            if task in self._tasks.registry.names():
                return f"no task {task!r} in this run: --codeeval-tasks={task} adds it"
            return f"no task {task!r} in this run" if task else "no such task, problem or sample in this run"
        problem = next((p for p in self._tasks.problems(task) if len(parts) > 2 and p.id == parts[2]), None)
        if problem is None:
            return f"task {task!r} has no problem {parts[2]!r} in this run" if len(parts) > 2 else "not selected"
        n = len(self._tasks.sample_indices(problem))
        which = f": sample0 to sample{n - 1}" if n > 1 else ""
        return f"{self._tasks.source.where} has {n} sample{'s' if n != 1 else ''} of {problem.id}{which}"

    def show_full_failures(self) -> bool:
        ids = self.explicit_ids
        return self._config.option.verbose > 0 or (len(ids) == 1 and ids[0].count("::") == 3)


class Benchmark:
    """The tasks (`tasks`), the selection (`selection`), the solution source and what runs the samples."""

    def __init__(self, config: pytest.Config, settings: Settings, processes: int) -> None:
        """`processes`: the pytest processes that execute samples (the xdist workers, or 1)."""
        self.config = config
        self.settings = settings
        self.source = make_source(settings, self._cache_dir())
        self.tasks = RunTasks(config, settings, self.source)
        self.selection = Selection(config, settings, self.tasks)
        self._processes = processes
        self._prepared = False
        self._pool: ExecutionPool | None = None
        self._sent_ahead: set[SampleKey] = set()
        self._solutions_ahead: dict[SampleKey, str] = {}  # of the samples started ahead, until their item runs

    def _cache_dir(self) -> Path | None:
        if self.settings.cache_dir:
            return self.settings.cache_dir
        cache = getattr(self.config, "cache", None)
        return cache.mkdir("codeeval-generations") if cache is not None else None

    def may_execute(self) -> bool:
        """Whether a selected task runs programs (`Task.requires_execution`, the one predicate for it): what the
        header and the reports describe. A task that cannot be made (bad input, a task's bug) is reported by
        collection, with its name, so here it counts as yes."""
        try:
            return any(self.tasks.task(name).requires_execution for name in self.selection.task_names())
        except Exception:  # noqa: BLE001
            return True

    def facts(self) -> RunFacts:
        """How the run was set up, as the reports state it."""
        source = self.source
        return RunFacts(self.settings, source.name, source.report(), self._sandbox_info(), source.prior_verdicts(),
                        tokens=source.tokens(), prior_results=source.prior_results())

    # -- solutions and verdicts ----------------------------------------------------------------------------------
    def prepare(self, keys: list[SampleKey]) -> None:
        """Start generating (once, here) every selected sample's completion: a model's arrive while samples run."""
        if self._prepared or not keys or self.config.option.collectonly:
            return
        self._prepared = True
        self.source.prepare(keys, self.tasks.task, self.tasks.problem)

    @property
    def pool(self) -> ExecutionPool:
        """The sandbox executors of this process (zygotes start on first use)."""
        if self._pool is None:
            jobs = self.settings.jobs or default_jobs(self._processes)
            self._pool = ExecutionPool(self.settings.sandbox, jobs, dedupe=self.settings.dedupe)
        return self._pool

    def _sandbox_info(self) -> dict[str, Any]:
        """The sandbox as the reports state it; a run of match tasks only started none (no executors, no layers)."""
        if self._pool is None or not self.may_execute():
            return {"level": self.settings.sandbox, "jobs": 0, "layers": {}}
        return {"level": self.settings.sandbox, "jobs": self.pool.jobs, "layers": self.pool.layers()}

    def needs_fixtures_first(self, problem: Problem) -> bool:
        """An execution sample whose program is built with fixture values: it starts once they are set up."""
        task = self.tasks.task(problem.task)
        return task.requires_execution and bool(task.requested_fixtures())

    def start_ahead(self, problem: Problem, index: int, resources: dict[str, Any] | None = None) -> bool:
        """Start an upcoming execution sample on a free executor; its item collects the verdict when it runs.
        `resources`: the task's fixture values, for a task that requests some. False where there was nothing to
        start (started already, or not an execution sample)."""
        key = SampleKey(problem.task, problem.id, index)
        if key in self._sent_ahead or not self.ready(key):  # not arrived: the look-ahead offers it again
            return False
        self._sent_ahead.add(key)
        task = self.tasks.task(problem.task)
        if not task.requires_execution:
            return False
        try:
            solution = self.source.solution(task, problem, index)
            job = self._job(task, problem, index, solution, resources)
        except Exception:  # noqa: BLE001 - the item reports it, with its node id, when it runs
            return False
        self._solutions_ahead[key] = solution
        self.pool.submit(key, job)
        return True

    def ready(self, key: SampleKey) -> bool:
        """Whether the sample's solution is there (a model's completion may still be on its way)."""
        return self.source.ready(key)

    def _job(
        self, task: Task, problem: Problem, index: int, solution: str, resources: dict[str, Any] | None,
    ) -> ExecutionJob:
        wall = self.settings.timeout_clock == "wall"
        own = replace(problem, doc=self.source.doc(task, problem, index))  # a file's program may bring its own tests
        return execution_job(task, own, solution, self.settings.timeout, resources, wall_clock=wall)

    def evaluate(self, problem: Problem, index: int, resources: dict[str, Any]) -> SampleRecord:
        """The verdict of one sample: collected from the pool if it ran ahead, run now otherwise, or scored."""
        task = self.tasks.task(problem.task)
        key = SampleKey(problem.task, problem.id, index)
        self._sent_ahead.add(key)  # run now if it did not start ahead: the look-ahead may still offer it
        solution = self._solutions_ahead.pop(key, None)
        if solution is None and task.requires_execution and not self.ready(key):  # idle executors take what arrives
            self.pool.wait_until(lambda: self.ready(key))
        if solution is None:
            solution = self.source.solution(task, problem, index)
        if not task.requires_execution:
            return scored(task, problem, index, solution, resources)
        job, outcome, ran = self.pool.result(key, lambda: self._job(task, problem, index, solution, resources))
        shared_with = ran.nodeid if isinstance(ran, SampleKey) else None
        own = replace(problem, doc=self.source.doc(task, problem, index))  # the completion: after the file's prompt
        return executed(task, own, index, solution, job, outcome, shared_with)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
