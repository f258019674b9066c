"""End-to-end behaviour of the plugin core through pytester: items, selection, sources, reports, exit codes."""

from __future__ import annotations

import json

import pytest
from helpers import canonical, first_ids, report, write_jsonl

pytestmark = pytest.mark.timeout(300)


def test_plain_run_is_untouched(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert "codeeval:" not in out and "codeeval summary" not in out and "codeeval::" not in out


def test_reference_model_items_and_summary(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=5", "-v", "--codeeval-report=r.json")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines([
        "*codeeval::humaneval::HumanEval/0::sample0 PASSED*",
        "*codeeval summary*",
        "humaneval*5*5*5*1.000*",
    ])
    data = report(pytester.path / "r.json")
    task = data["tasks"]["humaneval"]
    assert task["metrics"] == {"pass@1": 1.0}  # k=10,100 need 10+ samples per problem
    assert task["problems"]["HumanEval/0"]["n"] == 1
    assert task["problems"]["HumanEval/0"]["samples"][0]["status"] == "passed"
    assert data["config"]["model"] == "reference" and data["versions"]["pytest-codeeval"]
    assert result.ret == 0


def test_keyword_selects_problems(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=12", "-k", "HumanEval/1", "-q")
    result.assert_outcomes(passed=3, deselected=9)  # HumanEval/1, /10, /11
    # a bare number is part of task names too (ds1000, num_seeds_1): it still selects problems, not tasks
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=12", "-k", "humaneval and 1", "-q")
    result.assert_outcomes(passed=3, deselected=9)


def test_keyword_excluding_task_loads_no_data(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_codeeval.tasks import Task

        class Exploding(Task):
            name = "exploding"
            def get_dataset(self):
                raise RuntimeError("dataset of an unselected task was loaded")

        def pytest_codeeval_register_tasks(registry):
            registry.add(Exploding, source="conftest")
        """
    )
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=2", "-k", "humaneval", "-q")
    result.assert_outcomes(passed=2)
    assert "was loaded" not in result.stdout.str()


def test_node_id_runs_one_sample_and_shows_full_program(pytester: pytest.Pytester) -> None:
    path = write_jsonl(pytester.path / "s.jsonl", [{"task_id": "HumanEval/2", "completion": "    return 0.5\n"}])
    result = pytester.runpytest(
        "codeeval::humaneval::HumanEval/2::sample0", f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*failed: assertion failed*", "*---- program ----*", "*def truncate_number*", "*---- output ----*"])
    assert result.ret == 0  # a failing sample is a result, not an error


def test_unknown_node_id_is_an_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("codeeval::humaneval::HumanEval/999::sample0", "--codeeval-model=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*not found: codeeval::humaneval::HumanEval/999::sample0*"])


def _mixed_samples(pytester: pytest.Pytester) -> str:
    rows = []
    for tid in first_ids(3):
        rows.append({"task_id": tid, "completion": canonical(tid)})
        rows.append({"task_id": tid, "completion": "    return None\n", "extra": 1})
    return str(write_jsonl(pytester.path / "mixed.jsonl", rows))


def test_last_failed_and_exitfirst(pytester: pytest.Pytester) -> None:
    path = _mixed_samples(pytester)
    args = [f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval"]
    first = pytester.runpytest(*args)
    first.assert_outcomes(passed=3, failed=3)
    again = pytester.runpytest(*args, "--lf", "-v")
    again.assert_outcomes(failed=3, deselected=3)
    again.stdout.fnmatch_lines(["*HumanEval/0::sample1 FAILED*"])
    stop = pytester.runpytest(*args, "-x")
    stop.assert_outcomes(passed=1, failed=1)


def test_jsonl_samples_and_pass_at_k(pytester: pytest.Pytester) -> None:
    path = _mixed_samples(pytester)
    result = pytester.runpytest(
        f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval", "--codeeval-k=1,2,5", "--codeeval-report=r.json"
    )
    result.assert_outcomes(passed=3, failed=3)
    metrics = report(pytester.path / "r.json")["tasks"]["humaneval"]["metrics"]
    assert metrics == {"pass@1": 0.5, "pass@2": 1.0}  # k=5 exceeds the 2 samples per problem
    result.stdout.fnmatch_lines(["humaneval: no pass@5: a problem has only 2 samples (pass@k needs k samples of every problem)"])


def test_bigcode_json_and_save_generations(pytester: pytest.Pytester) -> None:
    from helpers import problems

    ids = first_ids(2)
    programs = [[problems()[t]["prompt"] + canonical(t), problems()[t]["prompt"] + "    pass\n"] for t in ids]
    (pytester.path / "gens.json").write_text(json.dumps(programs))
    result = pytester.runpytest(
        "--codeeval-load-generations=gens.json", "--codeeval-tasks=humaneval",
        "--codeeval-save-generations=out.jsonl", "--codeeval-report=r.json",
    )
    result.assert_outcomes(passed=2, failed=2)
    saved = [json.loads(line) for line in (pytester.path / "out.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["sample"]) for r in saved] == [(ids[0], 0), (ids[0], 1), (ids[1], 0), (ids[1], 1)]
    assert saved[0]["completion"] == canonical(ids[0])
    # What was saved evaluates to the same verdicts when read back.
    back = pytester.runpytest("--codeeval-load-generations=out.jsonl", "--codeeval-report=r2.json")
    back.assert_outcomes(passed=2, failed=2)


def test_limit_keeps_the_first_problems_of_a_generations_file(pytester: pytest.Pytester) -> None:
    """A file covers the whole task; --codeeval-limit evaluates its first problems only (both formats)."""
    from helpers import problems

    rows = [{"task_id": tid, "completion": canonical(tid)} for tid in first_ids(5) for _ in range(2)]
    write_jsonl(pytester.path / "s.jsonl", rows)
    (pytester.path / "s.json").write_text(json.dumps([[problems()[t]["prompt"] + canonical(t)] for t in first_ids(5)]))
    for name, per_problem in (("s.jsonl", 2), ("s.json", 1)):
        result = pytester.runpytest(f"--codeeval-load-generations={name}", "--codeeval-tasks=humaneval", "--codeeval-limit=3")
        result.assert_outcomes(passed=3 * per_problem)


def test_a_partial_run_saved_in_bigcode_format_reads_back_onto_its_problems(pytester: pytest.Pytester) -> None:
    """bigcode's format places problems by position: problems a run left out are empty lists, not gaps that shift
    the ones after them onto the wrong problems."""
    rows = [{"task_id": "HumanEval/3", "completion": canonical("HumanEval/3")},
            {"task_id": "HumanEval/5", "completion": "    return None\n"}]
    write_jsonl(pytester.path / "s.jsonl", rows)
    args = ["--codeeval-tasks=humaneval", "--codeeval-report=r.json"]
    pytester.runpytest("--codeeval-load-generations=s.jsonl", "--codeeval-save-generations=out.json", *args).assert_outcomes(passed=1, failed=1)
    saved = json.loads((pytester.path / "out.json").read_text())
    assert [len(p) for p in saved] == [0, 0, 0, 1, 0, 1]
    pytester.runpytest("--codeeval-load-generations=out.json", *args).assert_outcomes(passed=1, failed=1)
    assert {pid: p["passed"] for pid, p in report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"].items()} == {
        "HumanEval/3": 1, "HumanEval/5": 0}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"task_id": "HumanEval/0", "completion": "x"}\nnot json\n', "*s.jsonl:2: not valid JSON*"),
        ('{"completion": "x"}\n', "*s.jsonl:1: no 'task_id'*"),
        ('{"task_id": "HumanEval/0", "completion": 3}\n', "*s.jsonl:1: 'completion' is missing or not a string*"),
        ('{"task_id": "Nope/1", "completion": "x"}\n', "*task_id 'Nope/1' not in task 'humaneval'*"),
        ('{"task_id": ["HumanEval/0"], "completion": "x"}\n', "*s.jsonl:1: 'task_id' is list, not a string*"),
        ('{"task_id": "HumanEval/0", "completion": "x", "task": 5}\n', "*s.jsonl:1: 'task' is int, not a task name*"),
        ('{"task_id": "HumanEval/0", "completion": "x"}\n{"task_id": "HumanEval/1", "completion": "x", "task": "nosuch"}\n',
         "*s.jsonl:2: 'task' is unknown task 'nosuch'*"),
        ('{"task_id": "HumanEval/0", "completion": "x", "task": "humaneval"}\n{"task_id": "HumanEval/0", "completion": "x"}\n',
         "*s.jsonl:2: task_id 'HumanEval/0' has no 'task' key here but has one on line 1*"),
        ("[[1, 2]]", "*entry 0 is not a list of strings*"),
        ("[]", "*the file holds no generations*"),
        ("[[], []]", "*the file holds no generations*"),
        (json.dumps([["x"]] * 200), "*200 problems in the file, task 'humaneval' has 164*"),
    ],
)
@pytest.mark.parametrize("workers", ["0", "2"])
def test_malformed_generation_files(pytester: pytest.Pytester, content: str, message: str, workers: str) -> None:
    """One line naming the file (and its line) and the fix, exit status 4, before any item or summary, under xdist
    too: these are usage errors, not collection errors."""
    (pytester.path / "s.jsonl").write_text(content)
    result = pytester.runpytest_subprocess("--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "-n", workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "codeeval summary" not in out
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_a_byte_order_mark_is_read_as_utf8(pytester: pytest.Pytester) -> None:
    """Editors on Windows start UTF-8 files with a byte-order mark; the file is still the samples it holds."""
    line = json.dumps({"task_id": "HumanEval/0", "completion": canonical("HumanEval/0")}) + "\n"
    (pytester.path / "s.jsonl").write_bytes(b"\xef\xbb\xbf" + line.encode())
    pytester.runpytest("--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--codeeval-report=out", "*--codeeval-report=out: is a directory; pass a file path"),
        ("--codeeval-html=plain/r.html", "*--codeeval-html=plain/r.html: plain is not a directory this run can write to*"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_found_before_the_run(pytester: pytest.Pytester, option: str, message: str) -> None:
    (pytester.path / "out").mkdir()
    (pytester.path / "plain").write_text("a file, not a directory")
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=2", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() and "collected" not in result.stdout.str()


def test_a_report_that_cannot_be_written_at_the_end_fails_the_run_and_spares_the_others(pytester: pytest.Pytester) -> None:
    """The directory is fine when the run starts and gone when it ends: the run names the report it could not
    write and fails; the summary and the other reports have the results."""
    (pytester.path / "out").mkdir()
    pytester.makeconftest(
        "import shutil\nfrom pathlib import Path\n\n"
        "def pytest_collection_finish(session):\n"
        "    shutil.rmtree('out')\n    Path('out').write_text('now a file')\n"
    )
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=2", "--codeeval-report=out/r.json",
                                "--codeeval-html=r.html", "--codeeval-save-generations=g.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["humaneval*2*2*2*1.000*",
                                 "codeeval: --codeeval-report=out/r.json: not written (*); the results are in the summary above"])
    assert "Traceback" not in result.stdout.str()
    assert (pytester.path / "r.html").exists() and len((pytester.path / "g.jsonl").read_text().splitlines()) == 2


def test_unknown_task_is_one_clear_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humanevl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown task 'humanevl'; did you mean humaneval*--codeeval-list-tasks lists the * known tasks)"])
    assert "Traceback" not in result.stderr.str()


def test_strict_makes_failing_samples_fail_the_run(pytester: pytest.Pytester) -> None:
    path = _mixed_samples(pytester)
    args = [f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval"]
    assert pytester.runpytest(*args).ret == 0
    assert pytester.runpytest(*args, "--codeeval-strict").ret == pytest.ExitCode.TESTS_FAILED


BROKEN_SANDBOX = """
from pytest_codeeval.sandbox import executor
from pytest_codeeval.sandbox.api import ExecResult

working = executor.ZygoteExecutor.run

def broken_for_problem_0(self, request):
    if "def has_close_elements" in (request.python_source or ""):
        return ExecResult(None, None, False, "", "", machinery_error="zygote: broken on purpose")
    return working(self, request)

def pytest_configure(config):
    executor.ZygoteExecutor.run = broken_for_problem_0

def pytest_unconfigure(config):  # pytester runs in this process: later tests get the real sandbox
    executor.ZygoteExecutor.run = working
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_sample_the_sandbox_could_not_judge_fails_the_run(pytester: pytest.Pytester, workers: str) -> None:
    """`error` is no verdict on the model, and the metrics miss it: the run says so and exits 1 (failing samples
    alone exit 0); the other samples are judged as usual."""
    pytester.makeconftest(BROKEN_SANDBOX)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=3", "-n", workers, "--codeeval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*3 samples (2 passed, 0 failed, 0 timeout, 1 error)*",
                                 "codeeval: 1 sample could not be judged (status error: the sandbox broke*the run fails"])
    samples = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]
    assert [p["samples"][0]["status"] for p in samples.values()] == ["error", "passed", "passed"]
    assert samples["HumanEval/0"]["samples"][0]["detail"] == "sandbox: zygote: broken on purpose"


