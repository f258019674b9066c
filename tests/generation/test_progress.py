"""Generation progress without a terminal (CI logs): the request's size first, then periodic lines (loading, then
completed/total, tokens/s and the time left, generation only), on the process's real stderr, since pytest
captures sys.stderr while it collects."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from tiny_models import build

from pytest_codeeval.generation.progress import ProgressLines, announce


def test_lines_count_generation_only_tokens_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """60 s of loading (vLLM's engine start, compilation) count neither in tokens/s nor in the time left."""
    clock = iter([0.0, 60.0, 70.0, 80.0, 85.0])
    monkeypatch.setattr("pytest_codeeval.generation.progress.time.monotonic", lambda: next(clock))
    out = io.StringIO()
    lines = ProgressLines(3, stream=out, every=15.0)
    lines.generating()  # loaded at 60 s
    lines.update(100)  # 70 s: not yet a line
    lines.update(100)  # 80 s
    lines.update(50)  # 85 s: the last one always has its line
    assert out.getvalue().splitlines() == [
        "codeeval: loaded in 1m00s; generating 3 completions",
        "codeeval: generating: 2/3 completions, 10.0 tokens/s, about 10s left",
        "codeeval: generating: 3/3 completions, 10.0 tokens/s, in 25s",
    ]


def test_the_timer_writes_a_line_while_the_model_loads_and_while_nothing_finishes() -> None:
    out = io.StringIO()
    lines = ProgressLines(5, stream=out, every=0.2)
    lines.start()
    try:
        time.sleep(0.7)  # loading: nothing else would write
        lines.generating()
        time.sleep(0.7)  # generating, no completion yet
    finally:
        lines.close()
    written = out.getvalue().splitlines()
    loading = [line for line in written if line.startswith("codeeval: loading the model: ")]
    waiting = [line for line in written if line.startswith("codeeval: generating: 0/5 completions, 0.0 tokens/s, ")]
    assert len(loading) >= 2 and len(waiting) >= 2, written
    assert written.index(next(line for line in written if line.startswith("codeeval: loaded in "))) == len(loading)


def test_a_very_large_request_is_stated_with_its_size() -> None:
    out = io.StringIO()
    announce(100_000, 100_000, 512, "openai", stream=out)
    announce(40, 50, 512, "vllm", stream=out)
    assert out.getvalue().splitlines() == [
        "codeeval: 100000 completions to generate with openai (0 of 100000 from the cache), up to 51,200,000 new "
        "tokens: a very large request; Ctrl-C keeps every completion finished so far, and the same command resumes",
        "codeeval: 40 completions to generate with vllm (10 of 50 from the cache), up to 20,480 new tokens",
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
        "codeeval: 3 completions to generate with transformers (0 of 3 from the cache), up to 12 new tokens",
        "codeeval: loaded in *s; generating 3 completions",
        "codeeval: generating: 1/3 completions, * tokens/s, about * left",
        "codeeval: generating: 3/3 completions, * tokens/s, in *s",
    ])


@pytest.mark.parametrize("workers", ["0", "2"])
def test_samples_judged_are_counted_without_a_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """After generation, the judging phase has its lines too (a CI log hears from a long run in every phase), in the
    process that gathers the verdicts: the only one, or xdist's controller."""
    monkeypatch.setenv("PYTEST_CODEEVAL_PROGRESS_SECONDS", "0")
    result = pytester.runpytest_subprocess(
        "--codeeval-model=reference", "--codeeval-tasks=humaneval", "--codeeval-limit=3", "-p", "no:cacheprovider",
        "-n", workers,
    )
    assert result.ret == 0
    result.stderr.fnmatch_lines([
        "codeeval: judging: 1/3 samples, about * left",
        "codeeval: judging: 3/3 samples, in *s",
    ])
    assert "tokens/s" not in result.stderr.str()


def test_the_reporting_phase_has_its_lines_and_its_time() -> None:
    out = io.StringIO()
    lines = ProgressLines.reporting(stream=out, every=0.2)
    lines.start()
    time.sleep(0.7)  # the reports of a big run being written: nothing else would write
    lines.finish()
    lines.finish()  # said once
    written = out.getvalue().splitlines()
    assert len(written) >= 3 and all(line.startswith("codeeval: writing the results: ") for line in written), written
    assert all(line.endswith("s so far") for line in written[:-1]) and written[-1] == "codeeval: writing the results: done in 1s"


def test_a_reporting_phase_quicker_than_a_line_says_nothing() -> None:
    """A run that ends at once (a usage error, a small run) prints no reporting lines at all."""
    out = io.StringIO()
    lines = ProgressLines.reporting(stream=out, every=5)
    lines.start()
    lines.finish()
    assert out.getvalue() == ""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_reports_that_take_long_to_write_are_timed_without_a_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """Writing the JSON, Markdown and HTML of a million samples takes minutes: the CI log hears from that phase too,
    in the process that writes them (the only one, or xdist's controller). Here the writing is made slow."""
    pytester.makeconftest("""
        import time
        from pytest_codeeval.pytest_plugin import roles

        write = roles.write_reports

        def slow(*args, **kwargs):
            time.sleep(2.5)
            return write(*args, **kwargs)

        roles.write_reports = slow
    """)
    monkeypatch.setenv("PYTEST_CODEEVAL_PROGRESS_SECONDS", "0.5")
    result = pytester.runpytest_subprocess(
        "--codeeval-model=reference", "--codeeval-tasks=humaneval", "--codeeval-limit=2", "-p", "no:cacheprovider",
        "-n", workers, f"--codeeval-report={pytester.path / 'r.json'}", "--codeeval-html=r.html",
    )
    assert result.ret == 0 and (pytester.path / "r.json").exists()
    waiting = [line for line in result.stderr.lines if line.startswith("codeeval: writing the results: ")]
    assert len(waiting) >= 3 and waiting[-1].startswith("codeeval: writing the results: done in "), waiting
