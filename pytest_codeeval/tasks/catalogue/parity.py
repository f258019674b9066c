"""Parity (from OpenELM, as bigcode-evaluation-harness runs it): repair a four-bit parity function into which
1 to 5 bugs were put. Five problems, no dataset: the buggy programs are built here. Scored per number of bugs.
BCEH's four prompt formats (`--codeeval-prompt`): `prompt` (the default), `prompt_carper`, `edit` and `diff`."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task, stop_at_stop_words

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

STOP_WORDS = ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif",
              "<commit_before>", "<commit_msg>", "<commit_after>", "<|endoftext|>"]
MAX_BUGS = 5
# --codeeval-prompt: the text before and after the buggy function. The `prompt*` formats end with the fixed
# function's `def`, which the solution takes back; `edit` is a commit, `diff` a patch (the program is the text
# the model writes after it, as BCEH runs it: no patch is applied)
PROMPT_FORMATS = {
    "prompt": ("#!/usr/bin/python3\n# A buggy implementation\n", "\n# Fixed bugs\ndef"),
    "prompt_carper": ("# A buggy implementation\n#!/usr/bin/python3\n", "\n# Fixed bugs\ndef"),
    "edit": ("<commit_before>", "<commit_msg>Fix bugs<commit_after>"),
    "diff": ("<NME> parity.py\n<BEF> ", "\n<MSG> Fixed bugs"),
}


def parity_function(n_bugs: int) -> str:
    """The parity function with its first `n_bugs` of five tokens wrong: b1..b4 become c1..c4, then `% 2`
    becomes `% 3`."""
    names = ["c" if i < n_bugs else "b" for i in range(4)]
    modulus = 3 if n_bugs >= MAX_BUGS else 2
    return ("def parity(b1,b2,b3,b4):\n"
            '    """Return binary parity of a sequence of input bits. Return 0 for even parity, 1 for odd parity."""\n'
            f"    bit_sum = sum([{names[0]}1,{names[1]}2,{names[2]}3,{names[3]}4])\n"
            f"    return bit_sum % {modulus}")


def parity_tests() -> str:
    """One assert over all sixteen inputs, in bigcode's form: (expected == parity(b1, b2, b3, b4)) and ..."""
    inputs = itertools.product(range(2), repeat=4)
    return "assert " + " and ".join(f"({sum(bits) % 2} == parity{bits})" for bits in inputs)


class Parity(Task):
    name = "parity"
    description = "repair a parity function with 1 to 5 bugs, 5 problems (pass@k per number of bugs)"
    size = MAX_BUGS
    metrics = ("pass@k", "problem-pass@k")
    default_timeout = 3.0

    def __init__(self, prompt: str | None = None) -> None:
        super().__init__(stop_words=STOP_WORDS, requires_execution=True)
        self.prompt = prompt or "prompt"
        if self.prompt not in PROMPT_FORMATS:
            raise CodeevalError(f"task 'parity': --codeeval-prompt={self.prompt} is not one of its prompts: "
                                f"{', '.join(PROMPT_FORMATS)}")
        self.answer_opening = "def" if self.prompt.startswith("prompt") else ""

    def get_dataset(self) -> Sequence[Doc]:
        return [{"bugs": n} for n in range(1, MAX_BUGS + 1)]

    def problem_id(self, doc: Doc, index: int) -> str:
        return f"{doc['bugs']}-bugs"

    def get_prompt(self, doc: Doc) -> str:
        before, after = PROMPT_FORMATS[self.prompt]
        return before + parity_function(doc["bugs"]) + after

    def get_reference(self, doc: Doc) -> str:
        return parity_tests()

    def get_solution(self, doc: Doc) -> str:
        return parity_function(0)

    def join_completion(self, doc: Doc, completion: str) -> str:
        return self.answer_opening + completion  # the `prompt*` formats end with the fixed function's `def`

    def postprocess_generation(self, generation: str, idx: int) -> str:
        prompt = self.get_prompt(self.docs[idx])
        output = generation[len(prompt) :] if generation.startswith(prompt) else generation
        return stop_at_stop_words(self.answer_opening + output, self.stop_words).rstrip()


def register(registry: TaskRegistry) -> None:
    registry.add(Parity)
