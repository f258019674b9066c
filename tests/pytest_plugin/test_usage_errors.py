"""Mistakes a new user makes, each one line at configure (exit 4) that names the input and the fix: a mistyped
task or model name gets a "did you mean", an `openai:` model never targets a hosted API unasked, and options that
would do nothing or are out of range are refused instead of passing silently."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

from pytest_codeeval.generation.models import check_model_name
from pytest_codeeval.tasks import build_registry
from pytest_codeeval.tasks.registry import suggestions


@pytest.mark.parametrize(("typed", "meant"), [
    ("humanevl", "humaneval"), ("humanevla", "humaneval"), ("multiple-lau", "multiple-lua"),
    ("humaneval+", "humanevalplus"), ("mbpp+", "mbppplus"), ("HumanEval", "humaneval"), ("multiple_lua", "multiple-lua"),
])
def test_a_mistyped_task_gets_the_name_it_meant(typed: str, meant: str) -> None:
    assert suggestions(typed, build_registry(()).names())[0] == meant


def test_a_family_name_gets_its_glob() -> None:
    assert suggestions("apps", build_registry(()).names()) == ["'apps-*' (the 8 tasks of the family)"]
    assert suggestions("qwertyuiop", build_registry(()).names()) == []


def test_the_unknown_task_line_is_short(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humaneval,multiple-lau")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (line,) = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert line.startswith("ERROR: --codeeval-tasks: unknown task 'multiple-lau'; did you mean multiple-lua")
    assert line.endswith("known tasks)") and "humaneval," not in line  # no list of the catalogue
    assert len(line) < 200


def test_a_mistyped_model_gets_the_embedded_name_before_any_load(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=smollm2-135", "--codeeval-limit=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codeeval-model=smollm2-135: no such model here; did you mean smollm2-135m "
                                 "(the embedded model)?*"])
    assert "collected" not in result.stdout.str()  # at configure: nothing was collected, nothing loaded


@pytest.mark.parametrize("name", ["HuggingFaceTB/SmolLM2-135M", "gpt2", "smollm2-360m", "bigcode/starcoder2-3b"])
def test_hub_ids_and_far_names_go_on(name: str) -> None:
    check_model_name(name)


def test_a_local_directory_close_to_the_embedded_name_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smollm2-135").mkdir()
    check_model_name("smollm2-135")


def test_openai_without_an_endpoint_never_targets_the_hosted_api(pytester: pytest.Pytester,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = pytester.runpytest("--codeeval-model=openai:gpt-4o-mini", "--codeeval-chat")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codeeval-model=openai:gpt-4o-mini: no endpoint: pass --codeeval-base-url=URL "
                                 "*--codeeval-base-url=https://api.openai.com/v1) or set OPENAI_BASE_URL"])
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # named in the environment: taken
    result = pytester.runpytest("--codeeval-model=openai:m", "--codeeval-limit=1", "--codeeval-max-retries=0",
                                "-p", "no:cacheprovider")
    result.stderr.fnmatch_lines(["ERROR: --codeeval-base-url: no answer from http://127.0.0.1:9/v1*"])


@pytest.mark.parametrize(("args", "message"), [
    (["--codeeval-model=reference", "--codeeval-base-url=http://localhost:8000/v1"],
     "ERROR: --codeeval-base-url: nothing is generated with --codeeval-model=reference, so this option does nothing; "
     "remove it*"),
    (["--codeeval-model=reference", "--codeeval-chat"], "ERROR: --codeeval-chat: nothing is generated with*"),
    (["--codeeval-load-generations=g.jsonl", "--codeeval-n-samples=5", "--codeeval-temperature=0.8"],
     "ERROR: --codeeval-n-samples, --codeeval-temperature: nothing is generated with --codeeval-load-generations, so "
     "these options do nothing; remove them*"),
    (["--codeeval-load-generations=g.jsonl", "--codeeval-chat", "--codeeval-base-url=http://h:8000"],
     "ERROR: --codeeval-base-url, --codeeval-chat: nothing is generated with --codeeval-load-generations*"),
    (["--codeeval-model=reference", "--codeeval-tasks="], "ERROR: --codeeval-tasks='': names no task; give names or globs*"),
    (["--codeeval-model=reference", "--codeeval-tasks= , "], "ERROR: --codeeval-tasks=' , ': names no task*"),
    (["--codeeval-model=m", "--codeeval-temperature=-1"], "ERROR: --codeeval-temperature=-1.0: expected 0 or more*"),
    (["--codeeval-model=m", "--codeeval-temperature=nan"], "ERROR: --codeeval-temperature=nan: expected 0 or more*"),
    (["--codeeval-model=m", "--codeeval-top-p=5"], "ERROR: --codeeval-top-p=5.0: expected a probability above 0 and at most 1*"),
    (["--codeeval-model=m", "--codeeval-top-p=0"], "ERROR: --codeeval-top-p=0.0: expected a probability*"),
    (["--codeeval-model=m", "--codeeval-top-k=-3"], "ERROR: --codeeval-top-k=-3: expected 0 (off)*"),
    (["--codeeval-model=m", "--codeeval-max-new-tokens=0"], "ERROR: --codeeval-max-new-tokens=0: expected at least 1"),
    (["--codeeval-model=m", "--codeeval-batch-size=0"], "ERROR: --codeeval-batch-size=0: expected at least 1 sequence"),
    (["--codeeval-model=reference", "--codeeval-fail-under=pass@1=30"],
     "ERROR: --codeeval-fail-under='pass@1=30': pass@1 is a fraction from 0 to 1; for 30% write pass@1=0.3"),
    (["--codeeval-model=reference", "--codeeval-fail-under=humaneval:pass@10=85"],
     "ERROR: --codeeval-fail-under='humaneval:pass@10=85': pass@10 is a fraction*write humaneval:pass@10=0.85"),
    (["--codeeval-model=reference", "--codeeval-max-regression=exact_match=5"],
     "ERROR: --codeeval-max-regression='exact_match=5': exact_match is a fraction*write exact_match=0.05"),
])
def test_options_that_do_nothing_or_are_out_of_range_are_one_line(pytester: pytest.Pytester, args: list[str],
                                                                  message: str) -> None:
    pytester.makefile(".jsonl", g='{"task_id": "HumanEval/0", "completion": "    return False\\n"}\n')
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert len(errors) == 1 and fnmatch(errors[0], message), errors
    assert "collected" not in result.stdout.str()


def test_bleu_thresholds_stay_on_their_own_scale(pytester: pytest.Pytester) -> None:
    """BLEU is 0-100: a threshold of 30 is what it means."""
    pytester.makefile(".jsonl", g='{"task_id": "HumanEval/0", "completion": "    return False\\n"}\n')
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-tasks=humaneval",
                                "--codeeval-fail-under=bleu=30")
    assert result.ret != pytest.ExitCode.USAGE_ERROR


def test_sampling_at_temperature_zero_is_a_warning(pytester: pytest.Pytester) -> None:
    """Harmless (the run is valid) but pointless: said once, the run goes on."""
    result = pytester.runpytest("--codeeval-model=some-model", "--codeeval-n-samples=4", "--codeeval-temperature=0",
                                "--collect-only", "-q", "--codeeval-limit=1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*PytestConfigWarning: --codeeval-temperature=0 with --codeeval-n-samples=4: "
                                 "temperature 0 is greedy*"])
