"""Python Bugs (He et al. 2022, as CarperAI prepared it), as bigcode-evaluation-harness runs it: a function with one
wrong binary operator (`bin-op`) or one misused variable (`var-misuse`); the model rewrites the function, and the
answer counts when it is the correct function character for character. Nothing runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

STOP_WORDS = ["\nclass", "\n#", "\ndef", "\nassert", '\n"', "\nprint", "\nif",
              "<commit_before>", "<commit_msg>", "<commit_after>", "<|endoftext|>"]
# bug kind -> what the prompt asks for: as a comment (the prompt formats) or as a commit message (edit)
FIXES = {"bin-op": "binary operator", "var-misuse": "incorrect variable name"}
# BCEH's --prompt values; its table also names `prompt_present`, which its prompt builder rejects
PROMPTS = ("prompt", "prompt_carper", "edit")


class PythonBugs(Task):
    name = "python_bugs"
    description = "fix a wrong operator or variable in a Python function (exact match with the correct function)"
    DATASET_PATH = "Muennighoff/python-bugs"
    SPLIT = "train"
    size = 1000
    metrics = ("exact_match",)
    required_fields: ClassVar[tuple[str, ...]] = ("task", "prompt_code", "correct_code")

    def __init__(self, prompt: str | None = None) -> None:
        self.prompt = prompt or "prompt"
        if self.prompt not in PROMPTS:
            raise CodeevalError(
                f"task 'python_bugs': --codeeval-prompt={self.prompt} is not one of its prompts: {', '.join(PROMPTS)}"
            )
        super().__init__(stop_words=STOP_WORDS, requires_execution=False)

    def get_prompt(self, doc: Doc) -> str:
        kind = doc["task"]
        if kind not in FIXES:
            raise CodeevalError(
                f"task 'python_bugs': a row's task is {kind!r}; the dataset's kinds are {', '.join(FIXES)}"
            )
        code = doc["prompt_code"]
        if self.prompt == "edit":
            return f"<commit_before>{code}<commit_msg>Fix {FIXES[kind]}<commit_after>"
        heading = "# A buggy implementation\n#!/usr/bin/python3" if self.prompt == "prompt_carper" else (
            "#!/usr/bin/python3\n# A buggy implementation")
        return f"{heading}\n{code}\n# Fixed {FIXES[kind]}\ndef"

    def get_reference(self, doc: Doc) -> str:
        return str(doc["correct_code"])

    def join_completion(self, doc: Doc, completion: str) -> str:
        """The answer is the model's function: the prompt formats end with its `def`."""
        return completion if self.prompt == "edit" else "def" + completion

    def postprocess_generation(self, generation: str, idx: int) -> str:
        """BCEH's: the function the model wrote, cut to the correct function's length (no stop words, no strip)."""
        doc = self.docs[idx]
        prompt = self.get_prompt(doc)
        output = generation[len(prompt) :] if generation.startswith(prompt) else generation
        return self.join_completion(doc, output)[: len(self.get_reference(doc))]

    def score(
        self, solution: str, reference: str | list[str], doc: Doc, resources: Mapping[str, Any]
    ) -> dict[str, float]:
        """Character for character, as BCEH compares (the shared exact_match ignores whitespace at the ends)."""
        return {"exact_match": float(solution == reference)}


def register(registry: TaskRegistry) -> None:
    registry.add(PythonBugs)
