"""Metrics as a registry: task-level metrics computed on the controller from all workers' records, and
per-sample scorers computed where the sample runs (stored on each record's `scores`).

A task names its metrics: `pass@k`, `robust-pass@k` (ReCode's, over perturbed prompts), `problem-pass@k` (each
problem's own), `group-pass@k` (each group's, named by the problem ids' first part), `exact_match`, `precision`,
`recall`, `f1`, `bleu` (or `bleu[TOKENIZER]`), `nmt_bleu` (or `nmt_bleu[smooth]`), `codexglue_bleu`, a name
registered here, or a user function attached to the task (`Task.scorers`, YAML `!function`). A reference may be a
list (several references): BLEU uses them all, and other per-sample scores take the best over them
(lm-evaluation-harness's rule for a list target). Per-sample scores are aggregated per problem (mean over its
samples) and then over problems with the task's aggregation:
`mean` unless it names `median` or gives a function. `first-sample` scores each problem's first sample alone (a
corpus BLEU too), as bigcode-evaluation-harness scores its BLEU tasks (`gen[0]`); with several samples the
all-samples value is reported beside it, as `NAME/all-samples`."""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from statistics import median
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.metrics.bleu import codexglue_sentence_bleu
from pytest_codeeval.metrics.match import bleu_tokenizer, corpus_bleu, exact_match, precision_recall_f1, sentence_bleu
from pytest_codeeval.metrics.passk import pass_at_k
from pytest_codeeval.metrics.robust import robust_pass_at_k
from pytest_codeeval.samples import SampleRecord

Problems = Mapping[str, Sequence[SampleRecord]]
# problems: {problem id: records in sample order}; returns {metric name: value}
TaskMetric = Callable[[Problems, Sequence[int]], dict[str, float]]
# (prediction, reference, doc, **options) -> {score name: value}
SampleScorer = Callable[..., dict[str, float]]
# a name in AGGREGATIONS, or a function of the per-problem values (lm-eval's `aggregation: !function ...`)
Aggregation = str | Callable[[Sequence[float]], float]

AGGREGATIONS: dict[str, Callable[[Sequence[float]], float]] = {"mean": lambda v: sum(v) / len(v), "median": median}
FIRST_SAMPLE = "first-sample"  # the problem's first sample alone, then the mean over problems
ALL_SAMPLES = "/all-samples"  # the suffix of the every-sample value reported beside a first-sample metric
TASK_METRICS: dict[str, TaskMetric] = {}
SAMPLE_SCORERS: dict[str, SampleScorer] = {
    "exact_match": exact_match, "precision": precision_recall_f1, "recall": precision_recall_f1,
    "f1": precision_recall_f1,
    "codexglue_bleu": lambda prediction, reference, doc: {
        "codexglue_bleu": codexglue_sentence_bleu(prediction, reference)},
}

WHOLE_REFERENCES = {"codexglue_bleu"}  # scorers that take a list of references themselves (BLEU's several references)


def register_task_metric(name: str, fn: TaskMetric) -> None:
    TASK_METRICS[name] = fn


def register_sample_scorer(name: str, fn: SampleScorer) -> SampleScorer:
    """Make `name` usable in any task's `metrics`: fn(prediction, reference, doc) -> {name: value}."""
    SAMPLE_SCORERS[name] = fn
    return fn


def _pass_at_k(problems: Problems, ks: Sequence[int]) -> dict[str, float]:
    counts = [(len(recs), sum(r.passed for r in recs)) for recs in problems.values() if recs]
    return pass_at_k(counts, ks) if counts else {}


register_task_metric("pass@k", _pass_at_k)


def _pass_at_k_per_problem(problems: Problems, ks: Sequence[int]) -> dict[str, float]:
    """`pass@k[PROBLEM]` for each problem: for tasks whose few problems are reported one by one (parity)."""
    return {f"{name}[{pid}]": value for pid, recs in problems.items() if recs
            for name, value in pass_at_k([(len(recs), sum(r.passed for r in recs))], ks).items()}


