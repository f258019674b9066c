"""Fixtures for execution tasks (issue 22): values reach `build_program` in samples started ahead of their items,
module-scoped ones per task, with -n 0 and -n 2; a fixture scope that cannot work is refused in one line."""

from __future__ import annotations

import pytest
from helpers import report

pytestmark = pytest.mark.timeout(300)

CONFTEST = """
import pytest
from pytest_codeeval.tasks import Task

@pytest.fixture(scope="module")
def task_name(request):
    return request.node.name  # the module of a task's samples is the task

@pytest.fixture(scope="session")
def offset():
    return 7

def make(task_name):
    class Own(Task):
        name = task_name
        fixtures = ("task_name", "offset")
        def get_dataset(self):
            return [{"task_id": f"p{i}", "i": i} for i in range(12)]
        def get_prompt(self, doc):
            return "def f(i):\\n"
        def get_solution(self, doc):
            return "def f(i):\\n    return i + 7\\n"
        def build_program(self, doc, solution, resources=None):
            return (f"{solution}\\nassert {resources['task_name']!r} == {self.name!r}\\n"
                    f"assert f({doc['i']}) == {doc['i'] + resources['offset']}\\n")
    return Own

def pytest_codeeval_register_tasks(registry):
    registry.add(make("alpha"), source="conftest")
    registry.add(make("beta"), source="conftest")
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_fixture_values_reach_programs_started_ahead(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=alpha,beta", "-p", "no:randomly",
                                           "--codeeval-report=r.json", *workers)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    tasks = report(pytester.path / "r.json")["tasks"]
    assert {name: t["metrics"]["pass@1"] for name, t in tasks.items()} == {"alpha": 1.0, "beta": 1.0}
    assert sum(t["n_samples"] for t in tasks.values()) == 24


@pytest.mark.parametrize("scope", ["function", "class"])
def test_a_fixture_scope_that_cannot_work_is_one_line(pytester: pytest.Pytester, scope: str) -> None:
    pytester.makeconftest(CONFTEST.replace('scope="session"', f'scope="{scope}"'))
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=alpha")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: execution task 'alpha' requests fixture 'offset' ({scope}): its programs are "
                                 "built before their items run, so it may request session- or module-scoped fixtures only*"])
