"""The answer judge: a program's *result* is its answer (PAL). The program prints it last; the judge compares it
with the expected number the way bigcode-evaluation-harness does (absolute difference below 1e-3).

As there, the answer is the last line the program wrote to stdout or stderr (the harness captures both in one
stream), and an answer that starts with `failed:` (how the harness records a failed run) counts as no answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_codeeval.judges.base import Judge
from pytest_codeeval.runners.base import Outcome
from pytest_codeeval.samples import SampleRecord
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits

TOLERANCE = 1e-3  # bigcode-evaluation-harness's pal_code_exec: |answer - reference| < 1e-3
FAILED_MARK = "failed:"  # the harness's prefix of a failed run's result: such an answer is left out
# One first line (the program's own lines move down by one): what the program writes to sys.stderr goes to stdout
# too, in order, so that the last line read is the harness's; stderr keeps it for the verdict's traceback.
STDERR_WITH_STDOUT = (
    'exec("import sys\\nclass _Both:\\n def __init__(self, out, err): self.out, self.err = out, err\\n'
    ' def write(self, text): self.out.write(text); return self.err.write(text)\\n'
    ' def flush(self): self.out.flush(); self.err.flush()\\n'
    ' def __getattr__(self, name): return getattr(self.err, name)\\n'
    'sys.stderr = _Both(sys.stdout, sys.stderr)", {})\n'
)


def numeric_match(answer: object, expected: object) -> bool | None:
    """True or False; None when either side is not a number (bigcode counts that as a failed execution)."""
    try:
        return abs(float(answer) - float(expected)) < TOLERANCE  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def last_line(stdout: str) -> str | None:
    """What the program printed last, stripped: the answer of a `print(solution())` program. Lines end at `\n`
    only, as BCEH reads them (`StringIO.readlines`): a `\r`, form feed or U+2028 inside the answer stays in it."""
    return stdout.removesuffix("\n").rsplit("\n", 1)[-1].strip() if stdout else None


class AnswerJudge(Judge):
    """Judge data: {"expected": value}. The sample passes when it ran and its last printed line matches."""

    def judged(self, program: str, limits: Limits, spec: dict[str, Any]) -> ExecRequest:
        return self.request(STDERR_WITH_STDOUT + program, limits)

    def concluded(self, outcome: Outcome, spec: dict[str, Any]) -> Outcome:
        expected = spec.get("expected")
        outcome.judgement["expected"] = expected
        return self._compare(outcome, expected)

    def judge(self, result: ExecResult, outcome: Outcome) -> Outcome:
        answer = last_line(result.stdout) if outcome.status == "passed" else None
        if answer is not None and answer.startswith(FAILED_MARK):
            outcome.status, outcome.detail = "failed", f"printed {answer[:100]!r}, a failed run to bigcode"
            answer = None
        outcome.judgement["answer"] = answer
        return outcome

    @staticmethod
    def _compare(outcome: Outcome, expected: object) -> Outcome:
        answer = outcome.judgement.get("answer")
        if outcome.status != "passed":
            return outcome
        if answer is None:
            outcome.status, outcome.detail = "failed", "printed no answer"
        elif not numeric_match(answer, expected):
            outcome.status, outcome.detail = "failed", f"wrong answer: {answer[:100]!r}, expected {expected!r}"
        else:
            outcome.detail = f"answer {answer[:100]!r}"
        return outcome


def chosen_answer(records: Sequence[SampleRecord], majority: bool) -> str:
    """bigcode's choice among a problem's samples: executions that failed are left out; greedy takes the first
    answer, majority voting the most common (the first seen among ties); "" when every execution failed."""
    answers = [r.judgement["answer"] for r in records if r.judgement.get("answer") is not None]
    if not answers:
        return ""
    return Counter(answers).most_common(1)[0][0] if majority else answers[0]


def answer_metrics(problems: Mapping[str, Sequence[SampleRecord]], majority: bool) -> dict[str, float]:
    """bigcode's PAL metrics: accuracy over problems, and the number of problems whose chosen answer (or
    reference) is not a number, which it calls failed executions."""
    scores, failed = [], 0
    for records in problems.values():
        if not records:
            continue
        match = numeric_match(chosen_answer(records, majority), records[0].judgement.get("expected"))
        failed += match is None
        scores.append(1.0 if match else 0.0)
    if not scores:
        return {}
    return {"accuracy": sum(scores) / len(scores), "num_failed_execution": float(failed)}
