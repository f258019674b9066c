"""CodeSemBench-style task directories: `metadata.json`, one file per program and one gold-answer file each.

As in CodeSemBench the prompt is the program itself (a comment at its top says which analysis to do, zero
shot), answers are Python/JSON literals (`["p", "q"]`), and a prediction is scored against the gold file by
exact match or by precision / recall / F1 over answer items (`prf1`), or over pairs that share a cluster
(`cluster_prf1`), macro-averaged over programs. Registering counts the programs; nothing is read until it runs."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.metrics.match import answer_items, cluster_pairs, parse_answer, prf1
from pytest_codeeval.tasks.base import Doc, Task

METADATA = "metadata.json"
REQUIRED = ("name", "description", "language", "metric", "file_glob")
ALIASES = {"file_pattern": "file_glob", "task_type": "benchmark_type"}  # CodeSemBench's later spelling
BENCHMARK_TYPES = ("per_file", "single_file", "single file")
DEFAULT_GOLD_PATTERN = "answers/{file}"  # CodeSemBench's default `answer_path`
PRF1 = ("precision", "recall", "f1")
METRICS: dict[str, tuple[str, ...]] = {
    "exact_match": ("exact_match",), "precision": ("precision",), "recall": ("recall",), "f1": ("f1",),
    "prf1": PRF1, "precision_recall": PRF1, "precision_recall_f1": PRF1, "cluster_prf1": PRF1,
}
STOP_WORDS = ("[eod]",)  # CodeSemBench's end-of-answer token


def read_metadata(directory: Path) -> dict[str, Any]:
    path = directory / METADATA
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CodeevalError(f"{path}:{getattr(exc, 'lineno', 1)}: invalid JSON: {getattr(exc, 'msg', exc)}") from None
    if not isinstance(meta, dict):
        raise CodeevalError(f"{path}:1: metadata must be one JSON object")
    meta = {ALIASES.get(k, k): v for k, v in meta.items()}
    missing = [k for k in REQUIRED if not meta.get(k)]
    if missing:
        raise CodeevalError(f"{path}: missing keys {', '.join(missing)}{_misspelled(meta, missing)} "
                            "(see docs/writing-tasks.md, task directories)")
    meta["metric"] = str(meta["metric"]).lower()
    if meta["metric"] not in METRICS:
        raise CodeevalError(f"{path}: metric {meta['metric']!r} is not one of {', '.join(METRICS)}")
    kind = str(meta.get("benchmark_type", "per_file")).lower()
    if kind not in BENCHMARK_TYPES:
        raise CodeevalError(f"{path}: benchmark_type {kind!r} is not supported; use per_file (one program per file)")
    meta.setdefault("gold_answer_pattern", DEFAULT_GOLD_PATTERN)
    try:
        gold_path(directory / "x.c", meta["gold_answer_pattern"])
    except (KeyError, IndexError, ValueError) as exc:
        raise CodeevalError(f"{path}: gold_answer_pattern {meta['gold_answer_pattern']!r}: unknown placeholder {exc}; "
                            "use {file} (the program's file name), {stem} or {suffix}") from None
    return meta


def _misspelled(meta: Mapping[str, Any], missing: Sequence[str]) -> str:
    """The file's keys that look like a missing one (CodeSemBench files may hold keys of their own, so an unknown
    key alone is no error)."""
    known = set(REQUIRED) | set(ALIASES) | {"benchmark_type", "gold_answer_pattern", "output_type"}
    unknown = [k for k in meta if k not in known]
    guesses = [f"{close[0]!r} for {want!r}" for want in missing
               if (close := difflib.get_close_matches(want, unknown, n=1, cutoff=0.6))]
    return f" (did you mean {', '.join(guesses)}?)" if guesses else ""


def gold_path(program: Path, pattern: str) -> Path:
    """CodeSemBench feeds the program's file name to the pattern: `{file}` (or `{}`, `{name}`), `{stem}`, `{suffix}`."""
    name = program.name
    return program.parent / pattern.format(name, file=name, name=name, stem=program.stem, suffix=program.suffix)


def find_programs(directory: Path, meta: Mapping[str, Any]) -> list[Path]:
    """The program files: `file_glob` matches, minus metadata and anything that is some program's gold file."""
    found = sorted(p for p in directory.glob(meta["file_glob"]) if p.is_file() and p.name != METADATA)
    gold = {gold_path(p, meta["gold_answer_pattern"]) for p in found}
    return [p for p in found if p not in gold]


def _plain(value: Any) -> Any:
    """Literal values in comparable form: tuples as lists, sets as sorted lists."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def canonical(text: str, output_type: str) -> Any:
    """An answer as a comparable value: the literal it spells (order ignored for a Set[...] type), else its text."""
    value = _plain(parse_answer(text))
    if isinstance(value, list) and output_type.lower().startswith("set"):
        value = sorted(value, key=repr)
    return value


def _items(value: Any) -> set[str]:
    if isinstance(value, list):
        return {v if isinstance(v, str) else json.dumps(v, sort_keys=True) for v in value}
    return answer_items(str(value))


def _cluster_items(value: Any) -> set[tuple[str, str]]:
    return cluster_pairs(value) if isinstance(value, list) else set()


class DirectoryTask(Task):
    directory: ClassVar[Path] = Path()
    meta: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        super().__init__(stop_words=STOP_WORDS, requires_execution=False)

    def data_origin(self) -> str:
        return "local"

    def get_dataset(self) -> Sequence[Doc]:
        docs = []
        for program in find_programs(self.directory, self.meta):
            gold = gold_path(program, self.meta["gold_answer_pattern"])
            if not gold.is_file():
                pattern = self.meta["gold_answer_pattern"]
                raise CodeevalError(f"{program}: no gold answer file {gold} "
                                    f"(gold_answer_pattern {pattern!r} in {self.directory / METADATA})")
            docs.append({"id": program.relative_to(self.directory).as_posix(),
                         "program": program.read_text(encoding="utf-8"),
                         "answer": gold.read_text(encoding="utf-8").strip()})
        return docs

    def problem_id(self, doc: Doc, index: int) -> str:
        return str(doc["id"])

    def get_prompt(self, doc: Doc) -> str:
        return str(doc["program"])

    def get_reference(self, doc: Doc) -> str:
        return str(doc["answer"])

    def score(
        self, solution: str, reference: str | list[str], doc: Doc, resources: Mapping[str, Any]
    ) -> dict[str, float]:
        output_type = str(self.meta.get("output_type", ""))
        predicted, gold = canonical(solution, output_type), canonical(str(reference), output_type)
        metric = self.meta["metric"]
        if metric == "exact_match":
            return {"exact_match": float(predicted == gold)}
        to_items: Callable[[Any], set[Any]] = _cluster_items if metric == "cluster_prf1" else _items
        scores = prf1(to_items(predicted), to_items(gold))
        return {k: v for k, v in scores.items() if k in self.metrics}


def directory_task_class(directory: Path) -> type[DirectoryTask]:
    meta = read_metadata(directory)
    attrs = {
        "name": str(meta["name"]), "description": str(meta["description"]), "directory": directory, "meta": meta,
        "language": str(meta["language"]).lower(), "metrics": METRICS[meta["metric"]],
        "size": len(find_programs(directory, meta)),  # a glob: cheap, and --codeeval-list-tasks shows it
    }
    return type(f"DirectoryTask_{meta['name']}", (DirectoryTask,), attrs)
