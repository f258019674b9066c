"""Scores equal to bigcode-evaluation-harness's on the same outputs (issue 26): its BLEU tasks score each problem's
first sample (`gen[0]`), its Spider BLEU was smoothed. The expected numbers were computed by running the harness's
own `process_results` (commit 8fc5bae; Spider's smoothing settings from its last version with Spider) on these
outputs, with `evaluate`'s `bleu` (tensorflow/nmt's compute_bleu), and are written down here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report, write_jsonl

pytestmark = pytest.mark.timeout(300)
pytest.importorskip("sacrebleu")

DATA = Path(__file__).parents[2] / "data"

# two samples per CoNaLa row: the harness scores the first column alone
CONALA = [
    ["shutil.copy('file.txt', 'file2.txt')", "shutil.copyfile('file.txt', 'copy.txt')"],
    ["len(set(mylist)) == 1", "all(x == mylist[0] for x in mylist)"],
    ["words = open('myfile').split()", "words = open('myfile').read().split()"],
]
BCEH_CONALA = 0.8731569965716333  # the harness's Conala.process_results(CONALA, references)["bleu"]
RUBY = ["Render but returns a valid Rack body. If fibers are defined we return a streaming body.",
        "Renders the body.", "Returns a streaming body that renders the template."]
BCEH_RUBY = 66.09999982155533  # the harness's code-to-text BLEU of [RUBY] (its first sample)
SPIDER_ANSWER = "SELECT name FROM singer"  # for every row
BCEH_SPIDER = 0.040387370648257544  # bleu.compute(..., max_order=4, smooth=True); unsmoothed it is 0.0


def _rows(path: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / path).read_text(encoding="utf-8").splitlines()]


def _generations(pytester: pytest.Pytester, task: str, ids: list[str], samples: list[list[str]]) -> None:
    lines = [{"task": task, "task_id": pid, "completion": text} for pid, texts in zip(ids, samples, strict=True)
             for text in texts]
    write_jsonl(pytester.path / "g.jsonl", lines)


def _metrics(pytester: pytest.Pytester, task: str, path: str, *args: str) -> dict:
    result = pytester.runpytest_subprocess("--codeeval-load-generations=g.jsonl", f"--codeeval-dataset={task}={DATA / path}",
                                           "--codeeval-report=r.json", *args)
    assert result.ret in (0, 1), result.stdout.str() + result.stderr.str()
    return report(pytester.path / "r.json")["tasks"][task]["metrics"]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_conala_scores_the_first_sample_as_bigcode_does(pytester: pytest.Pytester, workers: list[str]) -> None:
    from pytest_codeeval.metrics.bleu import nmt_bleu

    refs = [r["snippet"] for r in _rows("conala/conala.jsonl")]
    _generations(pytester, "conala", [str(r["question_id"]) for r in _rows("conala/conala.jsonl")], CONALA)
    metrics = _metrics(pytester, "conala", "conala/conala.jsonl", *workers)
    assert metrics["nmt_bleu[smooth]"] == pytest.approx(BCEH_CONALA, abs=1e-12)
    every = nmt_bleu([s for row in CONALA for s in row], [r for r in refs for _ in range(2)], smooth=True)
    assert every == pytest.approx(0.7426239, abs=1e-6)  # what this task reported before: not the harness's number
    assert metrics["nmt_bleu[smooth]/all-samples"] == pytest.approx(every, abs=1e-12)
    assert metrics["exact_match"] == pytest.approx(0.5)  # a per-sample mean, not a harness metric: all samples


def test_codexglue_code_to_text_scores_the_first_sample(pytester: pytest.Pytester) -> None:
    pytest.importorskip("mosestokenizer")
    from pytest_codeeval.metrics.bleu import codexglue_sentence_bleu

    _generations(pytester, "codexglue_code_to_text-ruby", ["0"], [RUBY])
    metrics = _metrics(pytester, "codexglue_code_to_text-ruby", "codexglue/code_to_text-ruby.jsonl")
    assert metrics["codexglue_bleu"] == pytest.approx(BCEH_RUBY, abs=1e-9)
    reference = "Render but returns a valid Rack body. If fibers are defined we return a streaming body that renders the template piece by piece."
    mean = sum(codexglue_sentence_bleu(s, reference) for s in RUBY) / 3
    assert metrics["codexglue_bleu/all-samples"] == pytest.approx(mean) and mean == pytest.approx(27.921, abs=1e-3)


def test_one_sample_per_problem_reports_no_all_samples_value(pytester: pytest.Pytester) -> None:
    rows = _rows("conala/conala.jsonl")
    _generations(pytester, "conala", [str(r["question_id"]) for r in rows], [row[:1] for row in CONALA])
    metrics = _metrics(pytester, "conala", "conala/conala.jsonl")
    assert metrics == {"nmt_bleu[smooth]": pytest.approx(BCEH_CONALA, abs=1e-12), "exact_match": pytest.approx(2 / 3)}


def test_spider_bleu_is_smoothed_as_bigcodes(pytester: pytest.Pytester) -> None:
    from pytest_codeeval.metrics.bleu import nmt_bleu

    rows = _rows("spider/validation.jsonl")
    queries = [r["query"] for r in rows]
    # a second sample per row, the gold query: the harness reads the first alone
    _generations(pytester, "spider", [str(i) for i in range(len(rows))], [[SPIDER_ANSWER, q] for q in queries])
    metrics = _metrics(pytester, "spider", "spider/validation.jsonl")
    assert metrics["nmt_bleu[smooth]"] == pytest.approx(BCEH_SPIDER, abs=1e-12)
    assert nmt_bleu([SPIDER_ANSWER] * len(rows), queries) == 0.0  # the unsmoothed score it had
    every = nmt_bleu([s for q in queries for s in (SPIDER_ANSWER, q)], [q for q in queries for _ in range(2)], smooth=True)
    assert metrics["nmt_bleu[smooth]/all-samples"] == pytest.approx(every) and every > 0.5


def test_first_sample_is_an_aggregation_yaml_tasks_may_name(pytester: pytest.Pytester) -> None:
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks/t.yaml").write_text(
        "task: t\ndataset_path: json\ndataset_kwargs: {data_files: d.jsonl}\ndoc_to_text: '{{q}}'\n"
        "doc_to_target: '{{a}}'\nmetric_list:\n  - metric: exact_match\n    aggregation: first-sample\n")
    write_jsonl(pytester.path / "tasks/d.jsonl", [{"id": 0, "q": "1+1", "a": "2"}, {"id": 1, "q": "2+2", "a": "4"}])
    write_jsonl(pytester.path / "g.jsonl", [{"task": "t", "task_id": "0", "completion": c} for c in ("2", "3", "3")]
                + [{"task": "t", "task_id": "1", "completion": c} for c in ("5", "4")])
    result = pytester.runpytest_subprocess("--codeeval-task-path=tasks", "--codeeval-tasks=t",
                                           "--codeeval-load-generations=g.jsonl", "--codeeval-report=r.json")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    metrics = report(pytester.path / "r.json")["tasks"]["t"]["metrics"]
    assert metrics == {"exact_match": 0.5, "exact_match/all-samples": pytest.approx((1 / 3 + 1 / 2) / 2)}
