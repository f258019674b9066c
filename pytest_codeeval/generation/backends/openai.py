"""OpenAI-compatible servers as a backend: vLLM, TGI, llama.cpp's server, `transformers serve`, hosted APIs.

Requests go to one or more endpoints (the least busy healthy one first), a bounded number at once. Retryable
failures (429, 5xx, refused connections, timeouts) wait with exponential backoff and jitter, or as long as the
server's Retry-After says, and move to another endpoint; an endpoint that stops answering is set aside for a
while. Real servers differ from OpenAI's API, so nothing is taken on trust: the text is cut at the task's stop
words here, samples a server did not return (it ignored `n`) are asked for again, identical samples under
sampling are reported, and fields a strict server rejects are never sent unless the user asked for them."""

from __future__ import annotations

import email.utils
import os
import queue
import random
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import Completion, GenerationRequest, GenerationSettings, ServerOptions, row_seed
from pytest_codeeval.generation.prompts import wrap_instruction

PREFIX = "openai:"
PER_ENDPOINT = 8  # default requests in flight per endpoint
PER_REQUEST = 16  # default samples asked for by one request (its `n`); --codeeval-batch-size sets it
POLL_SECONDS = 0.2  # how often a caller waiting for a reply looks at its stop event
MAX_STOP = 4  # OpenAI's API rejects more stop sequences; the rest are cut here
BACKOFF_BASE, BACKOFF_CAP = 0.5, 30.0  # seconds
CHAT_INSTRUCTION = "Complete the following code. Reply with the whole code in one fenced code block.\n\n"


def is_server_model(name: str) -> bool:
    return name.startswith(PREFIX)


def per_request(settings: GenerationSettings) -> int:
    """A request's `n`: bounded, so that a problem's 200 (or 100,000) samples arrive, and are kept, a chunk at a
    time, and a server that caps `n` is not asked for more than a few."""
    return settings.batch_size or PER_REQUEST


def normalize_url(url: str) -> str:
    """`http://host:8000` and `http://host:8000/v1` name the same server (clients append /completions)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CodeevalError(f"--codeeval-base-url={url}: expected an http(s) URL such as http://localhost:8000/v1")
    return url.rstrip("/") if parts.path.strip("/") else url.rstrip("/") + "/v1"


def endpoint_urls(model: str, server: ServerOptions) -> tuple[str, ...]:
    """The endpoints: --codeeval-base-url, else $OPENAI_BASE_URL. Never a hosted API by default: a run meant for a
    local server that forgot the URL would send every prompt (and a key) to a paid service."""
    urls = server.base_urls or tuple(filter(None, [os.environ.get("OPENAI_BASE_URL")]))
    if not urls:
        raise CodeevalError(
            f"--codeeval-model={model}: no endpoint: pass --codeeval-base-url=URL (a local server, e.g. "
            "http://localhost:8000/v1; OpenAI's API: --codeeval-base-url=https://api.openai.com/v1) "
            "or set OPENAI_BASE_URL"
        )
    return urls


def retry_after(headers: Any) -> float | None:
    """Seconds the server asked to wait: `retry-after-ms`, `Retry-After` in seconds or as an HTTP date."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff(attempt: int) -> float:
    """Exponential backoff with equal jitter: half the step for sure, half at random."""
    step = min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt)
    return step / 2 + random.uniform(0, step / 2)


@dataclass
class Endpoint:
    url: str
    client: Any
    in_flight: int = 0
    down_until: float = 0.0
    requests: int = 0
    failures: int = 0
    streak: int = 0  # connection failures in a row: set aside for longer and longer, dead past max_retries


@dataclass
class Usage:
    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra_requests_for_n: int = 0
    too_long: int = 0
    warnings: list[str] = field(default_factory=list)


# A 5xx answer meaning the server's inference engine is gone (vLLM's EngineDeadError): no retry brings it back.
ENGINE_DIED = ("EngineCore encountered an issue",)
CONTEXT_ERRORS = (
    "maximum context length",
    "context length",
    "too long",
)  # vLLM, TGI, llama.cpp: prompt + max_tokens too long


class _Rejected(Exception):
    """A 4xx answer (other than 429) that no retry of the same request changes."""

    def __init__(self, url: str, status: int, detail: str) -> None:
        super().__init__(detail)
        self.url, self.status, self.detail = url, status, detail


class _TooLong(Exception):
    """The server's context cannot hold this prompt with max_tokens: that sample gets an empty completion."""


