"""Metrics as a registry: task-level metrics computed on the controller from all workers' records, and
per-sample scores computed where the sample runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.metrics.passk import pass_at_k
from pytest_codeeval.records import SampleRecord

# problems: {problem id: records in sample order}; returns {metric name: value}
TaskMetric = Callable[[Mapping[str, Sequence[SampleRecord]], Sequence[int]], dict[str, float]]
# (prediction, reference, doc) -> {score name: value}
SampleScorer = Callable[[str, str, Mapping[str, Any]], dict[str, float]]

TASK_METRICS: dict[str, TaskMetric] = {}
SAMPLE_SCORERS: dict[str, SampleScorer] = {}


def register_task_metric(name: str, fn: TaskMetric) -> None:
    TASK_METRICS[name] = fn


def register_sample_scorer(name: str, fn: SampleScorer) -> None:
    SAMPLE_SCORERS[name] = fn


def _pass_at_k(problems: Mapping[str, Sequence[SampleRecord]], ks: Sequence[int]) -> dict[str, float]:
    counts = [(len(recs), sum(r.passed for r in recs)) for recs in problems.values() if recs]
    return pass_at_k(counts, ks) if counts else {}


register_task_metric("pass@k", _pass_at_k)


def task_metrics(metric_names: Sequence[str], problems: Mapping[str, Sequence[SampleRecord]], ks: Sequence[int]) -> dict[str, float]:
    values: dict[str, float] = {}
    for name in metric_names:
        fn = TASK_METRICS.get(name)
        if fn is None:
            raise CodeevalError(f"unknown metric {name!r}; known metrics: {', '.join(sorted(TASK_METRICS))}")
        values.update(fn(problems, ks))
    return values


def score_sample(task: Any, prediction: str, reference: str, doc: Mapping[str, Any]) -> dict[str, float]:
    """Per-sample scores of a match-based task (scorers named in its `metrics`)."""
    scores: dict[str, float] = {}
    for name in task.metrics:
        scorer = SAMPLE_SCORERS.get(name)
        if scorer is not None:
            scores.update(scorer(prediction, reference, doc))
    return scores
