"""BLEU agrees with the implementations that published numbers come from, several references per problem count
as several references (end to end, with -n 2 too), and a match sample passes by its task's threshold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.metrics.bleu import codexglue_sentence_bleu, nmt_bleu, sacre_corpus_bleu

pytestmark = pytest.mark.timeout(300)
pytest.importorskip("sacrebleu")

HYPS = [
    "r = int(''.join(map(str, x)))",
    "datetime.datetime.strptime(s, '%Y-%m-%d')",
    "sorted(d.items(), key=lambda x: x[1])",
    "os.remove(path)",
    "return the sum of two numbers .",
    "Returns a list of files in the directory",
    "x",
    "print ( 'hello world' )",
]
REFS = [
    ["r = int(''.join(map(str, x)))"],
    ["datetime.datetime.strptime(str, '%m/%d/%Y')", "datetime.strptime(s, '%Y-%m-%d')"],
    ["sorted(list(d.items()), key=lambda kv: kv[1])"],
    ["os.unlink(path)", "os.remove(path_to_file)", "shutil.rmtree(path)"],
    ["Return the sum of a and b."],
    ["Get all files in a directory , recursively ."],
    ["the quick brown fox"],
    ["print('hello world')", 'print("hello world")'],
]
FIRST = [r[0] for r in REFS]

# Computed once on these lists with the reference implementations (Python 3.11, in a scratch venv):
# - evaluate 0.4.6's metrics/bleu (whose compute_bleu is tensorflow/nmt's nmt/scripts/bleu.py), loaded from its
#   source: evaluate.load("bleu/bleu.py").compute(predictions=HYPS, references=REFS or FIRST, smooth=...)["bleu"];
# - sacrebleu 2.6.0: corpus_bleu(HYPS, reference streams, padded with None).score;
# - CodeXGLUE's evaluator as bigcode-evaluation-harness vendors it (custom_metrics/codexglue_code_to_text_bleu.py):
#   bleuFromMaps of splitPuncts(text.strip().lower()) maps, as its compute_codexglue_code_to_text_bleu builds them.
EVALUATE = {(False, "first"): 0.5189875225707224, (False, "all"): 0.7008473725051922,
            (True, "first"): 0.5251666525962055, (True, "all"): 0.7045189685769229}
EVALUATE_PAIRS = {(2, False): 0.52935703975012, (2, True): 0.5506651385650503, (6, False): 0.0, (6, True): 0.04186576731652839}
SACREBLEU = {"first": 51.898752257072246, "all": 70.0847372505192}
CODEXGLUE = {"first": 52.15936931111913, "all": 64.57416064946668}
CODEXGLUE_EACH = [100.0, 100.0, 55.46068420938066, 93.06048591020996, 47.17144363372536, 20.900671442417444, 2.7251749297800835e-76, 100.0]


@pytest.mark.parametrize("smooth", [False, True])
@pytest.mark.parametrize("refs", ["first", "all"])
def test_nmt_bleu_is_evaluates_bleu(smooth: bool, refs: str) -> None:
    assert nmt_bleu(HYPS, FIRST if refs == "first" else REFS, smooth=smooth) == pytest.approx(EVALUATE[smooth, refs], abs=1e-9)


@pytest.mark.parametrize(("index", "smooth"), list(EVALUATE_PAIRS))
def test_nmt_bleu_of_one_pair_with_an_empty_order(index: int, smooth: bool) -> None:
    assert nmt_bleu([HYPS[index]], [REFS[index]], smooth=smooth) == pytest.approx(EVALUATE_PAIRS[index, smooth], abs=1e-12)


@pytest.mark.parametrize("refs", ["first", "all"])
def test_sacrebleu_with_reference_streams_of_unequal_depth(refs: str) -> None:
    assert sacre_corpus_bleu("bleu", "13a", HYPS, FIRST if refs == "first" else REFS) == pytest.approx(SACREBLEU[refs], abs=1e-9)


@pytest.mark.parametrize("refs", ["first", "all"])
def test_codexglue_bleu_is_the_codexglue_evaluator(refs: str) -> None:
    each = [codexglue_sentence_bleu(h, r if refs == "all" else r[0]) for h, r in zip(HYPS, REFS, strict=True)]
    assert sum(each) / len(each) == pytest.approx(CODEXGLUE[refs], abs=1e-9)
    if refs == "all":
        assert each == pytest.approx(CODEXGLUE_EACH, abs=1e-9)


# -- several references end to end: a YAML task whose doc_to_target is a field of lists ----------------------------
TASK = """task: para
dataset_path: json
dataset_kwargs: {data_files: d.jsonl}
doc_to_text: '{{q}}'
doc_to_target: answers
metric_list:
  - metric: bleu
  - metric: nmt_bleu
  - metric: exact_match
