"""Generation progress without a terminal (CI logs): periodic lines with completed/total, tokens/s and the time
left, on the process's real stderr, since pytest captures sys.stderr while it collects."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from tiny_models import build

from pytest_codeeval.generation.progress import ProgressLines


def test_lines_count_completions_tokens_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 10.0, 20.0, 25.0])
    monkeypatch.setattr("pytest_codeeval.generation.progress.time.monotonic", lambda: next(clock))
    out = io.StringIO()
    lines = ProgressLines(3, stream=out, every=15.0)
    lines.update(100)  # 10 s: not yet a line
    lines.update(100)  # 20 s
    lines.update(50)  # 25 s: the last one always has its line
    assert out.getvalue().splitlines() == [
        "codeeval: generating: 2/3 completions, 10.0 tokens/s, about 10s left",
        "codeeval: generating: 3/3 completions, 10.0 tokens/s, in 25s",
    ]


def test_a_run_without_a_terminal_prints_progress_lines(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = build("gpt2", tmp_path / "gpt2")
    monkeypatch.setenv("PYTEST_CODEEVAL_PROGRESS_SECONDS", "0")
    result = pytester.runpytest_subprocess(
        f"--codeeval-model={model}", "--codeeval-tasks=humaneval", "--codeeval-limit=3", "--codeeval-max-new-tokens=4",
        "-p", "no:cacheprovider",
    )
    assert result.ret in (0, 1)
    result.stderr.fnmatch_lines([
        "codeeval: generating: 1/3 completions, * tokens/s, about * left",
        "codeeval: generating: 3/3 completions, * tokens/s, in *s",
    ])