class OpenAIBackend:
    name = "openai"
    loads = 0  # the server holds the model

    def __init__(self, model: str, server: ServerOptions) -> None:
        try:
            import openai
        except ImportError:
            raise CodeevalError(
                f"--codeeval-model={model}: needs the openai package: pip install 'pytest-codeeval[serve]'"
            ) from None
        self.openai = openai
        self.model = model.removeprefix(PREFIX)
        if not self.model:
            raise CodeevalError(
                "--codeeval-model=openai:MODEL: name the model the server serves, e.g. openai:gpt-4o-mini"
            )
        self.server = server
        urls = endpoint_urls(model, server)
        key_env = server.api_key_env or "OPENAI_API_KEY"
        key = os.environ.get(key_env)
        if server.api_key_env and not key:
            raise CodeevalError(f"--codeeval-api-key-env={key_env}: that environment variable is not set")
        self.endpoints = [
            Endpoint(
                url, openai.OpenAI(base_url=url, api_key=key or "none", max_retries=0, timeout=server.request_timeout)
            )
            for url in dict.fromkeys(normalize_url(u) for u in urls)
        ]
        self.lock = threading.Lock()
        self.stats = Usage()
        self.last_error = ""
        self.one_choice = False  # set when the server refuses n > 1 (llama.cpp's server: one choice per request)

    def identity(self) -> dict[str, Any]:
        return {"backend": "openai", "model": self.model, "api": "chat" if self.server.chat else "completions"}

    def usage(self) -> dict[str, Any]:
        return {
            "requests": self.stats.requests,
            "retries": self.stats.retries,
            "prompt_tokens": self.stats.prompt_tokens,
            "completion_tokens": self.stats.completion_tokens,
            "extra_requests_for_n": self.stats.extra_requests_for_n,
            "too_long": self.stats.too_long,
            "endpoints": {e.url: {"requests": e.requests, "failures": e.failures} for e in self.endpoints},
            "warnings": [*self.stats.warnings, *self._unreachable()],
        }

    def _unreachable(self) -> list[str]:
        """Endpoints that stopped answering while others went on: named, since the run itself succeeded."""
        if len(self.endpoints) < 2:
            return []
        return [f"{e.url} was not answering when generation ended ({e.streak} connection failures in a row, after "
                f"{e.requests - e.failures} answered requests): the other endpoints took its requests"
                for e in self.endpoints if e.streak]

    # -- generation ------------------------------------------------------------------------------------------
    def generate(
        self, requests: Sequence[GenerationRequest], settings: GenerationSettings, stop: threading.Event | None = None,
    ) -> Iterator[Completion]:
        """One job per (prompt, stop words) and chunk of at most `per_request` samples, so that completions reach
        the cache and the progress line as they arrive. The jobs run on daemon threads that nothing waits for: when
        the caller stops (Ctrl-C, an error, `stop`), requests in flight are abandoned and no new one is sent."""
        if settings.chat_template:
            raise CodeevalError(
                "--codeeval-chat-template: a server applies its own chat template; use --codeeval-chat instead"
            )
        groups: dict[tuple[str, tuple[str, ...]], list[GenerationRequest]] = {}
        for request in requests:
            groups.setdefault((request.prompt, request.stop_words), []).append(request)
        size = per_request(settings)
        jobs: queue.SimpleQueue[list[GenerationRequest]] = queue.SimpleQueue()
        for group in groups.values():
            ordered = sorted(group, key=lambda r: r.key.index)
            for first in range(0, len(ordered), size):
                jobs.put(ordered[first : first + size])
        results: queue.Queue[Completion | BaseException] = queue.Queue()
        done = threading.Event()
        for number in range(min(self.server.concurrency or PER_ENDPOINT * len(self.endpoints), jobs.qsize())):
            threading.Thread(target=self._worker, args=(jobs, settings, results, done), daemon=True,
                             name=f"codeeval-openai-{number}").start()
        texts: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        try:
            for _ in range(len(requests)):
                item = _next(results, stop)
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                texts.setdefault((item.request.prompt, item.request.stop_words), []).append(item.text)
                yield item
        finally:
            done.set()
        self._check_sampling(texts, settings)

    def _worker(
        self, jobs: queue.SimpleQueue, settings: GenerationSettings, results: queue.Queue, done: threading.Event,
    ) -> None:
        while not done.is_set():
            try:
                job = jobs.get_nowait()
            except queue.Empty:
                return
            self._job(job, settings, results)

    def _job(self, group: list[GenerationRequest], settings: GenerationSettings, results: queue.Queue) -> None:
        try:
            remaining = list(group)
            first = True
            while remaining:
                if not first:
                    with self.lock:
                        self.stats.extra_requests_for_n += 1
                try:
                    replies, tokens = self._complete(remaining[0], len(remaining), settings)
                except _TooLong as exc:
                    self._too_long(remaining, str(exc), results)
                    return
                if not replies:
                    raise CodeevalError(f"--codeeval-model={PREFIX}{self.model}: the server answered with no choices")
                for request, reply, spent in zip(remaining, replies, tokens, strict=False):
                    results.put(Completion(request, self._text(request, reply), spent))
                remaining = remaining[len(replies) :]
                first = False
        except BaseException as exc:  # noqa: BLE001 - handed to the generator, which raises it in the main thread
            results.put(exc)

    def _too_long(self, group: list[GenerationRequest], detail: str, results: queue.Queue) -> None:
        with self.lock:
            self.stats.too_long += len(group)
            if self.stats.too_long == len(group):
                self.stats.warnings.append(
                    f"the server's context cannot hold some prompts with --codeeval-max-new-tokens; their samples got "
                    f"empty completions, not cached (first: {group[0].key.nodeid}: {detail})"
                )
        for request in group:
            results.put(Completion(request, "", 0, cacheable=False))

    def _text(self, request: GenerationRequest, reply: str) -> str:
        from pytest_codeeval.tasks.base import stop_at_stop_words

        if self.server.chat:  # the whole reply: its code is taken out after the cache (solutions/model.py)
            return reply
        return stop_at_stop_words(reply, request.stop_words)

    def _payload(self, request: GenerationRequest, n: int, settings: GenerationSettings) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "max_tokens": settings.max_new_tokens}
        text = settings.prefix + request.prompt
        if self.server.chat:  # no stop strings: a chat template's text can match them at the reply's first token
            code = f"\n\n{request.answer_start}" if request.answer_start else ""  # the signature to complete
            payload["messages"] = [{"role": "user", "content": CHAT_INSTRUCTION + text + code}]
        else:
            if settings.instruction_tokens and request.instruction:  # as BCEH: an instruction task's prompt only
                text = settings.prefix + wrap_instruction(request.prompt, settings.instruction_tokens)
            payload["prompt"] = text + request.answer_start  # an instruction task's answer start is continued
            if request.stop_words:
                payload["stop"] = list(request.stop_words[:MAX_STOP])
        if n > 1:
            payload["n"] = n
        if settings.sampling:
            payload.update(
                temperature=settings.temperature, top_p=settings.top_p, seed=row_seed(settings.seed, request) % 2**31
            )
            if settings.top_k:  # not an OpenAI field: sent only when asked for (vLLM, TGI and llama.cpp take it)
                payload["extra_body"] = {"top_k": settings.top_k}
        else:
            payload["temperature"] = 0.0
        return payload

    def _complete(
        self, request: GenerationRequest, n: int, settings: GenerationSettings
    ) -> tuple[list[str], list[int]]:
        asked = 1 if self.one_choice else n
        try:
            try:
                response = self._send(self._payload(request, asked, settings))
            except _Rejected as exc:
                if asked == 1 or exc.status not in (400, 422):
                    raise
                response = self._send(
                    self._payload(request, 1, settings)
                )  # n refused: one sample per request from now on
                with self.lock:
                    if not self.one_choice:
                        self.one_choice = True
                        self.stats.warnings.append(
                            f"the server refused n={n} ({exc.detail}); each sample was asked for by its own request"
                        )
        except _Rejected as exc:
            raise CodeevalError(self._refusal(exc)) from None
        if self.server.chat:
            replies = [choice.message.content or "" for choice in response.choices]
        else:
            replies = [choice.text or "" for choice in sorted(response.choices, key=lambda c: c.index or 0)]
        usage = getattr(response, "usage", None)
        spent = int(getattr(usage, "completion_tokens", 0) or 0)
        with self.lock:
            self.stats.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            self.stats.completion_tokens += spent
        share = [spent // max(len(replies), 1)] * len(replies)
        if share:
            share[0] += spent - sum(share)
        return replies, share

    # -- transport -------------------------------------------------------------------------------------------
    def _pick(self) -> Endpoint:
        """The least busy endpoint that is up; when all are set aside, wait for the first to come back. An
        endpoint that could not be reached more than --codeeval-max-retries times in a row is dead; when every
        one is, the run stops."""
        while True:
            with self.lock:
                now = time.monotonic()
                alive = [e for e in self.endpoints if e.streak <= self.server.max_retries]
                if not alive:
                    raise CodeevalError(
                        f"--codeeval-base-url: no answer from {', '.join(e.url for e in self.endpoints)}: each failed "
                        f"{self.server.max_retries + 1} times in a row (last: {self.last_error}); "
                        "is the server running and reachable?"
                    )
                up = [e for e in alive if e.down_until <= now]
                if up:
                    endpoint = min(up, key=lambda e: (e.in_flight, e.requests))
                    endpoint.in_flight += 1
                    endpoint.requests += 1
                    self.stats.requests += 1
                    return endpoint
                wait = min(e.down_until for e in alive) - now
            time.sleep(max(wait, 0.01))

    def _send(self, payload: dict[str, Any]) -> Any:
        """Unreachable endpoints count against themselves (the request moves on); 429 and 5xx answers count
        against the request, which fails the run after --codeeval-max-retries of them."""
        openai = self.openai
        refusals = 0
        while True:
            endpoint = self._pick()
            failures_before = endpoint.failures
            answered = False
            try:
                chat = self.server.chat
                create = endpoint.client.chat.completions.create if chat else endpoint.client.completions.create
                response = create(**payload)
                with self.lock:  # a reply to a request sent before a newer failure says nothing of the endpoint now
                    if endpoint.failures == failures_before:
                        endpoint.streak = 0
                return response
            except openai.APIStatusError as exc:
                status, detail = exc.status_code, _detail(exc)
                if status in (400, 413, 422) and any(text in detail.lower() for text in CONTEXT_ERRORS):
                    raise _TooLong(detail) from None
                if status != 429 and status < 500:
                    raise _Rejected(endpoint.url, status, detail) from None
                if any(text in detail for text in ENGINE_DIED):
                    self._engine_died(endpoint, f"HTTP {status}: {detail}")
                    continue
                answered, refusals = True, refusals + 1
                delay = max(backoff(refusals - 1), retry_after(exc.response.headers) or 0.0)
                error = f"HTTP {status}"
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                delay = backoff(endpoint.streak)
                error = "timed out" if isinstance(exc, openai.APITimeoutError) else "connection failed"
            finally:
                with self.lock:
                    endpoint.in_flight -= 1
            with self.lock:
                self.last_error = error
                endpoint.failures += 1
                endpoint.streak += not answered
                endpoint.down_until = max(endpoint.down_until, time.monotonic() + delay)
                self.stats.retries += 1
            if refusals > self.server.max_retries:
                raise CodeevalError(
                    f"--codeeval-base-url={endpoint.url}: a request was refused {refusals} times "
                    f"(last: {error}); the server is overloaded or failing: retry later or raise --codeeval-max-retries"
                )

    def _engine_died(self, endpoint: Endpoint, detail: str) -> None:
        """Set the endpoint aside for good; the run stops on one line saying so when no other endpoint is left."""
        with self.lock:
            endpoint.streak = self.server.max_retries + 1
            others = any(e.streak <= self.server.max_retries for e in self.endpoints)
            if others:
                self.stats.warnings.append(f"the engine of the server at {endpoint.url} died ({detail}); the other "
                                           "endpoints took its requests")
        if not others:
            raise CodeevalError(
                f"--codeeval-base-url={endpoint.url}: the server's inference engine died ({detail}); the cause is in "
                "the server's log: restart the server, then rerun (finished completions are cached)"
            )

    def _refusal(self, rejected: _Rejected) -> str:
        url, status, detail = rejected.url, rejected.status, rejected.detail
        if status in (401, 403):
            env = self.server.api_key_env or "OPENAI_API_KEY"
            return (
                f"--codeeval-base-url={url}: the server refused the key (HTTP {status}): "
                f"set {env} or --codeeval-api-key-env=NAME"
            )
        if status == 404 or "model" in detail.lower():
            return (
                f"--codeeval-model={PREFIX}{self.model}: {url} does not serve this model "
                f"(HTTP {status}: {detail}); pass the id it serves"
            )
        return f"--codeeval-base-url={url}: the server rejected the request (HTTP {status}: {detail})"

    def _check_sampling(
        self, texts: dict[tuple[str, tuple[str, ...]], list[str]], settings: GenerationSettings
    ) -> None:
        """Sampling that gives every problem identical samples means the server ignored the sampling fields."""
        if not settings.sampling or settings.temperature <= 0:
            return
        many = [group for group in texts.values() if len(group) > 1]
        if sum(len(group) for group in many) >= 3 and all(len(set(group)) == 1 for group in many):
            self.stats.warnings.append(
                f"sampling was asked for (temperature {settings.temperature}) but every problem's samples are "
                "identical: the server seems to ignore sampling parameters, so pass@k above 1 means nothing here"
            )


def _detail(exc: Any) -> str:
    """The server's own message, on one line and short."""
    body = getattr(exc, "body", None)
    message: Any = body
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") or inner.get("detail") or inner if isinstance(inner, dict) else inner
        message = body.get("detail", message) if isinstance(body.get("detail"), str) else message
    text = " ".join(str(message if message is not None else exc).split())
    return text[:300]


def _next(results: queue.Queue, stop: threading.Event | None) -> Completion | BaseException | None:
    """The next result, or None once `stop` is set: a request that takes minutes does not hold the caller."""
    while stop is None or not stop.is_set():
        try:
            return results.get(timeout=POLL_SECONDS if stop is not None else None)
        except queue.Empty:
            continue
    return None
