"""CodeSemBench-style task directories: `metadata.json`, one file per program and one gold-answer file each.

The prompt is the program itself (its leading comment says what analysis is asked, zero-shot); the answer is
scored against the gold file by exact match or by precision / recall / F1 over answer items."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task

REQUIRED = ("name", "description", "language", "metric", "benchmark_type", "file_glob", "gold_answer_pattern")
METRICS = {"exact_match": ("exact_match",), "precision": ("precision",), "recall": ("recall",), "f1": ("f1",),
           "precision_recall": ("precision", "recall", "f1"), "precision_recall_f1": ("precision", "recall", "f1")}
BENCHMARK_TYPES = ("per_file",)


def read_metadata(directory: Path) -> dict[str, Any]:
    path = directory / "metadata.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CodeevalError(f"{path}:{getattr(exc, 'lineno', 1)}: invalid JSON: {exc}") from None
    if not isinstance(meta, dict):
        raise CodeevalError(f"{path}:1: metadata must be one JSON object")
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise CodeevalError(f"{path}: missing keys {', '.join(missing)} (see docs/writing-tasks.md, directory tasks)")
    if str(meta["metric"]).lower() not in METRICS:
        raise CodeevalError(f"{path}: metric {meta['metric']!r} is not one of {', '.join(METRICS)}")
    if str(meta["benchmark_type"]).lower() not in BENCHMARK_TYPES:
        raise CodeevalError(f"{path}: benchmark_type {meta['benchmark_type']!r} is not supported; use per_file")
    return meta


def gold_path(program: Path, pattern: str) -> Path:
    """`gold_answer_pattern` is an f-string fed the program's file name: `{}` or `{name}`, `{stem}`, `{suffix}`."""
    return program.with_name(pattern.format(program.name, name=program.name, stem=program.stem, suffix=program.suffix))


class DirectoryTask(Task):
    directory: Path = Path()
    meta: dict[str, Any] = {}

    def __init__(self) -> None:
        super().__init__(stop_words=(), requires_execution=False)

    def programs(self) -> list[Path]:
        gold = {gold_path(p, self.meta["gold_answer_pattern"]) for p in self.directory.glob(self.meta["file_glob"])}
        return sorted(p for p in self.directory.glob(self.meta["file_glob"]) if p.is_file() and p not in gold)

    def get_dataset(self) -> Sequence[Doc]:
        docs = []
        for program in self.programs():
            gold = gold_path(program, self.meta["gold_answer_pattern"])
            if not gold.exists():
                raise CodeevalError(f"{program}: no gold answer {gold.name} (gold_answer_pattern {self.meta['gold_answer_pattern']!r})")
            docs.append({"id": program.relative_to(self.directory).as_posix(), "program": program.read_text(encoding="utf-8"),
                         "answer": gold.read_text(encoding="utf-8").strip()})
        return docs

    def problem_id(self, doc: Doc, index: int) -> str:
        return str(doc["id"])

    def get_prompt(self, doc: Doc) -> str:
        return f"{doc['program'].rstrip()}\n\n# Answer ({self.meta.get('output_type', 'str')}):\n"

    def get_reference(self, doc: Doc) -> str:
        return str(doc["answer"])


def directory_task_class(directory: Path) -> type[DirectoryTask]:
    meta = read_metadata(directory)
    attrs = {
        "name": str(meta["name"]), "description": str(meta["description"]), "directory": directory, "meta": meta,
        "language": str(meta["language"]).lower(), "metrics": METRICS[str(meta["metric"]).lower()],
    }
    task_cls = type(f"DirectoryTask_{meta['name']}", (DirectoryTask,), attrs)
    task_cls.size = len(task_cls().programs())  # counting files is cheap: --codeeval-list-tasks shows it
    return task_cls
