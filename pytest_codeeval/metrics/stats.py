"""Statistics over problems: bootstrap confidence intervals, and the paired test that decides whether a drop
against a baseline is real.

Both treat the problem as the unit: a benchmark is a sample of problems, and samples of one problem are not
independent. The paired test is a sign-flip permutation test on per-problem differences: under "no change" each
difference is as likely to be negative as positive. With one sample per problem (0/1 outcomes) it is exactly
McNemar's exact test on the problems that flipped. Fixed seeds make every number reproducible."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from pytest_codeeval.metrics.passk import estimate_pass_at_k
from pytest_codeeval.records import SampleRecord

BOOTSTRAP_RESAMPLES = 2000
PERMUTATIONS = 20000
EXACT_UP_TO = 16  # flipped problems up to which all 2^m sign patterns are enumerated
SEED = 20211


def per_problem_values(metric: str, problems: Mapping[str, Sequence[SampleRecord]]) -> dict[str, float] | None:
    """The metric's value on each problem, when the task metric is their mean (pass@k, mean per-sample scores)."""
    if metric.startswith("pass@") and metric[5:].isdigit():
        k = int(metric[5:])
        return {pid: estimate_pass_at_k(len(recs), sum(r.passed for r in recs), k) for pid, recs in problems.items() if recs}
    values = {pid: [r.scores[metric] for r in recs if metric in r.scores] for pid, recs in problems.items()}
    if not any(values.values()):
        return None
    return {pid: float(np.mean(v)) for pid, v in values.items() if v}


def bootstrap_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean over problems."""
    data = np.asarray(values, dtype=float)
    if len(data) < 2:
        return (float(data.mean()), float(data.mean())) if len(data) else (0.0, 0.0)
    rng = np.random.default_rng(SEED)
    means = data[rng.integers(0, len(data), size=(BOOTSTRAP_RESAMPLES, len(data)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def drop_p_value(baseline: Sequence[float], current: Sequence[float]) -> float:
    """One-sided p-value of "current is worse than baseline" from paired per-problem values."""
    diffs = np.asarray(current, dtype=float) - np.asarray(baseline, dtype=float)
    diffs = diffs[diffs != 0]
    if len(diffs) == 0:
        return 1.0
    observed = diffs.sum()
    if len(diffs) <= EXACT_UP_TO:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(diffs))))
    else:
        signs = np.random.default_rng(SEED).choice((1.0, -1.0), size=(PERMUTATIONS, len(diffs)))
    totals = (signs * np.abs(diffs)).sum(axis=1)
    return float(np.mean(totals <= observed + 1e-12))
