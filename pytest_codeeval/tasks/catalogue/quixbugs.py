"""QuixBugs (Lin et al. 2017), as bigcode-evaluation-harness runs it: 40 Python programs of the Quixey Challenge,
each with a one-line bug. The model is shown the buggy program and writes the fixed one, which runs against the
problem's tests (asserts made from QuixBugs' JSON test cases, or its own test functions for the graph programs).
https://github.com/jkoppel/QuixBugs"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

COMMIT_TOKENS = ["<commit_before>", "<commit_msg>", "<commit_after>", "<|endoftext|>"]
CODE_STOP_WORDS = ["\ndef", "\nclass", "\n#", "\n@", "\nprint", "\nif", "###", "///", "<|endoftext|>"]
# BCEH's --prompt values. Its `prompt_codex` matches its `startswith("prompt")` test first, so it gets the code stop
# words too (the shorter list written for it is never reached); `edit-openai` is rejected by its constructor.
PROMPTS = ("prompt", "prompt_codex", "edit")


def cut_at_last_stop_word(text: str, stop_words: Sequence[str]) -> str:
    """BCEH's `remove_last_block`: drop everything from the last occurrence of any stop word. A text without one is
    kept whole (BCEH keeps nothing of it: see docs/tasks.md)."""
    parts = re.split("(" + "|".join(map(re.escape, stop_words)) + ")", text)
    return text if len(parts) == 1 else "".join(parts[:-2])


class QuixBugs(Task):
    name = "quixbugs"
    description = "repair 40 buggy Python programs of the Quixey Challenge (pass@k, and per program)"
    DATASET_PATH = "Muennighoff/quixbugs"
    SPLIT = "train"
    size = 40
    metrics = ("pass@k", "problem-pass@k")
    default_timeout = 10.0  # BCEH's: some reference programs (levenshtein) take seconds
    id_field = "name"
    required_fields: ClassVar[tuple[str, ...]] = ("name", "buggy_program", "solution", "tests")

    def __init__(self, prompt: str | None = None) -> None:
        self.prompt = prompt or "prompt"
        if self.prompt not in PROMPTS:
            raise CodeevalError(
                f"task 'quixbugs': --codeeval-prompt={self.prompt} is not one of its prompts: {', '.join(PROMPTS)}"
            )
        super().__init__(stop_words=COMMIT_TOKENS if self.prompt == "edit" else CODE_STOP_WORDS)

    def get_prompt(self, doc: Doc) -> str:
        program = doc["buggy_program"]
        if self.prompt == "edit":
            text = f"<commit_before>{program}<commit_msg>Fix bug in {doc['name']}<commit_after>"
        elif self.prompt == "prompt_codex":  # Prenner et al. 2021's Codex repair prompt
            text = f"### fix the bug in the following function\n{program}\n### fixed function"
        else:
            text = f"# Buggy function\n{program}\n# Fixed function\ndef"
        return text.strip()

    def get_reference(self, doc: Doc) -> str:
        return str(doc["tests"]).strip()

    def get_solution(self, doc: Doc) -> str:
        return str(doc["solution"])

    def join_completion(self, doc: Doc, completion: str) -> str:
        """The program is the model's text alone; the plain prompt's final `def` starts it."""
        return "def" + completion if self.prompt == "prompt" else completion

    def postprocess_generation(self, generation: str, idx: int) -> str:
        prompt = self.get_prompt(self.docs[idx])
        output = generation[len(prompt) :] if generation.startswith(prompt) else generation
        return cut_at_last_stop_word(self.join_completion(self.docs[idx], output), self.stop_words)


def register(registry: TaskRegistry) -> None:
    registry.add(QuixBugs)
