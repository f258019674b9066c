"""The Python function-level catalogue (HumanEval variants, HumanEval+, MBPP, MBPP+, instruction HumanEval) on
real-schema local rows: listing, reference self-checks, generations files (under xdist too), bigcode's own MBPP
evaluator data, and MBPP+'s original-tests option. Prompt conformance lives in tests/tasks/catalogue/test_prompts.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import first_ids, problems, report, write_jsonl

pytestmark = pytest.mark.timeout(600)

DATA = Path(__file__).parents[2] / "data"
ROWS = {
    "mbpp": DATA / "mbpp" / "test.jsonl",
    "mbppplus": DATA / "mbppplus" / "test.jsonl",
    "humanevalplus": DATA / "humanevalplus" / "test.jsonl",
    "humanevalplus-unstripped": DATA / "humanevalplus" / "test.jsonl",
    "instruct-humaneval": DATA / "instructhumaneval" / "test.jsonl",
    "instruct-humaneval-nocontext": DATA / "instructhumaneval" / "test.jsonl",
}
NAMES = [*ROWS, "humaneval-unstripped", "instruct_wizard_humaneval"]


def rows(task: str) -> list[dict]:
    return [json.loads(line) for line in ROWS[task].read_text(encoding="utf-8").splitlines()]


def dataset_args(tasks: list[str]) -> list[str]:
    return [f"--codeeval-dataset={t}={ROWS[t]}" for t in tasks if t in ROWS]


def test_every_name_is_listed_with_its_hub_dataset_and_size(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    lines = {line.split()[0]: line.split() for line in result.stdout.lines if line and line.split()[0] in NAMES}
    assert sorted(lines) == sorted(NAMES)
    assert lines["mbpp"][1:4] == ["pass@k", "500", "mbpp"]
    assert lines["mbppplus"][1:4] == ["pass@k", "399", "evalplus/mbppplus"]
    assert lines["humanevalplus-unstripped"][1:4] == ["pass@k", "164", "evalplus/humanevalplus"]
    assert lines["instruct-humaneval-nocontext"][3] == "codeparrot/instructhumaneval"
    assert lines["instruct_wizard_humaneval"][3] == "openai_humaneval"


@pytest.mark.parametrize("task", NAMES)
def test_reference_solutions_pass(pytester: pytest.Pytester, task: str) -> None:
    args = dataset_args([task]) if task in ROWS else ["--codeeval-limit=2"]
    result = pytester.runpytest("--codeeval-model=reference", f"--codeeval-tasks={task}", "--codeeval-strict",
                                "--codeeval-report=r.json", *args)
    result.assert_outcomes(passed=2)
    assert report(pytester.path / "r.json")["tasks"][task]["metrics"]["pass@1"] == 1.0


def _file_lines() -> list[dict]:
    """Per task, one problem with a passing and a failing completion, in each task's completion convention."""
    mbpp, plus, ihe = rows("mbpp")[0], rows("mbppplus")[0], rows("instruct-humaneval")[0]
    he77 = rows("humanevalplus")[0]
    he0 = problems()[first_ids(1)[0]]
    lines = [
        ("mbpp", "11", mbpp["code"], "def remove_Occ(s,ch):\n    return s"),
        ("mbppplus", "3", plus["code"], NOT_PRIME_BUT_FOR_ONE),
        ("humanevalplus", "HumanEval/77", he77["canonical_solution"], "    return True\n"),
        ("humanevalplus-unstripped", "HumanEval/77", he77["canonical_solution"], "    return a >= 0\n"),
        ("humaneval-unstripped", he0["task_id"], he0["canonical_solution"], "    return False\n"),
        ("instruct-humaneval", ihe["task_id"], ihe["canonical_solution"], "    return False\n"),
        ("instruct-humaneval-nocontext", ihe["task_id"], ihe["context"] + ihe["canonical_solution"],
         "def has_close_elements(numbers, threshold):\n    return False\n"),
        ("instruct_wizard_humaneval", he0["task_id"], he0["prompt"] + he0["canonical_solution"],
         "def has_close_elements(numbers, threshold):\n    return True\n"),
    ]
    return [{"task": t, "task_id": pid, "completion": c} for t, pid, good, bad in lines for c in (good, bad)]


# Passes MBPP's four asserts (2, 10, 35, 37) and fails MBPP+'s first input (1 is not prime).
NOT_PRIME_BUT_FOR_ONE = "def is_not_prime(n):\n    return any(n % d == 0 for d in range(2, int(n ** 0.5) + 1))\n"


def test_a_generations_file_runs_every_task_under_xdist(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "gens.jsonl", _file_lines())
    result = pytester.runpytest_subprocess("--codeeval-load-generations=gens.jsonl", "-n", "2", "--codeeval-limit=1",
                                           "--codeeval-report=r.json", *dataset_args(NAMES))
    result.assert_outcomes(passed=len(NAMES), failed=len(NAMES))
    data = report(pytester.path / "r.json")["tasks"]
    assert sorted(data) == sorted(NAMES)
    for task in NAMES:
        (problem,) = data[task]["problems"].values()
        assert (problem["n"], problem["passed"]) == (2, 1), task
        assert data[task]["metrics"]["pass@1"] == 0.5
        assert [s["status"] for s in problem["samples"]] == ["passed", "failed"], task


