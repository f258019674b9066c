"""The HTML report: one self-contained page (no network) rendered from the JSON report. Generated code and its
output are untrusted text: autoescaping is on for everything, and the plots (charts.py) escape what they draw.

A browser must be able to open the page: past `SAMPLES_LISTED` samples, the list keeps the samples that did not
pass first and summarises the rest by status (the JSON report has every one)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_codeeval.reporting.charts import charts
from pytest_codeeval.reporting.failures import completion_span
from pytest_codeeval.reporting.markdown import INCOMPLETE, run_verdict

OUTPUT_CAP = 4000  # characters of each sample's output shown
SAMPLES_LISTED = 2000  # samples shown with their program and output; the others are counted


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
    listed, left_out = listed_samples(report["tasks"], SAMPLES_LISTED)
    return env.get_template("report.html.j2").render(
        report=report, title=config.get("model") or config.get("load_generations") or "run", statuses=statuses,
        comparison=comparison, regressed=regressed, output_cap=OUTPUT_CAP, incomplete=INCOMPLETE,
        passed=passed, verdict=verdict, partial=partial, charts=charts(report), settings=settings_rows(report),
        samples=listed, left_out=left_out, total=sum(t["n_samples"] for t in report["tasks"].values()),
    )


def settings_rows(report: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What the run was asked to do and what it cost, as (name, value) rows: what a reader needs to compare two
    pages. Generation settings only where a model generated."""
    config, generation = report.get("config") or {}, report.get("generation") or {}
    sandbox, run = report.get("sandbox") or {}, report.get("run") or {}
    rows = [("completions", config.get("model") or f"file {config.get('load_generations')}"),
            ("tasks", ", ".join(report["tasks"]) or "none"),
            ("limit", str(config.get("limit") or "none")), ("k", ", ".join(map(str, config.get("k") or ())))]
    if config.get("model") and config["model"] != "reference":
        g = config.get("generation") or {}
        rows += [("backend", str(generation.get("backend", "?"))), ("samples per problem", str(g.get("n_samples"))),
                 ("temperature", str(g.get("temperature"))), ("top p", str(g.get("top_p"))),
                 ("max new tokens", str(g.get("max_new_tokens"))), ("seed", str(g.get("seed")))]
    timeout = config.get("timeout")
    rows += [("timeout", f"{timeout} s" if timeout else "the task's own"), ("clock", str(config.get("timeout_clock"))),
             ("sandbox", f"{sandbox.get('level')}, {sandbox.get('jobs', 0)} at a time per process, "
                         f"{sum(not str(s).startswith('off') for s in (sandbox.get('layers') or {}).values())} "
                         "isolation layers on"),
             ("run time", f"{run.get('seconds', 0):.1f} s, {run.get('programs_run', 0)} programs run")]
    if generation.get("backend") not in (None, "reference", "file"):
        rows += [("generation", f"{generation.get('generated', 0)} generated, {generation.get('cached', 0)} cached, "
                                f"{generation.get('tokens', 0)} tokens in {generation.get('seconds', 0):.1f} s"),
                 ("tokens/s", str(generation.get("tokens_per_second") or "–")),
                 ("model load", f"{generation['load_seconds']:.1f} s" if "load_seconds" in generation else "–")]
    return rows


def _all(tasks: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for name, task in tasks.items():
        for pid, problem in task["problems"].items():
            for sample in problem["samples"]:
                yield name, pid, sample


def listed_samples(tasks: Mapping[str, Any], bound: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The samples the page lists (at most `bound`: those that did not pass first, then in dataset order), each
    with its program split around the completion; and a line per status of the samples left out."""
    # Two passes over the samples, none of them kept but those listed: a million samples' dictionaries are not.
    not_passed = sum(sample["status"] != "passed" for _, _, sample in _all(tasks))
    passed_listed = max(0, bound - not_passed)
    listed, left, seen_failing, seen_passed = [], Counter[str](), 0, 0
    for task, problem, sample in _all(tasks):
        passed = sample["status"] == "passed"
        seen_passed, seen_failing = seen_passed + passed, seen_failing + (not passed)
        if seen_passed <= passed_listed if passed else seen_failing <= bound:
            listed.append(_view(task, problem, sample))
        else:
            left[sample["status"]] += 1
    return listed, [f"{n} {status}" for status, n in left.items()]


def _view(task: str, problem: str, sample: dict[str, Any]) -> dict[str, Any]:
    """A sample as the page shows it: its program as (prompt, completion, tests) where the completion is found."""
    program = sample.get("program") or sample.get("solution") or ""
    span = completion_span(program, sample.get("solution") or "", sample.get("completion") or "")
    parts = (program[: span[0]], program[span[0]: span[1]], program[span[1]:]) if span else None
    return {"task": task, "problem": problem, "sample": sample, "program": program, "parts": parts}


def write_html(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # backslashreplace: a completion may hold a lone surrogate.
    path.write_text(render_html(report), encoding="utf-8", errors="backslashreplace")
