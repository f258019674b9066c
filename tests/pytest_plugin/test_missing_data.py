"""A task whose data cannot be had here does not end the run: named on the command line it is a usage error that
names the fix (exit 4, one line); matched by a glob, a family or `-k` it is skipped, the others run, and the
summary lists what was skipped and why. The same under --codeeval-model=reference for tasks that have no
reference solutions."""

from __future__ import annotations

import json

import pytest

WORKERS = [[], ["-n", "2"]]


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No hub, and an empty datasets cache: what a machine without network and without downloads has."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path_factory.mktemp("hf-home")))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path_factory.mktemp("hf-datasets")))


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-limit=2", "-p", "no:cacheprovider",
                                         "--codeeval-report=r.json", *args)


@pytest.mark.parametrize("workers", WORKERS, ids=["serial", "xdist"])
def test_a_named_task_without_data_is_one_line_naming_the_fix(pytester: pytest.Pytester, workers: list[str]) -> None:
    result = run(pytester, "--codeeval-tasks=humaneval,mbpp", *workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert errors == ["ERROR: mbpp: no data here: the hub is unreachable and mbpp is not in the local datasets cache; "
                      "give the split's rows in the hub's schema with --codeeval-dataset=mbpp=PATH"]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_task_named_by_k_is_named_too(pytester: pytest.Pytester) -> None:
    result = run(pytester, "-k", "mbpp")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: mbpp: no data here: *--codeeval-dataset=mbpp=PATH"])


@pytest.mark.parametrize("workers", WORKERS, ids=["serial", "xdist"])
def test_a_glob_runs_the_tasks_with_data_and_lists_the_skipped(pytester: pytest.Pytester, workers: list[str]) -> None:
    result = run(pytester, "--codeeval-tasks=humaneval,mbpp*", *workers)
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines([
        "humaneval *2 *2 *2 *1.000*",
        "codeeval: skipped 2 tasks mbpp, mbppplus: no data here: the hub is unreachable and the dataset is not in the "
        "local datasets cache; give the split's rows in the hub's schema with --codeeval-dataset=TASK=PATH",
    ])
    assert list(json.loads((pytester.path / "r.json").read_text())["tasks"]) == ["humaneval"]


def test_a_family_by_k_is_skipped_with_its_reason(pytester: pytest.Pytester) -> None:
    result = run(pytester, "-k", "humaneval or apps", "--codeeval-tasks=humaneval,apps-*")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.stdout.fnmatch_lines(["codeeval: skipped 8 tasks apps-all, *, apps-introductory-one-shot: no data here: "
                                 "the hub is unreachable*"])


def test_the_whole_catalogue_runs_offline_what_has_data(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--codeeval-tasks=*", "--codeeval-limit=1")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    out = result.stdout.str()
    assert "humaneval " in out and "error" not in result.stderr.str().lower()
    result.stdout.fnmatch_lines([
        "codeeval: skipped * tasks apps-all, * and * more (-v names them): no data here: the hub is unreachable*",
        # MultiPL-E's languages whose toolchain is here (the others are skipped for it, saying what to install)
        "codeeval: skipped *multiple-*: no reference solutions: --codeeval-model=reference cannot run it*",
    ], consecutive=False)
    tasks = json.loads((pytester.path / "r.json").read_text())["tasks"]
    assert {"humaneval", "humaneval-unstripped"} <= set(tasks)


def test_reference_on_a_named_task_without_solutions_is_one_line(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--codeeval-tasks=multiple-py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: multiple-py: no reference solutions: --codeeval-model=reference cannot run it*"])
