"""--codeeval-dataset: any task's data from a local file in the hub dataset's schema (air-gapped clusters, and
how every catalogue task is tested here)."""

from __future__ import annotations

import csv
import json

import pytest
from helpers import first_ids, problems, report, write_jsonl

pytestmark = pytest.mark.timeout(300)


def _rows(n: int) -> list[dict]:
    return [problems()[task_id] for task_id in first_ids(n)]


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
def test_a_local_file_replaces_the_dataset(pytester: pytest.Pytester, fmt: str) -> None:
    rows = _rows(3)[1:]  # a subset: positions are the file's order
    path = pytester.path / f"rows.{fmt}"
    if fmt == "jsonl":
        write_jsonl(path, rows)
    elif fmt == "json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    else:
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    result = pytester.runpytest("--codeeval-model=reference", f"--codeeval-dataset=humaneval={path.name}", "-q",
                                "--codeeval-report=r.json")
    result.assert_outcomes(passed=2)
    data = report(pytester.path / "r.json")
    assert list(data["tasks"]["humaneval"]["problems"]) == ["HumanEval/1", "HumanEval/2"]
    assert data["config"]["datasets"] == {"humaneval": str(path.name)}


def test_parquet_and_ini_under_xdist(pytester: pytest.Pytester) -> None:
    import pyarrow
    import pyarrow.parquet

    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(_rows(2)), pytester.path / "rows.parquet")
    pytester.makeini("[pytest]\ncodeeval_datasets =\n    humaneval=rows.parquet\n")
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "-n", "2", "-q")
    result.assert_outcomes(passed=2)


def test_missing_fields_name_the_file_and_the_schema(pytester: pytest.Pytester) -> None:
    rows = _rows(2)
    del rows[1]["test"]
    write_jsonl(pytester.path / "rows.jsonl", rows)
    message = (
        "--codeeval-dataset=humaneval=rows.jsonl: row 2 has no field 'test'; task 'humaneval' needs rows in the schema "
        "of the hub dataset openai_humaneval with the fields task_id, prompt, canonical_solution, test, entry_point"
    )
    for args in ([], ["-n", "2"]):
        result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-dataset=humaneval=rows.jsonl", *args)
        out = result.stdout.str() + result.stderr.str()
        assert result.ret == pytest.ExitCode.USAGE_ERROR and out.count(message) == 1 and "Traceback" not in out


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nosuchtask=rows.jsonl", "*--codeeval-dataset=nosuchtask=rows.jsonl: unknown task 'nosuchtask'*"),
        ("humaneval", "*--codeeval-dataset='humaneval': expected TASK=PATH*"),
        ("humaneval=missing.jsonl", "*--codeeval-dataset=humaneval=missing.jsonl: no such file or directory*"),
        ("humaneval=rows.txt", "*--codeeval-dataset=humaneval=rows.txt: unknown format .txt*"),
    ],
)
def test_bad_dataset_options_are_one_line(pytester: pytest.Pytester, spec: str, message: str) -> None:
    write_jsonl(pytester.path / "rows.jsonl", _rows(1))
    (pytester.path / "rows.txt").write_text("x")
    result = pytester.runpytest("--codeeval-model=reference", f"--codeeval-dataset={spec}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_csv_row_with_extra_fields_names_its_line(pytester: pytest.Pytester) -> None:
    (pytester.path / "rows.csv").write_text("task_id,prompt\nHumanEval/0,x\nHumanEval/1,a,b\n", encoding="utf-8")
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-dataset=humaneval=rows.csv")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *rows.csv:3: 3 fields, the header has 2; quote fields that contain commas*"])


def test_a_task_that_loads_its_own_data_refuses_an_override(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_codeeval.tasks import Task

        class Own(Task):
            name = "own"
            def get_dataset(self):
                return [{"task_id": "a"}]

        def pytest_codeeval_register_tasks(registry):
            registry.add(Own, source="conftest")
        """
    )
    write_jsonl(pytester.path / "rows.jsonl", [{"task_id": "b"}])
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=own", "--codeeval-dataset=own=rows.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *task 'own' loads its data itself and takes no local dataset file*"])


def test_list_tasks_shows_the_hub_dataset(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    result.stdout.fnmatch_lines(["task*metrics*size*dataset*source*", "humaneval*pass@k*164*openai_humaneval*builtin*"])
