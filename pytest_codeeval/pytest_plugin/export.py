"""`--codeeval-export-dataset=TASK=PATH`: the rows a task would run, in its hub schema, written as JSON lines, and
nothing run. Users read the prompts, or carry the rows to a machine without the hub; `--codeeval-dataset=TASK=PATH`
reads the file back, and the export checks that it does: the task reads back exactly the rows written."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.pytest_plugin.registry import build_registry
from pytest_codeeval.settings import Settings
from pytest_codeeval.tasks.base import Task


def export_datasets(config: pytest.Config, settings: Settings) -> int:
    registry = build_registry(config, settings.task_paths, settings.datasets, settings.task_options)
    for name, path in settings.export:
        where = f"--codeeval-export-dataset={name}={path}"
        if name not in registry.names():
            raise CodeevalError(f"{where}: {registry.unknown(name)}")
        task = registry.get(name)
        rows = _rows(task, where)[: settings.limit]
        _write(rows, path, where)
        _check_read_back(task, rows, path, where)
        sys.stdout.write(f"codeeval: wrote {len(rows)} rows of {name} to {path}\n")
    return 0


def _rows(task: Task, where: str) -> list[Mapping[str, Any]]:
    try:
        docs = list(task.docs)
    except pytest.skip.Exception as exc:  # the task's own reason for not running here (a missing toolchain)
        raise CodeevalError(f"{where}: {exc.msg}") from None
    if not all(isinstance(doc, Mapping) for doc in docs):
        raise CodeevalError(f"{where}: task {task.name!r} has no rows to write: its problems are not records")
    return docs


def _write(rows: Sequence[Mapping[str, Any]], path: Path, where: str) -> None:
    try:
        lines = [json.dumps(dict(row), ensure_ascii=False) + "\n" for row in rows]
    except (TypeError, ValueError) as exc:
        raise CodeevalError(f"{where}: a row holds a value JSON cannot write ({exc})") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(lines), encoding="utf-8")
    except OSError as exc:
        raise CodeevalError(f"{where}: cannot write the file: {exc.strerror}") from None


def _check_read_back(task: Task, rows: Sequence[Mapping[str, Any]], path: Path, where: str) -> None:
    """The file as `--codeeval-dataset` gives it to the task must be the rows written: a task that makes its
    problems from its data otherwise would not run the same problems from it. The file is removed if not."""
    twin = copy.copy(task)  # the same options, a fresh dataset
    twin.__dict__.pop("docs", None)
    twin.dataset_override, twin._override_read = path, False
    try:
        back = [_plain(row) for row in twin.docs]
        same = back == [_plain(row) for row in rows]
        reason = "its rows read back differ from those written"
    except CodeevalError as exc:
        same, reason = False, str(exc)
    if not same:
        path.unlink(missing_ok=True)
        raise CodeevalError(f"{where}: task {task.name!r} cannot run from an exported file: {reason}")


def _plain(row: Mapping[str, Any]) -> Any:
    return json.loads(json.dumps(dict(row), ensure_ascii=False))
