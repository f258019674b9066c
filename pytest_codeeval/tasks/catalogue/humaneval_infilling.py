"""HumanEval infilling (Bavarian et al. 2022, "Efficient Training of Language Models to Fill in the Middle"):
HumanEval's solutions with a line, several lines or a random span cut out; the model fills the hole between prefix
and suffix (fill-in-the-middle generation) and the whole function runs against HumanEval's tests.
https://github.com/openai/human-eval-infilling"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_codeeval.tasks.base import Doc, Task
from pytest_codeeval.tasks.registry import TaskRegistry

# task name suffix -> (hub config, problems)
BENCHMARKS = {
    "single-line": ("HumanEval-SingleLineInfilling", 1033),
    "multi-line": ("HumanEval-MultiLineInfilling", 5815),
    "random-span": ("HumanEval-RandomSpanInfilling", 1640),
    "random-span-light": ("HumanEval-RandomSpanInfillingLight", 164),
}


class HumanEvalInfilling(Task):
    """The prompt is the code before the hole, `get_suffix` the code after it; the program is prefix + middle +
    suffix, then the tests, as human-eval-infilling's evaluator builds it."""

    DATASET_PATH = "loubnabnl/humaneval_infilling"  # openai/human-eval-infilling's files on the hub
    required_fields = ("task_id", "entry_point", "prompt", "suffix", "canonical_solution", "test")
    default_timeout = 3.0  # human-eval-infilling's limit, as HumanEval's

    def __init__(self) -> None:
        super().__init__(stop_words=[], requires_execution=True)

    def get_prompt(self, doc: Doc) -> str:
        return doc["prompt"]

    def get_suffix(self, doc: Doc) -> str:
        return doc["suffix"]

    def get_solution(self, doc: Doc) -> str:
        return doc["prompt"] + doc["canonical_solution"]

    def get_reference(self, doc: Doc) -> str:
        return doc["test"] + "\n" + f"check({doc['entry_point']})"

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        return solution + doc["suffix"] + "\n" + self.get_reference(doc)


def register(registry: TaskRegistry) -> None:
    for suffix, (config, size) in BENCHMARKS.items():
        registry.add(type(f"HumanEvalInfilling_{config}", (HumanEvalInfilling,), {
            "name": f"humaneval-infilling-{suffix}", "DATASET_NAME": config, "size": size,
            "description": f"HumanEval infilling, {suffix.replace('-', ' ')}: fill the hole, run the tests (pass@k)",
        }))
