"""Generation for a session: answer from the cache what it knows, start the backend only for the rest (load a
model in process, with transformers or vLLM, or open endpoints), generate those, and account for it all (the
`generation` section of the report)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import (
    Backend,
    Completion,
    GenerationRequest,
    GenerationSettings,
    GenerationStats,
    ModelOptions,
    ServerOptions,
)
from pytest_codeeval.generation.cache import GenerationCache, cache_key
from pytest_codeeval.samples import SampleKey

if TYPE_CHECKING:
    from pytest_codeeval.generation.progress import ProgressLines


class GenerationInterrupted(KeyboardInterrupt):
    """Ctrl-C while generating: pytest ends the run as interrupted (exit 2); the message says what the cache kept
    and that the same command resumes, `stats` what was done, for the report."""

    def __init__(self, message: str, stats: GenerationStats) -> None:
        super().__init__(message)
        self.message, self.stats = message, stats


class GenerationStopped(CodeevalError):
    """Generation broke off (a server died, every endpoint is gone): the message says what was kept and how to
    resume; `stats` counts what was done, for the report."""

    def __init__(self, message: str, stats: GenerationStats) -> None:
        super().__init__(message)
        self.stats = stats


def _plan(
    model: str, options: ModelOptions, server: ServerOptions, settings: GenerationSettings,
) -> tuple[str, dict[str, Any], Callable[[], Backend]]:
    """The backend's name, its identity (cheap: the cache is read before anything loads) and how to start it."""
    from pytest_codeeval.generation.backends import vllm
    from pytest_codeeval.generation.backends.openai import OpenAIBackend, is_server_model
    from pytest_codeeval.generation.models import resolve_model

    if is_server_model(model):
        backend = OpenAIBackend(model, server)  # opens no connection yet
        return "openai", backend.identity(), lambda: backend
    if vllm.is_vllm_model(model):
        spec = resolve_model(model.removeprefix(vllm.PREFIX), options)
        return "vllm", vllm.vllm_identity(spec, options), lambda: vllm.load(
            spec, options, settings.precision
        )
    spec = resolve_model(model, options)

    def load() -> Backend:
        from pytest_codeeval.generation.backends.data_parallel import DataParallelBackend, visible

        devices = visible(options.devices)
        if len(devices) > 1:
            return DataParallelBackend(spec, options, settings.precision, devices)
        from pytest_codeeval.generation.backends.transformers import TransformersBackend

        return TransformersBackend(spec, options, settings.precision, device=devices[0] if devices else None)

    return "transformers", spec.identity, load


Deliver = Callable[[Completion], None]


def generate(
    model: str, requests: Sequence[GenerationRequest], settings: GenerationSettings, options: ModelOptions,
    cache_dir: Path | None, regenerate: bool = False, server: ServerOptions | None = None,
) -> tuple[dict[SampleKey, Completion], GenerationStats]:
    """Every completion, in this thread: the cache's, then the backend's."""
    done: dict[SampleKey, Completion] = {}

    def keep(completion: Completion) -> None:
        done[completion.request.key] = completion

    pending = start(model, requests, settings, options, cache_dir, keep, regenerate, server)
    pending.run()
    return done, pending.stats


def start(
    model: str, requests: Sequence[GenerationRequest], settings: GenerationSettings, options: ModelOptions,
    cache_dir: Path | None, deliver: Deliver, regenerate: bool = False, server: ServerOptions | None = None,
) -> Generation:
    """Deliver the cache's completions now and start the backend (load the model) if some are missing, in the
    caller's thread, where a bad model or Ctrl-C while it loads ends the run as before; `Generation.run` then
    generates the rest, in the thread that is to own the model from then on."""
    name, identity, make = _plan(model, options, server or ServerOptions(), settings)
    stats = GenerationStats(backend=name, model=model)
    cache = GenerationCache(cache_dir) if cache_dir is not None else None
    effective = {r.key: r.settings or settings for r in requests}
    keys = {r.key: cache_key(identity, r, effective[r.key]) for r in requests}
    missing: list[GenerationRequest] = []
    for request in requests:
        hit = cache.get(keys[request.key], request) if cache is not None and not regenerate else None
        if hit is not None:
            stats.cached += 1
            deliver(hit)
        else:
            missing.append(request)
    pending = Generation(missing, effective, keys, cache, stats, deliver)
    if missing:
        _announce(name, requests, missing, effective)
        pending.load(make)
    return pending