"""


def _project(pytester: pytest.Pytester, extra: str = "") -> None:
    rows = [{"id": i, "q": f"q{i}", "answers": refs} for i, refs in enumerate(REFS)]
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks/para.yaml").write_text(TASK + extra)
    (pytester.path / "tasks/d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (pytester.path / "g.jsonl").write_text("".join(
        json.dumps({"task": "para", "task_id": str(i), "completion": h}) + "\n" for i, h in enumerate(HYPS)))


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_list_target_is_several_references(pytester: pytest.Pytester, workers: list[str]) -> None:
    _project(pytester)
    result = pytester.runpytest_subprocess("--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks", "--codeeval-tasks=para",
                                           "--codeeval-report=r.json", *workers)
    data = report(pytester.path / "r.json")["tasks"]["para"]
    assert data["metrics"]["bleu"] == pytest.approx(SACREBLEU["all"], abs=0.01)
    assert data["metrics"]["nmt_bleu"] == pytest.approx(EVALUATE[False, "all"], abs=1e-4)
    assert data["metrics"]["exact_match"] == pytest.approx(1 / 8)  # row 0 only
    assert data["problems"]["1"]["samples"][0]["reference"] == REFS[1]
    result.assert_outcomes(passed=7, failed=1)  # by default a sample passes with BLEU above 0: all but "x"


def test_reference_model_scores_the_first_reference_perfectly(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-task-path=tasks", "--codeeval-tasks=para", "--codeeval-report=r.json")
    result.assert_outcomes(passed=8)
    metrics = report(pytester.path / "r.json")["tasks"]["para"]["metrics"]
    assert metrics == {"bleu": pytest.approx(100.0), "nmt_bleu": pytest.approx(1.0), "exact_match": 1.0}


def test_pass_threshold_decides_pass_and_fail(pytester: pytest.Pytester) -> None:
    _project(pytester, "pass_threshold: 50\n")
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-task-path=tasks", "--codeeval-tasks=para", "--codeeval-report=r.json")
    samples = {pid: p["samples"][0] for pid, p in report(pytester.path / "r.json")["tasks"]["para"]["problems"].items()}
    passed = {pid for pid, s in samples.items() if s["status"] == "passed"}
    assert passed == {pid for pid, s in samples.items() if s["scores"]["bleu"] >= 50}
    assert 0 < len(passed) < 8
    result.assert_outcomes(passed=len(passed), failed=8 - len(passed))
    failed = next(s for s in samples.values() if s["status"] == "failed")
    assert failed["detail"].startswith("wrong answer: bleu = ")


def test_pass_threshold_must_be_a_number(tmp_path: Path) -> None:
    from pytest_codeeval.errors import CodeevalError
    from pytest_codeeval.tasks.yaml_tasks import yaml_task_class

    (tmp_path / "t.yaml").write_text(TASK.replace("dataset_kwargs: {data_files: d.jsonl}\n", "") + "pass_threshold: high\n")
    with pytest.raises(CodeevalError, match=r"t.yaml:\d+: pass_threshold must be a number"):
        yaml_task_class(tmp_path / "t.yaml")


def test_exact_match_takes_any_of_several_references() -> None:
    from pytest_codeeval.metrics import score_sample

    class Task:
        metrics = ("exact_match", "codexglue_bleu")

    second = score_sample(Task, "os.remove(path_to_file)", REFS[3], {})
    assert second["exact_match"] == 1.0 and second["codexglue_bleu"] == pytest.approx(100.0)
    assert score_sample(Task, "os.remove(path_to_file)", REFS[3][0], {})["exact_match"] == 0.0
