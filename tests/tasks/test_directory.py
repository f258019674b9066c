"""Task directories (CodeSemBench style): metadata.json, one program file and one gold answer each, scored by
exact match or precision / recall / F1 over answer items or cluster pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.directory_tasks import directory_task_class

pytestmark = pytest.mark.timeout(300)

SEEDS_META = {"name": "aliases", "description": "List the aliases of p.", "language": "c", "authors": "docs",
              "output_type": "List[str]", "metric": "prf1", "tags": ["alias"], "benchmark_type": "per_file",
              "file_glob": "*.c", "gold_answer_pattern": "{stem}.answer"}


def make_dir(root: Path, meta: dict, files: dict[str, str]) -> Path:
    for name, body in {"metadata.json": json.dumps(meta, indent=1), **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return root


def test_seeds_layout_prompts_and_prf1(tmp_path: Path) -> None:
    """The prompt is the program itself; answers are literals in either quote style, compared as sets of items."""
    program = "// Which variables may alias p?\nint main(void) { int x; int *p = &x, *q = p, *r = q; return 0; }\n"
    make_dir(tmp_path, SEEDS_META, {"one.c": program, "one.answer": '["q", "r"]\n', "notes.txt": "ignored"})
    task = directory_task_class(tmp_path)()
    (doc,) = task.docs
    assert (task.size, task.problem_id(doc, 0), task.get_prompt(doc), task.get_solution(doc)) == (1, "one.c", program, '["q", "r"]')
    assert task.metrics == ("precision", "recall", "f1")
    assert task.score("['r', 'q']", doc["answer"], doc, {}) == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert task.score("['q', 's']", doc["answer"], doc, {}) == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert task.score("q", doc["answer"], doc, {}) == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3)}
    assert task.score("I cannot tell", doc["answer"], doc, {})["f1"] == 0.0


def test_codesembench_repository_layout_and_cluster_metric(tmp_path: Path) -> None:
    """CodeSemBench's own spelling: file_pattern, task_type, upper-case language, answers/<file> by default."""
    meta = {"name": "simple_c_alias", "description": "Aliases in C.", "language": "C", "task_type": "per_file",
            "file_pattern": "*.c", "tags": ["alias"], "output_type": "List[str]", "metric": "cluster_prf1", "authors": "x"}
    make_dir(tmp_path, meta, {"a.c": "// which pointers must alias?\n", "answers/a.c": '[["p0", "p"], ["p1", "x", "y"]]'})
    task = directory_task_class(tmp_path)()
    (doc,) = task.docs
    assert (task.language, task.size, doc["id"]) == ("c", 1, "a.c")
    assert task.score('[["p", "p0"], ["y", "x", "p1"]]', doc["answer"], doc, {})["f1"] == 1.0
    # predicted pairs {p-p0, x-y}; gold pairs {p-p0, p1-x, p1-y, x-y}
    assert task.score('[["p", "p0"], ["x", "y"]]', doc["answer"], doc, {}) == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3)}


def test_exact_match_ignores_order_for_sets(tmp_path: Path) -> None:
    make_dir(tmp_path, {**SEEDS_META, "metric": "exact_match", "output_type": "Set[str]"}, {"a.c": "//", "a.answer": "['a', 'b']"})
    task = directory_task_class(tmp_path)()
    (doc,) = task.docs
    assert [task.score(answer, doc["answer"], doc, {}) for answer in ('["b", "a"]', "['a']")] == [{"exact_match": 1.0}, {"exact_match": 0.0}]


@pytest.mark.parametrize(
    "meta, message",
    [
        ("{\n  \"name\": \"x\",\n}", "metadata.json:3: invalid JSON: *"),
        ({"name": "x", "language": "c"}, "metadata.json: missing keys description, metric, file_glob*"),
        ({**{k: v for k, v in SEEDS_META.items() if k != "file_glob"}, "file_globe": "*.c"},
         "metadata.json: missing keys file_glob (did you mean 'file_globe' for 'file_glob'?)*"),
        ({**SEEDS_META, "metric": "accuracy"}, "metadata.json: metric 'accuracy' is not one of exact_match, *"),
        ({**SEEDS_META, "benchmark_type": "per_directory"}, "metadata.json: benchmark_type 'per_directory' is not supported*"),
        ({**SEEDS_META, "gold_answer_pattern": "{base}.gold"}, "metadata.json: gold_answer_pattern '{base}.gold': unknown placeholder*"),
    ],
    ids=["json", "missing", "misspelled", "metric", "type", "pattern"],
)
def test_bad_metadata_names_the_file(pytester: pytest.Pytester, meta: dict | str, message: str) -> None:
    (pytester.path / "tasks" / "x").mkdir(parents=True)
    (pytester.path / "tasks" / "x" / "metadata.json").write_text(meta if isinstance(meta, str) else json.dumps(meta))
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: tasks/x/{message}"])


def test_missing_gold_file_fails_its_task_only(pytester: pytest.Pytester) -> None:
    make_dir(pytester.path / "tasks" / "x", SEEDS_META, {"a.c": "//", "a.answer": "[]", "b.c": "//"})
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "--codeeval-tasks=aliases")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *tasks/x/b.c: no gold answer file tasks/x/b.answer (gold_answer_pattern '{stem}.answer' in tasks/x/metadata.json)"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "--codeeval-limit=1", "-k", "humaneval")
    result.assert_outcomes(passed=1)


def test_reference_and_generations_end_to_end(pytester: pytest.Pytester) -> None:
    root = pytester.path / "tasks" / "aliases"
    make_dir(root, SEEDS_META, {"a.c": "// a\n", "a.answer": '["q"]', "b.c": "// b\n", "b.answer": '["s", "t"]',
                                "c.c": "// c\n", "c.answer": "[]"})
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "--codeeval-tasks=aliases", "--codeeval-strict",
                                "--codeeval-report=r.json")
    result.assert_outcomes(passed=3)
    assert report(pytester.path / "r.json")["tasks"]["aliases"]["metrics"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    rows = [("a.c", "['q']"), ("b.c", "['s', 'x']"), ("c.c", "['q']")]
    (pytester.path / "g.jsonl").write_text("".join(json.dumps({"task": "aliases", "task_id": i, "completion": c}) + "\n" for i, c in rows))
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks", "--codeeval-report=r.json")
    result.assert_outcomes(passed=2, failed=1)
    metrics = report(pytester.path / "r.json")["tasks"]["aliases"]["metrics"]
    assert metrics == {"precision": pytest.approx(1.5 / 3), "recall": pytest.approx(1.5 / 3), "f1": pytest.approx(1.5 / 3)}


def test_registering_reads_only_the_metadata(tmp_path: Path) -> None:
    make_dir(tmp_path, SEEDS_META, {"a.c": "//", "b.c": "//"})
    task_cls = directory_task_class(tmp_path)
    assert (task_cls.name, task_cls.size, task_cls.metrics) == ("aliases", 2, ("precision", "recall", "f1"))
    with pytest.raises(CodeevalError, match=r"/a.c: no gold answer file .*/a.answer"):
        task_cls().get_dataset()
