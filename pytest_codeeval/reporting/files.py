"""Every file a run was asked to write: the generations, the JSON, Markdown and HTML reports of its outcome."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.evaluation.outcome import RunOutcome
from pytest_codeeval.reporting.json_report import build_report, write_json


def write_reports(
    outcome: RunOutcome, exitstatus: int, doc_of: Callable[[str, str], Mapping[str, Any]] | None = None
) -> None:
    """Every report asked for. One that cannot be written (a full disk, a path that went away) is added to
    `outcome.unwritten`, which the summary names and which fails the run; the others are still written.
    `doc_of(task, problem)`: a problem's row, which MultiPL-E's generation files repeat."""
    s = outcome.facts.settings
    if not (s.report or s.save_generations or s.markdown or s.html):
        return
    if s.save_generations:
        from pytest_codeeval.generation.files import save_generations

        def save(path: Path, records: Any) -> None:
            save_generations(path, records, s.save_format, doc_of, s.generation.__dict__)

        _attempt(outcome, "--codeeval-save-generations", s.save_generations, save, outcome.records)
    report = build_report(outcome, exitstatus)
    if s.report:
        _attempt(outcome, "--codeeval-report", s.report, write_json, report)
    if s.markdown:
        from pytest_codeeval.reporting.markdown import write_markdown

        _attempt(outcome, "--codeeval-markdown", s.markdown, write_markdown, report)
    if s.html:
        from pytest_codeeval.reporting.html import write_html

        _attempt(outcome, "--codeeval-html", s.html, write_html, report)


WHAT = {"--codeeval-save-generations": "generations", "--codeeval-report": "JSON", "--codeeval-markdown": "Markdown",
        "--codeeval-html": "HTML"}


def _attempt(outcome: RunOutcome, option: str, path: Path, write: Callable[[Path, Any], None], what: Any) -> None:
    """Write one file; `outcome.written` names it for the summary, `outcome.unwritten` says why it is not there."""
    try:
        write(path, what)
        outcome.written.append(f"{path} ({WHAT[option]})")
    except CodeevalError as exc:
        outcome.unwritten.append(str(exc))
    except OSError as exc:
        where = "" if option == "--codeeval-save-generations" else "; the results are in the summary above"
        outcome.unwritten.append(f"{option}={path}: not written ({exc.strerror or exc}){where}")
