"""The terminal summary: a table per task and one line on how the run went."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_codeeval.results import TaskResult


def format_table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]


def summary_lines(tasks: Mapping[str, TaskResult], intervals: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """One table: a row per task, a column per metric (with its interval when known)."""
    metric_names: list[str] = []
    for result in tasks.values():
        metric_names.extend(m for m in result.metrics if m not in metric_names)
    rows = [["task", "problems", "samples", "passed", *metric_names]]
    for name, result in tasks.items():
        counts = result.status_counts()
        cells = []
        for metric in metric_names:
            value = result.metrics.get(metric)
            if value is None:
                cells.append("-")
                continue
            ci = (intervals or {}).get(name, {}).get(metric)
            cells.append(f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
        rows.append([name, str(len(result.problems)), str(result.n_samples), str(counts.get("passed", 0)), *cells])
    return format_table(rows)


def run_line(counts: Mapping[str, int], seconds: float, source: str, sandbox: str) -> str:
    total = sum(counts.values())
    parts = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("passed", "failed", "timeout", "error"))
    return f"{total} samples ({parts}) in {seconds:.1f}s; completions: {source}; sandbox: {sandbox}"
