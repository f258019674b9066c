"""Spider (Yu et al. 2018): one SQL query for a question about a database, two-shot, as bigcode-evaluation-harness
ran it before it dropped the task (scored by BLEU); and, where the user has Spider's databases, execution match:
the query's rows against the gold query's rows, run read-only with a step budget (tasks/sql.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_codeeval.metrics import FIRST_SAMPLE
from pytest_codeeval.tasks.base import Doc, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

DATABASES_ENV = "CODEEVAL_SPIDER_DATABASES"  # Spider's database/ directory: DB_ID/DB_ID.sqlite
ENTRY = "Answer the following instructions in a one line SQL query:\n"
SHOTS = (
    ("How many heads of the departments are older than 56 ?", "SELECT count(*) FROM head WHERE age  >  56"),
    ("List the name, born state and age of the heads of departments ordered by age.",
     "SELECT name ,  born_state ,  age FROM head ORDER BY age"),
)


class Spider(Task):
    name = "spider"
    description = "Spider: one line of SQL for a question, two-shot (BLEU; execution match with the databases)"
    DATASET_PATH = "xlangai/spider"
    SPLIT = "validation"  # the public test set: Spider's dev split
    size = 1034
    # smoothed, as the harness's last Spider task scored it (`max_order=4, smooth=True`), on each problem's first
    # sample as its BLEU tasks of that version read them (`gen[0]`)
    metrics = ("nmt_bleu[smooth]", "execution_match", "exact_match")
    aggregations: ClassVar[Mapping[str, str]] = {"nmt_bleu[smooth]": FIRST_SAMPLE}
    pass_threshold = 1.0  # a perfect BLEU
    required_fields = ("db_id", "question", "query")

    def __init__(self) -> None:
        super().__init__(stop_words=["\n"], requires_execution=False)

    def get_prompt(self, doc: Doc) -> str:
        # the harness's first two-shot format: no spaces after the examples
        shots = "".join(f"\nInstruction:\n{question}\nSolution:\n{query}" for question, query in SHOTS)
        return f"{ENTRY}{shots}\nInstruction:\n{doc['question'].strip()}\nSolution:\n"

    def get_reference(self, doc: Doc) -> str:
        return doc["query"]

    def postprocess_generation(self, generation: str, idx: int) -> str:
        return generation.split("Solution:\n", 3)[-1].split("\n")[0]

    def database(self, doc: Doc) -> Path | None:
        """The problem's SQLite file when the user has Spider's databases (CODEEVAL_SPIDER_DATABASES)."""
        root = os.environ.get(DATABASES_ENV)
        path = Path(root) / doc["db_id"] / f"{doc['db_id']}.sqlite" if root else None
        return path if path is not None and path.is_file() else None

    def score(self, solution: str, reference: Any, doc: Doc, resources: Mapping[str, Any]) -> dict[str, float]:
        scores = super().score(solution, reference, doc, resources)
        database = self.database(doc)
        if database is not None:  # without the database the metric is absent, not zero
            from pytest_codeeval.tasks.sql import same_rows

            scores["execution_match"] = float(same_rows(database, solution, str(reference)))
        return scores


def register(registry: TaskRegistry) -> None:
    registry.add(Spider)
