"""Real OpenAI-compatible servers for the tests (`transformers serve` and vLLM's, with the embedded model), and a
small proxy in front of one that injects failures: given answers (429, 503) for its first requests, then death."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self

from pytest_codeeval.generation.base import ModelOptions
from pytest_codeeval.generation.models import convert_gguf, resolve_model


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def embedded_dir() -> Path:
    """The embedded GGUF model converted to a transformers directory (what the in-process backend loads too)."""
    return convert_gguf(resolve_model("smollm2-135m", ModelOptions()))


def _start(
    command: list[str], env: dict[str, str], port: int, log: Path, name: str, wait: float = 600
) -> subprocess.Popen:
    """Start a server and poll /health until it answers (the port opens once the model is loaded)."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    deadline = time.monotonic() + wait
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                _stop(process)
                raise RuntimeError(f"{name} did not start: {log.read_text()[-2000:]}") from None
            time.sleep(0.5)


def _stop(process: subprocess.Popen) -> None:
    """The server and what it started (vLLM's engine and worker processes): its own process group."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=20)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # children that outlived their parent


@contextmanager
def transformers_serve(model: Path, log: Path) -> Iterator[str]:
    """`transformers serve` on a loopback port.
    One torch thread: on a shared two-core machine, two threads spinning against each other are 4x slower."""
    port = free_port()
    env = dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    command = [
        str(Path(sys.executable).with_name("transformers")),
        "serve",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--dtype",
        "float32",
        "--device",
        "cpu",
    ]
    process = _start(command, env, port, log, "transformers serve")
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        _stop(process)


def vllm_serve_command(model: Path, port: int, eager: bool = True, dtype: str = "float32") -> list[str]:
    """vLLM's OpenAI-compatible server as its CPU build runs (its `vllm` console script looks for a distribution
    named vllm, which the CPU build is not): without chunked prefill, which crashes the engine under seeded
    sampling; eager (no compilation) starts in a fraction of the time."""
    return [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model), "--host", "127.0.0.1",
        "--port", str(port), "--dtype", dtype, "--max-model-len", "2048", "--no-enable-chunked-prefill",
        *(["--enforce-eager"] if eager else []),
    ]


VLLM_ENV = {"VLLM_CPU_KVCACHE_SPACE": "2", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


class VllmServer:
    """A real vLLM server with the embedded model, started on first use and again after a test killed it."""

    def __init__(self, model: Path, logs: Path) -> None:
        self.model, self.logs, self.starts = model, logs, 0
        self.process: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        if self.process is None or self.process.poll() is not None:
            self.stop()
            self.starts += 1
            self.port = free_port()
            self.process = _start(vllm_serve_command(self.model, self.port), dict(os.environ, **VLLM_ENV), self.port,
                                  self.logs / f"vllm-{self.starts}.log", "vllm serve")
        return f"http://127.0.0.1:{self.port}/v1"

    def engine_pids(self) -> list[int]:
        """The server's engine process (vLLM titles it VLLM::EngineCore)."""
        import psutil

        assert self.process is not None
        children = psutil.Process(self.process.pid).children(recursive=True)
        return [p.pid for p in children if "EngineCor" in p.name() or "EngineCore" in " ".join(p.cmdline())]

    def log(self) -> str:
        return (self.logs / f"vllm-{self.starts}.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)
            self.process = None


class FaultProxy:
    """Forwards requests to `upstream`; answers its first requests with `faults` (status, headers) instead. After
    `die_after` forwarded requests it dies: the next request's connection is dropped unanswered, and the port
    stops listening (connections refused). Records every request."""

    def __init__(
        self, upstream: str, faults: list[tuple[int, dict[str, str], str]] | None = None, die_after: int | None = None
    ) -> None:
        self.upstream = upstream.split("//", 1)[1].split("/", 1)[0]
        self.faults = list(faults or [])
        self.die_after = die_after
        self.seen: list[tuple[str, dict]] = []
        self.forwarded = 0
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with proxy.lock:
                    proxy.seen.append((self.path, json.loads(body or b"{}")))
                    fault = proxy.faults.pop(0) if proxy.faults else None
                    dead = fault is None and proxy.die_after is not None and proxy.forwarded >= proxy.die_after
                    proxy.forwarded += fault is None and not dead
                if dead:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    threading.Thread(target=proxy.stop).start()
                    return
                if fault is not None:
                    status, headers, message = fault
                    payload = json.dumps({"error": {"message": message, "type": "injected"}}).encode()
                    self.send_response(status)
                    for name, value in {
                        **headers,
                        "content-type": "application/json",
                        "content-length": str(len(payload)),
                    }.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                connection = http.client.HTTPConnection(proxy.upstream, timeout=600)
                connection.request("POST", self.path, body, {"content-type": "application/json"})
                answer = connection.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                self.send_header("content-type", answer.getheader("content-type", "application/json"))
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.thread.is_alive():
            self.stop()


class FakeServer:
    """An OpenAI-compatible endpoint on loopback whose answers `answer` makes from each request's body (recorded in
    `seen`): its `object` and `choices`."""

    def __init__(self) -> None:
        self.seen: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                fake.seen.append(body)
                kind, choices = fake.answer(body)
                n = len(choices)
                payload = json.dumps({
                    "id": "fake", "object": kind, "created": 0, "model": body.get("model", ""),
                    "choices": choices, "usage": {"prompt_tokens": 1, "completion_tokens": n, "total_tokens": n + 1},
                }).encode()
                with contextlib.suppress(OSError):  # the client gave up on it (Ctrl-C)
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, body: dict) -> tuple[str, list[dict]]:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class CannedChat(FakeServer):
    """An OpenAI-compatible chat endpoint that answers from a script: each request gets, as its choices, the
    replies of the first `replies` key that its user message contains (the task's prompt, say), cycled to `n`."""

    def __init__(self, replies: dict[str, list[str]]) -> None:
        self.replies = replies
        super().__init__()

    def answer(self, body: dict) -> tuple[str, list[dict]]:
        content = body["messages"][-1]["content"]
        texts = next((texts for key, texts in self.replies.items() if key in content), ["no script"])
        return "chat.completion", [
            {"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": texts[i % len(texts)]}}
            for i in range(int(body.get("n") or 1))
        ]


class SlowCompletions(FakeServer):
    """A completions endpoint that takes `delay` s per request and answers each with `n` choices of `text`, its
    `{n}` the choice's number across the server's life (distinct programs): slow enough to interrupt mid-run.
    `answered` holds the wall-clock time of each answer."""

    def __init__(self, delay: float, text: str = "\n    return {n}\n") -> None:
        self.delay, self.text, self.served = delay, text, itertools.count()
        self.answered: list[float] = []
        super().__init__()

    def answer(self, body: dict) -> tuple[str, list[dict]]:
        time.sleep(self.delay)
        self.answered.append(time.time())
        return "text_completion", [
            {"index": i, "finish_reason": "stop", "text": self.text.replace("{n}", str(next(self.served)))}
            for i in range(int(body.get("n") or 1))
        ]
