"""The one path every judge's run takes: a Python program run once, read by the judge's own rules. No decoy: the
judge's harness or reading, not the program's own tests, decides (so `tests_at` plays no part)."""

from __future__ import annotations

import json
from abc import abstractmethod
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from pytest_codeeval.languages.python import Python
from pytest_codeeval.runners.base import Outcome
from pytest_codeeval.sandbox.api import ExecRequest, Executor, Limits

MAX_CPU = 86400.0  # a harness's CPU limit at most, however many runs it makes


@cache
def harness_source(name: str) -> str:
    """A harness beside the judges (read once): the program the sandbox runs, which loads the sample."""
    return Path(__file__).with_name(name).read_text(encoding="utf-8")


class Judge(Python):
    """A judge: the request that runs the sample (`judged`), its reading of the run (`judge`), and what it adds
    once the run is read (`concluded`). `data` is the task's judge data, a JSON object (`Task.judge_data`)."""

    harness: ClassVar[str] = ""  # the harness's file beside this module, for judges that run one
    spec_file: ClassVar[str] = ""  # the name the harness reads the judge data from, beside the sample

    def run(
        self, program: str, limits: Limits, executor: Executor, data: str | None = None, tests_at: int = 0
    ) -> Outcome:
        spec: dict[str, Any] = json.loads(data) if data else {}
        return self.concluded(self.execute(self.judged(program, limits, spec), executor, limits), spec)

    @abstractmethod
    def judged(self, program: str, limits: Limits, spec: dict[str, Any]) -> ExecRequest:
        """The request that runs `program` for this judge, from the judge data `spec`."""

    def concluded(self, outcome: Outcome, spec: dict[str, Any]) -> Outcome:
        return outcome

    def harnessed(self, program: str, limits: Limits, spec: dict[str, Any], runs: int) -> ExecRequest:
        """The judge's harness, with the sample as solution.py and `spec` beside it, under limits of its own: the
        sample's (`limits`, per run) for each of its `runs` and one more, and a second each for its work around them."""
        per_run = limits.cpu_seconds
        limits = replace(limits, cpu_seconds=min(MAX_CPU, (per_run + 1) * (runs + 1)),
                         wall_seconds=(3 * per_run + 3) * (runs + 1) + 10)
        files = (("solution.py", program.encode("utf-8", "surrogatepass")), (self.spec_file, json.dumps(spec).encode()))
        source = harness_source(self.harness)
        return ExecRequest(python_source=source, filename="harness.py", limits=limits, files=files)