def test_bigcode_mbpp_evaluator_data_scores_as_bigcode_expects(pytester: pytest.Pytester) -> None:
    """bigcode-evaluation-harness's tests/data/mbpp_eval_gens.json: two problems x two programs, pass@1 = 0.25."""
    result = pytester.runpytest("--codeeval-load-generations=" + str(DATA / "mbpp" / "bceh_eval_gens.json"),
                                "--codeeval-tasks=mbpp", "--codeeval-report=r.json", *dataset_args(["mbpp"]))
    result.assert_outcomes(passed=1, failed=3)
    data = report(pytester.path / "r.json")["tasks"]["mbpp"]
    assert data["metrics"]["pass@1"] == 0.25
    assert {pid: p["passed"] for pid, p in data["problems"].items()} == {"11": 1, "12": 0}


@pytest.mark.parametrize("how", ["default", "option", "ini", "env"])
def test_mbppplus_runs_the_original_mbpp_tests_when_asked(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                            how: str) -> None:
    write_jsonl(pytester.path / "gens.jsonl", [{"task": "mbppplus", "task_id": "3", "completion": NOT_PRIME_BUT_FOR_ONE}])
    args = ["--codeeval-load-generations=gens.jsonl", "--codeeval-limit=1", *dataset_args(["mbppplus"])]
    monkeypatch.delenv("MBPPPLUS_USE_MBPP_TESTS", raising=False)
    if how == "option":
        args.append("--codeeval-mbppplus-mbpp-tests")
    elif how == "ini":
        pytester.makeini("[pytest]\ncodeeval_mbppplus_mbpp_tests = true\n")
    elif how == "env":
        monkeypatch.setenv("MBPPPLUS_USE_MBPP_TESTS", "1")
    result = pytester.runpytest_subprocess(*args)
    if how == "default":
        result.assert_outcomes(failed=1)
    else:
        result.assert_outcomes(passed=1)


def test_a_file_without_the_plus_tests_names_the_missing_field(pytester: pytest.Pytester) -> None:
    broken = [{k: v for k, v in row.items() if k != "test"} for row in rows("mbppplus")]
    write_jsonl(pytester.path / "rows.jsonl", broken)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=mbppplus", "--codeeval-dataset=mbppplus=rows.jsonl")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret != pytest.ExitCode.OK  # found while collecting, as for every task (tests/pytest_plugin/test_datasets.py)
    assert "rows.jsonl: row 1 has no field 'test'" in out and "evalplus/mbppplus" in out
    assert "Traceback" not in out


def test_a_model_continues_the_instruction_tasks_answer_start(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """Generation end to end: the model is asked the instruction, its answer starts with the context (after the
    instruction tokens), and the solution is the context continued, cut after the function."""
    from tiny_models import build

    model = build("gpt2", tmp_path / "gpt2")
    result = pytester.runpytest("--codeeval-model=" + str(model), "--codeeval-tasks=instruct-humaneval",
                                "--codeeval-max-new-tokens=6", "--codeeval-instruction-tokens=Q:,\n,A:\n",
                                "--codeeval-report=r.json", *dataset_args(["instruct-humaneval"]))
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    problems_ = report(pytester.path / "r.json")["tasks"]["instruct-humaneval"]["problems"]
    for row in rows("instruct-humaneval"):
        (sample,) = problems_[row["task_id"]]["samples"]
        header = row["context"][: row["context"].find("def ")]
        assert sample["solution"].startswith(header + "def " + row["entry_point"]), sample["solution"]


@pytest.mark.parametrize(
    ("keyword", "tasks"),
    [
        ("mbpp", {"mbpp"}),  # a task's exact name: mbppplus is not pulled in
        ("humaneval", {"humaneval"}),  # the default task alone, as before the catalogue
        ("humanevalplus or mbppplus", {"humanevalplus", "mbppplus"}),
        ("instruct-humaneval and not nocontext", {"instruct-humaneval"}),
    ],
)
def test_keyword_names_catalogue_tasks(pytester: pytest.Pytester, keyword: str, tasks: set[str]) -> None:
    """A bigcode user's `-k mbpp` finds MBPP without --codeeval-tasks, and loads no other task's data (the
    others' rows are not given: loading them would fail offline)."""
    result = pytester.runpytest("--codeeval-model=reference", "-k", keyword, "--codeeval-limit=1", "--codeeval-report=r.json",
                                *dataset_args(sorted(tasks)))
    assert result.ret == 0, result.stdout.str()
    assert set(report(pytester.path / "r.json")["tasks"]) == tasks


def test_keyword_names_a_family_by_prefix() -> None:
    """An identifier that is no task's name names the tasks it prefixes (then -k itself decides which run)."""
    from pytest_codeeval.pytest_plugin.selection import keyword_tasks

    names = [f"perturbed-humaneval-format-num_seeds_{i}" for i in range(1, 11)] + ["humaneval", "humaneval-unstripped"]
    assert keyword_tasks("perturbed-humaneval-format", names) == names[:10]
    assert keyword_tasks("humaneval", names) == ["humaneval"]
    assert keyword_tasks("not perturbed", names) == names[:10]
    assert keyword_tasks("HumanEval/1", names) == []
