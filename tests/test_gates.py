"""CI gates: thresholds, baselines with a paired significance test, exit statuses, and the statistics behind them."""

from __future__ import annotations

import json

import pytest
from helpers import canonical, first_ids, report, write_jsonl

from pytest_codeeval.metrics.stats import bootstrap_interval, drop_p_value

pytestmark = pytest.mark.timeout(300)

BROKEN = "    return None\n"


def samples(pytester: pytest.Pytester, name: str, n_problems: int, broken: set[int] = frozenset(), n: int = 1) -> str:
    rows = [{"task_id": tid, "completion": BROKEN if i in broken else canonical(tid)}
            for i, tid in enumerate(first_ids(n_problems)) for _ in range(n)]
    write_jsonl(pytester.path / name, rows)
    return f"--codeeval-load-generations={name}"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--codeeval-tasks=humaneval", "-q", *args)


# -- statistics on cases whose answer is known ------------------------------------------------------------------------
def test_identical_runs_are_not_a_drop() -> None:
    assert drop_p_value([1, 0, 1, 1], [1, 0, 1, 1]) == 1.0


def test_few_flips_among_many_problems_are_noise() -> None:
    base = [1.0] * 80 + [0.0] * 80
    current = base.copy()
    current[0] = current[1] = 0.0  # two problems got worse,
    current[100] = 1.0  # one got better
    assert drop_p_value(base, current) > 0.2


def test_large_drop_is_significant() -> None:
    base = [1.0] * 100 + [0.0] * 64
    current = [0.0] * 30 + [1.0] * 70 + [0.0] * 64
    assert drop_p_value(base, current) < 0.001


def test_sign_test_matches_mcnemar_exact() -> None:
    """Five problems flipped, all for the worse: exact one-sided p = 1/2^5."""
    assert drop_p_value([1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0]) == pytest.approx(1 / 32)


def test_bootstrap_interval_contains_the_mean_and_shrinks_with_more_problems() -> None:
    small = bootstrap_interval([1, 0] * 10)
    large = bootstrap_interval([1, 0] * 500)
    assert small[0] < 0.5 < small[1] and large[0] < 0.5 < large[1]
    assert large[1] - large[0] < small[1] - small[0]


# -- thresholds -------------------------------------------------------------------------------------------------------
def test_fail_under_passes_and_fails_with_exit_status(pytester: pytest.Pytester) -> None:
    src = samples(pytester, "s.jsonl", 10, broken={0, 1, 2, 3})  # pass@1 = 0.6
    ok = run(pytester, src, "--codeeval-fail-under=pass@1=0.5")
    assert ok.ret == 0
    ok.stdout.fnmatch_lines(["codeeval gates: passed (1 checks: humaneval pass@1 = 0.600 >= 0.5)"])
    bad = run(pytester, src, "--codeeval-fail-under=humaneval:pass@1=0.7")
    assert bad.ret == pytest.ExitCode.TESTS_FAILED
    bad.stdout.fnmatch_lines(["codeeval gate FAILED: humaneval pass@1 = 0.600 < 0.7"])


