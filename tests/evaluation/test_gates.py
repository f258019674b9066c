"""CI gates: thresholds, baselines with a paired significance test, exit statuses, and the statistics behind them."""

from __future__ import annotations

import json
import math

import pytest
from helpers import canonical, first_ids, report, write_jsonl

from pytest_codeeval.metrics import task_metrics
from pytest_codeeval.metrics.stats import (
    PERMUTATIONS,
    SLOW_DRAWS,
    confidence_intervals,
    paired_comparison,
    per_problem,
    sign_flip_p_value,
)
from pytest_codeeval.samples import SampleRecord

pytestmark = pytest.mark.timeout(300)

BROKEN = "    return None\n"


# -- statistics on cases whose answer is known ------------------------------------------------------------------------
def problems(outcomes: list[list[int]], scores: list[float] | None = None) -> dict[str, list[SampleRecord]]:
    """{P0: records, ...}: one list of 0/1 outcomes per problem; `scores` gives every sample of problem i a score."""
    return {
        f"P{i}": [SampleRecord("t", f"P{i}", j, "passed" if ok else "failed", position=i,
                               scores={"score": scores[i]} if scores else {}) for j, ok in enumerate(samples)]
        for i, samples in enumerate(outcomes)
    }


def pass_k(probs: dict[str, list[SampleRecord]]) -> dict[str, float]:
    return task_metrics(("pass@k",), probs, (1, 2))


def median_score(probs: dict[str, list[SampleRecord]]) -> dict[str, float]:
    return task_metrics(("score",), probs, (1,), {"score": "median"})


def flips(before: list[int], after: list[int]) -> float:
    return paired_comparison(problems([[b] for b in before]), problems([[a] for a in after]), pass_k)["pass@1"].p_value


def test_identical_runs_are_not_a_drop() -> None:
    assert flips([1, 0, 1, 1] * 10, [1, 0, 1, 1] * 10) == 1.0
    assert sign_flip_p_value([0.0] * 5) == (1.0, "exact sign test (McNemar)")


def test_few_flips_among_many_problems_are_noise() -> None:
    before = [1] * 80 + [0] * 80
    after = before.copy()
    after[0] = after[1] = 0  # two problems got worse, one got better
    after[100] = 1
    assert flips(before, after) == pytest.approx(1 / 2)  # P(at most 1 of 3 fair signs positive)


def test_large_drop_is_significant_and_names_the_problems() -> None:
    before, after = [1] * 100 + [0] * 64, [0] * 30 + [1] * 70 + [0] * 64
    c = paired_comparison(problems([[b] for b in before]), problems([[a] for a in after]), pass_k)["pass@1"]
    assert c.p_value == pytest.approx(2.0**-30) and c.test == "exact sign test (McNemar)"  # beyond enumeration
    assert c.delta == pytest.approx(-30 / 164) and c.regressed_problems == [f"P{i}" for i in range(30)]
    assert c.improved_problems == [] and c.problems == 164


def test_sign_test_is_mcnemar_exact() -> None:
    assert flips([1] * 5 + [0] * 20, [0] * 25) == pytest.approx(1 / 32)  # five flips, all for the worse
    assert flips([1, 1, 1, 0] + [1] * 20, [0, 0, 0, 1] + [1] * 20) == pytest.approx(5 / 16)  # P(Bin(4, 1/2) >= 3)


def test_unequal_differences_use_the_sign_flip_distribution() -> None:
    assert sign_flip_p_value([-1.0, -0.5, 0.2]) == (0.25, "sign-flip permutation test (exact)")  # 2 of 8 patterns
    p, test = sign_flip_p_value([-(1 + i / 100) for i in range(20)])  # exact p = 2^-20: Monte Carlo never says 0
    assert p == 1 / (PERMUTATIONS + 1) and "draws" in test


def test_pass_at_k_over_many_samples_is_compared_per_problem() -> None:
    before = problems([[1, 1, 0, 0]] * 30)
    after = problems([[1, 0, 0, 0]] * 30)  # every problem lost a correct sample
    result = paired_comparison(before, after, pass_k)
    assert set(result) == {"pass@1", "pass@2"}
    assert result["pass@1"].baseline == 0.5 and result["pass@1"].current == 0.25
    assert result["pass@1"].p_value == pytest.approx(2.0**-30) and len(result["pass@1"].regressed_problems) == 30


