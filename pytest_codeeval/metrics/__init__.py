"""Metrics as a registry: task-level metrics computed on the controller from all workers' records, and
per-sample scorers computed where the sample runs (stored on each record's `scores`).

A task names its metrics: `pass@k`, `exact_match`, `precision`, `recall`, `f1`, `bleu` (or `bleu[TOKENIZER]`), a
name registered here, or a user function attached to the task (YAML `!function`). Per-sample scores are
aggregated per problem and then over problems, with the task's aggregation (mean unless it says median)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from statistics import median
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.metrics.match import bleu_tokenizer, corpus_bleu, exact_match, precision_recall_f1, sentence_bleu
from pytest_codeeval.metrics.passk import pass_at_k
from pytest_codeeval.records import SampleRecord

# problems: {problem id: records in sample order}; returns {metric name: value}
TaskMetric = Callable[[Mapping[str, Sequence[SampleRecord]], Sequence[int]], dict[str, float]]
# (prediction, reference, doc) -> {score name: value}
SampleScorer = Callable[[str, str, Mapping[str, Any]], dict[str, float]]
AGGREGATIONS: dict[str, Callable[[Sequence[float]], float]] = {"mean": lambda v: sum(v) / len(v), "median": median}

TASK_METRICS: dict[str, TaskMetric] = {}
SAMPLE_SCORERS: dict[str, SampleScorer] = {
    "exact_match": exact_match, "precision": precision_recall_f1, "recall": precision_recall_f1, "f1": precision_recall_f1,
}


def register_task_metric(name: str, fn: TaskMetric) -> None:
    TASK_METRICS[name] = fn


def register_sample_scorer(name: str, fn: SampleScorer) -> None:
    SAMPLE_SCORERS[name] = fn


def _pass_at_k(problems: Mapping[str, Sequence[SampleRecord]], ks: Sequence[int]) -> dict[str, float]:
    counts = [(len(recs), sum(r.passed for r in recs)) for recs in problems.values() if recs]
    return pass_at_k(counts, ks) if counts else {}


register_task_metric("pass@k", _pass_at_k)


def aggregate_scores(name: str, problems: Mapping[str, Sequence[SampleRecord]], how: str = "mean") -> dict[str, float]:
    """Per problem the mean over its samples, then `how` over problems (so every problem weighs the same)."""
    per_problem = [sum(v) / len(v) for recs in problems.values() if (v := [r.scores[name] for r in recs if name in r.scores])]
    return {name: AGGREGATIONS[how](per_problem)} if per_problem else {}


def task_metrics(
    metric_names: Sequence[str], problems: Mapping[str, Sequence[SampleRecord]], ks: Sequence[int],
    aggregations: Mapping[str, str] | None = None,
) -> dict[str, float]:
    values: dict[str, float] = {}
    for name in metric_names:
        if name in TASK_METRICS:
            values.update(TASK_METRICS[name](problems, ks))
        elif bleu_tokenizer(name):
            values.update(corpus_bleu(name, problems))
        else:
            values.update(aggregate_scores(name, problems, (aggregations or {}).get(name, "mean")))
    return values


def check_metric(name: str, task_scorers: Mapping[str, Any], where: str) -> None:
    """Fail at registration, naming the task's file, rather than after the run."""
    if name in TASK_METRICS or name in SAMPLE_SCORERS or name in task_scorers or bleu_tokenizer(name):
        return
    known = sorted({*TASK_METRICS, *SAMPLE_SCORERS, "bleu", "bleu[TOKENIZER]"})
    raise CodeevalError(f"{where}: unknown metric {name!r}; known metrics: {', '.join(known)}, or a user function (!function module.fn)")


def score_sample(task: Any, prediction: str, reference: str, doc: Mapping[str, Any]) -> dict[str, float]:
    """Per-sample scores of a match-based task: its own functions first, then the registry."""
    scores: dict[str, float] = {}
    own: Mapping[str, Callable[..., Any]] = getattr(task, "scorers", {}) or {}
    for name in task.metrics:
        if name in own:
            scores[name] = float(own[name]([prediction], [reference]))  # lm-eval's signature: lists of one
        elif name in SAMPLE_SCORERS:
            scores.update(SAMPLE_SCORERS[name](prediction, reference, doc))
        elif bleu_tokenizer(name):
            scores[name] = sentence_bleu(name, prediction, reference)
    return {k: v for k, v in scores.items() if k in task.metrics or k in own}
