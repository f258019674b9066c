"""YAML tasks (lm-evaluation-harness style): validation errors with file and line, lm-eval semantics of the
keys, `!function` resolved only beside the YAML file, and match metrics end to end (with -n 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import GenerationSettings
from pytest_codeeval.tasks.yaml_tasks import YamlTask, yaml_task_class

pytestmark = pytest.mark.timeout(300)

BASE = "task: t\ndataset_path: json\ndataset_kwargs: {data_files: d.jsonl}\ndoc_to_text: '{{q}}'\ndoc_to_target: '{{a}}'\n"
DOCS = [{"id": i, "q": f"q{i}", "a": a} for i, a in enumerate(["the quick brown fox", "jumps over the dog", "lazy cat", "Green Eggs"])]


def write(directory: Path, files: dict[str, str]) -> None:
    for name, body in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def make_task(tmp_path: Path, text: str, **files: str) -> YamlTask:
    write(tmp_path, {"t.yaml": text, "d.jsonl": jsonl(DOCS), **files})
    return yaml_task_class(tmp_path / "t.yaml")()


@pytest.mark.parametrize(
    "text, message",
    [
        (BASE + "doc_to_txt: x\n", "tasks/t.yaml:6: unknown key 'doc_to_txt' (did you mean 'doc_to_text'?)"),
        (BASE + "metric_list:\n  - metric: exact_match\n  - metric: blue\n", "tasks/t.yaml:8: task 't': unknown metric 'blue' (did you mean 'bleu'?); known metrics: *"),
        (BASE + "metric_list:\n  - metric: exact_match\n    aggregation: mode\n", "tasks/t.yaml:8: aggregation 'mode': use one of mean, median, first-sample or a function"),
        (BASE + "metric_list:\n  - metric: exact_match\n    ignore_cas: true\n", "tasks/t.yaml:7: metric 'exact_match' has no option 'ignore_cas'; its options: ignore_case*"),
        (BASE + "generation_kwargs:\n  until: [x]\n  max_tokens: 3\n", "tasks/t.yaml:8: unknown generation_kwargs key 'max_tokens'; known: until, max_gen_toks*"),
        (BASE + "generation_kwargs:\n  until: 3\n", "tasks/t.yaml:7: until must be a string or a list of strings"),
        ("task: t\ndataset_path: json\n", "tasks/t.yaml:1: missing required key 'doc_to_text'"),
        (BASE + "include: nowhere.yaml\n", "tasks/t.yaml:6: include: no such file tasks/nowhere.yaml"),
        (BASE + "q: [unclosed\n", "tasks/t.yaml:7: invalid YAML: *"),
        (BASE + "x: !!python/object:os.system echo\n", "tasks/t.yaml:6: invalid YAML: *"),
        (BASE + "filter_list: []\n", "tasks/t.yaml:6: lm-evaluation-harness key 'filter_list' is not supported by pytest-codeeval*"),
        (BASE + "process_results: !function ../evil.f\n", "tasks/t.yaml:6: !function '../evil.f': expected module.function*"),
        (BASE + "description: '{{ q }'\n", "tasks/t.yaml:6: description: template error: *"),
        (BASE + "output_type: multiple_choice\n", "tasks/t.yaml:6: output_type 'multiple_choice' needs log-likelihoods*"),
        (BASE + "test: 'assert True'\nmetric_list:\n  - metric: exact_match\n", "tasks/t.yaml:8: task 't' runs tests (test:), so it is judged by pass@k*"),
        (BASE + "repeats: 0\n", "tasks/t.yaml:6: repeats must be at least 1"),
        (BASE + "num_fewshot: two\n", "tasks/t.yaml:6: num_fewshot must be a whole number, not 'two'"),
        (BASE + "test: '{}'\njudge: stdi\n", "tasks/t.yaml:7: judge 'stdi' needs `test:` (the judge's data) and one of "
         "answer, cputime, humanevalpack-cpp, humanevalpack-go, humanevalpack-java, humanevalpack-js, humanevalpack-rust, "
         "stdio"),
    ],
    ids=["typo", "metric", "aggregation", "option", "generation", "until", "required", "include", "syntax", "unsafe-tag",
         "unsupported", "function-path", "template", "output-type", "execution-metric", "repeats", "type", "judge"],
)
def test_errors_point_at_file_and_line(pytester: pytest.Pytester, text: str, message: str) -> None:
    write(pytester.path, {"tasks/t.yaml": text})
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str()


def test_include_overrides_keys_and_errors_point_at_the_base(tmp_path: Path) -> None:
    write(tmp_path, {"base.yaml": BASE + "num_fewshot: 1\ngeneration_kwargs: {until: [\"\\n\"]}\n", "d.jsonl": jsonl(DOCS)})
    task = make_task(tmp_path, "include: base.yaml\ntask: child\nnum_fewshot: 0\n")
    assert (task.name, task.stop_words, task.get_prompt(DOCS[1])) == ("child", ["\n"], "q1")
    write(tmp_path, {"base.yaml": BASE + "\n\nfewshot_splt: train\n"})
    with pytest.raises(CodeevalError, match=rf"^{tmp_path}/base.yaml:8: unknown key 'fewshot_splt' \(did you mean 'fewshot_split'\?\)$"):
        yaml_task_class(tmp_path / "t.yaml")
    write(tmp_path, {"base.yaml": "include: t.yaml\n"})
    with pytest.raises(CodeevalError, match="includes this file again"):
        yaml_task_class(tmp_path / "t.yaml")


def test_prompts_follow_lm_eval(tmp_path: Path) -> None:
    """description, then num_fewshot examples (doc_to_text + target_delimiter + doc_to_target + fewshot_delimiter),
    then the document; examples come from fewshot_split, else other documents of the evaluated split."""
    shots = [{"q": "s1", "a": "A1"}, {"q": "s2", "a": "A2"}, {"q": "s3", "a": "A3"}]
    text = BASE.replace("d.jsonl", "{test: d.jsonl, train: s.jsonl}") + (
        "fewshot_split: train\nnum_fewshot: 2\ndescription: \"Answer {{ q }}.\\n\\n\"\ntarget_delimiter: ' => '\nfewshot_delimiter: ' | '\n"
    )
    task = make_task(tmp_path, text, **{"s.jsonl": jsonl(shots)})
    assert task.get_prompt(DOCS[0]) == "Answer q0.\n\ns1 => A1 | s2 => A2 | q0"
    task = make_task(tmp_path, BASE + "num_fewshot: 2\n")
    assert task.get_prompt(DOCS[0]) == "q1 jumps over the dog\n\nq2 lazy cat\n\nq0"  # never the document itself
    assert task.get_prompt(DOCS[2]) == "q0 the quick brown fox\n\nq1 jumps over the dog\n\nq2"


def test_fields_functions_and_strict_templates(tmp_path: Path) -> None:
    task = make_task(tmp_path, BASE.replace("'{{q}}'", "q").replace("'{{a}}'", "!function utils.target"),
                     **{"utils.py": "def target(doc):\n    return [doc['a'].upper()]\n"})
    assert (task.get_prompt(DOCS[0]), task.get_reference(DOCS[0]), task.get_solution(DOCS[0])) == ("q0", "THE QUICK BROWN FOX", "THE QUICK BROWN FOX")
    task = make_task(tmp_path, BASE.replace("{{q}}", "{{ question }}"))
    with pytest.raises(CodeevalError, match=r"t.yaml:4: doc_to_text: 'question' is undefined \(document fields: id, q, a\)"):
        task.get_prompt(DOCS[0])


def test_generation_kwargs_repeats_and_size(tmp_path: Path) -> None:
    text = BASE + "repeats: 3\ngeneration_kwargs:\n  until: '</s>'\n  max_gen_toks: 16\n  temperature: 0\n  top_p: 0.5\n"
    task = make_task(tmp_path, text)
    run = GenerationSettings(max_new_tokens=512, temperature=0.2, n_samples=5)
    assert task.generation_settings(run) == GenerationSettings(max_new_tokens=16, temperature=0, top_p=0.5, do_sample=False, n_samples=5)
    assert (task.stop_words, task.repeats, task.size) == (["</s>"], 3, 4)
    assert make_task(tmp_path, BASE).generation_settings(run) is run


def test_a_csv_dataset_has_a_size_without_loading(tmp_path: Path) -> None:
    rows = "id,q,a\n" + "".join(f'{d["id"]},{d["q"]},"{d["a"]}, with a comma\nand a line"\n' for d in DOCS)
    write(tmp_path, {"t.yaml": BASE.replace("d.jsonl", "d.csv"), "d.csv": rows})
    assert yaml_task_class(tmp_path / "t.yaml").size == 4


def test_functions_load_only_from_the_yaml_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`!function helpers.f` never finds helpers.py on sys.path, and nothing is imported at registration."""
    write(tmp_path, {"helpers.py": "def f(references, predictions):\n    return 1.0\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "tasks").mkdir()
    text = BASE + "metric_list:\n  - metric: !function helpers.f\n"
    write(tmp_path / "tasks", {"t.yaml": text, "d.jsonl": jsonl(DOCS)})
    task_cls = yaml_task_class(tmp_path / "tasks" / "t.yaml")
    assert task_cls.metrics == ("f",)
    with pytest.raises(CodeevalError, match=rf"t.yaml:7: !function helpers.f: no file helpers.py in {tmp_path}/tasks$"):
        task_cls()
    write(tmp_path / "tasks", {"helpers.py": "import pathlib\npathlib.Path(__file__).with_name('imported').touch()\n"
                                             "def f(references, predictions):\n    return 0.5\n"})
    task_cls = yaml_task_class(tmp_path / "tasks" / "t.yaml")
    assert not (tmp_path / "tasks" / "imported").exists()
    assert task_cls().score("x", "y", DOCS[0], {}) == {"f": 0.5}
    assert (tmp_path / "tasks" / "imported").exists()


def test_process_results_and_aggregations(pytester: pytest.Pytester) -> None:
    """lm-eval's process_results(doc, results) gives per-sample values; `aggregation` may be median or a function."""
    write(pytester.path, {
        "tasks/t.yaml": BASE + "process_results: !function utils.process_results\nmetric_list:\n"
                               "  - metric: acc\n    aggregation: median\n  - metric: length\n    aggregation: !function utils.largest\n",
        "tasks/d.jsonl": jsonl(DOCS),
        "tasks/utils.py": "def process_results(doc, results):\n    return {'acc': float(results[0] == doc['a']), 'length': len(results[0])}\n"
                          "def largest(values):\n    return max(values)\n",
        "g.jsonl": jsonl([{"task": "t", "task_id": str(i), "completion": c} for i, c in enumerate(["the quick brown fox", "no", "lazy cat", "x"])]),
    })
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks", "--codeeval-report=r.json")
    assert result.ret == 0, result.stdout.str()
    assert report(pytester.path / "r.json")["tasks"]["t"]["metrics"] == {"acc": 0.5, "length": 19.0}


def test_match_metrics_from_generations_are_the_same_with_xdist(pytester: pytest.Pytester) -> None:
    metrics = ("  - metric: exact_match\n    ignore_case: true\n  - metric: f1\n  - metric: bleu[char]\n"
               "  - metric: !function scoring.first_word\n")
    write(pytester.path, {
        "tasks/t.yaml": BASE + "metric_list:\n" + metrics, "tasks/d.jsonl": jsonl(DOCS),
        "tasks/scoring.py": "def first_word(references, predictions):\n"
                            "    return float(references[0].split()[0] == predictions[0].split()[0])\n",
    })
    answers = [" the quick brown fox", "jumps over", "x y", "Green eggs"]
    write(pytester.path, {"g.jsonl": jsonl([{"task": "t", "task_id": str(i), "completion": a} for i, a in enumerate(answers)])})
    args = ["--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks"]
    one = pytester.runpytest_subprocess(*args, "--codeeval-report=one.json")
    two = pytester.runpytest_subprocess(*args, "-n", "2", "--codeeval-report=two.json")
    one.assert_outcomes(passed=2, failed=2)  # a match sample fails when its first metric (exact_match) is 0
    two.assert_outcomes(passed=2, failed=2)
    first, second = (report(pytester.path / n)["tasks"]["t"] for n in ("one.json", "two.json"))
    assert first["metrics"] == second["metrics"]
    m = first["metrics"]
    assert (m["exact_match"], m["first_word"]) == (0.5, 0.75)
    assert m["f1"] == pytest.approx((1 + 2 / 3 + 0 + 1 / 2) / 4)  # f1 is case-sensitive
    assert 0 < m["bleu[char]"] < 100
    sample = first["problems"]["2"]["samples"][0]
    assert (sample["status"], sample["detail"], sample["reference"]) == ("failed", "wrong answer: exact_match = 0", "lazy cat")


def test_execution_task_from_generations(pytester: pytest.Pytester) -> None:
    """`test` makes a YAML task run: prompt + completion + the rendered test, judged by pass@k."""
    write(pytester.path, {
        "tasks/sq.yaml": "task: sq\ndataset_path: csv\ndataset_kwargs: {data_files: sq.csv}\nproblem_id: name\n"
                         "doc_to_text: \"def {{ name }}(n):\\n\"\ntest: \"assert {{ name }}({{ n }}) == {{ n|int * n|int }}\\n\"\n",
        "tasks/sq.csv": "name,n\nsquare,3\nsq,12\n",
        "g.jsonl": jsonl([{"task": "sq", "task_id": "square", "completion": "    return n * n\n"},
                          {"task": "sq", "task_id": "sq", "completion": "    return n + n\n"}]),
    })
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks", "--codeeval-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    task = report(pytester.path / "r.json")["tasks"]["sq"]
    assert task["metrics"] == {"pass@1": 0.5}
    assert task["problems"]["sq"]["samples"][0]["detail"].startswith("assertion failed")
