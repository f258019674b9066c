"""Execution overlaps generation: a sample's program runs as soon as its completion arrives, while the model still
generates the others (in a single process and through the xdist controller's relay), with the verdicts of a run
that generated everything first; generation that breaks off mid-run still ends the run with one line and exit 4."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import our_traceback
from servers import SlowCompletions

pytestmark = pytest.mark.timeout(300)

XDIST = pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["single", "xdist"])
# Each program says when it ran (on stderr, which the failing sample's record keeps) and fails HumanEval's check.
TIMED = "\n    import sys, time\n    print('ran at', repr(time.time()), file=sys.stderr)\n    return {n}\n"


def run(pytester: pytest.Pytester, server: SlowCompletions, *args: str) -> tuple[pytest.RunResult, Path]:
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "--codeeval-model=openai:fake", f"--codeeval-base-url={server.url}", "--codeeval-tasks=humaneval",
        "--codeeval-limit=2", "--codeeval-n-samples=8", "--codeeval-batch-size=2", "--codeeval-concurrency=1",
        "--codeeval-max-retries=0", f"--codeeval-report={report}", "-p", "no:cacheprovider", *args,
    )
    return result, report


@XDIST
def test_the_first_samples_run_before_the_last_completion_is_served(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: tuple[str, ...]
) -> None:
    monkeypatch.setenv("PYTEST_CODEEVAL_PROGRESS_SECONDS", "0")  # a line per completion, items running meanwhile
    with SlowCompletions(delay=0.5, text=TIMED) as server:
        result, path = run(pytester, server, *xdist)
    assert result.ret == 0, result.stdout.str()[-3000:]
    report = json.loads(path.read_text())
    samples = [s for p in report["tasks"]["humaneval"]["problems"].values() for s in p["samples"]]
    assert len(samples) == 16 and {s["status"] for s in samples} == {"failed"}
    ran = [float(re.search(r"ran at ([0-9.]+)", s["output"]).group(1)) for s in samples]  # type: ignore[union-attr]
    assert len(server.answered) == 8 and report["generation"]["generated"] == 16
    # 8 requests of 2 completions, 0.5 s each, one at a time: the last answer comes 3.5 s after the first one.
    assert min(ran) < server.answered[-1] - 1.0, (ran, server.answered)
    assert sum(t < server.answered[-1] for t in ran) >= 2
    # generation's thread wrote its lines while items ran, each under pytest's capture: they reached the log
    result.stderr.fnmatch_lines(["codeeval: generating: 15/16 completions, *", "codeeval: generating: 16/16 completions, *"])


class DiesAfter(SlowCompletions):
    """Answers `answers` requests, then drops every connection without a reply, as a server that died."""

    def __init__(self, answers: int) -> None:
        self.answers = answers
        super().__init__(delay=0.2)
        self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]  # died, silently

    def answer(self, body: dict) -> tuple[str, list[dict]]:
        if len(self.answered) >= self.answers:
            raise ConnectionAbortedError("the fake server died")  # the handler's thread closes the connection
        return super().answer(body)


@XDIST
def test_a_server_that_dies_while_samples_run_ends_the_run_with_one_line(
    pytester: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    with DiesAfter(answers=3) as server:
        result, path = run(pytester, server, "--tb=no", *xdist)  # the samples' own tracebacks: not shown
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-3000:]
    result.stderr.fnmatch_lines([
        f"ERROR: --codeeval-base-url: no answer from {server.url}: *; 6 of 16 completions were done, and none kept*"
    ])
    assert not our_traceback(result.stdout.str() + result.stderr.str())
    assert json.loads(path.read_text())["generation"]["stopped"].endswith("a rerun starts over")


def test_the_relay_sends_each_worker_what_it_has_not_had_then_the_end() -> None:
    """A worker gets what arrived before it joined at once, the rest as it arrives, each solution once, then the end
    of generation with its error; a worker that joins later (a replacement) gets everything in one message, and
    one whose channel closed (it died) is dropped."""
    import time

    from pytest_codeeval.generation.arrivals import Arrivals
    from pytest_codeeval.pytest_plugin.relay import Relay

    class Node:  # xdist's WorkerController, as far as the relay uses it
        def __init__(self, alive: bool = True) -> None:
            self.channel, self.alive, self.got = self, alive, []

        def send(self, message: tuple) -> None:
            if not self.alive:
                raise OSError("cannot send (already closed?)")
            assert message[0] == "solutions"
            self.got.append(message[1]["payload"])

    def soon(condition) -> None:
        deadline = time.monotonic() + 10
        while not condition():
            assert time.monotonic() < deadline
            time.sleep(0.01)

    arrivals = Arrivals()
    relay = Relay(arrivals, "solutions")
    arrivals.add({"a": "1"})
    first, dead = Node(), Node(alive=False)
    relay.add(first)
    relay.add(dead)
    assert first.got == [{"solutions": {"a": "1"}, "done": False, "error": None}] and dead.got == []
    arrivals.add({"b": "2"})
    arrivals.add({"c": "3"})
    soon(lambda: sum(len(p["solutions"]) for p in first.got) == 3)
    arrivals.end("generation broke off")
    soon(lambda: first.got[-1]["done"])
    late = Node()
    relay.add(late)
    relay.close()
    assert late.got == [{"solutions": {"a": "1", "b": "2", "c": "3"}, "done": True, "error": "generation broke off"}]
    merged = {name: text for payload in first.got for name, text in payload["solutions"].items()}
    assert merged == {"a": "1", "b": "2", "c": "3"} and [p["done"] for p in first.got].count(True) == 1
    assert first.got[-1]["error"] == "generation broke off"
