"""MBPP (Austin et al. 2021): ~1,000 entry-level Python problems, each a sentence and three asserts; and MBPP+
(EvalPlus), 399 of them with many more tests. https://github.com/google-research/google-research/tree/master/mbpp

The prompt is InCoder's, as bigcode-evaluation-harness builds it: the description and the first assert in a
docstring, so that the model learns the function's name and signature from the test."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

STOP_WORDS = ["\nclass", "\nassert", '\n"""', "\nprint", "\nif", "\n<|/", "\n```"]
MBPP_TEST_SIZE = 500


class MBPP(Task):
    name = "mbpp"
    description = "500 crowd-sourced Python problems (test split), InCoder-style prompt (pass@k)"
    DATASET_PATH = "mbpp"
    size = MBPP_TEST_SIZE
    default_timeout = 3.0  # bigcode-evaluation-harness's code_eval default
    required_fields: ClassVar[tuple[str, ...]] = ("task_id", "text", "code", "test_list")
    description_field = "text"

    def __init__(self) -> None:
        super().__init__(stop_words=STOP_WORDS, requires_execution=True)

    def get_dataset(self) -> Sequence[Doc]:
        rows = self.hub_rows()
        if self.dataset_override is None and len(rows) != MBPP_TEST_SIZE:
            raise CodeevalError(
                f"task 'mbpp': the hub's test split has {len(rows)} rows, not {MBPP_TEST_SIZE}: an old cached copy of "
                "the 'mbpp' dataset; delete it from the datasets cache (HF_DATASETS_CACHE) and run again"
            )
        return rows

    def get_prompt(self, doc: Doc) -> str:
        return f'"""\n{doc[self.description_field]}\n{doc["test_list"][0]}\n"""\n'

    def get_reference(self, doc: Doc) -> str:
        return "\n".join(doc["test_list"])

    def get_solution(self, doc: Doc) -> str:
        return self.get_prompt(doc) + doc["code"]


class MBPPPlus(MBPP):
    """MBPP+: the hub's `test` runs every EvalPlus input against the ground truth's output. The
    `mbppplus_mbpp_tests` task option (bigcode's MBPPPLUS_USE_MBPP_TESTS=1) runs the original asserts instead."""

    name = "mbppplus"
    description = "399 MBPP problems with EvalPlus's extended tests (pass@k)"
    DATASET_PATH = "evalplus/mbppplus"
    size = 399
    default_timeout = 10.0  # bigcode-evaluation-harness's limit for the plus tests
    required_fields = ("task_id", "prompt", "code", "test_list", "test")
    description_field = "prompt"  # the sanitized MBPP's field

    def __init__(self, mbppplus_mbpp_tests: bool = False) -> None:
        super().__init__()
        self.use_mbpp_tests = mbppplus_mbpp_tests

    def get_dataset(self) -> Sequence[Doc]:
        return self.hub_rows()

    def get_reference(self, doc: Doc) -> str:
        if self.use_mbpp_tests:
            return super().get_reference(doc)
        return "\n" + doc["test"]


def register(registry: TaskRegistry) -> None:
    registry.add(MBPP)
    registry.add(MBPPPlus)