def test_only_shared_problems_are_compared() -> None:
    before = problems([[1]] * 10)
    after = {k: v for k, v in problems([[1]] * 5 + [[0]] * 5).items() if k in ("P0", "P1", "P9")}
    c = paired_comparison(before, after, pass_k)["pass@1"]
    assert c.problems == 3 and c.baseline == 1.0 and c.current == pytest.approx(2 / 3) and c.regressed_problems == ["P9"]


def test_rate_interval_brackets_the_value_shrinks_and_is_reproducible() -> None:
    small = confidence_intervals(problems([[1], [0]] * 10), pass_k)["pass@1"]
    large = confidence_intervals(problems([[1], [0]] * 500), pass_k)["pass@1"]
    assert small.low < 0.5 < small.high and large.low < 0.5 < large.high and small.method == "wilson"
    assert large.high - large.low < small.high - small.low
    assert 0.05 < large.high - large.low < 0.08  # 2 * 1.96 * sqrt(0.25 / 1000) = 0.062
    assert confidence_intervals(problems([[1], [0]] * 10), pass_k)["pass@1"] == small


@pytest.mark.parametrize(("outcomes", "expected"), [([[0]] * 16, (0.0, 0.194)), ([[1]] * 16, (0.806, 1.0))])
def test_a_rate_at_the_edge_keeps_an_honest_interval(outcomes: list, expected: tuple) -> None:
    """0 of 16 passing is not a certain 0: Wilson's interval, as statistics texts give it for n = 16."""
    low, high, method = confidence_intervals(problems(outcomes), pass_k)["pass@1"]
    assert (round(low, 3), round(high, 3), method) == (*expected, "wilson")


def test_metrics_that_are_not_means_are_recomputed() -> None:
    scores = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 10.0]
    probs = problems([[1]] * 10, scores)
    assert per_problem(probs, pass_k, pass_k(probs)).means == {"pass@1"}
    assert per_problem(probs, median_score, median_score(probs)).means == frozenset()
    low, high, method = confidence_intervals(probs, median_score)["score"]
    assert 0.0 <= low < 0.45 < high <= 0.8 and method == "bootstrap"  # a median's: the outlier does not drag it
    worse = paired_comparison(probs, problems([[1]] * 10, [s - 0.3 for s in scores]), median_score)["score"]
    assert worse.delta == pytest.approx(-0.3) and worse.test == f"swap permutation test ({SLOW_DRAWS} draws)"
    assert worse.p_value < 0.05 and set(worse.regressed_problems) == set(probs)


def test_corpus_bleu_is_compared_problem_by_problem() -> None:
    pytest.importorskip("sacrebleu")
    refs = [f"return sorted(values, key=lambda v: v[{i}])" for i in range(16)]

    def run(solutions: list[str]) -> dict[str, list[SampleRecord]]:
        return {f"P{i}": [SampleRecord("t", f"P{i}", 0, "passed", solution=s, reference=refs[i])] for i, s in enumerate(solutions)}

    def bleu(probs: dict[str, list[SampleRecord]]) -> dict[str, float]:
        return task_metrics(("bleu",), probs, (1,))

    c = paired_comparison(run(refs), run(["pass"] * 8 + refs[8:]), bleu)["bleu"]
    assert c.baseline == pytest.approx(100.0) and c.delta < -20 and c.p_value < 0.05
    assert c.regressed_problems == [f"P{i}" for i in range(8)]


# -- runs ---------------------------------------------------------------------------------------------------------------
def samples(pytester: pytest.Pytester, name: str, n_problems: int, broken: set[int] = frozenset()) -> str:
    rows = [{"task_id": tid, "completion": BROKEN if i in broken else canonical(tid)} for i, tid in enumerate(first_ids(n_problems))]
    write_jsonl(pytester.path / name, rows)
    return f"--codeeval-load-generations={name}"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--codeeval-tasks=humaneval", "-q", *args)


# -- thresholds -------------------------------------------------------------------------------------------------------
def test_fail_under_passes_and_fails_with_exit_status(pytester: pytest.Pytester) -> None:
    src = samples(pytester, "s.jsonl", 10, broken={0, 1, 2, 3})  # pass@1 = 0.6
    ok = run(pytester, src, "--codeeval-fail-under=pass@1=0.5")
    assert ok.ret == pytest.ExitCode.OK  # failing samples alone are results
    ok.stdout.fnmatch_lines(["codeeval gates: passed (1 check: humaneval pass@1 = 0.600 >= 0.5)"])
    bad = run(pytester, src, "--codeeval-fail-under=humaneval:pass@1=0.7", "--codeeval-report=r.json")
    assert bad.ret == pytest.ExitCode.TESTS_FAILED
    bad.stdout.fnmatch_lines(["codeeval gate FAILED: humaneval pass@1 = 0.600 < 0.7", "codeeval gates: 1 of 1 check failed"])
    data = report(pytester.path / "r.json")
    assert data["run"]["exitstatus"] == 1 and data["gates"]["specs"]["fail_under"] == ["--codeeval-fail-under=humaneval:pass@1=0.7"]


