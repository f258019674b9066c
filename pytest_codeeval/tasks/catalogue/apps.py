"""APPS (Hendrycks et al. 2021): programming problems judged on their input/output tests, by the stdio judge.
https://github.com/hendrycks/apps. Levels introductory, interview, competition, and all; the finetuning prompt
(bigcode-evaluation-harness's default) or the one-shot prompt its documentation gives (`-one-shot` names)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from pytest_codeeval.tasks.base import Doc, Task

LEVELS = ("introductory", "interview", "competition", "all")
ONE_SHOT_FILE = Path(__file__).parents[1] / "data" / "apps_few_shot_prompts.json"  # bigcode's two examples


def io_spec(doc: Doc) -> dict[str, Any]:
    """The problem's tests: {"inputs", "outputs", "fn_name"}; empty when its input_output is missing or not JSON
    (APPS's checker then counts the sample as not compiling)."""
    try:
        spec = json.loads(doc["input_output"]) if doc["input_output"] else {}
    except ValueError:
        spec = {}
    return spec if isinstance(spec, dict) else {}


@cache
def one_shot_prefix() -> str:
    ex = json.loads(ONE_SHOT_FILE.read_text(encoding="utf-8"))
    return ("Implement answers to the following questions:\n"
            f"QUESTION:\n{ex['problem_type1']}\nUse Standard Input format\nANSWER:\n"
            f"{ex['solution_type1']}\nQUESTION:\n{ex['problem_type2']}\nUse Call-Based format\nANSWER:\n"
            f"{ex['solution_type2']}\n")


class Apps(Task):
    name = "apps-all"
    level = "all"
    one_shot = False
    description = "APPS, all 5000 test problems; stdin/stdout and call-based tests (avg/strict accuracy, pass@k)"
    DATASET_PATH = "codeparrot/apps"
    DATASET_NAME = "all"  # the hub's configurations are the levels
    SPLIT = "test"
    size = 5000
    runner = "stdio"
    metrics: ClassVar[tuple[str, ...]] = ("avg_accuracy", "pass@k")
    default_timeout = 4.0  # APPS's checker: 4 s per test
    required_fields = ("problem_id", "question", "solutions", "input_output", "difficulty", "starter_code")

    def __init__(self) -> None:
        super().__init__(stop_words=["\nQUESTION", "\n---", "\nANSWER"], requires_execution=True)

    def get_dataset(self) -> Sequence[Doc]:
        rows = self.hub_rows()
        # a local file in the hub's schema may hold every level: keep this one's, as the hub configuration does
        return rows if self.level == "all" else [r for r in rows if r["difficulty"] == self.level]

    def problem_id(self, doc: Doc, index: int) -> str:
        return str(doc["problem_id"])

    def get_prompt(self, doc: Doc) -> str:
        """bigcode's finetuning prompt: the question, the starter code, and which of the two formats to use."""
        call = "Call-Based" if io_spec(doc).get("fn_name") else "Standard Input"
        prompt = f"\nQUESTION:\n{doc['question']}{doc['starter_code'] or ''}\nUse {call} format\nANSWER:\n"
        return one_shot_prefix() + prompt if self.one_shot else prompt

    def get_reference(self, doc: Doc) -> str:
        return ""

    def reference_solutions(self) -> str:
        return "some"  # APPS leaves some problems without solutions

    def get_solution(self, doc: Doc) -> str | None:
        try:
            solutions = json.loads(doc["solutions"]) if doc["solutions"] else []
        except ValueError:
            solutions = []
        return solutions[0] if solutions else None

    def postprocess_generation(self, generation: str, idx: int) -> str:
        """bigcode's: everything after the first '\\nANSWER:' (the whole text when the prompt was cut)."""
        return generation.split("\nANSWER:", 1)[1] if "\nANSWER:" in generation else generation

    def join_completion(self, doc: Doc, completion: str) -> str:
        return completion

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        return solution

    def judge_data(self, doc: Doc) -> str:
        spec = io_spec(doc)
        tests = {"inputs": spec.get("inputs", []), "outputs": spec.get("outputs", []), "fn_name": spec.get("fn_name")}
        return json.dumps(tests)


def _level(level: str, one_shot: bool) -> type[Apps]:
    suffix = "-one-shot" if one_shot else ""
    setup = "one-shot prompt" if one_shot else "finetuning prompt"
    return type(f"Apps{level.title()}{'OneShot' if one_shot else ''}", (Apps,), {
        "name": f"apps-{level}{suffix}", "level": level, "DATASET_NAME": level, "one_shot": one_shot,
        "__module__": __name__,
        "size": {"introductory": 1000, "interview": 3000, "competition": 1000, "all": 5000}[level],
        "description": f"APPS {level} problems, {setup}; stdin/stdout and call-based tests (avg/strict accuracy, "
                       "pass@k)",
    })


def register(registry: Any) -> None:
    for one_shot in (False, True):
        for level in LEVELS:
            registry.add(_level(level, one_shot))
