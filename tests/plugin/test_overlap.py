"""Execution overlaps generation: a sample's program runs as soon as its completion arrives, while the model still
generates the others (in a single process and through the xdist controller's relay), with the verdicts of a run
that generated everything first; generation that breaks off mid-run still ends the run with one line and exit 4."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
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
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert json.loads(path.read_text())["generation"]["stopped"].endswith("a rerun starts over")
