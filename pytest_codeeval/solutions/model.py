"""A model's completions: generated once, in one batched pass (two for chained tasks), before any sample runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_codeeval.generation.base import GenerationRequest
from pytest_codeeval.generation.chat_reply import code_from_reply
from pytest_codeeval.samples import SampleKey
from pytest_codeeval.settings import Settings
from pytest_codeeval.solutions.base import ProblemLookup, SolutionSource, TaskLookup
from pytest_codeeval.tasks.base import Problem, Task


class ModelSource(SolutionSource):
    """A real model: all selected samples are generated in one batched pass (two for chained tasks, see `prepare`),
    before any of them runs.

    Under xdist the controller generates and sends the solutions to each worker over xdist's own channel
    (`solutions`, `receive`), so that workers on other machines get them too."""

    def __init__(self, settings: Settings, cache_dir: Path | None) -> None:
        self.settings = settings
        self.name = settings.model or "model"
        self.cache_dir = cache_dir
        self._solutions: dict[str, str] | None = None
        self._report: dict[str, Any] | None = None
        self._tokens: dict[str, int] = {}

    def sample_indices(self, task: Task, problem: Problem) -> Sequence[int]:
        return range(task.repeats or self.settings.generation.n_samples)

    def prepare(self, keys: Sequence[SampleKey], task_of: TaskLookup, problem_of: ProblemLookup) -> None:
        """Generate in two passes when some prompts are made from other samples' solutions (HumanEvalPack's
        Explain): those samples first (even if the selection left them out), then the prompts that read them."""
        later = [k for k in keys if task_of(k.task).upstream_samples(problem_of(k).doc)]
        needed = {SampleKey(*u) for k in later for u in task_of(k.task).upstream_samples(problem_of(k).doc)}
        dependent = set(later)
        first = [k for k in keys if k not in dependent]
        first += sorted(needed - set(first))
        self._solutions, self._report, self._tokens = {}, None, {}
        for stage in (first, later):
            if stage:
                self._generate(stage, task_of, problem_of)

    def _generate(self, keys: Sequence[SampleKey], task_of: TaskLookup, problem_of: ProblemLookup) -> None:
        from pytest_codeeval.generation.base import GenerationRequest
        from pytest_codeeval.generation.engine import GenerationInterrupted, GenerationStopped, generate

        requests = []
        for key in keys:
            task, problem = task_of(key.task), problem_of(key)
            prompt, stops = task.get_prompt(problem.doc), tuple(task.stop_words_for(problem.doc))
            overrides = task.generation_settings(self.settings.generation)
            own = None if overrides == self.settings.generation else overrides
            answer_start, suffix = task.answer_start(problem.doc), task.get_suffix(problem.doc)
            requests.append(GenerationRequest(key, prompt, stops, own, answer_start, suffix, task.instruction_task))
        try:
            completions, stats = generate(
                self.settings.model or "", requests, self.settings.generation, self.settings.model_options,
                self.cache_dir, regenerate=self.settings.regenerate, server=self.settings.server,
            )
        except GenerationStopped as stopped:  # the report says what was done before it stopped
            self._report = {**stopped.stats.to_dict(), "stopped": str(stopped)}
            raise
        except GenerationInterrupted as interrupted:  # the summary says what was kept; pytest ends the run as its own
            self._report = {**interrupted.stats.to_dict(), "stopped": interrupted.message}
            raise KeyboardInterrupt from None
        assert self._solutions is not None
        for request in requests:
            task, problem = task_of(request.key.task), problem_of(request.key)
            text = completions[request.key].text
            self._tokens[request.key.nodeid] = completions[request.key].tokens
            if self._chat_reply(request):
                text = code_from_reply(text, request.prompt + request.answer_start)
            raw = request.prompt + request.answer_start + text
            self._solutions[request.key.nodeid] = task.postprocess_generation(raw, problem.position)
        report = stats.to_dict()
        if self._report is not None:  # a second pass: its counts add to the first's
            for name in ("model_loads", "generated", "cached", "tokens", "seconds", "load_seconds"):
                if name in self._report:
                    report[name] = report.get(name, 0) + self._report[name]
            report["tokens_per_second"] = round(report["tokens"] / report["seconds"], 2) if report["seconds"] else None
        self._report = report

    def _chat_reply(self, request: GenerationRequest) -> bool:
        """Whether the model's text is a chat reply (prose around code blocks), not a continuation of the prompt:
        a server's chat endpoint, or a chat template with nothing put in the model's mouth (no answer start)."""
        from pytest_codeeval.generation.backends.openai import is_server_model

        if is_server_model(self.settings.model or ""):
            return self.settings.server.chat
        settings = request.settings or self.settings.generation
        return settings.chat_template and not request.answer_start and request.suffix is None

    def shared(self) -> dict[str, str] | None:
        """Every prepared sample's solution by node id (None before `prepare`): what the xdist controller sends to
        its workers."""
        return self._solutions

    def receive(self, solutions: dict[str, str]) -> None:
        self._solutions = solutions

    def solution(self, task: Task, problem: Problem, index: int) -> str:
        if self._solutions is None:
            raise RuntimeError("no generations were prepared for this session")  # a bug, not user input
        return self._solutions[SampleKey(task.name, problem.id, index).nodeid]

    def report(self) -> dict[str, Any] | None:
        return self._report

    def tokens(self) -> dict[str, int]:
        return self._tokens
