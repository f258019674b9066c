"""The runner interface: how to execute one language's program in the sandbox and classify what happened."""

from __future__ import annotations

import importlib
import signal
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from pytest_codeeval.languages.proof import DECOY
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Executor, Limits

if TYPE_CHECKING:
    from pytest_codeeval.languages.decoy import Decoy
    from pytest_codeeval.samples import Status

OUTPUT_KEEP = 8000  # characters of output kept per sample for reports


@dataclass
class Outcome:
    """A sample's verdict; `detail` says why, MultiPL-E style."""

    status: Status
    detail: str
    output: str
    duration: float = 0.0
    scores: dict[str, float] = field(default_factory=dict)  # per-sample metric values a judge computed
    judgement: dict[str, Any] = field(default_factory=dict)  # what a judge found: per-test results, an answer


def tail(text: str, limit: int = OUTPUT_KEEP) -> str:
    return text if len(text) <= limit else "[... output cut ...]\n" + text[-limit:]


def signal_name(number: int) -> str:
    """SIGKILL, SIGSEGV...: how a verdict names the signal that ended a program."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@cache
def load(spec: str) -> Any:
    """The runner named `spec`, "module:Class", made when first asked for (its module imported then), once."""
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)()


def _limits(limits: Limits) -> str:
    """The limits a timed-out sample ran under, as a reader needs them to judge the verdict."""
    wall = f"{limits.wall_seconds:g} s wall clock" if limits.wall_seconds is not None else \
        f"{limits.wall_bound():g} s wall-clock backstop"
    return f"{limits.cpu_seconds:g} s CPU; {wall}"


class Runner(ABC):
    @abstractmethod
    def request(self, program: str, limits: Limits) -> ExecRequest:
        """The sandbox request that builds and runs `program`."""

    @abstractmethod
    def classify(self, result: ExecResult) -> tuple[Status, str]:
        """(status, detail) for a run that the sandbox completed without breaking."""

    def run(
        self, program: str, limits: Limits, executor: Executor, data: str | None = None, tests_at: int = 0
    ) -> Outcome:
        """Run `program` and judge it. `data` is the task's judge data (`Task.judge_data`), which only judges read;
        `tests_at`, where the tests begin in `program` (the completion's end). A pass is run once more as a decoy
        (languages/decoy.py), one expected value changed, and stands only if the decoy does not pass."""
        outcome = self.execute(self.request(program, limits), executor, limits)
        if outcome.status != "passed" or (decoy := self.decoy(program, tests_at)) is None:
            return outcome
        rerun = self.execute(self.request(decoy.text, limits), executor, limits)
        if rerun.status == "error":  # the sandbox broke on the decoy: no verdict either way
            return rerun
        if rerun.status == "passed":
            outcome.status, outcome.detail = "failed", f"{DECOY} ({decoy.change})"
        return outcome

    def decoy(self, program: str, tests_at: int) -> Decoy | None:
        """`program` with one of its tests' expected values changed; None where its tests are in no form this
        runner knows (or no two of their expected values differ)."""
        return None

    def execute(self, request: ExecRequest, executor: Executor, limits: Limits) -> Outcome:
        """Run a request (retried once on a broken executor) and judge it under the sample's `limits`."""
        result = executor.run(request)
        if result.machinery_error:  # the executor broke, not the model: one retry on a fresh executor
            result = executor.run(request)
        output = result.stdout + (("\n" if result.stdout and result.stderr else "") + result.stderr)
        if result.machinery_error:
            return Outcome("error", f"sandbox: {result.machinery_error}", tail(output), result.wall_seconds)
        if result.abandoned:  # charged to the sample: it made them
            detail = f"left {result.abandoned} processes that could not be killed"
            return Outcome("failed", detail, tail(output), result.wall_seconds)
        status, detail = self.verdict(result, limits)
        if status == "timeout" and detail == "timed out":
            detail = f"timed out ({_limits(limits)})"
        outcome = Outcome(status, detail, tail(output), result.wall_seconds)
        return self.judge(result, outcome)

    def unavailable(self) -> str | None:
        """One line naming what to install, when this machine cannot run such programs; None when it can."""
        return None

    def verdict(self, result: ExecResult, limits: Limits) -> tuple[Status, str]:
        """(status, detail) under the sample's `limits` (a compiled language's program runs under lower limits than
        its build step, which the request carries)."""
        return self.classify(result)

    def judge(self, result: ExecResult, outcome: Outcome) -> Outcome:
        """A judge's reading of a completed run (its own verdict, scores, judgement); plain runners keep `outcome`."""
        return outcome
