"""The cputime judge: a program is tested on stored cases and timed, in CPU time, against the problem's reference
solutions in the same sandbox run (Mercury, Du et al. 2024). A harness (cputime_harness.py) runs the sample and
every reference, alternating, each run a process of its own; this side turns the figures into Mercury's Beyond.

Judge data: {"entry_point": "methodName", "tests": [{"input": [args...], "expected": value}, ...],
"references": [source, ...], "convert": optional source of convert_offline((inputs, expected)) -> (inputs, expected),
"evaluate": optional source of evaluate_offline(inputs, outputs, expected) -> bool, "rounds": optional,
"min_cpu": optional}. The program defines `class Solution` with the entry point as a method."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_codeeval.judges.base import Judge
from pytest_codeeval.judges.stdio import read_verdict
from pytest_codeeval.runners.base import Outcome, tail
from pytest_codeeval.samples import SampleRecord
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits

RESULT_MARK = "@@codeeval-cputime "
ROUNDS = 5  # timed runs of the sample and of each reference after the sample's first, checking run
MIN_CPU = 0.02  # CPU seconds a run spends at least, repeating its pass over the tests (see docs/tasks.md)


def beyond(runtime: float | None, references: Sequence[float]) -> float | None:
    """Mercury's Beyond of one sample: its runtime clamped into the references' [fastest, slowest] range, as the
    share of that range it is faster than the slowest; a failing sample (runtime None) scores 0. None when no
    reference ran. With a single reference figure the range is empty: 1 when not slower than it, else 0."""
    if not references:
        return None
    fastest, slowest = min(references), max(references)
    if runtime is None:
        return 0.0
    if slowest == fastest:
        return 1.0 if runtime <= fastest else 0.0
    clamped = min(max(runtime, fastest), slowest)
    return (slowest - clamped) / (slowest - fastest)


def beyond_at_k(problems: Mapping[str, Sequence[SampleRecord]], ks: Sequence[int]) -> dict[str, float]:
    """Mercury's Beyond@k: per problem the mean Beyond of its first k samples, averaged over problems (for each k
    that every problem has samples for). A problem whose references all failed has no Beyond and is left out."""
    scored = [[r.scores.get("beyond", 0.0) for r in recs] for recs in problems.values()
              if recs and not any(r.passed and "beyond" not in r.scores for r in recs)]
    if not scored:
        return {}
    return {f"beyond@{k}": sum(sum(b[:k]) / k for b in scored) / len(scored)
            for k in ks if all(len(b) >= k for b in scored)}


def _failure_text(failure: Mapping) -> str:
    parts = [f"{key}:\n{failure[key]}" for key in ("input", "expected", "got") if key in failure]
    if "error" in failure:
        parts.append(f"error: {failure['error']}")
    return "\n".join(parts) + "\n" if parts else ""


class CpuTimeJudge(Judge):
    harness, spec_file = "cputime_harness.py", "spec.json"

    def judged(self, program: str, limits: Limits, spec: dict[str, Any]) -> ExecRequest:
        spec.setdefault("tests", [])
        spec.setdefault("references", [])
        spec["rounds"] = max(1, int(spec.get("rounds", ROUNDS)))
        spec["min_cpu"] = float(spec.get("min_cpu", MIN_CPU))
        spec["timeout"] = limits.cpu_seconds
        return self.harnessed(program, limits, spec, runs=(spec["rounds"] + 1) * (len(spec["references"]) + 1))

    def judge(self, result: ExecResult, outcome: Outcome) -> Outcome:
        verdict = read_verdict(result.stdout, RESULT_MARK)
        if verdict is None:
            if outcome.status == "passed":  # the harness ended without its verdict line
                outcome.status, outcome.detail = "error", "the cputime harness printed no verdict"
            return outcome
        outcome.output = tail(result.stderr) if result.stderr else ""
        if not verdict.get("passed"):
            failure = verdict.get("failure") or {}
            outcome.status = "timeout" if failure.get("timeout") else "failed"
            where = f"test {failure['test']}" if "test" in failure else ("loading" if failure.get("load") else "")
            why = failure.get("error") or "wrong answer"
            outcome.detail = f"{why} ({where})" if where else why
            if verdict.get("flaky"):
                outcome.detail += " on a timing run after passing once"
            outcome.output = _failure_text(failure) + outcome.output
            outcome.judgement = {"failure": failure}
            outcome.scores = {"beyond": 0.0}  # Mercury: a failing sample is slower than every reference
            return outcome
        references = [t for t in verdict.get("reference_cpu", []) if t is not None]
        value = beyond(verdict["cpu"], references)
        outcome.status = "passed"
        outcome.judgement = {
            "cpu_seconds": verdict["cpu"], "cpu_runs": verdict.get("cpu_runs", []),
            "reference_cpu_seconds": verdict.get("reference_cpu", []),  # in the references' order; None: it failed
            "references_failed": len(verdict.get("reference_cpu", [])) - len(references),
            "beyond": value,
        }
        if verdict.get("reference_error"):
            outcome.judgement["reference_error"] = verdict["reference_error"]
        if value is None:
            outcome.detail = f"passed in {verdict['cpu'] * 1e3:.3f} ms CPU; no reference solution passed: no Beyond"
        else:
            outcome.scores = {"beyond": value}
            outcome.detail = (f"passed in {verdict['cpu'] * 1e3:.3f} ms CPU; references "
                              f"{min(references) * 1e3:.3f}-{max(references) * 1e3:.3f} ms; Beyond {value:.3f}")
        return outcome
