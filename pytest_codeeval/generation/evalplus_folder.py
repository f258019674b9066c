"""evalplus's folder of samples: one folder per problem, named by its task_id with `/` written as `_`
(`HumanEval_0/`), holding one whole program per sample (`0.py`, `1.py`, ...). evalplus's code generation writes it
and its evaluator reads it back, the folder's name with every `_` turned into `/`, as done here."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.loaded import Loaded, LoadedGenerations, open_text
from pytest_codeeval.samples import SampleRecord

SAMPLE = re.compile(r"(\d+)\.py")


def is_sample(folder: Path, file: Path) -> bool:
    """`PROBLEM/N.py` right under the folder."""
    return file.parent.parent == folder and SAMPLE.fullmatch(file.name) is not None


def load_folder(path: Path, files: list[Path]) -> LoadedGenerations:
    """`files`: the folder's samples (is_sample), each a whole program of the run's task."""
    by_id: dict[tuple[str | None, str], list[Loaded]] = {}
    for file in sorted(files, key=lambda f: (f.parent.name, int(f.stem))):
        by_id.setdefault((None, file.parent.name.replace("_", "/")), []).append(Loaded(open_text(file), program=True))
    return LoadedGenerations(path, "evalplus-folder", by_id, [])


def save_folder(path: Path, records: Sequence[SampleRecord]) -> None:
    """Each sample's whole program at `<path>/<task_id, '/' as '_'>/<n>.py`, n counting from 0 per problem."""
    problems = {(r.task, r.problem) for r in records}
    if len({task for task, _ in problems}) > 1:
        raise CodeevalError(
            f"--codeeval-save-generations={path}: evalplus's folder holds one task, this run has "
            f"{', '.join(sorted({task for task, _ in problems}))}; use a .jsonl path"
        )
    counts: dict[str, int] = {}
    for record in records:
        folder = path / record.problem.replace("/", "_")
        folder.mkdir(parents=True, exist_ok=True)
        number = counts.get(record.problem, 0)
        counts[record.problem] = number + 1
        (folder / f"{number}.py").write_text(record.solution, encoding="utf-8")
