"""Gates for CI: thresholds (`--codeeval-fail-under`) and regressions against a baseline report.

A baseline gate fails only when a metric dropped by more than its tolerance AND the drop is significant in a
paired test over the problems both runs share (metrics/stats.py), so that noise passes and real drops fail."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.metrics.stats import drop_p_value
from pytest_codeeval.results import TaskResult

DEFAULT_TOLERANCE = 0.02
SPEC_FORM = "METRIC=VALUE or TASK:METRIC=VALUE, e.g. pass@1=0.30 or humaneval:pass@1=0.30"
READABLE_SCHEMAS = (1, 2)


@dataclass(frozen=True)
class Spec:
    task: str | None  # None: every task
    metric: str
    value: float
    text: str


def parse_spec(text: str, option: str) -> Spec:
    target, sep, value = text.partition("=")
    task, _, metric = target.rpartition(":")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not sep or not metric.strip() or number is None or number < 0:
        raise CodeevalError(f"{option}={text!r}: expected {SPEC_FORM}")
    return Spec(task.strip() or None, metric.strip(), number, text)


def parse_specs(texts: Sequence[str], option: str) -> list[Spec]:
    return [parse_spec(t, option) for t in texts]


@dataclass
class GateOutcome:
    checks: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    comparison: dict[str, Any] | None = None

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(not c["passed"] for c in self.checks)

    def lines(self) -> list[str]:
        if not self.checks and not self.errors:
            return []
        bad = [c["message"] for c in self.checks if not c["passed"]] + self.errors
        if not bad:
            return [f"codeeval gates: passed ({len(self.checks)} checks: " + "; ".join(c["message"] for c in self.checks) + ")"]
        return [f"codeeval gate FAILED: {line}" for line in bad]

    def to_dict(self) -> dict[str, Any]:
        return {"passed": not self.failed, "checks": self.checks, "errors": self.errors}


def check_thresholds(specs: Sequence[Spec], tasks: Mapping[str, TaskResult], outcome: GateOutcome) -> None:
    for spec in specs:
        names = [spec.task] if spec.task else list(tasks)
        if spec.task and spec.task not in tasks:
            outcome.errors.append(f"--codeeval-fail-under={spec.text}: task {spec.task!r} did not run (ran: {', '.join(tasks) or 'none'})")
            continue
        measured = [(n, tasks[n].metrics[spec.metric]) for n in names if spec.metric in tasks[n].metrics]
        if not measured:
            known = sorted({m for n in names for m in tasks[n].metrics})
            outcome.errors.append(f"--codeeval-fail-under={spec.text}: no task has metric {spec.metric!r} (have: {', '.join(known) or 'none'})")
        for name, value in measured:
            ok = value >= spec.value
            outcome.checks.append({"kind": "fail_under", "task": name, "metric": spec.metric, "value": value,
                                   "threshold": spec.value, "passed": ok,
                                   "message": f"{name} {spec.metric} = {value:.3f} {'>=' if ok else '<'} {spec.value:g}"})


def load_baseline(path: Path) -> dict[str, Any]:
    fix = "pass a file written by --codeeval-report"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CodeevalError(f"--codeeval-baseline={path}: no such file; {fix}") from None
    except (OSError, ValueError) as exc:
        raise CodeevalError(f"--codeeval-baseline={path}: not a JSON report ({exc}); {fix}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), dict):
        raise CodeevalError(f"--codeeval-baseline={path}: no 'tasks' section; {fix}")
    if data.get("schema_version") not in READABLE_SCHEMAS:
        raise CodeevalError(f"--codeeval-baseline={path}: schema_version {data.get('schema_version')!r} is not one of {READABLE_SCHEMAS}")
    return data


def _problem_values(section: Mapping[str, Any], metric: str) -> dict[str, float]:
    from pytest_codeeval.metrics.passk import estimate_pass_at_k

    if not (metric.startswith("pass@") and metric[5:].isdigit()):
        return {}
    k = int(metric[5:])
    return {pid: estimate_pass_at_k(p["n"], p["passed"], k) for pid, p in section.get("problems", {}).items() if p.get("n", 0) >= k}


def compare_to_baseline(
    baseline: Mapping[str, Any], tasks: Mapping[str, TaskResult], tolerances: Sequence[Spec], alpha: float, outcome: GateOutcome,
) -> None:
    """Every metric of every task present in both runs, problem by problem, on the problems they share."""
    from pytest_codeeval.reporting.json_report import task_section

    comparison: dict[str, Any] = {}
    for name, result in tasks.items():
        before = baseline["tasks"].get(name)
        if not isinstance(before, dict):
            continue
        now = task_section(result)
        for metric in result.metrics:
            old, new = _problem_values(before, metric), _problem_values(now, metric)
            shared = [pid for pid in new if pid in old]
            if not shared:
                continue
            base_mean = sum(old[p] for p in shared) / len(shared)
            cur_mean = sum(new[p] for p in shared) / len(shared)
            tolerance = _tolerance(tolerances, name, metric)
            p_value = drop_p_value([old[p] for p in shared], [new[p] for p in shared])
            regressed = sorted((p for p in shared if new[p] < old[p]), key=lambda p: new[p] - old[p])
            improved = sorted((p for p in shared if new[p] > old[p]), key=lambda p: old[p] - new[p])
            failed = base_mean - cur_mean > tolerance and p_value < alpha
            entry = {"baseline": base_mean, "current": cur_mean, "delta": cur_mean - base_mean, "problems": len(shared),
                     "tolerance": tolerance, "p_value": p_value, "regressed": failed,
                     "regressed_problems": regressed, "improved_problems": improved}
            comparison.setdefault(name, {})[metric] = entry
            verdict = "significant drop" if failed else "no significant drop"
            message = (f"{name} {metric} {cur_mean:.3f} vs baseline {base_mean:.3f} ({cur_mean - base_mean:+.3f}, "
                       f"p={p_value:.3g}, tolerance {tolerance:g}, alpha {alpha:g}): {verdict}")
            if failed:
                message += f"; regressed: {', '.join(regressed[:10])}" + (f" and {len(regressed) - 10} more" if len(regressed) > 10 else "")
            outcome.checks.append({"kind": "baseline", "task": name, "metric": metric, "passed": not failed, "message": message})
    if not comparison:
        outcome.errors.append("--codeeval-baseline: no task and metric in common with the baseline; nothing was compared")
    outcome.comparison = comparison


def _tolerance(specs: Sequence[Spec], task: str, metric: str) -> float:
    for spec in specs:
        if spec.metric == metric and spec.task == task:
            return spec.value
    for spec in specs:
        if spec.metric == metric and spec.task is None:
            return spec.value
    return DEFAULT_TOLERANCE
