"""The task registry: names to task factories, with what `--codeeval-list-tasks` shows, and no dataset loads."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Task, Upstream
from pytest_codeeval.tasks.local_data import check_rows_file

DEFAULT_BUILTINS = ("humaneval",)  # the built-in tasks a run selects when it names none


@dataclass(frozen=True)
class TaskEntry:
    name: str
    factory: Callable[[], Task]
    source: str  # "builtin", "entry point <dist>", "conftest <path>", "<yaml path>", ...
    metrics: tuple[str, ...] = ("pass@k",)
    size: int | None = None
    description: str = ""
    aggregations: tuple[tuple[str, Any], ...] = ()  # (metric, "mean" | "median" | "first-sample" | function)
    dataset: str = ""  # the hub dataset (id, and config after a colon), for --codeeval-list-tasks


def _defined_in(task_cls: type[Task]) -> str:
    if task_cls.__module__.startswith("pytest_codeeval."):
        return "builtin"
    import inspect

    try:
        return inspect.getsourcefile(task_cls) or task_cls.__module__
    except TypeError:
        return task_cls.__module__


def _check_metrics(task_cls: type[Task], where: str) -> None:
    """Unknown metric names fail at registration. A task that overrides `score` may name the scores it makes."""
    from pytest_codeeval.metrics import check_aggregation, check_metric

    if isinstance(task_cls.metrics, str):
        raise CodeevalError(f"{where}: metrics must be a tuple of names, e.g. metrics = ({task_cls.metrics!r},)")
    if task_cls.score is Task.score:
        for name in task_cls.metrics:
            check_metric(name, task_cls.scorers, where)
    for name, how in task_cls.aggregations.items():
        check_aggregation(how, f"{where}: metric {name!r}")


def _accepted(factory: Callable[..., Task], options: dict[str, Any]) -> dict[str, Any]:
    import inspect

    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin or C callable: it takes none of them
        return {}
    return {name: value for name, value in options.items() if name in parameters}


def _dataset_id(task_cls: type[Task]) -> str:
    path, name = task_cls.DATASET_PATH, task_cls.DATASET_NAME
    return f"{path}:{name}" if path and name else path or ""


class TaskRegistry:
    def __init__(self) -> None:
        self._entries: dict[str, TaskEntry] = {}
        self._instances: dict[str, Task] = {}
        self._datasets: dict[str, Path] = {}
        self._options: dict[str, Any] = {}
        self._upstream: Upstream | None = None

    def use_options(self, options: dict[str, Any]) -> None:
        """Task parameters from the command line (`--codeeval-prompt`, `--codeeval-mbppplus-mbpp-tests`, ...): given,
        as BCEH does, to the tasks whose constructor takes a parameter of that name; the others never see them,
        except `prompt` (a task without formats refuses it) and `instruction_tokens` (stop words of every task)."""
        self._options = {name: value for name, value in options.items() if value is not None}

    def use_upstream(self, upstream: Upstream) -> None:
        """The run's samples, which every task made from here reads as its `upstream` (see `Task.upstream_samples`)."""
        self._upstream = upstream

    def use_datasets(self, overrides: Iterable[tuple[str, Path]]) -> None:
        """Local dataset files for tasks (`--codeeval-dataset=TASK=PATH`); the task names must exist."""
        for name, path in overrides:
            if name not in self._entries:
                raise CodeevalError(f"--codeeval-dataset={name}={path}: {self.unknown(name)}")
            check_rows_file(path, name)
            self._datasets[name] = path

    def add_entry(self, entry: TaskEntry) -> None:
        known = self._entries.get(entry.name)
        if known is not None and known.source != entry.source:
            raise CodeevalError(
                f"task {entry.name!r} is defined twice: by {known.source} and by {entry.source}; rename one of them"
            )
        self._entries[entry.name] = entry

    def add(self, task_cls: type[Task], source: str | None = None, name: str | None = None) -> type[Task]:
        """Register a Task subclass. The class is instantiated only when one of its samples runs.

        `source` (shown by --codeeval-list-tasks) defaults to the file that defines the class."""
        task_name = name or task_cls.name
        source = source or _defined_in(task_cls)
        if not task_name:
            raise CodeevalError(f"task class {task_cls.__qualname__} has no `name`; set name = '...' on the class")
        _check_metrics(task_cls, f"task {task_name!r} ({source})")
        self.add_entry(
            TaskEntry(task_name, task_cls, source, tuple(task_cls.metrics), task_cls.size, task_cls.description,
                      tuple(task_cls.aggregations.items()), _dataset_id(task_cls))
        )
        return task_cls

    def names(self) -> list[str]:
        return sorted(self._entries)

    def entries(self) -> Iterable[TaskEntry]:
        return (self._entries[name] for name in self.names())

    def entry(self, name: str) -> TaskEntry:
        try:
            return self._entries[name]
        except KeyError:
            raise CodeevalError(self.unknown(name)) from None

    def get(self, name: str) -> Task:
        """The task instance, created on first use (one per process)."""
        if name not in self._instances:
            factory = self.entry(name).factory
            accepted = _accepted(factory, self._options)
            prompt = self._options.get("prompt")
            if prompt is not None and "prompt" not in accepted:
                raise CodeevalError(f"--codeeval-prompt={prompt}: task {name!r} has no prompt formats; "
                                    "run it without --codeeval-prompt (docs/tasks.md lists each task's formats)")
            task = factory(**accepted) if self._options else factory()
            if not getattr(task, "name", None):
                task.name = name  # type: ignore[misc]  # a ClassVar: the registered name fills a nameless class's
            # as BCEH: non-empty instruction tokens stop generation and are cut by post-processing, in every task
            stops = [t for t in self._options.get("instruction_tokens") or () if t.strip() and t not in task.stop_words]
            if stops:
                task.stop_words = [*task.stop_words, *stops]  # a new list: a class-wide one is never changed
            task.dataset_override = self._datasets.get(name)
            task.upstream = self._upstream
            self._instances[name] = task
        return self._instances[name]

    def select(self, patterns: Iterable[str], option: str = "--codeeval-tasks") -> list[str]:
        """Names matching the patterns (names or globs), in registry order; every pattern must match something.

        No pattern: HumanEval and the project's own tasks (conftest, task paths, entry points). The rest of the
        built-in catalogue runs when named ('*' names everything): a run never fetches a hundred datasets unasked."""
        patterns = list(patterns)
        if not patterns:
            return [n for n in self.names() if n in DEFAULT_BUILTINS or self._entries[n].source != "builtin"]
        chosen: list[str] = []
        for pattern in patterns:
            matches = [n for n in self.names() if fnmatch.fnmatchcase(n, pattern)]
            if not matches:
                raise CodeevalError(f"{option}: {self.unknown(pattern)}")
            chosen.extend(m for m in matches if m not in chosen)
        return chosen

    def unknown(self, name: str) -> str:
        """The message for a task name that is not registered: the closest names, and where the list is."""
        close = suggestions(name, self.names())
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return f"unknown task {name!r}{hint} (pytest --codeeval-list-tasks lists the {len(self._entries)} known tasks)"


def suggestions(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Known names close to a mistyped one: spelled alike (difflib), or the same once case, `_`/`-` and `+`
    ("plus": `humaneval+` is `humanevalplus`) are set aside."""
    import difflib

    def key(text: str) -> str:
        return text.lower().replace("+", "plus").replace("_", "-")

    by_key = {key(k): k for k in known}
    wanted = key(name)
    if wanted in by_key:
        return [by_key[wanted]]
    family = [k for k in by_key if k.startswith((wanted + "-", wanted + "_"))]
    if family:  # `apps`: the family's glob
        return [f"'{by_key[family[0]][: len(wanted)]}-*' (the {len(family)} tasks of the family)"]
    close = difflib.get_close_matches(wanted, list(by_key), n=n, cutoff=0.75)
    return [by_key[c] for c in close]