def test_strict_and_gates_together(pytester: pytest.Pytester) -> None:
    src = samples(pytester, "s.jsonl", 4, broken={0})
    assert run(pytester, src, "--codeeval-fail-under=pass@1=0.5", "--codeeval-strict").ret == pytest.ExitCode.TESTS_FAILED
    assert run(pytester, samples(pytester, "ok.jsonl", 4), "--codeeval-fail-under=pass@1=0.5", "--codeeval-strict").ret == 0


def test_ini_threshold_and_xdist(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncodeeval_fail_under =\n    pass@1=0.9\n    humaneval:pass@1=0.5\n")
    src = samples(pytester, "s.jsonl", 10, broken={0, 1, 2, 3})
    result = run(pytester, src, "-n", "2", "--codeeval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gates = report(pytester.path / "r.json")["gates"]
    assert gates["passed"] is False and [r["passed"] for r in gates["results"]] == [False, True]
    assert gates["results"][0]["value"] == pytest.approx(0.6) and gates["results"][0]["threshold"] == 0.9


@pytest.mark.parametrize(("stop", "workers", "status"), [("-x", "0", pytest.ExitCode.TESTS_FAILED),
                                                      ("--maxfail=2", "0", pytest.ExitCode.TESTS_FAILED),
                                                      ("-x", "2", pytest.ExitCode.INTERRUPTED)])
def test_a_run_stopped_early_evaluates_no_gate_and_does_not_pass(pytester: pytest.Pytester, stop: str, workers: str,
                                                                 status: pytest.ExitCode) -> None:
    """-x stops at a failing sample: the metrics cover part of the run, so the gate is not evaluated, the summary
    says so, and the run keeps pytest's failing exit status (a CI job with -x must not pass below its threshold)."""
    src = samples(pytester, "s.jsonl", 10, broken={1, 2, 3, 4})  # pass@1 = 0.6
    result = run(pytester, src, stop, "-n", workers, "--codeeval-fail-under=pass@1=0.9", "--codeeval-report=r.json",
                 "--codeeval-markdown=r.md", "--codeeval-html=r.html")
    assert result.ret == status
    result.stdout.fnmatch_lines(["codeeval: the run stopped before its last sample: the metrics cover the samples that "
                                 "ran; no gate was evaluated, and the run keeps pytest's exit status"])
    data = report(pytester.path / "r.json")
    assert data["run"]["complete"] is False and data["gates"] is None and data["run"]["exitstatus"] == status
    for name in ("r.md", "r.html"):  # a pull-request comment must not read as a whole, ungated run
        assert "The run stopped before its last sample" in (pytester.path / name).read_text()


def test_a_run_stopped_before_any_sample_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="def test_bad():\n    assert False\n")
    result = pytester.runpytest("test_a.py", "codeeval", samples(pytester, "s.jsonl", 2), "--codeeval-tasks=humaneval",
                                "-x", "--codeeval-fail-under=pass@1=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["no samples ran", "codeeval: the run stopped before its last sample*no gate was evaluated*"])


@pytest.mark.parametrize("stop", [["-x"], ["-x", "-n", "2"], ["--sw"]])
def test_a_run_stopped_at_its_last_sample_is_complete(pytester: pytest.Pytester, stop: list[str]) -> None:
    """pytest (-x), xdist (-x under -n) and stepwise (--sw) stop the loop after the failing item even when it was the
    last: nothing was left, so the run is judged as a whole one (the gate evaluated, failing samples results,
    exit 0)."""
    src = samples(pytester, "s.jsonl", 10, broken={9})  # pass@1 = 0.9, the failing sample last
    result = run(pytester, src, *stop, "--codeeval-fail-under=pass@1=0.9", "--codeeval-report=r.json")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["codeeval gates: passed (1 check: humaneval pass@1 = 0.900 >= 0.9)"])
    data = report(pytester.path / "r.json")
    assert data["run"]["complete"] is True and data["gates"]["passed"] is True


def test_malformed_ini_spec_names_the_ini_key(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncodeeval_fail_under = pass@1>0.9\n")
    result = run(pytester, samples(pytester, "s.jsonl", 2))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: codeeval_fail_under='pass@1>0.9': expected METRIC=VALUE or TASK:METRIC=VALUE*"])


@pytest.mark.parametrize(
    "option, message",
    [
        ("--codeeval-fail-under=pass@1", "--codeeval-fail-under='pass@1': expected METRIC=VALUE or TASK:METRIC=VALUE, e.g.*"),
        ("--codeeval-fail-under=pass@1=high", "--codeeval-fail-under='pass@1=high': expected*"),
        ("--codeeval-fail-under=pass@1=nan", "--codeeval-fail-under='pass@1=nan': expected*"),
        ("--codeeval-fail-under=humaneval:=0.3", "--codeeval-fail-under='humaneval:=0.3': expected*"),
        ("--codeeval-max-regression==0.1", "--codeeval-max-regression='=0.1': expected*"),
        ("--codeeval-max-regression=pass@1=-0.1", "--codeeval-max-regression='pass@1=-0.1': expected*"),
        ("--codeeval-alpha=2", "--codeeval-alpha=2.0: expected a significance level between 0 and 1*"),
    ],
)
def test_malformed_specs_are_one_clear_error(pytester: pytest.Pytester, option: str, message: str) -> None:
    result = run(pytester, samples(pytester, "s.jsonl", 2), option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str()


def test_threshold_on_unknown_metric_or_task_fails_clearly(pytester: pytest.Pytester) -> None:
    result = run(pytester, samples(pytester, "s.jsonl", 2), "--codeeval-fail-under=bleu=0.3", "--codeeval-fail-under=mbpp:pass@1=0.1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "codeeval gate FAILED: --codeeval-fail-under=bleu=0.3: no task has metric 'bleu' (metrics: pass@1)",
        "codeeval gate FAILED: --codeeval-fail-under=mbpp:pass@1=0.1: task 'mbpp' did not run (ran: humaneval)",
    ])


def test_collect_only_runs_no_gate(pytester: pytest.Pytester) -> None:
    result = run(pytester, samples(pytester, "s.jsonl", 2), "--collect-only", "--codeeval-fail-under=pass@1=0.9",
                 "--codeeval-report=r.json")
    assert result.ret == pytest.ExitCode.OK and "gate" not in result.stdout.str()
    assert report(pytester.path / "r.json")["run"]["complete"] is False  # no sample reported


# -- baselines --------------------------------------------------------------------------------------------------------
def baseline(pytester: pytest.Pytester, broken: set[int], n_problems: int = 40) -> None:
    assert run(pytester, samples(pytester, "base.jsonl", n_problems, broken), "--codeeval-report=base.json").ret == 0


def test_same_results_as_baseline_pass(pytester: pytest.Pytester) -> None:
    baseline(pytester, {0, 1})
    result = run(pytester, samples(pytester, "s.jsonl", 40, {0, 1}), "--codeeval-baseline=base.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["codeeval gates: passed (1 check: humaneval pass@1 0.950 vs baseline 0.950 (+0.000, p=1))"])


def test_a_few_flips_are_noise(pytester: pytest.Pytester) -> None:
    baseline(pytester, {0, 1})
    result = run(pytester, samples(pytester, "s.jsonl", 40, {1, 2, 3}), "--codeeval-baseline=base.json", "--codeeval-report=r.json")
    assert result.ret == 0  # 0.950 -> 0.925: over the tolerance, but two flips against one are not significant
    entry = report(pytester.path / "r.json")["baseline"]["tasks"]["humaneval"]["pass@1"]
    assert entry["regressed_problems"] == ["HumanEval/2", "HumanEval/3"] and entry["improved_problems"] == ["HumanEval/0"]
    assert entry["regressed"] is False and entry["p_value"] == pytest.approx(0.5) and entry["delta"] == pytest.approx(-0.025)


def test_a_real_drop_fails_and_names_the_problems(pytester: pytest.Pytester) -> None:
    baseline(pytester, set())
    result = run(pytester, samples(pytester, "s.jsonl", 40, set(range(12))), "--codeeval-baseline=base.json",
                 "-n", "2", "--codeeval-markdown=pr.md", "--codeeval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["codeeval gate FAILED: humaneval pass@1 0.700 vs baseline 1.000 (-0.300, p=0.000244): "
                                 "significant drop over 40 problems (exact sign test (McNemar); tolerance 0.02, alpha 0.05); "
                                 "regressed: HumanEval/0, HumanEval/1, *, HumanEval/9 and 2 more"])
    data = report(pytester.path / "r.json")
    assert data["baseline"]["tasks"]["humaneval"]["pass@1"]["regressed_problems"] == [f"HumanEval/{i}" for i in range(12)]
    assert data["gates"]["passed"] is False and data["run"]["exitstatus"] == 1
    markdown = (pytester.path / "pr.md").read_text()
    assert "gates FAILED" in markdown and "12 problems got worse" in markdown and "`HumanEval/11`" in markdown


def test_tolerance_absorbs_a_significant_but_small_drop(pytester: pytest.Pytester) -> None:
    baseline(pytester, set())
    args = (samples(pytester, "s.jsonl", 40, set(range(6))), "--codeeval-baseline=base.json")
    assert run(pytester, *args).ret == pytest.ExitCode.TESTS_FAILED  # -0.15 with p = 1/64
    assert run(pytester, *args, "--codeeval-max-regression=pass@1=0.2").ret == 0
    assert run(pytester, *args, "--codeeval-max-regression=humaneval:pass@1=0.2", "--codeeval-max-regression=pass@1=0.01").ret == 0
    assert run(pytester, *args, "--codeeval-alpha=0.01").ret == 0  # p = 1/64 is not below 0.01


def test_tolerance_for_a_metric_not_compared_fails(pytester: pytest.Pytester) -> None:
    baseline(pytester, set(), n_problems=4)
    result = run(pytester, samples(pytester, "s.jsonl", 4), "--codeeval-baseline=base.json", "--codeeval-max-regression=pass@10=0.1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["codeeval gate FAILED: --codeeval-max-regression=pass@10=0.1: no such task and metric compared "
                                 "with the baseline (compared: humaneval:pass@1)"])


def test_version_1_reports_are_read_as_baselines(pytester: pytest.Pytester) -> None:
    baseline(pytester, set(), n_problems=10)
    data = report(pytester.path / "base.json")
    data["schema_version"] = 1
    for key in ("gates", "baseline"):
        del data[key]
    for task in data["tasks"].values():
        del task["intervals"]
    (pytester.path / "base.json").write_text(json.dumps(data))
    result = run(pytester, samples(pytester, "s.jsonl", 10, {0}), "--codeeval-baseline=base.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["codeeval gates: passed*pass@1 0.900 vs baseline 1.000 (-0.100, p=0.5)*"])


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "--codeeval-baseline=base.json: no such file; pass a file written by --codeeval-report"),
        ("{not json", "--codeeval-baseline=base.json: not a JSON report (*); pass a file written by --codeeval-report"),
        ('{"schema_version": 2}', "--codeeval-baseline=base.json: no 'tasks' section; pass a file written by --codeeval-report"),
        ('{"schema_version": 99, "tasks": {}}', "--codeeval-baseline=base.json: schema_version 99 is not one of (1, 2); *"),
        ('{"schema_version": 2, "tasks": {"humaneval": {"problems": {"HumanEval/0": {"samples": [{}]}}}}}',
         "--codeeval-baseline=base.json: malformed report: tasks.humaneval.problems.HumanEval/0.samples is not a list of*"),
    ],
)
def test_unusable_baseline_fails_clearly_but_keeps_the_results(pytester: pytest.Pytester, content: str | None, message: str) -> None:
    if content is not None:
        (pytester.path / "base.json").write_text(content)
    result = pytester.runpytest("--codeeval-tasks=humaneval", samples(pytester, "s.jsonl", 2), "--codeeval-baseline=base.json",
                                "--codeeval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"codeeval baseline: {message} (the run goes on*", "*codeeval summary*",
                                 f"codeeval gate FAILED: {message}"])
    data = report(pytester.path / "r.json")  # the run's results are not lost
    assert data["tasks"]["humaneval"]["metrics"] == {"pass@1": 1.0} and data["baseline"]["error"]
    assert data["gates"]["passed"] is False


def test_report_has_intervals_and_schema_version(pytester: pytest.Pytester) -> None:
    run(pytester, samples(pytester, "s.jsonl", 20, set(range(5))), "--codeeval-report=r.json")
    data = report(pytester.path / "r.json")
    low, high = data["tasks"]["humaneval"]["intervals"]["pass@1"]
    assert data["schema_version"] == 2 and low < 0.75 < high and data["gates"] is None and data["baseline"] is None
    assert not any(math.isnan(v) for v in (low, high))
    assert data["tasks"]["humaneval"]["interval_methods"] == {"pass@1": "wilson"}
    assert json.dumps(data)  # plain JSON all the way down