def test_non_codeeval_failure_still_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_bad():\n    assert False\n")
    path = _mixed_samples(pytester)
    result = pytester.runpytest(f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval", ".")
    result.assert_outcomes(passed=3, failed=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_many_failures_stay_readable(pytester: pytest.Pytester) -> None:
    rows = [{"task_id": tid, "completion": "    return None\n"} for tid in first_ids(40)]
    # A last line of 50000 characters; terminal escapes (a new title, a cleared screen) in an error message.
    rows[0]["completion"] = "    assert False, 'x' * 50000\n"
    rows[1]["completion"] = "    assert False, '\\x1b]0;owned\\x07\\x1b[2J'\n"
    # Bidirectional-text controls: a right-to-left override and an isolate reorder what the terminal shows.
    rows[2]["completion"] = "    assert False, 'ok \\u202e\\u2066gnissap\\u2069'\n"
    write_jsonl(pytester.path / "bad.jsonl", rows)
    result = pytester.runpytest("--codeeval-load-generations=bad.jsonl", "--codeeval-tasks=humaneval")
    result.assert_outcomes(failed=40)
    out = result.stdout.str()
    assert out.count("FAILED codeeval::") == 20
    result.stdout.fnmatch_lines(["*20 more failing samples not listed*"])
    assert max(map(len, out.splitlines())) < 400 and "more characters]" in out
    assert "\x1b" not in out and "\\x1b]0;owned\\x07\\x1b[2J" in out
    assert not {"\u202e", "\u2066", "\u2069"} & set(out) and "ok \\u202e\\u2066gnissap\\u2069" in out


def test_xdist_gives_identical_results(pytester: pytest.Pytester) -> None:
    path = _mixed_samples(pytester)
    args = [f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval", "--codeeval-k=1,2"]
    pytester.runpytest_subprocess(*args, "-n", "2", "--codeeval-report=par.json").assert_outcomes(passed=3, failed=3)
    pytester.runpytest_subprocess(*args, "-n", "0", "--codeeval-report=seq.json").assert_outcomes(passed=3, failed=3)
    par, seq = report(pytester.path / "par.json"), report(pytester.path / "seq.json")

    def verdicts(data: dict) -> dict:
        return {pid: [s["status"] for s in p["samples"]] for pid, p in data["tasks"]["humaneval"]["problems"].items()}

    assert par["tasks"]["humaneval"]["metrics"] == seq["tasks"]["humaneval"]["metrics"] == {"pass@1": 0.5, "pass@2": 1.0}
    assert verdicts(par) == verdicts(seq)


def test_full_humaneval_reference_passes_with_xdist(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "-n", "2", "-q", "--codeeval-report=r.json")
    result.assert_outcomes(passed=164)
    assert report(pytester.path / "r.json")["tasks"]["humaneval"]["metrics"]["pass@1"] == 1.0


def test_a_node_id_the_generations_file_lacks_says_what_it_has(pytester: pytest.Pytester) -> None:
    path = _mixed_samples(pytester)  # two samples of each of the first three problems
    for wanted, message in (
        ("codeeval::humaneval::HumanEval/1::sample5", f"*not found: codeeval::humaneval::HumanEval/1::sample5 (the generations file {path} has 2 samples of HumanEval/1: sample0 to sample1)"),
        ("codeeval::humaneval::HumanEval/9::sample0", "*(the generations file * has 0 samples of HumanEval/9)"),
        ("codeeval::humaneval::Nope/1", "*(task 'humaneval' has no problem 'Nope/1' in this run)"),
        ("codeeval::mbpp::1::sample0", "*(no task 'mbpp' in this run: --codeeval-tasks=mbpp adds it)"),
    ):
        result = pytester.runpytest(wanted, f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([message])


def test_the_summary_speaks_of_one_sample_and_stays_quiet_about_results_after_a_failed_gate(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "s.jsonl", [{"task_id": "HumanEval/0", "completion": "    return None\n"}])
    result = pytester.runpytest("--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "--codeeval-fail-under=pass@1=0.5")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["1 sample (0 passed, 1 failed, 0 timeout, 0 error), 1 distinct program run in *"])
    assert "failing samples are results" not in result.stdout.str()


def test_a_timeout_names_its_limits(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "s.jsonl", [{"task_id": "HumanEval/0", "completion": "    while True:\n        pass\n"}])
    result = pytester.runpytest("--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "--codeeval-timeout=1")
    result.stdout.fnmatch_lines(["*timeout: timed out (1 s CPU; 11 s wall-clock backstop)*"])
