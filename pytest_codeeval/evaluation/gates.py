"""Gates for CI: thresholds (`--codeeval-fail-under`) and regressions against a baseline report.

A baseline gate fails only when a metric dropped by more than its tolerance AND the drop is significant in a
paired test over the problems both runs share (metrics/stats.py): the tolerance says how much change matters,
the test says whether the change is more than noise, so that neither a small real drop nor a large noisy one
fails a pull request."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.samples import STATUSES, SampleRecord

if TYPE_CHECKING:
    from pytest_codeeval.evaluation.results import TaskResult

DEFAULT_TOLERANCE = 0.02
SPEC_FORM = "METRIC=VALUE or TASK:METRIC=VALUE, e.g. pass@1=0.30 or humaneval:pass@1=0.30"
READABLE_SCHEMAS = (1, 2)
LISTED_PROBLEMS = 10  # regressed problems named in a terminal line (the reports have them all)

Problems = dict[str, list[SampleRecord]]
ComputeOf = Callable[[str], Callable[[Mapping[str, Sequence[SampleRecord]]], Mapping[str, float]]]


@dataclass(frozen=True)
class Spec:
    task: str | None  # None: every task
    metric: str
    value: float
    text: str
    option: str

    def __str__(self) -> str:
        return f"{self.option}={self.text}"


def parse_spec(text: str, option: str) -> Spec:
    target, sep, value = text.partition("=")
    task, _, metric = target.rpartition(":")
    try:
        number: float | None = float(value)
    except ValueError:
        number = None
    if not sep or not metric.strip() or number is None or not math.isfinite(number) or number < 0:
        raise CodeevalError(f"{option}={text!r}: expected {SPEC_FORM}")
    return Spec(task.strip() or None, metric.strip(), number, text, option)


def parse_specs(texts: Sequence[str], option: str) -> list[Spec]:
    return [parse_spec(t, option) for t in texts]


# -- the baseline report --------------------------------------------------------------------------------------------
@dataclass
class Baseline:
    """An earlier run's report, read when the session starts. An unreadable one does not stop the run: its
    results and reports still matter, and the baseline gate fails at the end with `error`."""

    path: Path
    error: str | None = None
    schema_version: int | None = None
    created: str | None = None
    tasks: dict[str, Problems] = field(default_factory=dict)


_RECORD_FIELDS = {f.name for f in fields(SampleRecord)} - {"task", "problem", "position"}


def _records(task: str, problems: Any) -> Problems:
    """A task section's problems back into sample records, so the task's own metrics can be recomputed."""
    if not isinstance(problems, dict):
        raise ValueError(f"tasks.{task}.problems is not an object")
    out: Problems = {}
    for position, (pid, problem) in enumerate(problems.items()):
        samples = problem.get("samples") if isinstance(problem, dict) else None
        if not isinstance(samples, list) or not all(
            isinstance(s, dict) and s.get("status") in STATUSES and isinstance(s.get("index"), int) for s in samples
        ):
            raise ValueError(f"tasks.{task}.problems.{pid}.samples is not a list of samples with index and status")
        out[pid] = [
            SampleRecord(
                task=task, problem=pid, position=position, **{k: v for k, v in s.items() if k in _RECORD_FIELDS}
            )
            for s in samples
        ]
    return out


def read_baseline(path: Path) -> Baseline:
    baseline = Baseline(path)
    fix = "pass a file written by --codeeval-report"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        baseline.error = f"--codeeval-baseline={path}: no such file; {fix}"
        return baseline
    except (OSError, ValueError) as exc:
        baseline.error = f"--codeeval-baseline={path}: not a JSON report ({exc}); {fix}"
        return baseline
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), dict):
        baseline.error = f"--codeeval-baseline={path}: no 'tasks' section; {fix}"
        return baseline
    if data.get("schema_version") not in READABLE_SCHEMAS:
        baseline.error = (f"--codeeval-baseline={path}: schema_version {data.get('schema_version')!r} is not one of "
                          f"{READABLE_SCHEMAS}; {fix} of this version")
        return baseline
    try:
        baseline.tasks = {
            name: _records(name, (section or {}).get("problems")) for name, section in data["tasks"].items()
        }
    except (ValueError, TypeError, AttributeError) as exc:
        baseline.error = f"--codeeval-baseline={path}: malformed report: {exc}; {fix}"
        return baseline
    baseline.schema_version, baseline.created = data["schema_version"], data.get("created")
    return baseline


# -- gates ------------------------------------------------------------------------------------------------------------
@dataclass
class GateResult:
    kind: str  # "fail_under", "baseline" or "complete" (--codeeval-require-complete)
    passed: bool
    message: str
    task: str | None = None
    metric: str | None = None
    value: float | None = None
    threshold: float | None = None  # fail_under: the minimum; baseline: the tolerated drop


@dataclass
class Gates:
    specs: dict[str, Any]
    results: list[GateResult] = field(default_factory=list)
    comparison: dict[str, Any] | None = None  # the report's `baseline` section

    @property
    def failed(self) -> bool:
        return any(not r.passed for r in self.results)

    def lines(self) -> list[str]:
        """Terminal lines: each failed gate with its reason, or one line saying that all passed."""
        if not self.results:
            return []
        bad = [r for r in self.results if not r.passed]
        if not bad:
            checks = "; ".join(r.message for r in self.results)
            n = len(self.results)
            return [f"codeeval gates: passed ({n} check{'s' if n != 1 else ''}: {checks})"]
        return [f"codeeval gate FAILED: {r.message}" for r in bad] + [
            f"codeeval gates: {len(bad)} of {len(self.results)} check{'s' if len(self.results) != 1 else ''} failed"
        ]

    def to_dict(self) -> dict[str, Any]:
        return {"passed": not self.failed, "specs": self.specs, "results": [asdict(r) for r in self.results]}


def check_thresholds(specs: Sequence[Spec], tasks: Mapping[str, TaskResult]) -> list[GateResult]:
    """A spec without a task applies to every task that has the metric; it fails when none has it."""
    results = []
    for spec in specs:
        if spec.task and spec.task not in tasks:
            message = f"{spec}: task {spec.task!r} did not run (ran: {', '.join(tasks) or 'none'})"
            results.append(GateResult("fail_under", False, message, spec.task, spec.metric, None, spec.value))
            continue
        names = [spec.task] if spec.task else list(tasks)
        measured = [(n, tasks[n].metrics[spec.metric]) for n in names if spec.metric in tasks[n].metrics]
        if not measured:
            known = ", ".join(sorted({m for n in names for m in tasks[n].metrics})) or "none"
            what = f"task {spec.task!r} has no metric" if spec.task else "no task has metric"
            message = f"{spec}: {what} {spec.metric!r} (metrics: {known})"
            results.append(GateResult("fail_under", False, message, spec.task, spec.metric, None, spec.value))
        for name, value in measured:
            ok = value >= spec.value
            message = f"{name} {spec.metric} = {value:.3f} {'>=' if ok else '<'} {spec.value:g}"
            results.append(GateResult("fail_under", ok, message, name, spec.metric, value, spec.value))
    return results


def tolerance(specs: Sequence[Spec], task: str, metric: str) -> float:
    """The most specific spec wins: task:metric, then metric, then DEFAULT_TOLERANCE."""
    for spec in specs:
        if spec.metric == metric and spec.task == task:
            return spec.value
    for spec in specs:
        if spec.metric == metric and spec.task is None:
            return spec.value
    return DEFAULT_TOLERANCE


def _listed(problems: Sequence[str]) -> str:
    more = len(problems) - LISTED_PROBLEMS
    return ", ".join(problems[:LISTED_PROBLEMS]) + (f" and {more} more" if more > 0 else "")


def compare_to_baseline(
    baseline: Baseline, tasks: Mapping[str, TaskResult], compute_of: ComputeOf, tolerances: Sequence[Spec],
    alpha: float,
) -> tuple[dict[str, Any], list[GateResult]]:
    """Every metric of every task present in both runs, on the problems both have; the report section and gates."""
    from pytest_codeeval.metrics.stats import paired_comparison

    section: dict[str, Any] = {"path": str(baseline.path), "created": baseline.created,
                               "schema_version": baseline.schema_version, "error": baseline.error, "tasks": {}}
    if baseline.error:
        return section, [GateResult("baseline", False, baseline.error)]
    results = []
    common = [name for name in tasks if name in baseline.tasks]
    if not common:
        message = (f"--codeeval-baseline={baseline.path}: no task of this run is in the baseline "
                   f"(baseline: {', '.join(baseline.tasks) or 'none'}; this run: {', '.join(tasks) or 'none'})")
        return section, [GateResult("baseline", False, message)]
    for name in common:
        comparisons = paired_comparison(baseline.tasks[name], tasks[name].problems, compute_of(name))
        if not comparisons:
            message = f"{name}: no problem and metric in common with the baseline {baseline.path}"
            results.append(GateResult("baseline", False, message, name))
            continue
        for metric, c in comparisons.items():
            allowed = tolerance(tolerances, name, metric)
            regressed = -c.delta > allowed + 1e-12 and c.p_value < alpha
            section["tasks"].setdefault(name, {})[metric] = {
                "baseline": c.baseline, "current": c.current, "delta": c.delta, "problems": c.problems,
                "tolerance": allowed, "p_value": c.p_value, "test": c.test, "regressed": regressed,
                "regressed_problems": c.regressed_problems, "improved_problems": c.improved_problems,
            }
            message = (f"{name} {metric} {c.current:.3f} vs baseline {c.baseline:.3f} "
                       f"({c.delta:+.3f}, p={c.p_value:.3g})")
            if regressed:
                message += (f": significant drop over {c.problems} problems ({c.test}; tolerance {allowed:g}, "
                            f"alpha {alpha:g}); regressed: {_listed(c.regressed_problems)}")
            results.append(GateResult("baseline", not regressed, message, name, metric, c.current, allowed))
    compared = {(n, m) for n, ms in section["tasks"].items() for m in ms}
    for spec in tolerances:
        if not any(spec.task in (None, n) and spec.metric == m for n, m in compared):
            listed = ", ".join(sorted(f"{n}:{m}" for n, m in compared))
            message = f"{spec}: no such task and metric compared with the baseline (compared: {listed})"
            results.append(GateResult("baseline", False, message, spec.task, spec.metric))
    return section, results


def run_gates(
    fail_under: Sequence[Spec], max_regression: Sequence[Spec], baseline: Baseline | None, alpha: float,
    tasks: Mapping[str, TaskResult], compute_of: ComputeOf,
) -> Gates | None:
    """All gates of the run; None when none was asked for."""
    if not fail_under and baseline is None:
        return None
    gates = Gates(specs={
        "fail_under": [str(s) for s in fail_under], "max_regression": [str(s) for s in max_regression],
        "default_tolerance": DEFAULT_TOLERANCE, "alpha": alpha, "baseline": str(baseline.path) if baseline else None,
    })
    gates.results = check_thresholds(fail_under, tasks)
    if baseline is not None:
        gates.comparison, results = compare_to_baseline(baseline, tasks, compute_of, max_regression, alpha)
        gates.results += results
    return gates
