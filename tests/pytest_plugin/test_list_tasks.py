"""`--codeeval-list-tasks`: fits the terminal (80 columns by default), filtered by `-k` and `--codeeval-tasks`, and
says of each task its language, whether its data is here, whether it has reference solutions."""

from __future__ import annotations

from pathlib import Path

import pytest

MBPP_ROWS = Path(__file__).parents[1] / "data" / "mbpp"


@pytest.fixture(autouse=True)
def terminal(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("HF_HOME", str(tmp_path_factory.mktemp("hf-home")))  # an empty datasets cache
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_DATASETS_CACHE", raising=False)


def listing(result: pytest.RunResult) -> list[str]:
    """The listing's lines: the table and the legend after it (pytest's own header and footer left out)."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith("task "))
    return lines[start : next(i for i, line in enumerate(lines) if i > start and not line.strip())]


def rows(result: pytest.RunResult) -> dict[str, list[str]]:
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith("task "))
    end = next(i for i, line in enumerate(lines) if i > start and " tasks" in line and "." in line)
    return {line.split()[0]: line.split() for line in lines[start + 1 : end]}


def test_the_whole_catalogue_fits_80_columns(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks")
    assert result.ret == 0
    listed = rows(result)
    assert len(listed) == 180 and all(len(line) <= 80 for line in listing(result))
    result.stdout.fnmatch_lines(["180 tasks (descriptions: -v, fewer rows with -k, or a wider terminal)*"])


def test_a_wider_terminal_gets_descriptions(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "132")
    result = pytester.runpytest("--codeeval-list-tasks")
    assert all(len(line) <= 132 for line in listing(result))
    result.stdout.fnmatch_lines(["task *lang *data *refs *size  description",
                                 "humaneval  * Python *packaged *yes *164  164 hand-written Python problems*"])


def test_k_and_tasks_filter_the_rows(pytester: pytest.Pytester) -> None:
    assert sorted(rows(pytester.runpytest("--codeeval-list-tasks", "-k", "lua"))) == ["multiple-lua", "multiple-mbpp-lua"]
    listed = rows(pytester.runpytest("--codeeval-list-tasks", "--codeeval-tasks=humaneval,mbpp*"))
    assert sorted(listed) == ["humaneval", "mbpp", "mbppplus"]
    both = pytester.runpytest("--codeeval-list-tasks", "--codeeval-tasks=multiple-*", "-k", "java and not mbpp")
    assert sorted(rows(both)) == ["multiple-java"]
    both.stdout.fnmatch_lines(["task *lang *data *refs *size  description", "1 of 180 tasks.*"])


def test_language_data_and_references(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "--codeeval-tasks=humaneval,humanevalplus,mbpp,multiple-lua,"
                                "multiple-mbpp-java,apps-introductory,conala")
    listed = rows(result)
    assert listed["humaneval"][1:5] == ["Python", "packaged", "yes", "164"]
    assert listed["humanevalplus"][1:4] == ["Python", "hub", "yes"]
    assert listed["mbpp"][1:4] == ["Python", "hub", "yes"]
    assert listed["multiple-lua"][1:4] == ["Lua", "packaged", "no"]
    assert listed["multiple-mbpp-java"][1:4] == ["Java", "packaged", "no"]  # MultiPL-E's MBPP originals ship too
    assert listed["apps-introductory"][1:4] == ["Python", "hub", "some"]
    assert listed["conala"][3] == "yes"  # a match task: the reference is the answer


def test_local_and_cached_data(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    (tmp_path / "hub" / "datasets--evalplus--mbppplus").mkdir(parents=True)
    rows_file = next(MBPP_ROWS.glob("*.jsonl"))
    result = pytester.runpytest("--codeeval-list-tasks", "--codeeval-tasks=mbpp*", f"--codeeval-dataset=mbpp={rows_file}")
    listed = rows(result)
    assert listed["mbpp"][2] == "local" and listed["mbppplus"][2] == "cached"


def test_verbose_keeps_the_wide_table(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v", "-k", "humanevalplus")
    result.stdout.fnmatch_lines(["task *metrics *size *dataset *source *lang *data *refs *description",
                                 "humanevalplus *pass@k *164 *evalplus/humanevalplus *builtin *Python *hub *yes *HumanEval*"])


def test_a_project_task_is_one_line_whatever_its_description(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "from pytest_codeeval.tasks import Task\n"
        "class Own(Task):\n    name = 'own'\n    metrics = ('exact_match',)\n"
        "    description = 'Answer with the city.\\n\\nOnly its name.'\n"
        "    def get_dataset(self):\n        raise RuntimeError('loaded')\n"
        "def pytest_codeeval_register_tasks(registry):\n    registry.add(Own)\n"
    )
    result = pytester.runpytest("--codeeval-list-tasks", "--codeeval-tasks=own")
    assert result.ret == 0
    assert listing(result)[1].split() == ["own", "Python", "own", "no", "?", "Answer", "with", "the", "city.", "Only",
                                          "its", "name."]