register_task_metric("problem-pass@k", _pass_at_k_per_problem)


def _pass_at_k_per_group(problems: Problems, ks: Sequence[int]) -> dict[str, float]:
    """`pass@k[GROUP]` over each group's problems, the group being the problem id's first `/` part: for tasks that
    report subsets of their problems (StudentEval's first and last attempts)."""
    groups: dict[str, list[tuple[int, int]]] = {}
    for pid, recs in problems.items():
        if recs:
            groups.setdefault(pid.split("/", 1)[0], []).append((len(recs), sum(r.passed for r in recs)))
    return {f"{name}[{group}]": value for group, counts in sorted(groups.items())
            for name, value in pass_at_k(counts, ks).items()}


register_task_metric("group-pass@k", _pass_at_k_per_group)
register_task_metric("robust-pass@k", robust_pass_at_k)


def _answer_accuracy(problems: Problems, ks: Sequence[int]) -> dict[str, float]:
    from pytest_codeeval.judges.answer import answer_metrics

    return answer_metrics(problems, majority=False)


def _majority_voting(problems: Problems, ks: Sequence[int]) -> dict[str, float]:
    from pytest_codeeval.judges.answer import answer_metrics

    return answer_metrics(problems, majority=True)


def _test_accuracy(problems: Problems, ks: Sequence[int]) -> dict[str, float]:
    """APPS's metrics for one sample per problem: the mean fraction of a problem's tests passed, and the share of
    problems whose every test passed. With several samples APPS reports pass@k instead (so this gives nothing)."""
    if not problems or any(len(recs) != 1 for recs in problems.values()):
        return {}
    accuracies = [recs[0].scores.get("test_accuracy", 0.0) for recs in problems.values()]
    strict = [recs[0].passed for recs in problems.values()]
    return {"avg_accuracy": sum(accuracies) / len(accuracies), "strict_accuracy": sum(strict) / len(strict)}


register_task_metric("avg_accuracy", _test_accuracy)


# the answer judge's metrics: accuracy and num_failed_execution, of the first answer or of the majority's
register_task_metric("answer_accuracy", _answer_accuracy)
register_task_metric("majority_voting", _majority_voting)


def _beyond_at_k(problems: Problems, ks: Sequence[int]) -> dict[str, float]:
    from pytest_codeeval.judges.cputime import beyond_at_k

    return beyond_at_k(problems, ks)


# the cputime judge's metric: Mercury's Beyond@k, runtime efficiency against the reference solutions
register_task_metric("beyond@k", _beyond_at_k)


def first_samples(problems: Problems) -> Problems:
    return {pid: recs[:1] for pid, recs in problems.items()}


def aggregate_scores(name: str, problems: Problems, how: Aggregation = "mean") -> dict[str, float]:
    """Per problem the mean over its samples, then `how` over problems (so every problem weighs the same)."""
    per_problem = [
        sum(v) / len(v) for recs in problems.values() if (v := [r.scores[name] for r in recs if name in r.scores])
    ]
    if not per_problem:
        return {}
    return {name: float(AGGREGATIONS[how](per_problem) if isinstance(how, str) else how(per_problem))}


def task_metrics(
    metric_names: Sequence[str], problems: Problems, ks: Sequence[int],
    aggregations: Mapping[str, Aggregation] | None = None,
) -> dict[str, float]:
    values: dict[str, float] = {}
    for name in metric_names:
        how = (aggregations or {}).get(name, "mean")
        if name in TASK_METRICS:
            values.update(TASK_METRICS[name](problems, ks))
            continue
        scored = corpus_bleu if bleu_tokenizer(name) else aggregate_scores
        if how == FIRST_SAMPLE:
            values.update(scored(name, first_samples(problems)))
            if any(len(recs) > 1 for recs in problems.values()):
                values.update({f"{key}{ALL_SAMPLES}": value for key, value in scored(name, problems).items()})
        elif scored is corpus_bleu:
            values.update(corpus_bleu(name, problems))
        else:
            values.update(aggregate_scores(name, problems, how))
    return values


