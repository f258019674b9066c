"""MultiPL-E's generation files: one JSON object per problem (`.json` or `.json.gz`), its completions
(`completions`: what its generation scripts write) or its evaluated programs (`results`: what its evaluator
writes, `.results.json.gz`, each with a `status`). Read one file or a directory of them (a problem with both
kinds is read from its results); written as completion files, one directory per task. A file is a program of its
own: each sample keeps the file's prompt and tests, which MultiPL-E's evaluator runs around the completion."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.loaded import Loaded, LoadedGenerations, open_text
from pytest_codeeval.samples import SampleRecord

FIX = ("expected MultiPL-E's files: a JSON object per problem with 'name', 'language', 'prompt', 'tests' and "
       "'completions' (or its evaluator's 'results')")
PROBLEM_KEYS = ("name", "language", "prompt", "tests")
SUFFIXES = (".json", ".json.gz")


def is_problem_file(path: Path, text: str) -> bool:
    """A JSON object (not JSONL) that names a MultiPL-E problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and "name" in data and ("completions" in data or "results" in data)


def task_of(name: str, language: str) -> str:
    """The task a MultiPL-E problem belongs to: its source by the name's prefix, its language by `language`, in
    any of the names MultiPL-E's revisions wrote (`rs`, `rust`, `go_test.go`, 2022's `humaneval_to_r.py`)."""
    from pytest_codeeval.runners import canonical_name

    lang = canonical_name(language) or language
    return f"multiple-mbpp-{lang}" if name.startswith("mbpp_") else f"multiple-{lang}"


def load_file(path: Path, text: str | None = None) -> LoadedGenerations:
    loaded = LoadedGenerations(path, "multipl-e", {}, [])
    _add(loaded, path, text if text is not None else open_text(path))
    return loaded


def load_directory(path: Path, files: list[Path]) -> LoadedGenerations:
    """`files`: the folder's files, each a MultiPL-E problem file (generation/files.py checks them)."""
    by_stem: dict[Path, Path] = {}
    for file in files:  # a problem's results file, where there is one, holds what its completions file does
        stem = file.with_name(file.name.removesuffix(".gz").removesuffix(".json").removesuffix(".results"))
        if stem not in by_stem or ".results." in file.name:
            by_stem[stem] = file
    loaded = LoadedGenerations(path, "multipl-e", {}, [])
    for file in sorted(by_stem.values()):
        _add(loaded, file, open_text(file))
    return loaded


def _add(loaded: LoadedGenerations, path: Path, text: str) -> None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CodeevalError(f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}; {FIX}") from None
    if isinstance(data, dict) and "results" in data and not {"prompt", "tests"} & data.keys():
        data = {**data, **_split_programs(path, data["results"])}
    missing = [key for key in PROBLEM_KEYS if not isinstance(data, dict) or not isinstance(data.get(key), str)]
    if missing:
        raise CodeevalError(f"{path}: no {', '.join(repr(m) for m in missing)} (a string); {FIX}")
    task = task_of(data["name"], data["language"])
    programs = _results(path, data) if "results" in data else _completions(path, data)
    samples = [replace(sample, prompt=data["prompt"], tests=data["tests"]) for sample in programs]
    loaded.by_id.setdefault((task, data["name"]), []).extend(samples)
    loaded.task_sources.setdefault(task, str(path))


def _completions(path: Path, data: Mapping[str, Any]) -> list[Loaded]:
    completions = data.get("completions")
    if not isinstance(completions, list) or not all(isinstance(c, str) for c in completions):
        raise CodeevalError(f"{path}: 'completions' is not a list of strings; {FIX}")
    return [Loaded(c) for c in completions]


def _split_programs(path: Path, results: Any) -> dict[str, str]:
    """MultiPL-E's earliest results files (2022's R, Lua, Racket, JS, Ruby ones) keep only whole programs: the prompt
    is what they all begin with up to a line's end, the tests what they all end with from a line's start."""
    found = [r.get("program") if isinstance(r, dict) else None for r in results] if isinstance(results, list) else []
    programs = [p for p in found if isinstance(p, str)]
    if not programs or len(programs) < len(found):
        raise CodeevalError(f"{path}: no 'prompt', 'tests' and no 'results' programs to find them in; {FIX}")
    end = _common_prefix(programs).rfind("\n")
    while end >= 0:  # the prompt's end moves up a line until the tests have a line of their own (same programs)
        prompt = programs[0][: end + 1]
        suffix = _common_prefix([p[len(prompt) :][::-1] for p in programs])[::-1]
        if "\n" in suffix:
            return {"prompt": prompt, "tests": suffix[suffix.find("\n") + 1 :]}
        end = programs[0].rfind("\n", 0, end)
    raise CodeevalError(f"{path}: no 'prompt', 'tests' and its programs share no first and last lines; {FIX}")


def _common_prefix(texts: list[str]) -> str:
    """The characters every text begins with (texts, not paths: os.path's helpers are for paths)."""
    shortest = min(texts, key=len)
    for i, char in enumerate(shortest):
        if any(text[i] != char for text in texts):
            return shortest[:i]
    return shortest


def _results(path: Path, data: Mapping[str, Any]) -> list[Loaded]:
    """The evaluator's programs are prompt + completion + newline + tests: the completion is what lies between."""
    results, prompt, tests = data["results"], data["prompt"], "\n" + data["tests"]
    if not isinstance(results, list):
        raise CodeevalError(f"{path}: 'results' is not a list; {FIX}")
    samples = []
    for i, result in enumerate(results):
        program = result.get("program") if isinstance(result, dict) else None
        if not isinstance(program, str) or not program.startswith(prompt) or not program.endswith(tests):
            raise CodeevalError(
                f"{path}: results[{i}]['program'] is not the file's prompt, a completion and its tests; {FIX}"
            )
        status = result.get("status")
        known = isinstance(status, str)
        samples.append(Loaded(program[len(prompt) : len(program) - len(tests)],
                              passed=status == "OK" if known else None, result=status if known else None))
    return samples


def save_directory(
    path: Path, records: Iterable[SampleRecord], doc_of: Callable[[str, str], Mapping[str, Any]],
    generation: Mapping[str, Any],
) -> None:
    """One completion file per problem, `<path>/<task>/<name>.json.gz`, as MultiPL-E's generation scripts write
    them: its evaluator runs them as they are."""
    by_problem: dict[tuple[str, str], list[SampleRecord]] = {}
    for record in records:
        by_problem.setdefault((record.task, record.problem), []).append(record)
    for (task, problem), samples in by_problem.items():
        doc = doc_of(task, problem)
        if not all(isinstance(doc.get(key), str) for key in ("prompt", "tests")):
            raise CodeevalError(
                f"--codeeval-save-generations={path}: task {task!r} has no MultiPL-E rows (prompt and tests); "
                "MultiPL-E's format holds multiple-* tasks: use a .jsonl path"
            )
        document = {
            "name": problem, "language": doc.get("language") or task.rsplit("-", 1)[-1],
            "temperature": generation.get("temperature"), "top_p": generation.get("top_p"),
            "max_tokens": generation.get("max_new_tokens"), "prompt": doc["prompt"], "tests": doc["tests"],
            "completions": [r.completion for r in samples], "stop_tokens": list(doc.get("stop_tokens") or []),
        }
        target = path / task / f"{problem}.json.gz"
        target.parent.mkdir(parents=True, exist_ok=True)
        with gzip.GzipFile(target, "wb", mtime=0) as fh:
            fh.write(json.dumps(document).encode("utf-8"))
