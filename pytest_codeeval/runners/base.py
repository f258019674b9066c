"""The runner contract: what the execution layer asks of whatever runs a task's program (a language of
languages/, a judge of judges/, a HumanEvalPack variant), and the verdict it answers with. It sits below them
all, so the table (runners/__init__.py) names them without importing one."""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_codeeval.samples import Status
    from pytest_codeeval.sandbox.api import Executor, Limits

OUTPUT_KEEP = 8000  # characters of output kept per sample for reports
CUT = "[... output cut ...]\n"  # what begins an output cut to its last OUTPUT_KEEP characters


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
    return text if len(text) <= limit else CUT + text[-limit:]


@cache
def load(spec: str) -> Any:
    """The runner named `spec`, "module:Class", made when first asked for (its module imported then), once."""
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)()


class Runner(ABC):
    """Runs one sample's program through the sandbox `executor` it is given and judges it."""

    @abstractmethod
    def run(
        self, program: str, limits: Limits, executor: Executor, data: str | None = None, tests_at: int = 0
    ) -> Outcome:
        """Run `program` under the sample's `limits`. `data` is the task's judge data (`Task.judge_data`), which only
        judges read; `tests_at`, where the tests begin in `program` (the completion's end)."""

    def unavailable(self) -> str | None:
        """One line naming what to install, when this machine cannot run such programs; None when it can."""
        return None
