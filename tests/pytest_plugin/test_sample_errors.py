"""Errors found while a sample is prepared (issue 22): bad input ends the run with one line and exit 4, wherever it
is found (collection, the look-ahead, the item, the model's prepare) and under xdist too; any other failure to
prepare a sample is an error of the run that keeps its problem in the metric."""

from __future__ import annotations

import json

import pytest
from helpers import canonical, first_ids, report, write_jsonl

pytestmark = pytest.mark.timeout(300)

DOCS = [{"id": i, "q": f"q{i}", "answer": f"a{i}"} for i in range(4)]
YAML = "task: f1\ndataset_path: json\ndataset_kwargs: {data_files: d.jsonl}\ndoc_to_text: '{{q}}'\ndoc_to_target: '{{answer}}'\n"


def _write_task(pytester: pytest.Pytester, text: str) -> None:
    tasks = pytester.path / "tasks"
    tasks.mkdir(exist_ok=True)
    (tasks / "f1.yaml").write_text(text, encoding="utf-8")
    (tasks / "d.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")


def _one_line(result: pytest.RunResult, message: str) -> None:
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, out
    assert out.count(message) == 1, out
    assert "Traceback" not in out and "_pytest" not in out and "CallInfo" not in out, out
    assert len(out.splitlines()) < 25, out


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_template_naming_a_missing_column_is_one_line(pytester: pytest.Pytester, workers: list[str]) -> None:
    _write_task(pytester, YAML.replace("doc_to_text: '{{q}}'", "doc_to_text: '{{question}}'"))
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-task-path=tasks", *workers)
    _one_line(result, "f1.yaml:4: doc_to_text: 'question' is undefined (document fields: id, q, answer)")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_reference_naming_a_missing_column_is_one_line(pytester: pytest.Pytester, workers: list[str]) -> None:
    _write_task(pytester, YAML.replace("'{{answer}}'", "'{{gold}}'"))
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-task-path=tasks", *workers)
    _one_line(result, "f1.yaml:5: doc_to_target: 'gold' is undefined (document fields: id, q, answer)")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_bad_data_found_at_collection_is_one_line(pytester: pytest.Pytester, workers: list[str]) -> None:
    (pytester.path / "rows.csv").write_text("task_id,prompt\nHumanEval/0,x\nHumanEval/1,a,b\n", encoding="utf-8")
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-dataset=humaneval=rows.csv", *workers)
    _one_line(result, "rows.csv:3: 3 fields, the header has 2; quote fields that contain commas")


BROKEN_PROGRAM = """
from pytest_codeeval.tasks import Task

class Broken(Task):
    name = "broken"
    def get_dataset(self):
        return [{"task_id": str(i)} for i in range(4)]
    def get_prompt(self, doc):
        return "def f():\\n"
    def get_solution(self, doc):
        return "def f():\\n    return 1\\n"
    def get_reference(self, doc):
        return "assert f() == 1"
    def build_program(self, doc, solution):
        if doc["task_id"] == "2":
            raise KeyError("entry_point")  # a bug of the task, not bad input
        return super().build_program(doc, solution)

def pytest_codeeval_register_tasks(registry):
    registry.add(Broken, source="conftest")
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_sample_that_could_not_be_prepared_is_an_error_of_the_run(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makeconftest(BROKEN_PROGRAM)
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=broken", "-p", "no:randomly",
                                           "--codeeval-report=r.json", *workers)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    data = report(pytester.path / "r.json")["tasks"]["broken"]
    assert data["metrics"]["pass@1"] == pytest.approx(0.75)  # 3 of 4: the problem stays in the metric
    result.stdout.fnmatch_lines(["*not prepared: KeyError: 'entry_point'", "conftest.py:15: in build_program", "*1 sample could not be judged*"])
    assert "_pytest" not in result.stdout.str() and "pytest_codeeval/" not in result.stdout.str()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_generations_file_covering_part_of_a_task_says_so(pytester: pytest.Pytester, workers: list[str]) -> None:
    write_jsonl(pytester.path / "g.jsonl", [{"task_id": first_ids(4)[1], "completion": canonical(first_ids(4)[1])}])
    args = ["--codeeval-load-generations=g.jsonl", "--codeeval-tasks=humaneval", "--codeeval-limit=4", *workers]
    result = pytester.runpytest_subprocess(*args, "--codeeval-report=r.json", "--codeeval-markdown=r.md")
    assert result.ret == pytest.ExitCode.OK  # scored on the problem it has, and said
    result.stdout.fnmatch_lines(["codeeval: humaneval: problems 1 of 4 in the generations file; its metrics cover those only*"])
    assert report(pytester.path / "r.json")["tasks"]["humaneval"]["problems_in_file"] == {"have": 1, "of": 4}
    assert "humaneval: problems 1 of 4 in the generations file" in (pytester.path / "r.md").read_text(encoding="utf-8")
    refused = pytester.runpytest_subprocess(*args, "--codeeval-require-complete")
    assert refused.ret == pytest.ExitCode.TESTS_FAILED
    refused.stdout.fnmatch_lines(["codeeval gate FAILED: humaneval: the generations file has problems 1 of 4 (--codeeval-require-complete*"])
    write_jsonl(pytester.path / "g.jsonl", [{"task_id": t, "completion": canonical(t)} for t in first_ids(4)])
    complete = pytester.runpytest_subprocess(*args, "--codeeval-require-complete")
    assert complete.ret == pytest.ExitCode.OK and "in the generations file" not in complete.stdout.str()


def test_the_header_describes_what_the_run_uses(pytester: pytest.Pytester) -> None:
    _write_task(pytester, YAML)
    (pytester.path / "g.jsonl").write_text(json.dumps({"task": "f1", "task_id": "0", "completion": "a0"}) + "\n")
    match_only = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks")
    match_only.stdout.fnmatch_lines(["codeeval: completions from the generations file g.jsonl; tasks: all"])
    assert "sandbox" not in match_only.stdout.str() and "k: 1" not in match_only.stdout.str()
    executing = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humaneval", "--codeeval-limit=1")
    executing.stdout.fnmatch_lines(["codeeval: completions from reference; tasks: humaneval; k: 1,10,100",
                                    "codeeval sandbox: strict, *"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_missing_function_is_the_only_error(pytester: pytest.Pytester, workers: list[str]) -> None:
    _write_task(pytester, YAML.replace("'{{q}}'", "!function utils.absent"))
    (pytester.path / "tasks" / "utils.py").write_text("def present(doc):\n    return doc['q']\n", encoding="utf-8")
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-task-path=tasks", "codeeval", *workers)
    _one_line(result, "tasks/f1.yaml:4: !function utils.absent: utils.py has no function 'absent'")
    assert "not found" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_prompt_error_found_by_the_models_prepare_is_one_line(pytester: pytest.Pytester, workers: list[str]) -> None:
    """Prompts are built before the model loads (here: one that does not exist), on the xdist controller too."""
    _write_task(pytester, YAML.replace("doc_to_text: '{{q}}'", "doc_to_text: '{{question}}'"))
    result = pytester.runpytest_subprocess("--codeeval-model=/no/such/model-dir", "--codeeval-task-path=tasks",
                                           "--codeeval-tasks=f1", *workers)
    _one_line(result, "f1.yaml:4: doc_to_text: 'question' is undefined (document fields: id, q, answer)")
