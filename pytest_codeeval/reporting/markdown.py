"""The Markdown summary: what a pull-request comment or $GITHUB_STEP_SUMMARY should say, built from the JSON report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

MAX_FLIPS_LISTED = 15


def _metric_cell(value: float, interval: list[float] | None) -> str:
    return f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def _flips(names: list[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:MAX_FLIPS_LISTED])
    return shown + (f" and {len(names) - MAX_FLIPS_LISTED} more" if len(names) > MAX_FLIPS_LISTED else "") if names else "none"


def render_markdown(report: dict[str, Any]) -> str:
    config = report.get("config", {})
    gates = report.get("gates") or {}
    verdict = "" if not gates else (" — gates passed ✅" if gates.get("passed") else " — gates FAILED ❌")
    lines = [f"## pytest-codeeval: {config.get('model') or config.get('load_generations')}{verdict}", ""]
    comparison = (report.get("baseline") or {}).get("tasks") or {}
    header = "| task | problems | samples | metric | value [95% CI] |" + (" baseline | delta | p |" if comparison else "")
    lines += [header, "|" + "---|" * (header.count("|") - 1)]
    for name, task in report["tasks"].items():
        for metric, value in task["metrics"].items():
            row = f"| {name} | {task['n_problems']} | {task['n_samples']} | {metric} | {_metric_cell(value, task.get('intervals', {}).get(metric))} |"
            if comparison:
                c = comparison.get(name, {}).get(metric)
                row += f" {c['baseline']:.3f} | {c['delta']:+.3f}{' ⚠️' if c['regressed'] else ''} | {c['p_value']:.3g} |" if c else " – | – | – |"
            lines.append(row)
    if gates:
        lines += ["", "### Gates", ""]
        lines += [f"- {'✅' if c['passed'] else '❌'} {c['message']}" for c in gates.get("checks", [])]
        lines += [f"- ❌ {e}" for e in gates.get("errors", [])]
    for name, metrics in comparison.items():
        for metric, c in metrics.items():
            if c["regressed_problems"] or c["improved_problems"]:
                lines += ["", f"<details><summary>{name} {metric}: {len(c['regressed_problems'])} problems got worse, "
                          f"{len(c['improved_problems'])} got better</summary>", "",
                          f"- worse: {_flips(c['regressed_problems'])}", f"- better: {_flips(c['improved_problems'])}", "", "</details>"]
    run = report.get("run", {})
    statuses = ", ".join(f"{v} {k}" for k, v in run.get("statuses", {}).items())
    lines += ["", f"<sub>{statuses}; {run.get('seconds', 0):.0f} s; sandbox {(report.get('sandbox') or {}).get('level')}; "
              f"pytest-codeeval {report['versions'].get('pytest-codeeval')}</sub>", ""]
    return "\n".join(lines)


def write_markdown(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(report), encoding="utf-8")