def test_ini_threshold_and_xdist(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncodeeval_fail_under = pass@1=0.9\n")
    src = samples(pytester, "s.jsonl", 10, broken={0, 1, 2, 3})
    result = run(pytester, src, "-n", "2", "--codeeval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gates = report(pytester.path / "r.json")["gates"]
    assert gates["passed"] is False and gates["checks"][0]["value"] == pytest.approx(0.6)


@pytest.mark.parametrize(
    "option, message",
    [
        ("--codeeval-fail-under=pass@1", "--codeeval-fail-under='pass@1': expected METRIC=VALUE or TASK:METRIC=VALUE*"),
        ("--codeeval-fail-under=pass@1=high", "--codeeval-fail-under='pass@1=high': expected*"),
        ("--codeeval-max-regression==0.1", "--codeeval-max-regression='=0.1': expected*"),
        ("--codeeval-alpha=2", "--codeeval-alpha=2.0: expected a significance level between 0 and 1*"),
    ],
)
def test_malformed_specs_are_one_clear_error(pytester: pytest.Pytester, option: str, message: str) -> None:
    result = run(pytester, samples(pytester, "s.jsonl", 2), option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_threshold_on_unknown_metric_or_task_fails_clearly(pytester: pytest.Pytester) -> None:
    result = run(pytester, samples(pytester, "s.jsonl", 2), "--codeeval-fail-under=bleu=0.3", "--codeeval-fail-under=mbpp:pass@1=0.1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "codeeval gate FAILED: --codeeval-fail-under=bleu=0.3: no task has metric 'bleu' (have: pass@1)",
        "codeeval gate FAILED: --codeeval-fail-under=mbpp:pass@1=0.1: task 'mbpp' did not run (ran: humaneval)",
    ])


# -- baselines --------------------------------------------------------------------------------------------------------
def baseline(pytester: pytest.Pytester, broken: set[int], n_problems: int = 40) -> None:
    assert run(pytester, samples(pytester, "base.jsonl", n_problems, broken), "--codeeval-report=base.json").ret == 0


def test_same_results_as_baseline_pass(pytester: pytest.Pytester) -> None:
    baseline(pytester, {0, 1})
    result = run(pytester, samples(pytester, "s.jsonl", 40, {0, 1}), "--codeeval-baseline=base.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["codeeval gates: passed*humaneval pass@1 0.950 vs baseline 0.950 (+0.000, p=1*no significant drop*"])


def test_a_few_flips_are_noise(pytester: pytest.Pytester) -> None:
    baseline(pytester, {0, 1})
    result = run(pytester, samples(pytester, "s.jsonl", 40, {1, 2, 3}), "--codeeval-baseline=base.json", "--codeeval-report=r.json")
    assert result.ret == 0  # 0.950 -> 0.925: over the tolerance, but two flips against one are not significant
    entry = report(pytester.path / "r.json")["baseline"]["tasks"]["humaneval"]["pass@1"]
    assert entry["regressed_problems"] == ["HumanEval/2", "HumanEval/3"] and entry["improved_problems"] == ["HumanEval/0"]
    assert entry["regressed"] is False and entry["p_value"] > 0.05


def test_a_real_drop_fails_and_names_the_problems(pytester: pytest.Pytester) -> None:
    baseline(pytester, set())
    result = run(pytester, samples(pytester, "s.jsonl", 40, set(range(10))), "--codeeval-baseline=base.json",
                 "-n", "2", "--codeeval-markdown=pr.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["codeeval gate FAILED: humaneval pass@1 0.750 vs baseline 1.000 (-0.250, p=0.000977*"
                                 "significant drop; regressed: HumanEval/0, HumanEval/1*"])
    markdown = (pytester.path / "pr.md").read_text()
    assert "gates FAILED" in markdown and "10 problems got worse" in markdown and "`HumanEval/9`" in markdown


def test_tolerance_absorbs_a_significant_but_small_drop(pytester: pytest.Pytester) -> None:
    baseline(pytester, set())
    args = (samples(pytester, "s.jsonl", 40, set(range(6))), "--codeeval-baseline=base.json")
    assert run(pytester, *args).ret == pytest.ExitCode.TESTS_FAILED  # -0.15 with p = 1/64
    assert run(pytester, *args, "--codeeval-max-regression=pass@1=0.2").ret == 0
    assert run(pytester, *args, "--codeeval-max-regression=humaneval:pass@1=0.2").ret == 0


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "--codeeval-baseline=base.json: no such file; pass a file written by --codeeval-report"),
        ("{not json", "--codeeval-baseline=base.json: not a JSON report (*); pass a file written by --codeeval-report"),
        ('{"schema_version": 2}', "--codeeval-baseline=base.json: no 'tasks' section; pass a file written by --codeeval-report"),
        ('{"schema_version": 99, "tasks": {}}', "--codeeval-baseline=base.json: schema_version 99 is not one of (1, 2)"),
    ],
)
def test_malformed_baseline_is_one_clear_error(pytester: pytest.Pytester, content: str | None, message: str) -> None:
    if content is not None:
        (pytester.path / "base.json").write_text(content)
    result = run(pytester, samples(pytester, "s.jsonl", 2), "--codeeval-baseline=base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_report_has_intervals_and_schema_version(pytester: pytest.Pytester) -> None:
    run(pytester, samples(pytester, "s.jsonl", 20, set(range(5))), "--codeeval-report=r.json")
    data = report(pytester.path / "r.json")
    low, high = data["tasks"]["humaneval"]["intervals"]["pass@1"]
    assert data["schema_version"] == 2 and low < 0.75 < high
    assert json.dumps(data)  # plain JSON all the way down
