"""StudentEval (Babe et al. 2023, https://arxiv.org/abs/2306.04556): 1,749 prompts that 80 beginning programmers
wrote for 48 problems, several per problem. As bigcode-evaluation-harness runs it, only the prompts of the four
subsets are kept (a student's first or last attempt that succeeded or failed with Codex: 1,027 prompts), each is a
problem here, and pass@1 is reported per subset: the mean over its prompts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_codeeval.tasks.base import Doc, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

STOP_WORDS = ["\ndef", "\nclass", "\nif", "\nprint"]
# the dataset's mutually exclusive flags, in BCEH's order of precedence, and the subset each names
SUBSETS = {"is_first_success": "first-success", "is_last_success": "last-success",
           "is_first_failure": "first-failure", "is_last_failure": "last-failure"}


def subset(doc: Doc) -> str | None:
    """The subset a prompt belongs to; None for the attempts in between, which are not evaluated."""
    return next((name for flag, name in SUBSETS.items() if doc[flag]), None)


class StudentEval(Task):
    name = "studenteval"
    description = "1,027 student-written prompts for 48 Python problems (pass@k, and per subset of attempts)"
    DATASET_PATH = "wellesley-easel/StudentEval"
    size = 1027
    metrics = ("pass@k", "group-pass@k")
    default_timeout = 15.0  # BCEH's
    required_fields: ClassVar[tuple[str, ...]] = ("problem", "prompt", "assertions", *SUBSETS)

    def __init__(self) -> None:
        super().__init__(stop_words=STOP_WORDS, requires_execution=True)

    def get_dataset(self) -> Sequence[Doc]:
        return [row for row in self.hub_rows() if subset(row) is not None]

    def problem_id(self, doc: Doc, index: int) -> str:
        """`SUBSET/PROBLEM/N`: the subset first, for the per-subset metric (`group-pass@k`) and for `-k`."""
        return f"{subset(doc)}/{doc['problem']}/{index}"

    def get_prompt(self, doc: Doc) -> str:
        return str(doc["prompt"]).rstrip()

    def get_reference(self, doc: Doc) -> str:
        return str(doc["assertions"])

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        return solution + "\n\n" + self.get_reference(doc)


def register(registry: TaskRegistry) -> None:
    registry.add(StudentEval)
