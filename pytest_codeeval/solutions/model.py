"""A model's completions: generated in a thread of their own while the samples that have theirs already run (two
passes, before any sample runs, for chained tasks)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_codeeval.generation.arrivals import Arrivals
from pytest_codeeval.generation.base import GenerationRequest
from pytest_codeeval.generation.chat_reply import code_from_reply
from pytest_codeeval.samples import SampleKey
from pytest_codeeval.settings import Settings
from pytest_codeeval.solutions.base import ProblemLookup, SolutionSource, TaskLookup
from pytest_codeeval.tasks.base import Problem, Task

if TYPE_CHECKING:
    from pytest_codeeval.generation.base import Completion, GenerationStats
    from pytest_codeeval.generation.engine import Generation

STOP_WAIT = 5.0  # seconds the run's end waits for the generation thread to let go of the completion in hand


class ModelSource(SolutionSource):
    """A real model. The cache answers first and the model loads in the calling thread (`prepare`, at the end of
    collection); the rest is generated in a thread of its own, the model's from then on, and each solution is
    there (`ready`, `arrivals`) as soon as its completion arrives, so samples execute while generation goes on.
    Chained tasks are generated in two passes before any sample runs (see `prepare`).

    Under xdist the controller generates and its relay (pytest_plugin/relay.py) sends the solutions to each
    worker over xdist's own channel as they arrive (`receive`), so that workers on other machines get them too."""

    def __init__(self, settings: Settings, cache_dir: Path | None) -> None:
        self.settings = settings
        self.name = settings.model or "model"
        self.cache_dir = cache_dir
        self.arrivals = Arrivals()
        self.prepared = False
        self._report: dict[str, Any] | None = None
        self._tokens: dict[str, int] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._pending: Generation | None = None

    def sample_indices(self, task: Task, problem: Problem) -> Sequence[int]:
        return range(task.repeats or self.settings.generation.n_samples)

    def prepare(self, keys: Sequence[SampleKey], task_of: TaskLookup, problem_of: ProblemLookup) -> None:
        """Generate in two passes, here, when some prompts are made from other samples' solutions (HumanEvalPack's
        Explain): those samples first (even if the selection left them out), then the prompts that read them.
        Otherwise start one pass and leave its generation to a thread of its own."""
        later = [k for k in keys if task_of(k.task).upstream_samples(problem_of(k).doc)]
        needed = {SampleKey(*u) for k in later for u in task_of(k.task).upstream_samples(problem_of(k).doc)}
        dependent = set(later)
        first = [k for k in keys if k not in dependent]
        first += sorted(needed - set(first))
        self.prepared, self._report, self._tokens = True, None, {}
        if not later:
            self._start(first, task_of, problem_of, background=True)
            return
        for stage in (first, later):
            if stage:
                self._start(stage, task_of, problem_of, background=False)
        self.arrivals.end()

    def _start(self, keys: Sequence[SampleKey], task_of: TaskLookup, problem_of: ProblemLookup,
               background: bool) -> None:
        from pytest_codeeval.generation.engine import GenerationInterrupted, GenerationStopped, start

        requests, owners = [], {}
        for key in keys:
            task, problem = task_of(key.task), problem_of(key)
            prompt, stops = task.get_prompt(problem.doc), tuple(task.stop_words_for(problem.doc))
            overrides = task.generation_settings(self.settings.generation)
            own = None if overrides == self.settings.generation else overrides
            answer_start, suffix = task.answer_start(problem.doc), task.get_suffix(problem.doc)
            requests.append(GenerationRequest(key, prompt, stops, own, answer_start, suffix, task.instruction_task))
            owners[key] = (task, problem)

        def deliver(completion: Completion) -> None:
            task, problem = owners[completion.request.key]
            self.arrivals.add({completion.request.key.nodeid: self._solution(task, problem, completion)})

        try:
            pending = start(
                self.settings.model or "", requests, self.settings.generation, self.settings.model_options,
                self.cache_dir, deliver, regenerate=self.settings.regenerate, server=self.settings.server,
            )
            if background:
                self._pending = pending
                thread = threading.Thread(target=self._generate, args=(pending,), daemon=True,
                                          name="codeeval-generation")
                thread.start()
                self._thread = thread  # once started: `stop` never joins a thread a Ctrl-C left unstarted
                return
            pending.run()
        except GenerationStopped as stopped:  # the report says what was done before it stopped
            self._report = {**stopped.stats.to_dict(), "stopped": str(stopped)}
            raise
        except GenerationInterrupted as interrupted:  # the summary says what was kept; pytest ends the run as its own
            self._report = {**interrupted.stats.to_dict(), "stopped": interrupted.message}
            raise KeyboardInterrupt from None
        self._account(pending.stats)

    def _generate(self, pending: Generation) -> None:
        """The generation thread: the model is used here only. Its end, however it comes, is the arrivals' end:
        a sample still waiting for its solution then fails the run with generation's one line."""
        from pytest_codeeval.generation.engine import GenerationInterrupted, GenerationStopped

        error: str | None = None
        try:
            pending.run(self._stop)
        except GenerationStopped as stopped:
            self._report, error = {**stopped.stats.to_dict(), "stopped": str(stopped)}, str(stopped)
        except GenerationInterrupted as interrupted:  # the run is ending (Ctrl-C, -x): what was kept, for the summary
            self._report = {**interrupted.stats.to_dict(), "stopped": interrupted.message}
            error = f"generation {interrupted.message}"
        except BaseException as exc:  # noqa: BLE001 - no thread to raise it in: it ends the run as a usage error does
            self._report = {**pending.stats.to_dict(), "stopped": f"{type(exc).__name__}: {exc}"}
            error = f"--codeeval-model={self.settings.model}: generation failed: {type(exc).__name__}: {exc}"
        else:
            self._account(pending.stats)
        finally:
            self.arrivals.end(error)

    def stop(self) -> None:
        """The run is ending: generation stops after the completion in hand, or at the backend's next token or poll
        (every one received is in the cache), and says so in the report. A backend that holds on longer (a single
        forward pass of a huge model) is left to the daemon thread."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        thread.join(STOP_WAIT)
        if thread.is_alive() and self._pending is not None:
            self._report = {**self._pending.stats.to_dict(), "stopped": self._pending.interrupted()}

    def _solution(self, task: Task, problem: Problem, completion: Completion) -> str:
        """The completion as its sample runs it: after the prompt, post-processed by its task."""
        request = completion.request
        self._tokens[request.key.nodeid] = completion.tokens
        text = completion.text
        if self._chat_reply(request):
            text = code_from_reply(text, request.prompt + request.answer_start)
        return task.postprocess_generation(request.prompt + request.answer_start + text, problem.position)

    def _account(self, stats: GenerationStats) -> None:
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

    def relayed(self) -> Arrivals | None:
        return self.arrivals if self.prepared else None

    def listen(self, listener: Callable[[], None]) -> None:
        self.arrivals.listen(listener)

    def receive(self, payload: dict[str, Any]) -> None:
        """On an xdist worker (in xdist's receiving thread): solutions from the controller as they arrive, then the
        end of its generation (with its error, where it broke off)."""
        self.arrivals.add(payload["solutions"])
        if payload["done"]:
            self.arrivals.end(payload["error"])

    def ready(self, key: SampleKey) -> bool:
        return self.arrivals.ready(key.nodeid)

    def solution(self, task: Task, problem: Problem, index: int) -> str:
        return self.arrivals.get(SampleKey(task.name, problem.id, index).nodeid)

    def report(self) -> dict[str, Any] | None:
        return self._report

    def tokens(self) -> dict[str, int]:
        return self._tokens