def is_known(name: str, own: Collection[str] = ()) -> bool:
    return name in TASK_METRICS or name in SAMPLE_SCORERS or name in own or bleu_tokenizer(name) is not None


def check_metric(name: str, own: Collection[str], where: str) -> None:
    """Fail at registration, naming the task and its file, rather than after the run."""
    if is_known(name, own):
        return
    known = sorted({*TASK_METRICS, *SAMPLE_SCORERS, "bleu", "bleu[TOKENIZER]", "nmt_bleu", "nmt_bleu[smooth]"})
    close = difflib.get_close_matches(name, [*known, *own], n=1)
    raise CodeevalError(
        f"{where}: unknown metric {name!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
        + f"; known metrics: {', '.join(known)}, or a user function "
        "(Task.scorers, YAML !function module.fn)"
    )


def check_aggregation(how: Any, where: str) -> None:
    if not callable(how) and how not in (*AGGREGATIONS, FIRST_SAMPLE):
        raise CodeevalError(
            f"{where}: aggregation {how!r}: use one of {', '.join((*AGGREGATIONS, FIRST_SAMPLE))} or a function"
        )


def check_options(name: str, options: Mapping[str, Any], where: str) -> None:
    """Options given to a built-in scorer (YAML `metric_list` extras such as `ignore_case`) must be its parameters."""
    if not options:
        return
    fn = SAMPLE_SCORERS.get(name)
    if fn is None:
        raise CodeevalError(f"{where}: metric {name!r} takes no options (got {', '.join(options)})")
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    accepted = [p for p, spec in params.items() if spec.kind is spec.KEYWORD_ONLY]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise CodeevalError(f"{where}: metric {name!r} has no option {', '.join(map(repr, unknown))}; "
                            f"its options: {', '.join(accepted) or 'none'}")


def call_user_metric(
    fn: Callable[..., Any], name: str, prediction: str, reference: str, options: Mapping[str, Any]
) -> dict[str, float]:
    """lm-evaluation-harness's convention: fn(references=[gold], predictions=[answer], **options) -> number or dict."""
    value = fn(references=[reference], predictions=[prediction], **options)
    if isinstance(value, Mapping):
        return {str(k): float(v) for k, v in value.items()}
    return {name: float(value)}


def _best(score: Callable[[str], dict[str, float]], reference: str | Sequence[str]) -> dict[str, float]:
    """A score against one reference, or per score name the best against several."""
    if isinstance(reference, str):
        return score(reference)
    best: dict[str, float] = {}
    for each in reference:
        for key, value in score(each).items():
            best[key] = max(best.get(key, value), value)
    return best


def _scored(
    scorer: SampleScorer, prediction: str, doc: Mapping[str, Any], options: Mapping[str, Any], reference: str
) -> dict[str, float]:
    return scorer(prediction, reference, doc, **options)


def score_sample(
    task: Any, prediction: str, reference: str | Sequence[str], doc: Mapping[str, Any]
) -> dict[str, float]:
    """Per-sample scores of a match-based task: its own functions first, then the registry."""
    scores: dict[str, float] = {}
    own: Mapping[str, Callable[..., Any]] = getattr(task, "scorers", {}) or {}
    options: Mapping[str, Mapping[str, Any]] = getattr(task, "metric_options", {}) or {}
    for name in task.metrics:
        opts = options.get(name, {})
        if name in own:
            scores.update(_best(partial(call_user_metric, own[name], name, prediction, options=opts), reference))
        elif name in WHOLE_REFERENCES:
            scores.update(SAMPLE_SCORERS[name](prediction, reference, doc))
        elif name in SAMPLE_SCORERS:
            scores.update(_best(partial(_scored, SAMPLE_SCORERS[name], prediction, doc, opts), reference))
        elif bleu_tokenizer(name):
            scores[name] = sentence_bleu(name, prediction, reference)
    return {k: v for k, v in scores.items() if k in task.metrics}
