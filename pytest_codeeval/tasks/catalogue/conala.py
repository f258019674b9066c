"""One line of code from an instruction, two-shot, scored by BLEU: CoNaLa (Python, Yin et al. 2018) and Concode
(Java, Iyer et al. 2018; CodeXGLUE text-to-code), as bigcode-evaluation-harness prompts and scores them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pytest_codeeval.metrics import FIRST_SAMPLE
from pytest_codeeval.tasks.base import Doc, Task
from pytest_codeeval.tasks.registry import TaskRegistry

# bigcode-evaluation-harness builds its two-shot prompts from a string continued over source lines, so each
# continued line keeps the 19 spaces of its indentation: they are part of the prompt that models see there.
GAP = " " * 19


Shots = tuple[tuple[str, str], tuple[str, str]]


def two_shot_prompt(entry: str, shots: Shots, text: str, labels: tuple[str, str]) -> str:
    """`entry`, then two (source, answer) examples and the question, each under its label."""
    ask, answer = labels
    body = "".join(f"\n{ask}:\n{source}{GAP}\n{answer}:\n{target}{GAP}" for source, target in shots)
    return f"{entry}{body}\n{ask}:\n{text}{GAP}\n{answer}:\n"


class OneLineTwoShot(Task):
    """Shared by CoNaLa and Concode: one line answers (stop at a newline), scored by `evaluate`'s smoothed BLEU."""

    metrics = ("nmt_bleu[smooth]", "exact_match")
    # the harness's BLEU reads each problem's first sample only (`gen[0]`); the all-samples value comes beside it
    aggregations: ClassVar[Mapping[str, str]] = {"nmt_bleu[smooth]": FIRST_SAMPLE}
    pass_threshold = 1.0  # a sample passes when its BLEU is perfect: the reference's tokens exactly
    default_timeout = 10.0
    entry = ""
    shots: Shots

    def __init__(self) -> None:
        super().__init__(stop_words=["\n"], requires_execution=False)

    def instruction(self, doc: Doc) -> str:
        raise NotImplementedError

    def get_prompt(self, doc: Doc) -> str:
        return two_shot_prompt(self.entry, self.shots, self.instruction(doc), ("Instruction", "Solution"))

    def postprocess_generation(self, generation: str, idx: int) -> str:
        # The harness keeps what follows the third "Solution:" line, stripped. Generation stopped at the first
        # newline; like the harness, nothing is cut here (a token may carry text past its newline).
        return generation.split("Solution:\n", 3)[-1].strip()


class Conala(OneLineTwoShot):
    name = "conala"
    description = "CoNaLa: one line of Python from a Stack Overflow intent, two-shot (BLEU)"
    DATASET_PATH = "neulab/conala"
    size = 500
    id_field = "question_id"
    required_fields = ("question_id", "intent", "rewritten_intent", "snippet")
    entry = "Answer the following instructions in one line of Python code:\n"
    shots = (
        ("convert a list of integers into a single integer", "r = int(''.join(map(str, x)))"),
        ("how to convert a datetime string back to datetime object?", "datetime.datetime.strptime(str, '%m/%d/%Y')"),
    )

    def instruction(self, doc: Doc) -> str:
        return str(doc["rewritten_intent"] or doc["intent"]).strip()

    def get_reference(self, doc: Doc) -> str:
        return doc["snippet"]


class Concode(OneLineTwoShot):
    name = "concode"
    description = "Concode (CodeXGLUE text-to-code): one line of Java from its documentation, two-shot (BLEU)"
    DATASET_PATH = "code_x_glue_tc_text_to_code"
    SPLIT = "validation"  # the test split has no answers
    size = 2000
    id_field = "id"
    required_fields = ("id", "nl", "code")
    entry = "Answer the following instructions in a one line of Java code:\n"
    shots = (
        ("get the distance of map coordinates to the center ",
         "float function ( int arg0 , int arg1 ) { int loc0 = arg0 - cx ; int loc1 = arg1 - cy ; "
         "return getSquaredDistance ( loc0 , loc1 ) ; }"),
        ("check if details are parsed", "boolean function ( ) { return isParsed ; }"),
    )

    def instruction(self, doc: Doc) -> str:
        text = str(doc["nl"]).split("concode_field_sep")[0].strip()
        return text[:-1].strip() if text.endswith(".") else text

    def get_reference(self, doc: Doc) -> str:
        return doc["code"]


def register(registry: TaskRegistry) -> None:
    registry.add(Conala)
    registry.add(Concode)
