"""Spider: listed, reference self-check and a generations file (-n 2 too) on real rows, BLEU beside execution match
against a SQLite database when CODEEVAL_SPIDER_DATABASES has it, and the two-shot prompt of the harness."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.tasks import builtin_registry

pytestmark = pytest.mark.timeout(300)
pytest.importorskip("sacrebleu")

ROWS = Path(__file__).parents[2] / "data" / "spider" / "validation.jsonl"
ARGS = ["--codeeval-tasks=spider", f"--codeeval-dataset=spider={ROWS}", "--codeeval-report=r.json"]


def docs() -> list[dict]:
    return [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]


def concert_singer(root: Path) -> Path:
    """A database in concert_singer's schema for its singer table, with a few rows made up for the test."""
    path = root / "concert_singer" / "concert_singer.sqlite"
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE singer (Singer_ID int, Name text, Country text, Song_Name text, Song_release_year text, "
               "Age int, Is_male bool)")
    db.executemany("INSERT INTO singer VALUES (?, ?, ?, ?, ?, ?, ?)", [
        (1, "Ann", "France", "Sun", "2001", 52, 0), (2, "Bob", "Netherlands", "Rain", "1999", 32, 1),
        (3, "Cid", "France", "Wind", "2010", 41, 1)])
    db.commit()
    db.close()
    return root


def test_listed_and_reference_self_check(pytester: pytest.Pytester) -> None:
    assert "xlangai/spider" in pytester.runpytest("--codeeval-list-tasks", "-v").stdout.str()
    pytester.runpytest("--codeeval-model=reference", *ARGS, "--codeeval-strict").assert_outcomes(passed=5)
    metrics = report(pytester.path / "r.json")["tasks"]["spider"]["metrics"]
    assert metrics == {"nmt_bleu[smooth]": pytest.approx(1.0), "exact_match": 1.0}  # no databases: no execution match


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_execution_match_beside_bleu(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]) -> None:
    monkeypatch.setenv("CODEEVAL_SPIDER_DATABASES", str(concert_singer(pytester.path / "database")))
    answers = ["SELECT count(*) FROM singer", "SELECT count(Singer_ID) FROM singer",  # same rows, other text
               "SELECT name, country, age FROM singer ORDER BY age", "DROP TABLE singer",
               "SELECT avg(age) ,  min(age) ,  max(age) FROM singer WHERE country  =  'France'"]
    (pytester.path / "g.jsonl").write_text("".join(
        json.dumps({"task": "spider", "task_id": str(i), "completion": a}) + "\n" for i, a in enumerate(answers)))
    result = pytester.runpytest_subprocess("--codeeval-load-generations=g.jsonl", *ARGS, *workers)
    result.assert_outcomes(passed=2, failed=3)  # a sample passes on a perfect BLEU
    task = report(pytester.path / "r.json")["tasks"]["spider"]
    samples = [task["problems"][str(i)]["samples"][0]["scores"] for i in range(5)]
    assert [s["execution_match"] for s in samples] == [1.0, 1.0, 1.0, 0.0, 1.0]  # row 2's order is not asked for
    assert task["metrics"]["execution_match"] == pytest.approx(0.8)
    assert 0 < task["metrics"]["nmt_bleu[smooth]"] < 1 and task["metrics"]["exact_match"] == pytest.approx(0.4)
    assert (pytester.path / "database/concert_singer/concert_singer.sqlite").stat().st_size > 0  # DROP was refused


def test_prompt_and_postprocessing_are_bigcodes() -> None:
    registry = builtin_registry()
    registry.use_datasets([("spider", ROWS)])
    task = registry.get("spider")
    doc = task.docs[0]
    # bigcode-evaluation-harness's lm_eval/utils.py spider_prompt (Dec 2022), written down
    expected = ("Answer the following instructions in a one line SQL query:\n"
                "\nInstruction:\nHow many heads of the departments are older than 56 ?"
                "\nSolution:\nSELECT count(*) FROM head WHERE age  >  56"
                "\nInstruction:\nList the name, born state and age of the heads of departments ordered by age."
                "\nSolution:\nSELECT name ,  born_state ,  age FROM head ORDER BY age"
                "\nInstruction:\nHow many singers do we have?\nSolution:\n")
    assert task.get_prompt(doc) == expected
    # its post-processing: after the third "Solution:" line, the first line, unstripped
    assert task.postprocess_generation(expected + " SELECT count(*) FROM singer\nInstruction:", 0) == " SELECT count(*) FROM singer"