class Generation:
    """The completions the cache did not have, with the started backend that generates them (`run`)."""

    def __init__(
        self, missing: list[GenerationRequest], effective: dict[SampleKey, GenerationSettings],
        keys: dict[SampleKey, str], cache: GenerationCache | None, stats: GenerationStats, deliver: Deliver,
    ) -> None:
        self.missing, self.effective, self.keys, self.cache = missing, effective, keys, cache
        self.stats, self.deliver = stats, deliver
        self.backend: Backend | None = None
        self.lines: ProgressLines | None = None
        self.directory = cache.path.parent if cache is not None else None

    def load(self, make: Callable[[], Backend]) -> None:
        from pytest_codeeval.generation.progress import ProgressLines

        self.lines = ProgressLines(len(self.missing)) if ProgressLines.wanted() else None
        if self.lines is not None:
            self.lines.start()
        loading = time.perf_counter()
        try:
            self.backend = make()
        except KeyboardInterrupt:
            self.close()
            raise GenerationInterrupted(self.interrupted(" while the model loaded"), self.stats) from None
        except BaseException:
            self.close()
            raise
        self.stats.extra["load_seconds"] = round(time.perf_counter() - loading, 3)

    def run(self, stop: threading.Event | None = None) -> None:
        """Generate what is missing, each completion delivered (and cached) as it arrives; `stop` set from another
        thread ends it after the completion in hand, as Ctrl-C does."""
        try:
            if self.backend is not None:
                if self.lines is not None:
                    self.lines.generating()
                _run(self.backend, self, stop)
        finally:
            self.close()

    def interrupted(self, when: str = "") -> str:
        """What an interruption now leaves, as GenerationInterrupted says it."""
        return f"interrupted{when}; {_kept(self.stats, self.stats.cached + len(self.missing), self.directory)}"

    def close(self) -> None:
        if self.lines is not None:
            self.lines.close()


def _announce(
    backend: str, requests: Sequence[GenerationRequest], missing: list[GenerationRequest],
    effective: dict[SampleKey, GenerationSettings],
) -> None:
    from pytest_codeeval.generation.progress import LARGE, ProgressLines, announce

    if ProgressLines.wanted() or len(missing) >= LARGE:
        longest = max(effective[r.key].max_new_tokens for r in missing)
        announce(len(missing), len(requests), longest, backend)


def _kept(stats: GenerationStats, total: int, cache_dir: Path | None) -> str:
    """What a run that stopped generating leaves for the next one."""
    have = stats.cached + stats.generated
    if cache_dir is None:
        return f"{have} of {total} completions were done, and none kept: without a cache a rerun starts over"
    return (f"{have} of {total} completions are in the cache ({stats.cached} from earlier runs, {stats.generated} "
            f"now; {cache_dir}): a rerun with the same generation settings generates only the other "
            f"{total - have}")


def _run(backend: Backend, pending: Generation, stop: threading.Event | None) -> None:
    """Each completion reaches the cache as it arrives: Ctrl-C or a failure keeps every one received."""
    from tqdm.auto import tqdm

    from pytest_codeeval.generation.progress import stderr

    stats, lines, cache = pending.stats, pending.lines, pending.cache

    def stopped() -> bool:
        return stop is not None and stop.is_set() and stats.generated < len(pending.missing)

    started = time.perf_counter()
    groups: dict[GenerationSettings, list[GenerationRequest]] = {}
    for request in pending.missing:
        groups.setdefault(pending.effective[request.key], []).append(request)
    try:
        with tqdm(total=len(pending.missing), desc="codeeval: generating", unit="completion", disable=None,
                  leave=False, file=stderr()) as bar:  # not pytest's capture of an item running meanwhile
            for group_settings, group in groups.items():
                for completion in backend.generate(group, group_settings, stop):
                    key = completion.request.key
                    if cache is not None and completion.cacheable:
                        cache.put(pending.keys[key], completion)
                    stats.generated += 1
                    stats.tokens += completion.tokens
                    pending.deliver(completion)
                    bar.update(1)
                    if lines is not None:
                        lines.update(completion.tokens)
                    if stopped():
                        raise KeyboardInterrupt
                if stopped():  # the backend returned early, leaving its unfinished rows
                    raise KeyboardInterrupt
    except CodeevalError as exc:  # generation broke off (a backend that could not start says so as it is)
        total = stats.cached + len(pending.missing)
        raise GenerationStopped(f"{exc}; {_kept(stats, total, pending.directory)}", stats) from None
    except KeyboardInterrupt:  # the backend abandoned what was in flight: nothing more to wait for
        raise GenerationInterrupted(pending.interrupted(), stats) from None
    finally:
        stats.seconds = round(time.perf_counter() - started, 3)
        stats.model_loads += backend.loads
        stats.extra.update(backend.usage())
