"""PAL (Gao et al. 2022) on GSM8K and GSM-Hard: the model writes `def solution():`, whose result is the answer.
The program runs in the sandbox under the answer judge; metrics are bigcode-evaluation-harness's accuracy and
num_failed_execution, on the first answer (greedy) or on the majority's answer (majority_voting)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from pytest_codeeval.tasks.base import Doc, Task

NUM_SHOTS = 8
ANSWER_DELIMITER = "#### "
SOLUTION_MARK = "# solution in Python:"
POST_SCRIPT = "print(solution())"
FEW_SHOT_FILE = Path(__file__).parents[1] / "data" / "gsm8k_few_shot_prompts.json"  # bigcode's 8 PAL examples


@cache
def few_shot_prefix() -> str:
    examples = json.loads(FEW_SHOT_FILE.read_text(encoding="utf-8"))
    return "".join(
        f'Q: {q}\n\n{SOLUTION_MARK}\n\n\ndef solution():\n    """{q}"""\n{s}\n\n\n\n\n\n'
        for q, s in zip(examples["questions"][:NUM_SHOTS], examples["solutions"][:NUM_SHOTS], strict=True)
    )


def parse_target(text: str) -> Any:
    """GSM8K's answer after '#### ': an int or float when it reads as one (thousands commas dropped), else the text."""
    text = text.strip()
    plain = text.replace(",", "")
    try:
        return int(plain)
    except ValueError:
        try:
            return float(plain)
        except ValueError:
            return text


class Gsm8kPal(Task):
    name = "pal-gsm8k-greedy"
    description = "GSM8K grade-school math, answered by a program's solution() (PAL, 8-shot); accuracy"
    DATASET_PATH = "gsm8k"
    DATASET_NAME: ClassVar[str | None] = "main"
    SPLIT = "test"
    size = 1319
    runner = "answer"
    metrics: ClassVar[tuple[str, ...]] = ("answer_accuracy",)
    default_timeout = 3.0  # bigcode's pal_code_exec: 3 s per program
    required_fields = ("question", "answer")
    question_field = "question"

    def __init__(self) -> None:
        super().__init__(stop_words=["\n\n\n"], requires_execution=True)

    def problem_id(self, doc: Doc, index: int) -> str:
        return str(index)

    def get_prompt(self, doc: Doc) -> str:
        return f"{few_shot_prefix()}Q: {doc[self.question_field]}\n\n{SOLUTION_MARK}\n\n\n"

    def get_reference(self, doc: Doc) -> Any:
        return parse_target(doc["answer"].split(ANSWER_DELIMITER)[-1])

    def judge_data(self, doc: Doc) -> str:
        return json.dumps({"expected": self.get_reference(doc)})

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        return solution

    def postprocess_generation(self, generation: str, idx: int) -> str:
        """bigcode's: the text after the ninth solution mark (the question's), cut before any next 'Q:'."""
        return self.join_completion(self.docs[idx], generation.split(SOLUTION_MARK, NUM_SHOTS + 1)[-1])

    def join_completion(self, doc: Doc, completion: str) -> str:
        program = completion.strip()
        if "Q:" in program:
            program = program.split("Q:")[0]
        return program + "\n" + POST_SCRIPT

    def split_solution(self, doc: Doc, solution: str) -> str:
        return solution.removesuffix("\n" + POST_SCRIPT)


class Gsm8kPalMajority(Gsm8kPal):
    name = "pal-gsm8k-majority_voting"
    description = "GSM8K with PAL, the majority's answer over each problem's samples; accuracy"
    metrics = ("majority_voting",)


class GsmHardPal(Gsm8kPal):
    name = "pal-gsmhard-greedy"
    description = "GSM-Hard (GSM8K with large numbers), answered by a PAL program; accuracy"
    DATASET_PATH = "reasoning-machines/gsm-hard"
    DATASET_NAME = None
    SPLIT = "train"  # the hub's only split (taken from GSM8K's test split)
    required_fields = ("input", "target")
    question_field = "input"

    def get_reference(self, doc: Doc) -> Any:
        return doc["target"]


class GsmHardPalMajority(GsmHardPal):
    name = "pal-gsmhard-majority_voting"
    description = "GSM-Hard with PAL, the majority's answer over each problem's samples; accuracy"
    metrics = ("majority_voting",)


def register(registry: Any) -> None:
    for task in (Gsm8kPal, Gsm8kPalMajority, GsmHardPal, GsmHardPalMajority):
        registry.add(task)
