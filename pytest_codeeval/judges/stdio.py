"""The stdio judge: a program is tested on input/output pairs, APPS style, by a harness that runs in the sandbox
(stdio_harness.py). Judge data: {"inputs": [...], "outputs": [...], "fn_name": optional}. Without `fn_name`
each input is the program's standard input and its standard output is compared; with it, the program defines
that function (or a `Solution` class's method), called with each input's arguments. The time limit applies per
test; the sample passes when every test does."""

from __future__ import annotations

import json
from typing import Any

from pytest_codeeval.judges.base import Judge
from pytest_codeeval.runners.base import Outcome, tail
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits

RESULT_MARK = "@@codeeval-stdio "


def _text(value: Any) -> Any:
    """Text a worker can send (execnet refuses lone surrogates): JSON's escapes let one through."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {k: _text(v) for k, v in value.items()}
    return value


def read_verdict(stdout: str, mark: str = RESULT_MARK) -> dict | None:
    """A harness's verdict line, the last one it printed; None when it printed none (it broke or was killed)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(mark):
            try:
                return json.loads(line[len(mark):])
            except ValueError:
                return None
    return None


class StdioJudge(Judge):
    harness, spec_file = "stdio_harness.py", "tests.json"

    def judged(self, program: str, limits: Limits, spec: dict[str, Any]) -> ExecRequest:
        spec.setdefault("inputs", [])
        spec.setdefault("outputs", [])
        spec["timeout"] = limits.cpu_seconds  # per test
        return self.harnessed(program, limits, spec, runs=max(1, len(spec["inputs"])))

    def concluded(self, outcome: Outcome, spec: dict[str, Any]) -> Outcome:
        outcome.judgement["tests_total"] = len(spec["inputs"])
        return outcome

    def judge(self, result: ExecResult, outcome: Outcome) -> Outcome:
        verdict = read_verdict(result.stdout)
        if verdict is None:
            if outcome.status == "passed":  # the harness ended without its verdict line
                outcome.status, outcome.detail = "error", "the stdio harness printed no verdict"
            return outcome
        results = verdict.get("results", [])
        passed = sum(r is True for r in results)
        first = verdict.get("first_failure")
        outcome.output = tail(result.stderr) if result.stderr else ""
        outcome.judgement = _text({"results": results, "tests_passed": passed, "first_failure": first})
        outcome.scores = {"test_accuracy": passed / len(results) if results else 0.0}
        if results == [-2]:
            outcome.status, outcome.detail = "failed", f"does not compile: {_text(verdict.get('error') or '')}"
        elif results and passed == len(results):
            outcome.status, outcome.detail = "passed", f"{passed}/{len(results)} tests passed"
        else:
            outcome.status = "failed"
            why = (first or {}).get("error") or "wrong answer"
            test = (first or {}).get("test")
            outcome.detail = f"{passed}/{len(results)} tests passed; first failure: test {test} ({why})"
            outcome.output = _failure_text(first) + outcome.output
        return outcome


def _failure_text(first: dict | None) -> str:
    if not first:
        return ""
    parts = [f"test {first.get('test')} input:\n{first.get('input')}", f"expected:\n{first.get('expected')}"]
    if "got" in first:
        parts.append(f"got:\n{first['got']}")
    if "error" in first:
        parts.append(f"error: {first['error']}")
    return "\n".join(str(_text(p)) for p in parts) + "\n"
