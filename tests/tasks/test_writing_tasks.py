"""Every example of docs/writing-tasks.md runs as written: its file blocks are copied into a fresh directory
and the section's command must pass with every metric at its best value. Then what holds for all styles:
listing without loading, and selection that never touches other tasks' data."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from helpers import report

pytestmark = pytest.mark.timeout(300)

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-tasks.md"
BLOCK = re.compile(r"^```(\w+)(?: file=(\S+))?\n(.*?)^```$", re.S | re.M)  # fences at line starts only


def doc_examples() -> list[tuple[str, dict[str, str], list[str]]]:
    """(section, files, command) per console block, with the file blocks of its section before it."""
    examples = []
    for part in re.split(r"^## ", DOC.read_text(), flags=re.M)[1:]:
        section, files = part.splitlines()[0], {}
        for lang, name, body in BLOCK.findall(part):
            if name:
                files[name] = body
            elif lang == "console":
                examples.append((section, dict(files), shlex.split(body.strip().removeprefix("$ pytest "))))
    return examples


@pytest.mark.parametrize("section, files, command", doc_examples(), ids=[e[0] for e in doc_examples()])
def test_documented_example_runs(pytester: pytest.Pytester, section: str, files: dict[str, str], command: list[str]) -> None:
    for name, body in files.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    # Temporary directories outside pytester's own: that one is on the subprocess's PYTHONPATH, so the sandbox shows
    # it as it is on the host (0o700), and a sandbox path under it is out of the samples' reach.
    basetemp = pytester.path.parent / f"{pytester.path.name}-basetemp"
    result = pytester.runpytest_subprocess(*command, "--codeeval-report=r.json", f"--basetemp={basetemp}")
    assert result.ret == 0, result.stdout.str()[-4000:]
    tasks = report(pytester.path / "r.json")["tasks"]
    best = {"bleu": 100.0, "num_failed_execution": 0.0}
    assert tasks and all(v == pytest.approx(best.get(m.split("[")[0], 1.0)) for t in tasks.values() for m, v in t["metrics"].items())


def test_all_styles_are_documented_and_tested() -> None:
    assert [e[0] for e in doc_examples()] == [
        "Python classes (bigcode-evaluation-harness style)", "YAML tasks (lm-evaluation-harness style)",
        "Task directories (CodeSemBench style)", "Resources as pytest fixtures",
        "Judges: input/output tests and answers",
        "Fixtures for execution tasks", "Files for execution tasks",
    ]


YAML_TASK = "task: t\ndataset_path: json\ndataset_kwargs: {data_files: missing.jsonl}\ndoc_to_text: '{{q}}'\ndoc_to_target: '{{a}}'\n"
EXPLODING = (
    "from pytest_codeeval.tasks import Task\n"
    "class Exploding(Task):\n    name = 'exploding'\n    metrics = ('exact_match',)\n"
    "    def get_dataset(self):\n        raise RuntimeError('loaded')\n"
    "def pytest_codeeval_register_tasks(registry):\n    registry.add(Exploding)\n"
)


def write_tasks(pytester: pytest.Pytester) -> None:
    """A YAML task whose data file is missing, a task directory, and a conftest task that cannot load."""
    (pytester.path / "tasks" / "sem").mkdir(parents=True)
    (pytester.path / "tasks" / "t.yaml").write_text(YAML_TASK)
    (pytester.path / "tasks" / "sem" / "metadata.json").write_text(
        '{"name": "sem", "description": "d", "language": "c", "metric": "f1", "file_glob": "*.c", "gold_answer_pattern": "{stem}.a"}'
    )
    for name in ("x.c", "y.c"):
        (pytester.path / "tasks" / "sem" / name).write_text("//")
    pytester.makeconftest(EXPLODING)


def test_list_tasks_loads_nothing(pytester: pytest.Pytester) -> None:
    write_tasks(pytester)
    result = pytester.runpytest("--codeeval-list-tasks", "-v", "--codeeval-task-path=tasks")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["task*metrics*size*source*description", "exploding*exact_match*?*conftest.py*",
                                 "humaneval*pass@k*164*builtin*", "sem*f1*2*tasks/sem*d", "t *exact_match*?*tasks/t.yaml*"])


def test_selection_never_touches_other_tasks_data(pytester: pytest.Pytester) -> None:
    write_tasks(pytester)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "--codeeval-limit=2", "-k", "humaneval")
    result.assert_outcomes(passed=2)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "--codeeval-tasks=t")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *tasks/t.yaml:3: cannot read data file tasks/missing.jsonl: No such file or directory*"])
