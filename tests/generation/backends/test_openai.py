"""The OpenAI-compatible backend against a real server on loopback (`transformers serve` with the embedded
model, started once for the module): a task end to end, two endpoints, an endpoint that dies mid-run, injected
429/503 answers, resume after an interrupted run, agreement with the in-process backend, a server that ignores
`n` and sampling, the chat endpoint, and one-line errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import FaultProxy, embedded_dir, free_port, transformers_serve

from pytest_codeeval.generation.backends.openai import normalize_url, retry_after
from pytest_codeeval.generation.chat_reply import code_from_reply

pytestmark = pytest.mark.timeout(900)
TOKENS = "--codeeval-max-new-tokens=16"


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return embedded_dir()


@pytest.fixture(scope="module")
def model(model_dir: Path) -> str:
    """The id the server serves (resolved here: pytester moves HOME, and with it the converted model's path)."""
    return f"openai:{model_dir}"


@pytest.fixture(scope="module")
def server(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with transformers_serve(model_dir, tmp_path_factory.mktemp("serve") / "serve.log") as url:
        yield url


def run(pytester: pytest.Pytester, model: str, *args: str) -> tuple[pytest.RunResult, dict | None]:
    report = pytester.path / "r.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        f"--codeeval-model={model}", "--codeeval-tasks=humaneval", TOKENS, f"--codeeval-report={report}",
        f"--codeeval-cache-dir={pytester.path / 'cache'}", "-p", "no:cacheprovider", *args,
    )
    return result, json.loads(report.read_text()) if report.exists() else None


def completions(report: dict) -> dict[str, list[str]]:
    problems = report["tasks"]["humaneval"]["problems"]
    return {pid: [s["completion"] for s in p["samples"]] for pid, p in problems.items()}


def verdicts(report: dict) -> dict[str, list[str]]:
    problems = report["tasks"]["humaneval"]["problems"]
    return {pid: [s["status"] for s in p["samples"]] for pid, p in problems.items()}


@pytest.fixture(scope="module")
def in_process(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Greedy completions of the first three problems by the in-process transformers backend: the reference."""
    pytester_dir = tmp_path_factory.mktemp("in-process")
    report = pytester_dir / "r.json"
    import subprocess
    import sys

    subprocess.run(
        [sys.executable, "-m", "pytest", "codeeval", f"--codeeval-model={model_dir}", "--codeeval-tasks=humaneval",
         "--codeeval-limit=3", TOKENS, f"--codeeval-report={report}", "-p", "no:cacheprovider", "-q"],
        cwd=pytester_dir, check=False, capture_output=True,
    )
    return json.loads(report.read_text())


def test_two_endpoints_run_a_task_and_agree_with_the_in_process_backend(pytester: pytest.Pytester, server: str, model: str, in_process: dict) -> None:
    with FaultProxy(server) as a, FaultProxy(server) as b:
        result, report = run(pytester, model, "--codeeval-limit=3", f"--codeeval-base-url={a.url}", f"--codeeval-base-url={b.url}", "-n", "2")
        assert result.ret in (0, 1) and report is not None
        generation = report["generation"]
        assert generation["backend"] == "openai" and generation["generated"] == 3 and generation["requests"] == 3
        assert a.seen and b.seen  # both endpoints served
        assert generation["prompt_tokens"] > 0 and generation["completion_tokens"] > 0
        assert completions(report) == completions(in_process)  # greedy through the server == in process
        assert verdicts(report) == verdicts(in_process)
        # what reached the server is only what a strict server accepts (transformers serve answers 422 otherwise)
        sent = {key for _, body in a.seen + b.seen for key in body}
        assert sent <= {"model", "prompt", "max_tokens", "stop", "temperature"}
        assert all(len(body["stop"]) <= 4 for _, body in a.seen + b.seen)
    _again, cached = run(pytester, model, "--codeeval-limit=3", "--codeeval-base-url=http://127.0.0.1:9/v1")
    assert cached is not None and (cached["generation"]["cached"], cached["generation"]["generated"]) == (3, 0)  # no server needed


def test_dead_endpoint_and_injected_429_503_are_retried_elsewhere(pytester: pytest.Pytester, server: str, model: str, in_process: dict) -> None:
    faults = [(429, {"Retry-After": "1"}, "slow down"), (503, {}, "overloaded"), (500, {"retry-after-ms": "200"}, "oops")]
    with FaultProxy(server, faults=faults) as flaky, FaultProxy(server, die_after=1) as dying:
        result, report = run(pytester, model, "--codeeval-limit=3", "--codeeval-concurrency=2",
                             f"--codeeval-base-url={dying.url}", f"--codeeval-base-url={flaky.url}")
        assert report is not None, result.stdout.str() + result.stderr.str()
        generation = report["generation"]
        assert generation["generated"] == 3 and generation["retries"] >= 3
        assert dying.forwarded == 1 and generation["endpoints"][dying.url]["failures"] >= 1
        result.stdout.fnmatch_lines([f"codeeval: {dying.url} was not answering when generation ended (* connection failures in a row, after 1 answered requests): the other endpoints took its requests"])
        assert completions(report) == completions(in_process)


def test_an_interrupted_run_resumes_from_the_cache(pytester: pytest.Pytester, server: str, model: str, in_process: dict) -> None:
    with FaultProxy(server, die_after=1) as dying:
        result, _ = run(pytester, model, "--codeeval-limit=3", "--codeeval-concurrency=1", "--codeeval-max-retries=1", f"--codeeval-base-url={dying.url}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --codeeval-base-url: no answer from {dying.url}: each failed 2 times in a row (last: connection failed)*"
                                 "; 1 of 3 completions are in the cache (0 from earlier runs, 1 now; *): a rerun with the same generation settings generates only the other 2"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    stopped, partial = run(pytester, model, "--codeeval-limit=3", "--codeeval-max-retries=0", "--codeeval-base-url=http://127.0.0.1:9/v1")
    stopped.stderr.fnmatch_lines(["*; 1 of 3 completions are in the cache (1 from earlier runs, 0 now; *): a rerun with the same generation settings generates*"])
    assert partial is not None and partial["generation"]["cached"] == 1 and "a rerun with the same generation settings" in partial["generation"]["stopped"]
    with FaultProxy(server) as good:
        _, resumed = run(pytester, model, "--codeeval-limit=3", f"--codeeval-base-url={good.url}")
        assert resumed is not None
        assert (resumed["generation"]["cached"], resumed["generation"]["generated"], len(good.seen)) == (1, 2, 2)
        assert completions(resumed) == completions(in_process)


def test_a_prompt_the_context_cannot_hold_gets_an_empty_uncached_completion(pytester: pytest.Pytester, server: str, model: str) -> None:
    too_long = "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (1588 in the messages, 512 in the completion)."
    with FaultProxy(server, faults=[(400, {}, too_long)]) as proxy:
        result, report = run(pytester, model, "--codeeval-limit=2", "--codeeval-concurrency=1", f"--codeeval-base-url={proxy.url}")
    assert report is not None and report["generation"]["too_long"] == 1 and report["generation"]["generated"] == 2
    result.stdout.fnmatch_lines(["codeeval: the server's context cannot hold some prompts*maximum context length is 2048*"])
    assert sorted(map(len, completions(report).values())) == [1, 1] and "" in [c[0] for c in completions(report).values()]
    with FaultProxy(server) as proxy:
        _, again = run(pytester, model, "--codeeval-limit=2", f"--codeeval-base-url={proxy.url}")
    assert again is not None and (again["generation"]["cached"], again["generation"]["generated"]) == (1, 1)


def test_a_server_that_ignores_n_and_sampling_is_asked_again_and_reported(pytester: pytest.Pytester, server: str, model: str) -> None:
    refused = [(400, {}, "Only one completion choice is allowed")]  # llama.cpp's server refuses n > 1
    with FaultProxy(server, faults=refused) as proxy:
        result, report = run(pytester, model, "--codeeval-limit=2", "--codeeval-n-samples=2", "--codeeval-concurrency=1",
                             "--codeeval-temperature=0.8", "--codeeval-k=1", f"--codeeval-base-url={proxy.url}")
    assert report is not None
    generation = report["generation"]
    assert generation["generated"] == 4 and generation["extra_requests_for_n"] == 2  # n=2 refused, then one choice each
    assert {body["n"] for _, body in proxy.seen if "n" in body} == {2}
    seeds = [body["seed"] for _, body in proxy.seen if "n" not in body]
    assert len(seeds) == 4 and len(set(seeds)) == 4  # the second request for a problem is another sample, not a repeat
    result.stdout.fnmatch_lines(["codeeval: the server refused n=2 (Only one completion choice is allowed)*"])
    assert any("ignore sampling parameters" in w for w in generation["warnings"])
    result.stdout.fnmatch_lines(["codeeval: sampling was asked for*ignore sampling parameters*"])


def test_chat_endpoint_reply_code_continues_the_prompt(pytester: pytest.Pytester, server: str, model: str) -> None:
    with FaultProxy(server) as proxy:
        _, report = run(pytester, model, "--codeeval-limit=1", "--codeeval-chat", "--codeeval-max-new-tokens=48",
                        f"--codeeval-base-url={proxy.url}")
    assert report is not None and report["generation"]["generated"] == 1
    path, body = proxy.seen[0]
    assert path.endswith("/chat/completions") and "stop" not in body and body["messages"][0]["role"] == "user"
    assert "```" not in completions(report)["HumanEval/0"][0]


def test_unreachable_endpoint_and_unknown_model_are_one_line_errors(pytester: pytest.Pytester, server: str, model: str) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    result, _ = run(pytester, "openai:m", "--codeeval-limit=1", "--codeeval-max-retries=0", f"--codeeval-base-url={dead}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --codeeval-base-url: no answer from {dead}: each failed 1 times in a row*is the server running*"])
    with FaultProxy(server, faults=[(503, {}, "busy")] * 2) as busy:
        result, _ = run(pytester, model, "--codeeval-limit=1", "--codeeval-max-retries=1", f"--codeeval-base-url={busy.url}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --codeeval-base-url={busy.url}: a request was refused 2 times (last: HTTP 503)*"])
    result, _ = run(pytester, "openai:no-such-model", "--codeeval-limit=1", f"--codeeval-base-url={server}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codeeval-model=openai:no-such-model: * does not serve this model (HTTP 400: *no-such-model*"])
    for output in (result.stdout.str(), result.stderr.str()):
        assert "Traceback" not in output


def test_the_key_comes_from_the_named_variable_and_never_reaches_the_report(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result, _ = run(pytester, "openai:m", "--codeeval-limit=1", "--codeeval-api-key-env=NO_SUCH_KEY_VAR", "--codeeval-base-url=http://127.0.0.1:9")
    result.stderr.fnmatch_lines(["ERROR: --codeeval-api-key-env=NO_SUCH_KEY_VAR: that environment variable is not set"])
    seen: list[str | None] = []
    with FaultProxy("http://127.0.0.1:9", faults=[(401, {}, "bad key")]) as proxy:
        original = proxy.server.RequestHandlerClass.do_POST

        def spy(handler: object) -> None:
            seen.append(handler.headers.get("authorization"))  # type: ignore[attr-defined]
            original(handler)

        proxy.server.RequestHandlerClass.do_POST = spy  # type: ignore[method-assign]
        monkeypatch.setenv("MY_SECRET_KEY", "sk-test-do-not-log")
        result, _report = run(pytester, "openai:m", "--codeeval-limit=1", "--codeeval-api-key-env=MY_SECRET_KEY", f"--codeeval-base-url={proxy.url}")
    assert seen == ["Bearer sk-test-do-not-log"]
    result.stderr.fnmatch_lines(["ERROR: --codeeval-base-url=*: the server refused the key (HTTP 401)*MY_SECRET_KEY*"])
    assert "sk-test-do-not-log" not in result.stdout.str() + result.stderr.str()


def test_reply_code_url_and_retry_after_parsing() -> None:
    prompt = 'def f(x):\n    """Twice x."""\n'
    assert code_from_reply('Sure:\n```python\ndef f(x):\n    """Twice x."""\n    return 2 * x\n```\nDone.', prompt) == "    return 2 * x\n"
    assert code_from_reply('```python\nimport math\ndef f(x):\n    """Twice x."""\n    return x + x\n```', prompt) == "    import math\n    return x + x\n"
    assert code_from_reply("```\ndef f(x):\n    return 2 * x\n```", prompt) == "    return 2 * x\n"
    assert code_from_reply("return 2 * x", prompt) == "    return 2 * x\n"
    assert normalize_url("http://h:8000") == "http://h:8000/v1" and normalize_url("http://h/api/v1/") == "http://h/api/v1"
    assert retry_after({"retry-after": "3"}) == 3.0 and retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0 and retry_after({}) is None
    assert retry_after({"retry-after": "soon"}) is None
