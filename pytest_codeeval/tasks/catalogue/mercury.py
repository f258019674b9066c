"""Mercury (Du et al. 2024): LeetCode problems judged for correctness and for runtime efficiency, by the cputime
judge. https://github.com/Elfsong/Mercury. The eval split (256 problems) with bigcode-evaluation-harness's one-shot
prompt; each problem's stored test cases, converters and reference solutions go to the judge, which times the
sample against the references in the sandbox and gives Mercury's Beyond (beyond@k) next to pass@k."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar

from pytest_codeeval.tasks.base import Doc, Task, stop_at_stop_words

ONE_SHOT_FILE = Path(__file__).parents[1] / "data" / "mercury_one_shot.json"  # bigcode's example (a LeetCode problem)
EXTRA = "pip install 'pytest-codeeval[mercury]'"
# bigcode-evaluation-harness's stop words for Mercury
STOP_WORDS = ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif", "\n```", "<file_sep>", "<｜end▁of▁sentence｜>",
              "\n###", "\n\n\n\n\n", "<|endoftext|>"]


@cache
def one_shot_example() -> dict[str, str]:
    return json.loads(ONE_SHOT_FILE.read_text(encoding="utf-8"))


def _section(question: str, code: str, answer: str, with_code: bool) -> str:
    text = f"### Question\n{question}\n\n"
    if with_code:
        text += f"### Code Prompt\n{code}\n\n"
    return text + f"### Completion\n{answer}" + ("\n\n" if answer else "")


class Mercury(Task):
    name = "mercury"
    description = "Mercury, 256 LeetCode problems: correctness and CPU-time efficiency against references (pass@k, " \
                  "beyond@k)"
    DATASET_PATH = "Elfsong/Mercury"
    SPLIT = "eval"
    size = 256
    runner = "cputime"
    metrics: ClassVar[tuple[str, ...]] = ("pass@k", "beyond@k")
    default_timeout = 10.0  # bigcode's beyond_eval: 10 s per run of a program
    id_field = "slug_name"
    required_fields = ("slug_name", "difficulty", "pretty_content", "solutions", "prompt", "convert_offline",
                       "evaluate_offline", "entry_point", "test_cases")

    def __init__(self) -> None:
        super().__init__(stop_words=STOP_WORDS, requires_execution=True)

    def unavailable(self, doc: Doc | None = None) -> str | None:
        """Mercury's converters build linked lists and trees with lctk, and its evaluator imports sortedcontainers
        for every program (bigcode asks for both)."""
        missing = [m for m in ("lctk", "sortedcontainers") if doc is None and find_spec(m) is None]
        return f"{', '.join(missing)} is not installed: {EXTRA}" if missing else None

    def get_prompt(self, doc: Doc) -> str:
        """bigcode's: the one-shot example, then the question and its starter code, and '### Completion'."""
        example = one_shot_example()
        with_code = bool(doc["prompt"])
        return (_section(example["question"], example["sample_code"], example["answer"], with_code)
                + _section(doc["pretty_content"][0], doc["prompt"], "", with_code))

    def get_reference(self, doc: Doc) -> str:
        return ""

    def get_solution(self, doc: Doc) -> str | None:
        solutions = doc["solutions"]
        return solutions[0]["solution"] if solutions else None

    def postprocess_generation(self, generation: str, idx: int) -> str:
        """bigcode's: the text after the prompt, cut at the first stop word; the program is that text alone."""
        prompt = self.get_prompt(self.docs[idx])
        return stop_at_stop_words(generation[len(prompt):] if generation.startswith(prompt) else generation,
                                  self.stop_words)

    def join_completion(self, doc: Doc, completion: str) -> str:
        return completion

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        return solution

    def judge_data(self, doc: Doc) -> str:
        references: Sequence[Mapping[str, Any]] = doc["solutions"]
        return json.dumps({
            "entry_point": doc["entry_point"], "tests": json.loads(doc["test_cases"]),
            "references": [s["solution"] for s in references],
            "convert": doc["convert_offline"], "evaluate": doc["evaluate_offline"],
        })


def register(registry: Any) -> None:
    registry.add(Mercury)
