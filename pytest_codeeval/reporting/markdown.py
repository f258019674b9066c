"""The Markdown summary: what a pull-request comment or $GITHUB_STEP_SUMMARY should say, built from the JSON report.

Short by design: one table, the gates' verdicts, and the problems that flipped in collapsed lists (capped, the
JSON and HTML reports have them all). Names come from datasets and are escaped so they cannot break the table."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

MAX_FLIPS_LISTED = 25
INCOMPLETE = ("The run stopped before its last sample (-x, --maxfail or an interruption): the metrics cover the "
              "samples that ran, and no gate or baseline comparison was evaluated.")


def run_verdict(report: dict[str, Any]) -> tuple[bool, str]:
    """(passed, a line saying so and why) from the report's exit status: what CI concluded of the run."""
    run, gates = report.get("run") or {}, report.get("gates") or {}
    status = run.get("exitstatus", 0)
    if status == 0:
        return True, "run passed (exit status 0)"
    reasons = [
        "a gate failed" if gates and not gates.get("passed", True) else "",
        "the run stopped before its last sample" if not run.get("complete", True) else "",
        f"{(run.get('statuses') or {}).get('error')} samples could not be judged"
        if (run.get("statuses") or {}).get("error") else "",
    ]
    why = "; ".join(r for r in reasons if r) or "a test, a sample under --codeeval-strict or a report failed"
    return False, f"run FAILED (exit status {status}): {why}"


def _cell(text: Any) -> str:
    """Text on one line of a table or list: a pipe or a newline would end it, a `<` could open raw HTML."""
    return str(text).replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _code(text: str) -> str:
    """An id as inline code, whatever backticks it holds."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _metric(value: float, interval: list[float] | None) -> str:
    return f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def _flips(names: list[str]) -> str:
    if not names:
        return "none"
    shown = ", ".join(_code(n) for n in names[:MAX_FLIPS_LISTED])
    more = len(names) - MAX_FLIPS_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _file_verdict_lines(verdicts: dict[str, Any] | None) -> list[str]:
    """How many of the generations file's own verdicts this run agrees with, and the first that differ."""
    if not verdicts:
        return []
    found = verdicts["disagreements"]
    lines = ["", f"Verdicts in the generations file: {verdicts['compared']} compared, {len(found)} differ"
             + (" ⚠️" if found else " ✅")]
    if found:
        lines += ["", "| sample | in the file | here | detail |", "|---|---|---|---|"]
        lines += [f"| {_code(_cell(d['sample']))} | {d['file']} | {d['status']} | {_cell(d['detail'])} |"
                  for d in found[:MAX_FLIPS_LISTED]]
        more = len(found) - MAX_FLIPS_LISTED
        lines += ["", f"and {more} more (the JSON and HTML reports list them all)"] if more > 0 else []
    return lines


def render_markdown(report: dict[str, Any]) -> str:
    config = report.get("config") or {}
    gates = report.get("gates") or {}
    baseline = report.get("baseline") or {}
    comparison = baseline.get("tasks") or {}
    verdict = "" if not gates else (" — gates passed ✅" if gates.get("passed") else " — gates FAILED ❌")
    title = config.get("model") or config.get("load_generations") or "run"
    passed, line = run_verdict(report)
    lines = [f"## pytest-codeeval: {_cell(title)}{verdict}", "", f"**{'✅' if passed else '❌'} {line}**", ""]
    if not (report.get("run") or {}).get("complete", True):
        lines += [f"> ⚠️ {INCOMPLETE}", ""]
    header = "| task | problems | samples | metric | value [95% CI] |"
    header += " baseline | delta | p |" if comparison else ""
    lines += [header, "|" + "---|" * (header.count("|") - 1)]
    for name, task in report["tasks"].items():
        for metric, value in task["metrics"].items():
            row = (f"| {_cell(name)} | {task['n_problems']} | {task['n_samples']} | {_cell(metric)} | "
                   f"{_metric(value, (task.get('intervals') or {}).get(metric))} |")
            if comparison:
                c = comparison.get(name, {}).get(metric)
                mark = " ❌" if c and c["regressed"] else ""
                row += f" {c['baseline']:.3f} | {c['delta']:+.3f}{mark} | {c['p_value']:.3g} |" if c else " – | – | – |"
            lines.append(row)
    partial = [(name, task["problems_in_file"]) for name, task in report["tasks"].items() if "problems_in_file" in task]
    lines += [""] if partial else []
    lines += [f"> ⚠️ {_cell(name)}: problems {c['have']} of {c['of']} in the generations file; its metrics cover those "
              "only" for name, c in partial]
    if gates:
        lines += ["", "### Gates", ""]
        lines += [f"- {'✅' if r['passed'] else '❌'} {_cell(r['message'])}" for r in gates.get("results", [])]
    if baseline:
        created = f" ({baseline['created']})" if baseline.get("created") else ""
        lines += ["", f"Baseline: `{Path(baseline['path']).name}`{created}; one-sided paired tests on the problems "
                  "both runs have."]
    for name, metrics in comparison.items():
        for metric, c in metrics.items():
            if c["regressed_problems"] or c["improved_problems"]:
                lines += ["", f"<details><summary>{escape(name)} {escape(metric)}: {len(c['regressed_problems'])} "
                          f"problems got worse, {len(c['improved_problems'])} got better</summary>", "",
                          f"- worse: {_flips(c['regressed_problems'])}", f"- better: {_flips(c['improved_problems'])}",
                          "", "</details>"]
    lines += _file_verdict_lines(report.get("file_verdicts"))
    run = report.get("run") or {}
    statuses = ", ".join(f"{v} {k}" for k, v in (run.get("statuses") or {}).items())
    level = (report.get("sandbox") or {}).get("level")
    lines += ["", f"<sub>{statuses}; {run.get('seconds', 0):.0f} s; sandbox {level}; "
              f"pytest-codeeval {report['versions'].get('pytest-codeeval')}</sub>", ""]
    return "\n".join(lines)


def write_markdown(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(report), encoding="utf-8")
