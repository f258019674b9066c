"""The HTML report: one self-contained page (no network) rendered from the JSON report. Generated code and its
output are untrusted text: autoescaping is on for everything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_codeeval.reporting.markdown import INCOMPLETE, run_verdict

OUTPUT_CAP = 4000  # characters of each sample's output shown


def render_html(report: dict[str, Any]) -> str:
    from jinja2 import Environment, PackageLoader

    env = Environment(loader=PackageLoader("pytest_codeeval.reporting", "templates"), autoescape=True)
    config = report.get("config") or {}
    statuses = ", ".join(f"{v} {k}" for k, v in ((report.get("run") or {}).get("statuses") or {}).items())
    comparison = (report.get("baseline") or {}).get("tasks") or {}
    regressed = {
        task: {p for c in metrics.values() for p in c["regressed_problems"]} for task, metrics in comparison.items()
    }
    passed, verdict = run_verdict(report)
    partial = {name: task["problems_in_file"] for name, task in report["tasks"].items() if "problems_in_file" in task}
    return env.get_template("report.html.j2").render(
        report=report, title=config.get("model") or config.get("load_generations") or "run", statuses=statuses,
        comparison=comparison, regressed=regressed, output_cap=OUTPUT_CAP, incomplete=INCOMPLETE,
        passed=passed, verdict=verdict, partial=partial,
    )


def write_html(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # backslashreplace: a completion may hold a lone surrogate.
    path.write_text(render_html(report), encoding="utf-8", errors="backslashreplace")
