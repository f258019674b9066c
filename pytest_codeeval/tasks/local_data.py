"""Local data files for tasks (`dataset_path: json` or `csv` with `data_files`), read directly: no `datasets`
import, no network, and paths relative to the task file that names them."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError


def _files_for(dataset_kwargs: Mapping[str, Any], split: str, where: str) -> list[str]:
    files = dataset_kwargs.get("data_files")
    if isinstance(files, Mapping):
        if split not in files:
            raise CodeevalError(f"{where}: data_files has no split {split!r} (has: {', '.join(map(str, files))})")
        files = files[split]
    if not files:
        raise CodeevalError(f"{where}: a local dataset needs dataset_kwargs: {{data_files: FILE}} or {{data_files: {{{split}: FILE}}}}")
    return [files] if isinstance(files, str) else [str(f) for f in files]


def _read(path: Path, fmt: str, where: str) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CodeevalError(f"{where}: cannot read data file {path}: {exc.strerror}") from None
    if fmt == "csv":
        return [dict(row) for row in csv.DictReader(text.splitlines())]
    try:
        data = json.loads(text)
        rows = data if isinstance(data, list) else data.get("data") if isinstance(data, dict) else None
        if isinstance(rows, list):
            return rows
    except ValueError:
        pass
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as exc:
        raise CodeevalError(f"{where}: {path} is neither a JSON list nor JSON lines ({exc})") from None


def load_local_split(fmt: str, dataset_kwargs: Mapping[str, Any], split: str, base: Path, where: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in _files_for(dataset_kwargs, split, where):
        rows.extend(_read(base / name, fmt, where))
    return rows
