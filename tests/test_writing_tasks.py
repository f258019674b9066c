"""Every example of docs/writing-tasks.md runs as written: its file blocks are copied into a fresh directory
and the command under them must pass. Then the rules around tasks: validation errors with file and line,
listing without loading, selection that does not touch other tasks' data, metrics, xdist."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from helpers import report

pytestmark = pytest.mark.timeout(300)

DOC = Path(__file__).resolve().parents[1] / "docs" / "writing-tasks.md"
BLOCK = re.compile(r"```(\w+)(?: file=(\S+))?\n(.*?)```", re.S)


def doc_examples() -> list[tuple[str, dict[str, str], list[str]]]:
    """(section, files, command) per console block, with the file blocks of its section before it."""
    examples, files, section = [], {}, ""
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
    result = pytester.runpytest_subprocess(*command, "--codeeval-report=r.json")
    assert result.ret == 0, result.stdout.str()[-4000:]
    tasks = report(pytester.path / "r.json")["tasks"]
    assert tasks and all(v == pytest.approx(100.0 if m.startswith("bleu") else 1.0) for t in tasks.values() for m, v in t["metrics"].items())


def test_all_four_styles_are_documented() -> None:
    assert [e[0] for e in doc_examples()] == [
        "Python classes (bigcode-evaluation-harness style)", "YAML tasks (lm-evaluation-harness style)",
        "Task directories (CodeSemBench style)", "Resources as pytest fixtures",
    ]


def write_task(pytester: pytest.Pytester, text: str, name: str = "tasks/t.yaml") -> None:
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


BASE = "task: t\ndataset_path: json\ndataset_kwargs: {data_files: d.jsonl}\ndoc_to_text: '{{q}}'\ndoc_to_target: '{{a}}'\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (BASE + "doc_to_txt: x\n", "tasks/t.yaml:6: unknown key 'doc_to_txt' (did you mean 'doc_to_text'?)"),
        (BASE + "metric_list:\n  - metric: blue\n", "tasks/t.yaml:6: unknown metric 'blue'*"),
        (BASE + "metric_list:\n  - metric: exact_match\n    aggregation: mode\n", "tasks/t.yaml:6: aggregation 'mode'*"),
        (BASE + "generation_kwargs: {max_tokens: 3}\n", "tasks/t.yaml:6: unknown generation_kwargs [[]'max_tokens'[]]*"),
        ("task: t\ndataset_path: json\n", "tasks/t.yaml:1: missing required key 'doc_to_text'"),
        (BASE + "include: nowhere.yaml\n", "tasks/t.yaml:6: include: no such file *nowhere.yaml"),
        (BASE + "q: [unclosed\n", "tasks/t.yaml:7: invalid YAML: *"),
        (BASE + "x: !!python/object:os.system echo\n", "tasks/t.yaml:6: invalid YAML: *"),
    ],
    ids=["typo", "metric", "aggregation", "generation", "required", "include", "syntax", "unsafe-tag"],
)
def test_yaml_errors_point_at_file_and_line(pytester: pytest.Pytester, text: str, message: str) -> None:
    write_task(pytester, text)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_list_tasks_loads_nothing(pytester: pytest.Pytester) -> None:
    write_task(pytester, BASE.replace("d.jsonl", "missing.jsonl"))
    pytester.makeconftest(
        "from pytest_codeeval.tasks import Task\n"
        "class Exploding(Task):\n    name = 'exploding'\n    metrics = ('exact_match',)\n"
        "    def get_dataset(self):\n        raise RuntimeError('loaded')\n"
        "def pytest_codeeval_register_tasks(registry):\n    registry.add(Exploding)\n"
    )
    result = pytester.runpytest("--codeeval-list-tasks", "--codeeval-task-path=tasks")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["task*metrics*size*source*", "exploding*exact_match*?*conftest.py*",
                                 "humaneval*pass@k*164*builtin*", "t *exact_match*?*tasks/t.yaml*"])


def test_selection_never_touches_other_tasks_data(pytester: pytest.Pytester) -> None:
    write_task(pytester, BASE.replace("d.jsonl", "missing.jsonl"))
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "--codeeval-limit=2", "-k", "humaneval")
    result.assert_outcomes(passed=2)
    assert pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "-k", "t").ret == pytest.ExitCode.INTERRUPTED


def test_match_metrics_from_generations_and_xdist(pytester: pytest.Pytester) -> None:
    write_task(pytester, BASE + "metric_list:\n  - metric: exact_match\n  - metric: f1\n  - metric: bleu[char]\n")
    (pytester.path / "tasks" / "d.jsonl").write_text("".join(json.dumps({"id": i, "q": f"q{i}", "a": a}) + "\n"
                                                             for i, a in enumerate(["the quick brown fox", "jumps over the dog", "lazy cat sleeps now", "green eggs and ham"])))
    answers = [" the quick brown fox", "jumps over", "x y", "green eggs and ham"]
    lines = [{"task": "t", "task_id": str(i), "completion": a} for i, a in enumerate(answers)]
    (pytester.path / "g.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    args = ["--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks", "-p", "no:randomly"]
    pytester.runpytest(*args, "--codeeval-report=one.json")
    pytester.runpytest(*args, "-n", "2", "--codeeval-report=two.json")
    one, two = (report(pytester.path / n)["tasks"]["t"]["metrics"] for n in ("one.json", "two.json"))
    assert one == two
    assert one["exact_match"] == 0.5 and one["f1"] == pytest.approx((1 + 2 / 3 + 0 + 1) / 4)
    assert 0 < one["bleu[char]"] < 100
